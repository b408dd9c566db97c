"""The 2-D sin-cos table of a 16 x 16 patch grid: single columns, and one token's similarity."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

SIZE = 16
DIM = 64  # 16 frequencies per axis and function
QUARTER = DIM // 4
# MAE layout: [sin x | cos x | sin y | cos y]
COLUMNS = (
    (0, "sin x, pair 0"),
    (2, "sin x, pair 2"),
    (2 * QUARTER + 1, "sin y, pair 1"),
    (QUARTER + 1, "cos x, pair 1"),
)
TOKEN = (5, 9)  # row, column of the token whose similarities are drawn


# Text size (points): on a laptop the figure is drawn at about its own size, so
# 9 pt is 11.5 px there (matplotlib's "small", 8.3 pt, was 10-11 px).
TEXT = 9


def draw(theme: Theme) -> Figure:
    table = pe.grid_sincos(SIZE, DIM, dtype=np.float64)
    shape, size = ((3, 2), (4.0, 6.4)) if theme.phone else ((2, 3), (7.2, 5.0))
    figure, axes = plt.subplots(*shape, figsize=size, layout="constrained")
    panels = list(axes.flat)
    for ax, (column, title) in zip(panels[:4], COLUMNS, strict=True):
        ax.imshow(table[:, column].reshape(SIZE, SIZE), cmap=theme.diverging, vmin=-1, vmax=1)
        ax.set_title(f"column {column}: {title}", color=theme.text, fontsize=TEXT)
    token = TOKEN[0] * SIZE + TOKEN[1]
    layouts: tuple[tuple[pe.GridLayout, str], ...] = (
        ("mae", "MAE layout"),
        ("timm", "timm layout"),
    )
    for ax, (layout, label) in zip(panels[4:], layouts, strict=True):
        grid = pe.grid_sincos(SIZE, DIM, layout=layout, dtype=np.float64)
        similarity = grid @ grid[token] / (DIM / 2)
        image = ax.imshow(similarity.reshape(SIZE, SIZE), cmap=theme.sequential)
        ax.plot(TOKEN[1], TOKEN[0], marker="+", color=theme.text, markersize=10)
        title = f"similarity to token {TOKEN},\n{label}"
        ax.set_title(title, color=theme.text, fontsize=TEXT)
        bar = figure.colorbar(image, ax=ax, fraction=0.046, pad=0.02)
        bar.ax.tick_params(colors=theme.muted, labelcolor=theme.text, labelsize=TEXT)
    for ax in panels:
        ax.set_xlabel("column x", fontsize=TEXT)
        ax.set_ylabel("row y", fontsize=TEXT)
        ax.tick_params(labelsize=TEXT)
    return figure


ALT = (
    "Six 16 by 16 images of a 64-wide 2-D sin-cos table. Four show single columns over "
    "the grid: the sine of the column coordinate at pair 0 varies quickly from left to "
    "right and not at all from top to bottom; at pair 2 it varies more slowly; the sine of the "
    "row coordinate varies from top to bottom only; a cosine of the column coordinate is "
    "stripes again. The last two show the dot product of every token with the token at "
    "row 5, column 9, divided by 32: the same bright cross-shaped peak at that token in "
    "both layouts, since they hold the same numbers in another order."
)

if __name__ == "__main__":
    save_variants(draw, "grid_patterns", ALT)
