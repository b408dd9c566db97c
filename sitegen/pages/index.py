"""The home page (index.md): the frequency table of a small encoding."""

from __future__ import annotations

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
