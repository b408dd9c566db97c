"""Position ids that skip padding, for left- and right-padded batches."""

from __future__ import annotations

import torch
from torch import Tensor

from pe._validation import MAX_POSITION, check_offset, is_integer
from pe.nn._common import check_integer_tensor

__all__ = ["position_ids"]


def position_ids(input_ids: Tensor, pad_id: int, *, start: int = 0, pad_value: int = 0) -> Tensor:
    """Count the real tokens of each sequence from `start`, skipping padding.

    Works for left padding (pads first) and right padding (pads last) alike:
    each real token gets ``start`` plus the number of real tokens before it in
    its row; every padding token gets `pad_value`.

    Parameters
    ----------
    input_ids : torch.Tensor
        Integer token ids of shape ``(..., seq)``.
    pad_id : int
        The padding token's id.
    start : int, default 0
        Position of each sequence's first real token (fairseq-style models use
        ``padding_idx + 1``).
    pad_value : int, default 0
        Position given to padding tokens. 0 is a valid row of any table, so a
        lookup never fails or wraps around (as ``-1`` would, to the last row);
        the attention mask should hide padding anyway.

    Returns
    -------
    torch.Tensor
        int64 tensor of the shape of `input_ids`.

    Raises
    ------
    TypeError
        If `input_ids` is not an integer tensor (complex, bool and ``uint64``
        tensors are refused) or an argument is not an integer.
    ValueError
        If `pad_id` lies outside the range of `input_ids`' dtype (a ``uint8``
        tensor cannot hold 257), `start` or `pad_value` outside
        ``±(2**31 - 1)``, or ``start + seq - 1`` past ``2**31 - 1``.

    Examples
    --------
    >>> import torch
    >>> from pe.nn.functional import position_ids
    >>> ids = torch.tensor([[0, 0, 5, 6, 7],   # left-padded (pad id 0)
    ...                     [5, 6, 7, 8, 0]])  # right-padded
    >>> position_ids(ids, pad_id=0)
    tensor([[0, 0, 0, 1, 2],
            [0, 1, 2, 3, 0]])
    >>> position_ids(ids, pad_id=0, start=2, pad_value=1)  # fairseq's numbering
    tensor([[1, 1, 2, 3, 4],
            [2, 3, 4, 5, 1]])
    """
    check_integer_tensor(input_ids, "input_ids")
    if input_ids.dim() < 1:
        raise ValueError("input_ids must have at least one dimension (the sequence)")
    for name, value in (("pad_id", pad_id), ("start", start), ("pad_value", pad_value)):
        if not is_integer(value):
            raise TypeError(f"{name} must be an integer; got {value!r}")
    info = torch.iinfo(input_ids.dtype)
    if not info.min <= int(pad_id) <= info.max:
        raise ValueError(
            f"pad_id must be a value input_ids can hold: {info.min}..{info.max} for "
            f"{input_ids.dtype}; got {int(pad_id)}, which would wrap around and match "
            "another id"
        )
    pad_value = check_offset(pad_value, name="pad_value")
    start = check_offset(start, name="start")
    if input_ids.shape[-1] and start + input_ids.shape[-1] - 1 > MAX_POSITION:
        raise ValueError(
            f"start must leave room for the sequence: start + seq - 1 = "
            f"{start + input_ids.shape[-1] - 1} is past the largest position, {MAX_POSITION}"
        )
    # --8<-- [start:count]
    real = input_ids != int(pad_id)
    counted = torch.cumsum(real.long(), dim=-1) - 1 + start  # real tokens before, plus start
    return torch.where(real, counted, torch.full_like(counted, int(pad_value)))
    # --8<-- [end:count]
