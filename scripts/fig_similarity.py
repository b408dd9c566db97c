"""Cosine similarity between every two of the first positions: a band along the diagonal."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

LENGTH = 128
D_MODEL = 128


def draw(theme: Theme) -> Figure:
    positions = np.arange(LENGTH)
    matrix = pe.analysis.similarity(positions[:, None], positions[None, :], D_MODEL)
    figure, axes = plt.subplots(figsize=(5.6, 4.6), layout="constrained")
    image = axes.imshow(matrix, cmap=theme.sequential, vmin=matrix.min(), vmax=1)
    axes.set_xlabel("position q")
    axes.set_ylabel("position p")
    axes.set_title(f"cosine similarity of PE(p) and PE(q), d = {D_MODEL}")
    bar = figure.colorbar(image, ax=axes, fraction=0.046, pad=0.03)
    bar.outline.set_edgecolor(theme.muted)
    return figure


ALT = (
    f"A {LENGTH} by {LENGTH} matrix of cosine similarities between position encodings "
    f"(d = {D_MODEL}). It is brightest on the diagonal and fades with distance from it; "
    "every diagonal stripe has a single colour because the similarity depends only on "
    "the offset between the two positions."
)

if __name__ == "__main__":
    save_variants(draw, "similarity", ALT)
