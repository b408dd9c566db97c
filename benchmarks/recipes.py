"""The reference recipes `pe` is measured against, each written once.

The benchmark (``python -m benchmarks.table``) times and checks them, and the
"Precision and speed" page's figure (``scripts/fig_precision.py``) draws the
error of (a) against `float64_interleaved`. Each is the code as people copy it,
with its own hard-coded base, in numpy and in torch (the torch versions import
torch when called, so the numpy ones work without it):

(a) `np_common_float32`: float32 angles ``pos * exp(-ln(10000) * 2i/d)``, a table
    of zeros, strided writes of sin and cos (the PyTorch-tutorial recipe);
(b) `np_float64_cast`: angles, sin and cos in float64, cast into a float32 table;
(c) `np_fairseq_concat`: float32 angles with the ``i/(d/2 - 1)`` exponent, sin
    and cos concatenated (fairseq's layout);

plus `np_fill`, allocating and filling an output of the same size (the floor
for any method), and the exact float64 tables of the two layouts. The paper's
own float32 recipe as a library replays it is ``pe.conventions["paper"]``.

Examples
--------
>>> import numpy as np
>>> table = np_common_float32(np.arange(3), 4)
>>> table.dtype, bool(np.abs(table - float64_interleaved(np.arange(3), 4)).max() < 1e-6)
(dtype('float32'), True)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch

__all__ = [
    "BASE",
    "float64_fairseq",
    "float64_interleaved",
    "np_common_float32",
    "np_fairseq_concat",
    "np_fill",
    "np_float64_cast",
    "torch_common_float32",
    "torch_fairseq_concat",
    "torch_fill",
    "torch_float64_cast",
]

#: The base every recipe hard-codes, as the code people copy does.
BASE = 10000.0


# ----------------------------------------------------------------- numpy references
def _np_positions(positions: int | np.ndarray) -> np.ndarray:
    return np.arange(positions) if isinstance(positions, int) else positions


def np_common_float32(positions: int | np.ndarray, d_model: int) -> np.ndarray:
    """(a) The common float32 recipe: float32 angles, then sin and cos."""
    positions = _np_positions(positions)
    position = positions.astype(np.float32)[:, None]
    div_term = np.exp(
        np.arange(0, d_model, 2, dtype=np.float32) * np.float32(-math.log(BASE) / d_model)
    )
    table = np.zeros((positions.size, d_model), dtype=np.float32)
    table[:, 0::2] = np.sin(position * div_term)
    table[:, 1::2] = np.cos(position * div_term)
    return table


def np_float64_cast(positions: int | np.ndarray, d_model: int) -> np.ndarray:
    """(b) Angles, sin and cos in float64, cast into a float32 table."""
    positions = _np_positions(positions)
    angles = positions.astype(np.float64)[:, None] * BASE ** (-np.arange(0, d_model, 2) / d_model)
    table = np.empty((positions.size, d_model), dtype=np.float32)
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)
    return table


def np_fairseq_concat(positions: int | np.ndarray, d_model: int) -> np.ndarray:
    """(c) fairseq's layout: float32 angles, exponent ``i/(d/2 - 1)``, sin then cos."""
    positions = _np_positions(positions)
    half = d_model // 2
    rate = np.exp(np.arange(half, dtype=np.float32) * np.float32(-math.log(BASE) / (half - 1)))
    angles = positions.astype(np.float32)[:, None] * rate[None, :]
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)


def np_fill(positions: int | np.ndarray, d_model: int) -> np.ndarray:
    """Allocate a float32 output of the table's size and fill it with one value."""
    positions = _np_positions(positions)
    table = np.empty((positions.size, d_model), dtype=np.float32)
    table.fill(0.5)
    return table


# ----------------------------------------------------------------- torch references
def _torch_positions(positions: int | torch.Tensor) -> torch.Tensor:
    import torch

    return torch.arange(positions) if isinstance(positions, int) else positions


def torch_common_float32(positions: int | torch.Tensor, d_model: int) -> torch.Tensor:
    """(a) in torch, exactly as the tutorial builds its table."""
    import torch

    if isinstance(positions, int):
        position = torch.arange(0, positions, dtype=torch.float32).unsqueeze(1)
    else:
        position = positions.to(torch.float32).unsqueeze(1)
    div_term = torch.exp(
        torch.arange(0, d_model, 2, dtype=torch.float32, device=position.device)
        * (-math.log(BASE) / d_model)
    )
    table = torch.zeros(position.shape[0], d_model, device=position.device)
    table[:, 0::2] = torch.sin(position * div_term)
    table[:, 1::2] = torch.cos(position * div_term)
    return table


def torch_float64_cast(positions: int | torch.Tensor, d_model: int) -> torch.Tensor:
    """(b) in torch."""
    import torch

    positions = _torch_positions(positions)
    exponent = torch.arange(0, d_model, 2, dtype=torch.float64, device=positions.device) / d_model
    angles = positions.to(torch.float64).unsqueeze(1) * BASE**-exponent
    table = torch.empty(positions.numel(), d_model, device=positions.device)
    table[:, 0::2] = torch.sin(angles)
    table[:, 1::2] = torch.cos(angles)
    return table


def torch_fairseq_concat(positions: int | torch.Tensor, d_model: int) -> torch.Tensor:
    """(c) in torch."""
    import torch

    positions = _torch_positions(positions)
    half = d_model // 2
    rate = torch.exp(
        torch.arange(half, dtype=torch.float32, device=positions.device)
        * (-math.log(BASE) / (half - 1))
    )
    angles = positions.to(torch.float32).unsqueeze(1) * rate.unsqueeze(0)
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)


def torch_fill(positions: int | torch.Tensor, d_model: int) -> torch.Tensor:
    """Allocate and fill in torch."""
    import torch

    positions = _torch_positions(positions)
    return torch.empty(positions.numel(), d_model, device=positions.device).fill_(0.5)


# ----------------------------------------------------------------- exact references
def float64_interleaved(positions: np.ndarray, d_model: int) -> np.ndarray:
    """The paper's table in float64, written independently of `pe`."""
    angles = positions.astype(np.float64)[:, None] * BASE ** (-np.arange(0, d_model, 2) / d_model)
    table = np.empty((positions.size, d_model))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    return table


def float64_fairseq(positions: np.ndarray, d_model: int) -> np.ndarray:
    """fairseq's table (its exponent, its layout) in float64."""
    half = d_model // 2
    angles = positions.astype(np.float64)[:, None] * np.exp(
        np.arange(half) * (-math.log(BASE) / (half - 1))
    )
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
