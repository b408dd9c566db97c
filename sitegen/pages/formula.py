"""The formula page (formula.md): the per-column exponents and ratios."""

from __future__ import annotations

import pe
from sitegen.markdown import number, table


def per_dimension(d_model: int, base: float = 10000.0) -> str:
    """Column j, its pair floor(j/2), the shared exponent 2*floor(j/2)/d, and sin or cos."""
    omega = pe.frequencies(d_model, base)
    rows = []
    for j in range(d_model):
        pair = j // 2
        rows.append(
            [
                j,
                "sin" if j % 2 == 0 else "cos",
                pair,
                f"{2 * pair}/{d_model}",
                number(omega[pair], 6),
            ]
        )
    headers = ["column *j*", "function", "pair ⌊j/2⌋", "exponent 2⌊j/2⌋/d", "ω"]
    return table(headers, rows, align="rlrrr")


def frequency_ratios(d_models: tuple[int, ...], base: float = 10000.0) -> str:
    """For several widths: the constant ratio between pairs and the wavelength range."""
    rows = []
    for d_model in d_models:
        omega = pe.frequencies(d_model, base)
        wavelength = pe.wavelengths(d_model, base)
        rows.append(
            [
                d_model,
                omega.size,
                number(omega[1] / omega[0], 6),
                number(wavelength[0], 4),
                number(wavelength[-1], 1),
            ]
        )
    headers = [
        "d",
        "pairs",
        "ratio ω<sub>i+1</sub>/ω<sub>i</sub>",
        "shortest wavelength",
        "longest wavelength",
    ]
    return table(headers, rows)
