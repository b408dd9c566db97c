"""Axial RoPE on a 2-D grid: the score of one query against a key at every cell.

Query and key are the same vector (every pair (1, 0)), so the score is
sum_i cos(angle_i(key) - angle_i(query)): its largest value, the number of
pairs, sits on the query's own cell. Two panels place the query at two cells
(the pattern moves with it, unchanged); the third numbers the cells in raster
order and uses 1-D RoPE, as a model fed flattened positions would.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

SIDE = 16
AXES_DIM = (16, 16)  # a head of 32: 8 pairs per axis
BASE = 100.0


def scores(query_angles: np.ndarray, key_angles: np.ndarray) -> np.ndarray:
    """Score of the rotated all-(1, 0) query with the rotated all-(1, 0) key at each cell."""
    total: np.ndarray = np.cos(key_angles - query_angles).sum(axis=-1)
    return total.reshape(SIDE, SIDE)


def draw(theme: Theme) -> Figure:
    cells = pe.grid_positions((SIDE, SIDE))
    axial = pe.axial_rope(AXES_DIM, base=BASE)
    cell_angles = pe.grid_rope_angles(cells, axial)
    flat = pe.axial_rope((sum(AXES_DIM),), base=BASE)  # 1-D RoPE over the same head
    raster = np.arange(SIDE * SIDE)[:, None]
    raster_angles = pe.grid_rope_angles(raster, flat)
    panels = [
        ("axial, query at (4, 4)", scores(cell_angles[4 * SIDE + 4], cell_angles), (4, 4)),
        ("axial, query at (10, 12)", scores(cell_angles[10 * SIDE + 12], cell_angles), (10, 12)),
        (
            "1-D over raster order, query at (4, 4)",
            scores(raster_angles[4 * SIDE + 4], raster_angles),
            (4, 4),
        ),
    ]
    # Side by side; stacked on a phone.
    # 8 in wide (not 9.6) on a laptop, so the 688 px column shrinks it less: its
    # 10 pt text is drawn at 11.5 px, not 10 px. Each title in two lines, to fit its panel.
    shape, size = ((3, 1), (4.0, 9.0)) if theme.phone else ((1, 3), (8.0, 3.6))
    figure, axes = plt.subplots(*shape, figsize=size, layout="constrained")
    top = sum(AXES_DIM) // 2
    for axis, (title, values, (row, column)) in zip(axes, panels, strict=True):
        image = axis.imshow(values, cmap=theme.diverging, vmin=-top, vmax=top)
        axis.plot(column, row, marker="+", color=theme.text, markersize=9, mew=1.6)
        axis.set_title(title if theme.phone else title.replace(", ", ",\n", 1), fontsize=10)
        axis.set_xlabel("key column")
        axis.set_xticks([0, 5, 10, 15])
        axis.set_yticks([0, 5, 10, 15])
    for axis in axes if theme.phone else axes[:1]:
        axis.set_ylabel("key row")
    bar = figure.colorbar(image, ax=axes, fraction=0.025, pad=0.02)
    bar.set_label("score")
    bar.outline.set_edgecolor(theme.muted)
    return figure


ALT = (
    f"Three {SIDE} by {SIDE} heatmaps of the attention score between one query and a key at "
    "every cell of a grid. In the first two, axial RoPE, the query sits at row 4 column 4 and "
    "at row 10 column 12: the same cross of high scores, centred on the query's cell, moves "
    "with it. In the third, 1-D RoPE over the raster order, only the query's own row scores "
    "high: cells directly above and below score like distant tokens."
)

if __name__ == "__main__":
    save_variants(draw, "axial_scores", ALT)
