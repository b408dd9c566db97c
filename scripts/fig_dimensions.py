"""Chosen sine dimensions over a long range of positions: each a wave of its own length."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

D_MODEL = 128
LENGTH = 2000
COLUMNS = (40, 56, 72, 88)


def draw(theme: Theme) -> Figure:
    table = pe.sinusoidal(LENGTH, D_MODEL, dtype=np.float64)
    wavelengths = pe.wavelengths(D_MODEL)
    figure, axes = plt.subplots(figsize=(7.2, 3.4), layout="constrained")
    for column, colour in zip(COLUMNS, theme.series, strict=False):
        axes.plot(
            table[:, column],
            color=colour,
            lw=1.3,
            label=f"dim {column} (wavelength {wavelengths[column // 2]:.0f})",
        )
    axes.set_xlim(0, LENGTH - 1)
    axes.set_ylim(-1.1, 1.1)
    axes.set_xlabel("position")
    axes.set_ylabel("value")
    axes.grid(True, axis="y")
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return figure


_TURNS = [LENGTH / pe.wavelengths(D_MODEL)[column // 2] for column in COLUMNS]
ALT = (
    f"Sine dimensions {', '.join(map(str, COLUMNS))} of a {D_MODEL}-wide encoding over "
    f"positions 0 to {LENGTH - 1}. They complete about "
    f"{', '.join(f'{turns:.1f}' for turns in _TURNS)} turns respectively: each higher "
    "dimension is a slower wave."
)

if __name__ == "__main__":
    save_variants(draw, "dimensions", ALT)
