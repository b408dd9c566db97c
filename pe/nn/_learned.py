"""A learned table of absolute position vectors, as in BERT and GPT-2."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn

from pe._validation import check_d_model, check_offset, check_size
from pe.nn._common import (
    as_position_tensor,
    check_count,
    check_dropout,
    check_index_range,
    check_move,
    check_positions_shape,
    check_positive_real,
    check_sequence,
)

__all__ = ["LearnedPositionalEmbedding"]


class LearnedPositionalEmbedding(nn.Module):
    """Add a learned vector per position: ``dropout(x + weight[positions])``.

    Parameters
    ----------
    max_len : int
        Number of positions with a vector (rows of ``weight``), at least 1.
        There is nothing to say about later positions: asking for one raises a
        `ValueError` naming both numbers.
    d_model : int
        Width of the embeddings; a positive even integer.
    dropout : float, default 0.0
        Dropout probability after the addition, in ``[0, 1)``.
    batch_first : bool, default True
        ``(batch, seq, d_model)`` input if True, else ``(seq, batch, d_model)``.
    init_std : float, default 0.02
        Standard deviation of the normal initialisation (BERT's and GPT-2's);
        a finite real number >= 0.

    Raises
    ------
    TypeError, ValueError
        At construction, for arguments outside the ranges above. When called,
        for an input that is not a floating-point tensor of shape
        ``(batch, seq, d_model)`` (or ``(seq, batch, d_model)``), positions that
        are not integers, or any position outside ``0 .. max_len - 1``.

    Examples
    --------
    >>> import torch
    >>> from pe.nn import LearnedPositionalEmbedding
    >>> embed = LearnedPositionalEmbedding(max_len=16, d_model=8)
    >>> embed.weight.shape
    torch.Size([16, 8])
    >>> embed(torch.zeros(2, 5, 8)).shape
    torch.Size([2, 5, 8])
    """

    def __init__(
        self,
        max_len: int,
        d_model: int,
        dropout: float = 0.0,
        batch_first: bool = True,
        init_std: float = 0.02,
    ) -> None:
        super().__init__()
        self.max_len = check_count(max_len, "max_len")
        self.d_model = check_d_model(d_model)
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first must be True or False; got {batch_first!r}")
        probability = check_dropout(dropout)
        self.init_std = check_positive_real(init_std, "init_std")
        self.batch_first = batch_first
        check_size((self.max_len, self.d_model), name="weight (max_len, d_model)")
        self.weight = nn.Parameter(torch.empty(self.max_len, self.d_model))
        self.reset_parameters()
        self.dropout = nn.Dropout(probability)

    def _apply(self, fn: Any, recurse: bool = True) -> LearnedPositionalEmbedding:
        check_move(fn)  # a device this torch cannot use: a ValueError, nothing moved
        super()._apply(fn, recurse)  # type: ignore[no-untyped-call]
        return self

    def reset_parameters(self) -> None:
        """Draw ``weight`` again from a normal distribution with standard deviation `init_std`.

        Also what a module built on the ``meta`` device needs after
        ``to_empty``, which leaves its memory uninitialised.
        """
        nn.init.normal_(self.weight, std=self.init_std)

    def forward(self, x: Tensor, offset: int = 0, positions: Any = None) -> Tensor:
        """Return ``dropout(x + weight[positions])`` in ``x.dtype``.

        Parameters
        ----------
        x : torch.Tensor
            Embeddings: ``(batch, seq, d_model)`` if `batch_first`, else
            ``(seq, batch, d_model)``; or ``(seq, d_model)``.
        offset : int, default 0
            Position of the first token (e.g. the cache length when decoding).
        positions : torch.Tensor or array_like of int, optional
            Explicit integer positions instead of ``offset .. offset + seq - 1``
            (a tensor, a numpy array or a list): shape ``(seq,)``, or the shape
            of `x` without its last dimension. Give `offset` or `positions`,
            not both: to shift explicit positions, add the offset to them.

        Raises
        ------
        TypeError, ValueError
            For an `x` that is not a floating-point tensor of 2 or 3
            dimensions with width `d_model`, a non-integer `offset` or
            `positions`, `positions` of another shape, both `offset` and
            `positions`, or any position outside ``0 .. max_len - 1``
            (under ``torch.compile`` a position out of range raises a
            `RuntimeError` from the graph instead).
        """
        x = check_sequence(x, "x", self.d_model)
        if x.dim() > 3:
            layout = "(batch, seq, d_model)" if self.batch_first else "(seq, batch, d_model)"
            raise ValueError(
                f"x must have shape {layout} or (seq, d_model) with d_model={self.d_model}; "
                f"got shape {tuple(x.shape)}"
            )
        # --8<-- [start:lookup]
        seq_axis = 0 if (x.dim() == 2 or not self.batch_first) else 1
        seq_len = x.shape[seq_axis]
        if positions is None:
            offset = check_offset(offset)
            if offset < 0 or offset + seq_len > self.max_len:
                raise ValueError(
                    f"positions {offset}..{offset + seq_len - 1} do not fit the {self.max_len} "
                    f"learned positions (max_len={self.max_len}); a learned table has no "
                    "vector for a position it was not built with"
                )
            index = torch.arange(offset, offset + seq_len, device=self.weight.device)
        else:
            if not (isinstance(offset, int) and not isinstance(offset, bool) and offset == 0):
                raise ValueError(
                    f"give either offset or positions, not both; got offset={offset!r} with "
                    "explicit positions (add the offset to the positions instead)"
                )
            index = as_position_tensor(positions).to(self.weight.device)
            check_positions_shape(index, tuple(x.shape), seq_len)
            check_index_range(
                index, self.max_len, f"the {self.max_len} learned positions (max_len)"
            )
        encoding = self.weight[index]
        if x.dim() == 3 and not self.batch_first and encoding.dim() == 2:
            encoding = encoding.unsqueeze(1)
        result: Tensor = self.dropout(x + encoding.to(device=x.device, dtype=x.dtype))
        return result
        # --8<-- [end:lookup]

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, d_model={self.d_model}, batch_first={self.batch_first}"
