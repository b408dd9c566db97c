"""Pair 0 keeps coming back near its start; the whole vector does not (the blog's position 41)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

D_MODEL = 64
LENGTH = 50
CLAIMED = 41
HEATMAP_ROWS = 10


def distances() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positions, pair 0's chord distance from position 0, the whole vector's distance."""
    positions = np.arange(LENGTH + 1)
    pair_0 = pe.analysis.pair_distance(positions, D_MODEL)[:, 0]
    table = pe.sinusoidal(positions, D_MODEL, dtype=np.float64)
    whole = np.linalg.norm(table - table[0], axis=1)
    return positions, pair_0, whole


def draw(theme: Theme) -> Figure:
    positions, pair_0, whole = distances()
    best = int(positions[1:][np.argmin(pair_0[1:][CLAIMED - 1 :]) + CLAIMED - 1])
    figure, axes = plt.subplots(figsize=(7.2, 3.4), layout="constrained")
    axes.axvspan(0, HEATMAP_ROWS - 1, color=theme.grid, alpha=0.6, lw=0)
    axes.text(0.5, 7.6, f"a {HEATMAP_ROWS}-row\nheatmap", color=theme.muted, fontsize=8, va="top")
    axes.plot(
        positions,
        pair_0,
        color=theme.series[0],
        lw=1.4,
        marker="o",
        ms=2.5,
        label="pair 0 (columns 0, 1): distance from position 0",
    )
    axes.plot(
        positions,
        whole,
        color=theme.series[1],
        lw=1.6,
        label=f"whole {D_MODEL}-wide vector: ‖PE(p) − PE(0)‖",
    )
    for position, style in ((CLAIMED, ":"), (best, "--")):
        axes.axvline(position, color=theme.muted, lw=1, ls=style)
        axes.text(  # above pair 0's curve (at most 2), below the whole vector's
            position + (0.4 if position == best else -0.4),
            2.3,
            f"p = {position}",
            color=theme.text,
            fontsize=8,
            ha="left" if position == best else "right",
        )
    axes.set_xlim(0, LENGTH)
    axes.set_ylim(0, 8)
    axes.set_xlabel("position p")
    axes.set_ylabel("distance from position 0")
    axes.grid(True, axis="y")
    axes.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), fontsize=8)  # above, off the curves
    return figure


_POSITIONS, _PAIR, _WHOLE = distances()
_DIPS = [int(p) for p in _POSITIONS[1:-1] if _PAIR[p] < min(_PAIR[p - 1], _PAIR[p + 1])]
ALT = (
    f"Two curves over positions 0 to {LENGTH} of a {D_MODEL}-wide encoding. Pair 0's distance "
    f"from position 0 rises and falls between 0 and 2, dipping near zero at positions "
    f"{', '.join(map(str, _DIPS))}; at position {CLAIMED} it is {_PAIR[CLAIMED]:.2f}, near its "
    f"maximum. The whole vector's distance climbs to about {_WHOLE[10]:.1f} by position 10 and "
    f"stays between {_WHOLE[10:].min():.1f} and {_WHOLE[10:].max():.1f}, never returning to 0. "
    f"A shaded band marks the first {HEATMAP_ROWS} positions."
)

if __name__ == "__main__":
    save_variants(draw, "returns", ALT)
