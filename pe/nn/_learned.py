"""A learned table of absolute position vectors, as in BERT and GPT-2."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from pe._validation import check_d_model, check_offset
from pe.nn._common import check_count, check_sequence

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
        Standard deviation of the normal initialisation (BERT's and GPT-2's).

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
        if (
            isinstance(dropout, bool)
            or not isinstance(dropout, (int, float))
            or not 0 <= dropout < 1
        ):
            raise ValueError(f"dropout must be a float in [0, 1); got {dropout!r}")
        self.batch_first = batch_first
        self.weight = nn.Parameter(torch.empty(self.max_len, self.d_model))
        nn.init.normal_(self.weight, std=float(init_std))
        self.dropout = nn.Dropout(float(dropout))

    def forward(self, x: Tensor, offset: int = 0, positions: Tensor | None = None) -> Tensor:
        """Return ``dropout(x + weight[positions])`` in ``x.dtype``.

        `offset` and `positions` work as in `SinusoidalPositionalEncoding.forward`.

        Raises
        ------
        TypeError, ValueError
            For an `x` that is not a floating-point ``(batch, seq, d_model)``
            tensor (``(seq, batch, d_model)`` unless `batch_first`), a
            non-integer `offset` or `positions`, or any position outside
            ``0 .. max_len - 1``.
        """
        # --8<-- [start:lookup]
        x = check_sequence(x, "x", self.d_model)
        seq_axis = 0 if (x.dim() == 2 or not self.batch_first) else 1
        seq_len = x.shape[seq_axis]
        if positions is None:
            offset = check_offset(offset)
            index = torch.arange(offset, offset + seq_len, device=self.weight.device)
        else:
            if positions.is_floating_point() or positions.dtype == torch.bool:
                raise TypeError(f"positions must be an integer tensor; got {positions.dtype}")
            index = positions.to(self.weight.device).long()
        if index.numel() and (int(index.min()) < 0 or int(index.max()) >= self.max_len):
            raise ValueError(
                f"positions {int(index.min())}..{int(index.max())} do not fit the "
                f"{self.max_len} learned positions (max_len={self.max_len}); a learned table "
                "has no vector for a position it was not built with"
            )
        encoding = self.weight[index]
        if x.dim() == 3 and not self.batch_first and encoding.dim() == 2:
            encoding = encoding.unsqueeze(1)
        result: Tensor = self.dropout(x + encoding.to(device=x.device, dtype=x.dtype))
        return result
        # --8<-- [end:lookup]

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, d_model={self.d_model}, batch_first={self.batch_first}"
