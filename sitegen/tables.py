"""Markdown tables computed from `pe` at build time.

Pages print these from executed code blocks, for example::

    ```python exec="on"
    from sitegen import tables
    print(tables.frequencies(d_model=16))
    ```

Each function takes the parameters the page shows, asks `pe` for the numbers
and returns a Markdown table; no number is typed by hand.
"""

from __future__ import annotations

import numpy as np

import pe
from sitegen.markdown import number, table


def frequencies(d_model: int, base: float = 10000.0) -> str:
    """One row per (sin, cos) pair: its columns, frequency and wavelength."""
    omega = pe.frequencies(d_model, base)
    wavelength = pe.wavelengths(d_model, base)
    rows = [
        [i, f"{2 * i}, {2 * i + 1}", number(omega[i], 6), number(wavelength[i], 2)]
        for i in range(omega.size)
    ]
    return table(["pair *i*", "columns", "ω<sub>i</sub>", "wavelength 2π/ω<sub>i</sub>"], rows)


def encoding(length: int, d_model: int, *, digits: int = 4, start: int = 0) -> str:
    """Print the table itself: one row per position, one column per dimension."""
    values = pe.sinusoidal(np.arange(start, start + length), d_model, dtype=np.float64)
    headers = ["pos"] + [f"{'sin' if j % 2 == 0 else 'cos'} {j}" for j in range(d_model)]
    rows = [[start + r] + [number(v, digits) for v in values[r]] for r in range(length)]
    return table(headers, rows, align="r" * len(headers), digits=digits)


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
