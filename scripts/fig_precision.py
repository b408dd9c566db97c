"""Error of the float32 table against float64, position by position: common code vs pe.

The common recipe and the float64 reference are the benchmark's own
(`benchmarks.recipes`), so the figure and the page's error table measure one code.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe
from benchmarks.recipes import float64_interleaved, np_common_float32
from pe._table import FLOAT32_BOUND

D_MODEL = 512
LAST = 2**24 - 1
BOUND_TEXT = f"{FLOAT32_BOUND:.0e}".replace("e-0", "e-")  # no leading 0 in the exponent


def draw(theme: Theme) -> Figure:
    positions = np.unique(np.geomspace(1, LAST, 400).astype(np.int64))
    reference = float64_interleaved(positions, D_MODEL)
    common = np.abs(np_common_float32(positions, D_MODEL) - reference).max(axis=1)
    ours = np.abs(pe.sinusoidal(positions, D_MODEL) - reference).max(axis=1)
    spacing = np.spacing(positions.astype(np.float32)).astype(np.float64) / 2
    figure, axes = plt.subplots(figsize=(7.2, 4.0), layout="constrained")
    axes.plot(positions, common, color=theme.series[1], lw=1.4, label="common float32 code")
    axes.plot(positions, ours, color=theme.series[0], lw=1.4, label="pe.sinusoidal (float32)")
    axes.plot(
        positions,
        spacing,
        color=theme.muted,
        lw=1.0,
        ls="--",
        label="half the float32 spacing of the angle p·ω₀",
    )
    axes.axhline(2.0**-25, color=theme.muted, lw=0.8, ls=":")
    # The two levels are labelled at the right, where no curve passes: pe's error
    # runs between them, the common code's far above.
    axes.text(
        LAST / 5,
        2.0**-25 / 1.3,
        "best possible: rounding to float32 (2⁻²⁵)",
        color=theme.muted,
        fontsize=8,
        ha="right",
        va="top",
    )
    axes.axhline(FLOAT32_BOUND, color=theme.series[2], lw=0.8, ls=":")
    axes.text(
        LAST / 5,
        FLOAT32_BOUND * 1.3,
        f"pe's bound, {BOUND_TEXT}",
        color=theme.series[2],
        fontsize=8,
        ha="right",
    )
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(1, LAST)
    axes.set_ylim(3e-9, 4)
    axes.set_xlabel("position p")
    axes.set_ylabel(f"largest error over {D_MODEL} columns")
    axes.grid(True, which="major")
    figure.legend(loc="outside lower center", ncols=1 if theme.phone else 2)  # off the curves
    return figure


ALT = (
    f"Log-log plot of the largest error of a float32 table (d = {D_MODEL}) against float64, "
    f"at positions from 1 to 2^24. The common code's error climbs in a straight line with "
    "the position, tracking half the float32 spacing of the angle, from the float32 "
    "rounding level near position 1 to order 1 near ten million. pe's error stays flat "
    "near the float32 rounding limit, below its " + BOUND_TEXT + " bound, at every position."
)

if __name__ == "__main__":
    save_variants(draw, "precision", ALT)
