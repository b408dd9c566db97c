"""A trained learned position table: structure where it was trained, noise beyond."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks/results/trained.json"
DATA = json.loads(RESULTS.read_text())
ROWS = np.array(next(r for r in DATA["runs"] if "learned_rows" in r)["learned_rows"])
TRAIN = DATA["settings"]["train_length"]


def draw(theme: Theme) -> Figure:
    unit = ROWS / np.linalg.norm(ROWS, axis=1, keepdims=True)
    similarity = unit @ unit.T
    figure, axes = plt.subplots(figsize=(5.6, 4.6), layout="constrained")
    image = axes.imshow(similarity, cmap=theme.diverging, vmin=-1, vmax=1)
    axes.axhline(TRAIN - 0.5, color=theme.text, lw=0.8, ls=":")
    axes.axvline(TRAIN - 0.5, color=theme.text, lw=0.8, ls=":")
    axes.set_xlabel("position")
    axes.set_ylabel("position")
    axes.set_title(f"cosine similarity of learned rows (trained on positions < {TRAIN})")
    bar = figure.colorbar(image, ax=axes, fraction=0.046, pad=0.03)
    bar.outline.set_edgecolor(theme.muted)
    return figure


ALT = (
    f"Cosine-similarity matrix of the first {ROWS.shape[0]} rows of a learned position table "
    f"after training on sequences of {TRAIN} tokens. Inside the trained block the rows are "
    "clearly related, similar near the diagonal; rows from the untrained positions beyond "
    "it are near-random, uncorrelated with each other and with the trained rows."
)

if __name__ == "__main__":
    save_variants(draw, "learned_rows", ALT)
