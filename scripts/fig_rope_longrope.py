"""Phi-3.5-mini's LongRoPE: the short and the long factor of every pair.

The factor lists are those of `pe._published.PUBLISHED` (the tested data that the
page and the tests read too).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

from pe._published import by_model

PHI = by_model("Phi-3.5 mini instruct").config
SCALING = PHI["rope_scaling"]
FACTOR = PHI["max_position_embeddings"] / PHI["original_max_position_embeddings"]
CROSSING = int(np.argmax(np.asarray(SCALING["long_factor"]) > FACTOR))


def draw(theme: Theme) -> Figure:
    figure, axes = plt.subplots(figsize=(7.2, 3.4), layout="constrained")
    pairs = np.arange(len(SCALING["short_factor"]))
    axes.plot(
        pairs,
        SCALING["short_factor"],
        color=theme.series[0],
        lw=1.8,
        marker="o",
        ms=3,
        label="short_factor (≤ 4,096 positions)",
    )
    axes.plot(
        pairs,
        SCALING["long_factor"],
        color=theme.series[1],
        lw=1.8,
        marker="s",
        ms=3,
        label="long_factor (> 4,096)",
    )
    axes.axhline(FACTOR, color=theme.muted, lw=0.8, ls=":")
    # Under the dotted line at the right, where the long factors have passed above it.
    axes.text(
        pairs[-1],
        FACTOR / 1.15,
        f"s = 131,072 / 4,096 = {FACTOR:g}",
        color=theme.muted,
        ha="right",
        va="top",
    )
    axes.set_yscale("log", base=2)
    axes.set_xlabel("pair index i")
    axes.set_ylabel("divides θᵢ by")
    axes.grid(True, axis="y")
    if theme.phone:  # above the axes: the narrow canvas has no room between the curves
        axes.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), borderaxespad=0.2)
    else:  # right of the long factors' climb, between the two sets
        axes.legend(loc="center right")
    return figure


ALT = (
    "Phi-3.5-mini's 48 LongRoPE factors per pair on a logarithmic axis. The short factors "
    "stay between 1 and about 2.8; the long factors rise from about 1.1 for the fastest pair "
    f"to about {max(SCALING['long_factor']):.0f} for the slowest, passing the overall factor "
    f"{FACTOR:g} (dotted) at pair {CROSSING}. The "
    "model switches from the first set to the second once a sequence is longer than 4,096."
)

if __name__ == "__main__":
    save_variants(draw, "rope_longrope", ALT)
