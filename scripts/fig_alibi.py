"""ALiBi's penalty against distance, one line per head."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

HEADS = 8
DISTANCE = 64


def draw(theme: Theme) -> Figure:
    distance = np.arange(DISTANCE + 1)
    figure, axes = plt.subplots(figsize=(7.2, 3.6), layout="constrained")
    colours = [*list(theme.series), theme.text, theme.muted]
    for head, (slope, colour) in enumerate(zip(pe.alibi_slopes(HEADS), colours, strict=False)):
        axes.plot(
            distance,
            -slope * distance,
            color=colour,
            lw=1.5,
            label=f"head {head + 1}: m = 1/{1 / slope:g}",
        )
    axes.set_xlabel("distance |i − j| between query and key")
    axes.set_ylabel("bias added to the score")
    axes.set_ylim(-8.5, 0.3)
    axes.grid(True, axis="y")
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return figure


ALT = (
    f"Straight lines of the ALiBi bias against distance from 0 to {DISTANCE}, one per head for "
    f"{HEADS} heads, with slopes from 1/2 down to 1/256. Steep heads push the score of a key "
    "a few positions away far down; shallow heads barely penalise keys dozens of positions "
    "away."
)

if __name__ == "__main__":
    save_variants(draw, "alibi", ALT)
