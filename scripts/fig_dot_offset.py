"""PE(p)·PE(p+k) against the offset k: a bumpy decay that does not stay down."""

from __future__ import annotations

import functools

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

D_MODELS = (64, 128, 512)
NEAR = 100
FAR = 300_000
FAR_D = 512


def smoothed(values: np.ndarray, centres: np.ndarray, spread: float = 0.1) -> np.ndarray:
    """Mean of values[k-1] over k within centre * (1 ± spread), for each centre."""
    running = np.concatenate([[0.0], np.cumsum(values)])
    low = np.maximum(1, (centres * (1 - spread)).astype(int))
    high = np.minimum(values.size, (centres * (1 + spread)).astype(int) + 1)
    means: np.ndarray = (running[high] - running[low - 1]) / (high - low + 1)
    return means


@functools.cache
def far_cosines() -> np.ndarray:
    """The cosine at every offset 1 .. FAR for d = FAR_D: 77 million cosines, computed once.

    Every drawing (light, dark, and each for phones) plots the same values.
    """
    cosine: np.ndarray = pe.analysis.similarity(0, np.arange(1, FAR + 1), FAR_D)
    return cosine


def draw(theme: Theme) -> Figure:
    figure, (near, far) = plt.subplots(2, 1, figsize=(7.2, 5.4), layout="constrained")
    for d_model, colour in zip(D_MODELS, theme.series, strict=False):
        k = np.arange(NEAR + 1)
        near.plot(
            k, pe.analysis.similarity(0, k, d_model), color=colour, lw=1.6, label=f"d = {d_model}"
        )
    k = np.arange(1, FAR + 1)
    cosine = far_cosines()
    centres = np.unique(np.geomspace(1, FAR, 400).astype(int))
    far.plot(
        k, cosine, color=theme.series[2], lw=0.4, alpha=0.35, label="every offset", rasterized=True
    )  # 300,000 points: an image, not 300,000 vertices
    far.plot(
        centres,
        smoothed(cosine, centres),
        color=theme.series[1],
        lw=1.8,
        label="mean over k ± 10 %",
    )
    far.set_xscale("log")
    for axes, first, last in ((near, 0, NEAR), (far, 1, FAR)):
        axes.axhline(0, color=theme.muted, lw=0.8)
        axes.set_xlim(first, last)
        axes.set_ylabel(r"$PE(p) \cdot PE(p+k)\,/\,(d/2)$")
        axes.grid(True, axis="y")
    near.set_title(f"offsets 0 to {NEAR}: ripples on the way down")
    gap = "\n" if theme.phone else " "
    far.set_title(f"d = {FAR_D}, offsets 1 to {FAR:,} (log scale):{gap}below zero, then back up")
    far.set_xlabel("offset k")
    near.legend(loc="upper right")
    if theme.phone:  # room above the ripples for the legend on the shorter panel
        near.set_ylim(top=1.3)
    far.legend(loc="upper right")
    return figure


ALT = (
    "Two line charts of the dot product between encodings k positions apart, divided by "
    f"its largest value d/2. Top, d = {', '.join(map(str, D_MODELS))} over the first {NEAR} "
    "offsets: the curves fall from 1 with small repeated bumps, not smoothly. Bottom, "
    f"d = {FAR_D} on a logarithmic axis up to {FAR:,}: the values and their running mean "
    "keep falling, dip below zero, then come back up and wander around zero inside a "
    "band of spikes in both directions."
)

if __name__ == "__main__":
    save_variants(draw, "dot_offset", ALT)
