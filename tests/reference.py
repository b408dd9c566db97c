"""Independent references for the tests: written from the formula, not from `pe`.

`float64_table` follows the paper literally (a divisor per pair, a division, then
sin and cos) in float64; `mp_value` evaluates one entry with mpmath at 50 digits.
"""

from __future__ import annotations

import mpmath
import numpy as np


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
