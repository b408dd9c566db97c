"""A token's score with a copy of itself against their distance: full and partial rotary."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import torch
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

from pe.nn import RotaryEmbedding

HEAD_DIM = 64
FRACTION = 0.25  # GPT-NeoX's rotary_pct
FAR = 10_000


def self_scores(rope: RotaryEmbedding, x: torch.Tensor, offsets: np.ndarray) -> np.ndarray:
    """(R_p x) · (R_0 x) / |x|^2 for every offset p: x as query at p and as key at 0."""
    rows = x.expand(len(offsets), HEAD_DIM)
    queries = rope.rotate(rows, positions=torch.from_numpy(offsets))
    key = rope.rotate(x)
    scores: np.ndarray = (queries @ key.T).numpy()[:, 0] / float(x @ x.T)
    return scores


def draw(theme: Theme) -> Figure:
    generator = torch.Generator().manual_seed(0)  # the vector of the page's table
    x = torch.randn(1, HEAD_DIM, generator=generator, dtype=torch.float64)
    offsets = np.arange(1, FAR + 1)
    full = self_scores(RotaryEmbedding(HEAD_DIM), x, offsets)
    partial_rope = RotaryEmbedding(HEAD_DIM, partial_rotary_factor=FRACTION)
    partial = self_scores(partial_rope, x, offsets)
    rotated = partial_rope.rotary_dim
    floor = float(x[:, rotated:] @ x[:, rotated:].T) / float(x @ x.T)
    figure, axes = plt.subplots(figsize=(7.2, 3.8), layout="constrained")
    # 10,000 points a line: drawn as an image, not 10,000 vertices.
    axes.plot(
        offsets,
        full,
        color=theme.series[0],
        lw=0.9,
        label=f"all {HEAD_DIM} dims rotated",
        rasterized=True,
    )
    axes.plot(
        offsets,
        partial,
        color=theme.series[1],
        lw=0.9,
        label=f"{rotated} of {HEAD_DIM} rotated",
        rasterized=True,
    )
    axes.axhline(
        floor,
        color=theme.series[2],
        lw=1.4,
        ls="--",
        label=f"the {HEAD_DIM - rotated} unrotated dims alone",
    )
    axes.axhline(0, color=theme.muted, lw=0.8)
    axes.set_xscale("log")
    axes.set_xlim(1, FAR)
    axes.set_xlabel("distance between the token and its copy (log scale)")
    axes.set_ylabel("score / |x|²")
    axes.set_title("a token's score with a copy of itself")
    axes.grid(True, axis="y")
    if theme.phone:  # below the axes: the narrow canvas has no room beside the curves
        figure.legend(loc="outside lower center", ncols=1)
    else:
        axes.legend(loc="lower left")
    return figure


ALT = (
    f"Line chart of the score between a random vector of size {HEAD_DIM} and a copy of itself, "
    f"divided by its squared length, against their distance from 1 to {FAR:,} on a log axis. "
    "Fully rotated, the score falls from 1 and swings around 0, below it at times, at distances "
    "of thousands. With a quarter of the dimensions rotated it swings around a dashed line, "
    "the constant contribution of the unrotated dimensions, at every distance."
)

if __name__ == "__main__":
    save_variants(draw, "partial_rotary", ALT)
