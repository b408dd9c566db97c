r"""Learned relative-position biases: T5's log-spaced buckets, or simple clipping.

Instead of adding anything to the token vectors, these models add a learned
scalar per head to every attention score, chosen by the offset
$k - q$ between the key's and the query's positions (Shaw et al., 2018; Raffel
et al., 2020). Offsets are grouped into buckets so that a few parameters cover
any length:

* **T5** keeps small offsets exact and groups larger ones logarithmically up to
  `max_distance`; everything farther shares the last bucket. Bidirectional
  models split the buckets between keys before and after the query.
* **clipped** keeps every offset up to `max_distance` exact and clips the rest.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor, nn

from pe._validation import MAX_POSITION, check_choice, check_flag, check_offset, check_size
from pe.nn._common import (
    check_count,
    check_device,
    check_integer_tensor,
    check_lengths,
    check_move,
    check_size_if_known,
    relative_distances,
)

__all__ = ["RelativePositionBias", "relative_position_bucket"]


def relative_position_bucket(
    relative_position: Tensor,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> Tensor:
    """T5's bucket for each offset ``key position - query position``.

    Parameters
    ----------
    relative_position : torch.Tensor
        Integer offsets of any shape.
    bidirectional : bool, default True
        If True, half the buckets are for keys after the query. If False (a
        causal model), only keys before the query are told apart, and keys after
        it share bucket 0 with the query itself.
    num_buckets : int, default 32
        Number of buckets (at least 2; 4 when bidirectional), at most
        ``2**31 - 1``.
    max_distance : int, default 128
        Offsets this far or farther share the last bucket of their direction,
        provided ``max_distance`` exceeds the number of exact buckets
        (``num_buckets // 4`` when `bidirectional`, else ``num_buckets // 2``).
        At or below that, the logarithmic part has no room: T5's own formula
        then divides by ``log(max_distance / exact) <= 0`` and returns buckets
        outside ``[0, num_buckets)`` (huge negative integers when they are
        equal). Here each distance gets its own bucket up to the last bucket of
        its direction, which the farther ones share, and `max_distance` plays
        no part. At most ``2**31 - 1``: every offset farther than that is
        read as ``±(2**31 - 1)``, which lands in the same last bucket.

    Returns
    -------
    torch.Tensor
        int64 tensor of the same shape, values in ``[0, num_buckets)``.

    Raises
    ------
    TypeError, ValueError
        For a `relative_position` that is not a tensor of real integers (a
        float, complex, bool or ``uint64`` tensor), a `bidirectional` that is
        not True or False, or counts outside the ranges above.

    Examples
    --------
    >>> import torch
    >>> from pe.nn.functional import relative_position_bucket
    >>> offsets = torch.tensor([-200, -20, -3, 0, 3, 20, 200])
    >>> relative_position_bucket(offsets)
    tensor([15, 10,  3,  0, 19, 26, 31])
    >>> relative_position_bucket(offsets, bidirectional=False)
    tensor([31, 17,  3,  0,  0,  0,  0])
    """
    check_integer_tensor(relative_position, "relative_position")
    bidirectional = check_flag(bidirectional, name="bidirectional")
    minimum = 4 if bidirectional else 2
    num_buckets = check_count(num_buckets, "num_buckets", minimum=minimum, maximum=MAX_POSITION)
    max_distance = check_count(max_distance, "max_distance", minimum=1, maximum=MAX_POSITION)
    # --8<-- [start:t5-buckets]
    # Farther offsets share the last bucket anyway; clamping first keeps abs()
    # from overflowing at -2**63.
    offset = relative_position.long().clamp(-MAX_POSITION, MAX_POSITION)
    buckets = torch.zeros_like(offset)
    if bidirectional:
        num_buckets //= 2
        buckets = buckets + (offset > 0).long() * num_buckets  # keys after the query: upper half
        distance = offset.abs()
    else:
        distance = (-offset).clamp(min=0)  # only keys before the query are told apart
    exact = num_buckets // 2  # distances 0 .. exact-1 get a bucket each
    if max_distance <= exact:
        return buckets + distance.clamp(max=num_buckets - 1)
    # Beyond that, buckets grow logarithmically up to max_distance.
    scaled = torch.log(distance.float().clamp(min=1) / exact) / math.log(max_distance / exact)
    far = (exact + (scaled * (num_buckets - exact)).long()).clamp(max=num_buckets - 1)
    return buckets + torch.where(distance < exact, distance, far)
    # --8<-- [end:t5-buckets]


class _BiasTable(nn.Embedding):
    """An embedding whose own ``reset_parameters`` draws T5's small initial biases.

    ``nn.Embedding`` resets to a standard deviation of 1; code that re-initialises
    a model module by module (after ``to_empty``, say) would otherwise give
    the biases 50 times the spread the module starts with.
    """

    STD = 0.02

    def reset_parameters(self) -> None:
        nn.init.normal_(self.weight, std=self.STD)


class RelativePositionBias(nn.Module):
    r"""A learned bias per head and per bucket of relative position, for attention scores.

    ``forward(q_len, k_len)`` returns the ``(num_heads, q_len, k_len)`` bias to add
    to the scores $q_i \cdot k_j / \sqrt{d}$ before the softmax.

    Parameters
    ----------
    num_heads : int
        Number of attention heads, at least 1.
    kind : {"t5", "clipped"}, default "t5"
        T5's log-spaced buckets, or every offset up to `max_distance` exact.
    bidirectional : bool, default True
        Tell keys before and after the query apart (encoders); False for causal
        decoders, where later keys are masked anyway.
    num_buckets : int, default 32
        T5 only: number of buckets. (Clipping uses ``2 * max_distance + 1``, or
        ``max_distance + 1`` when causal.)
    max_distance : int, default 128
        T5: where the last bucket starts; clipped: the largest distinct offset.

    Raises
    ------
    TypeError, ValueError
        At construction, for counts that are not positive integers (at least 4
        buckets when bidirectional, 2 when causal), a `bidirectional` that is
        not a bool, or an unknown `kind`. When called, for lengths that are not
        non-negative integers or an `offset` that is not an integer.

    Examples
    --------
    >>> import torch
    >>> from pe.nn import RelativePositionBias
    >>> bias = RelativePositionBias(num_heads=4)
    >>> bias(5, 7).shape
    torch.Size([4, 5, 7])
    >>> clipped = RelativePositionBias(num_heads=2, kind="clipped", max_distance=3)
    >>> clipped.buckets(1, 9)
    tensor([[3, 4, 5, 6, 6, 6, 6, 6, 6]])
    """

    def __init__(
        self,
        num_heads: int,
        *,
        kind: str = "t5",
        bidirectional: bool = True,
        num_buckets: int = 32,
        max_distance: int = 128,
    ) -> None:
        super().__init__()
        self.num_heads = check_count(num_heads, "num_heads")
        self.kind = check_choice(kind, name="kind", choices=("t5", "clipped"))
        self.bidirectional = bidirectional = check_flag(bidirectional, name="bidirectional")
        self.max_distance = check_count(max_distance, "max_distance", maximum=MAX_POSITION)
        if self.kind == "t5":
            self.num_buckets = check_count(
                num_buckets, "num_buckets", minimum=4 if bidirectional else 2, maximum=MAX_POSITION
            )
        else:
            self.num_buckets = (2 if bidirectional else 1) * self.max_distance + 1
        check_size((self.num_buckets, self.num_heads), name="the bias table (buckets, heads)")
        self.bias = _BiasTable(self.num_buckets, self.num_heads)  # normal, std 0.02

    def _apply(self, fn: Any, recurse: bool = True) -> RelativePositionBias:
        check_move(fn)  # a device this torch cannot use: a ValueError, nothing moved
        super()._apply(fn, recurse)  # type: ignore[no-untyped-call]
        return self

    def reset_parameters(self) -> None:
        """Draw the biases again from a normal distribution with standard deviation 0.02."""
        self.bias.reset_parameters()

    def buckets(self, q_len: int, k_len: int, *, offset: int = 0, device: Any = None) -> Tensor:
        """Bucket index of every (query, key) pair, ``(q_len, k_len)`` int64.

        The arguments and errors are those of `forward`; `device` is where the
        result is made.
        """
        q_len, k_len = check_lengths(q_len, k_len)
        check_size_if_known(
            (self.num_heads, q_len, k_len), name="the bias (num_heads, q_len, k_len)"
        )
        offset = check_offset(offset)
        distance = relative_distances(q_len, k_len, offset=offset, device=check_device(device))
        if self.kind == "t5":
            return relative_position_bucket(
                distance,
                bidirectional=self.bidirectional,
                num_buckets=self.num_buckets,
                max_distance=self.max_distance,
            )
        if self.bidirectional:
            return distance.clamp(-self.max_distance, self.max_distance) + self.max_distance
        return (-distance).clamp(0, self.max_distance)

    def forward(self, q_len: int, k_len: int, offset: int = 0) -> Tensor:
        """Return the ``(num_heads, q_len, k_len)`` bias; queries start at position `offset`.

        Parameters
        ----------
        q_len, k_len : int
            Numbers of queries and keys, non-negative integers.
        offset : int, default 0
            Position of the first query, keys being at ``0 .. k_len - 1``: an
            integer within ``±(2**31 - 1)``; when decoding, the number of
            cached keys before the queries.

        Raises
        ------
        TypeError, ValueError
            For lengths that are not non-negative integers or an `offset`
            outside that range.
        """
        index = self.buckets(q_len, k_len, offset=offset, device=self.bias.weight.device)
        values: Tensor = self.bias(index)  # (q_len, k_len, num_heads)
        return values.permute(2, 0, 1)

    def extra_repr(self) -> str:
        return (
            f"num_heads={self.num_heads}, kind={self.kind!r}, bidirectional={self.bidirectional}, "
            f"num_buckets={self.num_buckets}, max_distance={self.max_distance}"
        )
