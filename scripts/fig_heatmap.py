"""Heatmap of the encoding table: positions down, dimensions across."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

LENGTH = 64
D_MODEL = 128


def draw(theme: Theme) -> Figure:
    table = pe.sinusoidal(LENGTH, D_MODEL, dtype=np.float64)
    figure, axes = plt.subplots(figsize=(7.2, 3.8))
    image = axes.imshow(table, cmap=theme.diverging, vmin=-1, vmax=1, aspect="auto")
    axes.set_xlabel("dimension (even: sin, odd: cos)")
    axes.set_ylabel("position")
    axes.set_title(
        rf"Sinusoidal encoding, {LENGTH} positions × $d_{{\mathrm{{model}}}} = {D_MODEL}$"
    )
    bar = figure.colorbar(image, ax=axes, fraction=0.04, pad=0.02)
    bar.outline.set_edgecolor(theme.muted)
    bar.ax.tick_params(colors=theme.muted, labelcolor=theme.text)
    return figure


ALT = (
    f"Heatmap of the sinusoidal encoding for {LENGTH} positions (rows) and {D_MODEL} "
    "dimensions (columns), coloured from -1 (blue) to 1 (red). Columns on the left "
    "alternate quickly between -1 and 1 down the positions; further right they change "
    "more and more slowly, and the rightmost columns stay near 0 (sin) and 1 (cos)."
)

if __name__ == "__main__":
    save_variants(draw, "heatmap", ALT)
