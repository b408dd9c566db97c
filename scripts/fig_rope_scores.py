"""RoPE attention scores for one query and one key at every pair of positions."""

from __future__ import annotations

import matplotlib.pyplot as plt
import torch
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

from pe.nn import RotaryEmbedding

HEAD_DIM = 32
LENGTH = 64


def draw(theme: Theme) -> Figure:
    generator = torch.Generator().manual_seed(0)
    q = torch.randn(HEAD_DIM, generator=generator)
    k = torch.randn(HEAD_DIM, generator=generator)
    rope = RotaryEmbedding(HEAD_DIM)
    queries = rope.rotate(q.expand(LENGTH, HEAD_DIM))  # the same query at positions 0..L-1
    keys = rope.rotate(k.expand(LENGTH, HEAD_DIM))
    scores = (queries @ keys.T).numpy()
    figure, axes = plt.subplots(figsize=(5.6, 4.6), layout="constrained")
    image = axes.imshow(
        scores, cmap=theme.diverging, vmin=-abs(scores).max(), vmax=abs(scores).max()
    )
    axes.set_xlabel("key position n")
    axes.set_ylabel("query position m")
    axes.set_title("score of R(m)q · R(n)k for one q and one k")
    bar = figure.colorbar(image, ax=axes, fraction=0.046, pad=0.03)
    bar.outline.set_edgecolor(theme.muted)
    return figure


ALT = (
    f"A {LENGTH} by {LENGTH} heatmap of the attention score between one query vector placed at "
    "position m (rows) and one key vector placed at position n (columns), after rotary "
    "embedding. Every diagonal has a single colour: the score depends on n - m only."
)

if __name__ == "__main__":
    save_variants(draw, "rope_scores", ALT)
