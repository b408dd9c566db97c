r"""ALiBi: a linear penalty on attention scores by distance, one slope per head.

ALiBi (Press et al., 2022) adds nothing to the token vectors. Head $h$ adds
$-m_h\,|i - j|$ to the score between query $i$ and key $j$, with the fixed
slopes of `pe.alibi_slopes`: distant keys are penalised, steeply in some heads
and gently in others.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn

from pe._alibi import alibi_slopes
from pe._validation import check_offset
from pe.nn._common import (
    check_count,
    check_lengths,
    check_move,
    check_size_if_known,
    relative_distances,
)

__all__ = ["ALiBi"]


class ALiBi(nn.Module):
    r"""Per-head linear distance biases for attention scores.

    ``forward(q_len, k_len)`` returns the ``(num_heads, q_len, k_len)`` float32
    bias $-m_h\,|j - i|$ to add to the scores before the softmax. For a causal
    model this equals the paper's $-m_h (i - j)$ on every key the query may see;
    mask the later keys as usual.

    Parameters
    ----------
    num_heads : int
        Number of heads, 1 to 65,536; the slopes follow `pe.alibi_slopes`.

    Notes
    -----
    The slopes stay float32 when the module is cast (``.half()``,
    ``.to(torch.bfloat16)``), as the sinusoidal table does: the bias comes out
    float32, and rounds once when added to low-precision scores.

    Raises
    ------
    TypeError, ValueError
        At construction, for a `num_heads` that is not a positive integer.
        When called, for lengths that are not non-negative integers or an
        `offset` that is not an integer.

    Examples
    --------
    >>> import torch
    >>> from pe.nn import ALiBi
    >>> alibi = ALiBi(num_heads=2)
    >>> alibi.slopes
    tensor([0.0625, 0.0039])
    >>> alibi(3, 3)[0]
    tensor([[ 0.0000, -0.0625, -0.1250],
            [-0.0625,  0.0000, -0.0625],
            [-0.1250, -0.0625,  0.0000]])
    """

    slopes: Tensor

    def __init__(self, num_heads: int) -> None:
        super().__init__()
        self.num_heads = check_count(num_heads, "num_heads")
        slopes = torch.from_numpy(alibi_slopes(self.num_heads)).float()
        self.register_buffer("slopes", slopes, persistent=False)

    def _apply(self, fn: Any, recurse: bool = True) -> ALiBi:
        # ``.half()`` or ``.to(torch.bfloat16)`` would round the slopes (with 12
        # heads, bfloat16 moves the bias at distance 4095 by about 0.3): move
        # them, keep them float32, and cast the bias where it is added instead.
        check_move(fn)  # a device this torch cannot use: a ValueError, nothing moved
        slopes = self._buffers.pop("slopes")
        assert slopes is not None  # set in __init__, never None
        try:
            super()._apply(fn, recurse)  # type: ignore[no-untyped-call]
        finally:
            target = fn(slopes).device
            if slopes.is_meta and target.type != "meta":
                slopes = torch.from_numpy(alibi_slopes(self.num_heads)).float()
            self._buffers["slopes"] = slopes.to(device=target)
        return self

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
        # --8<-- [start:bias]
        q_len, k_len = check_lengths(q_len, k_len)
        check_size_if_known(
            (self.num_heads, q_len, k_len), name="the bias (num_heads, q_len, k_len)"
        )
        distance = relative_distances(
            q_len, k_len, offset=check_offset(offset), device=self.slopes.device
        )
        return self.slopes[:, None, None] * (-distance.abs()).float()[None, :, :]
        # --8<-- [end:bias]

    def extra_repr(self) -> str:
        return f"num_heads={self.num_heads}"
