"""A few columns of the table over the positions: pairs of sin and cos at falling frequencies."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

D_MODEL = 64
LENGTH = 60
PAIRS = (0, 4, 12)


def draw(theme: Theme) -> Figure:
    positions = np.arange(LENGTH)
    table = pe.sinusoidal(positions, D_MODEL, dtype=np.float64)
    omega = pe.frequencies(D_MODEL)
    wavelengths = pe.wavelengths(D_MODEL)
    smooth = np.linspace(0, LENGTH - 1, 400)
    # On a phone each panel has a two-line title and its legend above it: a taller
    # canvas keeps every panel over 100 px tall (at 5 in, pair 0's was 40 px).
    size = (4.0, 7.6) if theme.phone else (7.2, 5.0)
    figure, rows = plt.subplots(len(PAIRS), 1, figsize=size, sharex=True)
    for axes, pair, colour in zip(rows, PAIRS, theme.series, strict=False):
        # The table holds samples at integer positions of two continuous waves.
        axes.plot(smooth, np.sin(smooth * omega[pair]), color=colour, lw=0.8, alpha=0.45)
        axes.plot(smooth, np.cos(smooth * omega[pair]), color=colour, lw=0.8, alpha=0.45, ls="--")
        axes.plot(
            positions,
            table[:, 2 * pair],
            "o",
            color=colour,
            ms=3.2,
            label=f"sin, column {2 * pair}",
        )
        axes.plot(
            positions,
            table[:, 2 * pair + 1],
            "s",
            mfc="none",
            color=colour,
            ms=3.2,
            label=f"cos, column {2 * pair + 1}",
        )
        axes.set_ylim(-1.15, 1.15)
        axes.set_yticks([-1, 0, 1])
        axes.grid(True, axis="y")
        axes.set_title(
            f"pair i = {pair}:{chr(10) if theme.phone else ' '}"
            f"wavelength {wavelengths[pair]:.1f} positions",
            loc="left",
            fontsize=10,
        )
        if theme.phone:  # beside the title, not beside the panel
            axes.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), borderaxespad=0.1)
        else:
            axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    rows[-1].set_xlabel("position p")
    figure.suptitle(
        rf"Columns of the encoding, $d_{{\mathrm{{model}}}} = {D_MODEL}$", color=theme.text
    )
    figure.tight_layout()
    return figure


ALT = (
    f"{len(PAIRS)} panels, one per pair ({', '.join(map(str, PAIRS))}) of a {D_MODEL}-wide "
    f"encoding, over positions 0 to {LENGTH - 1}. In each, filled dots are the sine column "
    "and open squares the cosine column, sampled at whole positions from two faint "
    "continuous waves a quarter turn apart. Each later pair turns more slowly than the one "
    "before."
)

if __name__ == "__main__":
    save_variants(draw, "columns", ALT)
