"""One pair on the unit circle: shifting by k positions is the same turn from any start."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

D_MODEL = 16
PAIR = 2
LENGTH = 40
SHIFT = 8
STARTS = (3, 22)


def draw(theme: Theme) -> Figure:
    table = pe.sinusoidal(LENGTH + SHIFT, D_MODEL, dtype=np.float64)
    sin, cos = table[:, 2 * PAIR], table[:, 2 * PAIR + 1]
    turn = np.degrees(SHIFT * pe.frequencies(D_MODEL)[PAIR])
    figure, axes = plt.subplots(figsize=(5.2, 5.0), layout="constrained")
    circle = np.linspace(0, 2 * np.pi, 400)
    axes.plot(np.cos(circle), np.sin(circle), color=theme.grid, lw=1)
    axes.plot(cos[:LENGTH], sin[:LENGTH], "o", color=theme.muted, ms=3.5)
    for p in (0, 10, 20):
        axes.annotate(
            f"p={p}",
            (cos[p], sin[p]),
            textcoords="offset points",
            xytext=(cos[p] * 14 - 8, sin[p] * 14 - 4),
            fontsize=8,
            color=theme.muted,
        )
    for start, colour in zip(STARTS, theme.series, strict=False):
        end = start + SHIFT
        axes.annotate(
            "",
            xy=(cos[end], sin[end]),
            xytext=(cos[start], sin[start]),
            arrowprops={
                "arrowstyle": "->",
                "color": colour,
                "lw": 1.8,
                "connectionstyle": "arc3,rad=-0.35",
            },
        )
        axes.plot([cos[start], cos[end]], [sin[start], sin[end]], "o", color=colour, ms=6)
        axes.text(
            cos[start] * 0.4,  # inside the arrow's arc, off its line
            sin[start] * 0.4,
            f"p = {start} → {end}",
            color=colour,
            fontsize=9,
            ha="center",
        )
    axes.set_aspect("equal")
    axes.set_xlim(-1.35, 1.35)
    axes.set_ylim(-1.35, 1.35)
    axes.set_xlabel(f"cos column {2 * PAIR + 1}")
    axes.set_ylabel(f"sin column {2 * PAIR}")
    axes.set_title(f"pair {PAIR} of d = {D_MODEL}: a shift by {SHIFT} turns it {turn:.1f}°")
    return figure


ALT = (
    f"Positions 0 to {LENGTH - 1} of pair {PAIR} of a {D_MODEL}-wide encoding drawn as dots "
    "on the unit circle, cosine across and sine up, each position a fixed step further "
    f"round. Two arrows show a shift by {SHIFT} positions from two different starts "
    f"({STARTS[0]} and {STARTS[1]}): both sweep the same angle."
)

if __name__ == "__main__":
    save_variants(draw, "rotation", ALT)
