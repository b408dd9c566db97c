"""The same encoding over 10 and over 50 positions: only the fast pairs change much."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

D_MODEL = 64
LENGTHS = (10, 50)


def draw(theme: Theme) -> Figure:
    figure, panels = plt.subplots(
        1, 2, figsize=(7.2, 3.4), gridspec_kw={"width_ratios": [1, 1.4]}, layout="constrained"
    )
    image = None
    for axes, length in zip(panels, LENGTHS, strict=True):
        table = pe.sinusoidal(length, D_MODEL, dtype=np.float64)
        image = axes.imshow(table, cmap=theme.diverging, vmin=-1, vmax=1, aspect="auto")
        axes.set_title(f"{length} positions")
        axes.set_xlabel("dimension")
        axes.set_ylabel("position")
    assert image is not None
    bar = figure.colorbar(image, ax=panels, fraction=0.04, pad=0.02)
    bar.outline.set_edgecolor(theme.muted)
    figure.suptitle(
        rf"$d_{{\mathrm{{model}}}} = {D_MODEL}$: short sequences use only the left columns",
        fontsize=10,
    )
    return figure


ALT = (
    f"Two heatmaps of a {D_MODEL}-wide encoding, for {LENGTHS[0]} and {LENGTHS[1]} positions. "
    "In both, the leftmost columns change colour from row to row while the columns right of "
    "the middle stay almost uniform (sin near 0, cos near 1); the longer table shows the "
    "middle columns starting to change as well."
)

if __name__ == "__main__":
    save_variants(draw, "heatmap_lengths", ALT)
