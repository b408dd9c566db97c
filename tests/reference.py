"""Independent references for the tests: written from the formula, not from `pe`.

`float64_table` follows the paper literally (a divisor per pair, a division, then
sin and cos) in float64; `mp_value` evaluates one entry with mpmath at 50 digits.
"""

from __future__ import annotations

import mpmath
import numpy as np
import torch
from numpy.typing import ArrayLike


def float64_table(positions: np.ndarray, d_model: int, base: float = 10000.0) -> np.ndarray:
    """PE[p, 2i] = sin(p / base**(2i/d)), PE[p, 2i+1] = cos(p / base**(2i/d)), in float64."""
    positions = np.asarray(positions, dtype=np.float64)
    table = np.empty((*positions.shape, d_model), dtype=np.float64)
    for i in range(d_model // 2):
        divisor = base ** (2.0 * i / d_model)
        table[..., 2 * i] = np.sin(positions / divisor)
        table[..., 2 * i + 1] = np.cos(positions / divisor)
    return table


def mp_value(position: int, column: int, d_model: int, base: float = 10000.0) -> float:
    """One table entry with 50 significant digits, rounded to the nearest float64."""
    with mpmath.workdps(50):
        pair = column // 2
        divisor = mpmath.power(mpmath.mpf(base), mpmath.mpf(2 * pair) / d_model)
        angle = mpmath.mpf(position) / divisor
        value = mpmath.sin(angle) if column % 2 == 0 else mpmath.cos(angle)
        return float(value)


def rope_rotation(
    x: ArrayLike | torch.Tensor,
    positions: ArrayLike,
    layout: str,
    rotary_dim: int,
    base: float = 10000.0,
    exponent_width: int | None = None,
) -> np.ndarray:
    """RoPE in float64 from the formula: pair i at position p turns by p * base**(-2i/d).

    `x` is ``(..., seq, width)`` (a CPU tensor or an array); its first
    `rotary_dim` dimensions are turned, interleaved pairs ``(2i, 2i+1)`` or
    concatenated ones ``(i, i + rotary_dim / 2)``, and the rest pass through.
    ``d`` is `rotary_dim` unless `exponent_width` says otherwise (transformers
    divides by ``int(head_dim * partial_rotary_factor)``, which float rounding
    can make one less than the width it turns).
    """
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().double().numpy()
    values = np.array(x, dtype=np.float64)
    half = rotary_dim // 2
    theta = base ** (-2.0 * np.arange(half) / (exponent_width or rotary_dim))
    angles = np.asarray(positions, dtype=np.float64)[..., None] * theta
    cos, sin = np.cos(angles), np.sin(angles)
    if layout == "interleaved":
        first, second = values[..., 0:rotary_dim:2], values[..., 1:rotary_dim:2]
    else:
        first, second = values[..., :half], values[..., half:rotary_dim]
    turned_first, turned_second = first * cos - second * sin, first * sin + second * cos
    if layout == "interleaved":
        values[..., 0:rotary_dim:2], values[..., 1:rotary_dim:2] = turned_first, turned_second
    else:
        values[..., :half], values[..., half:rotary_dim] = turned_first, turned_second
    return values
