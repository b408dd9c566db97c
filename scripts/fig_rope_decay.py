"""RoFormer's decay bound and Men et al.'s B_m over distance, for real heads and bases.

The settings are read from `pe._published` (the tested configurations), as the
page's tables read them: Llama 2 7B, Code Llama 7B, Llama 3.1 8B and the two
layer types of Gemma 3 4B.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe
from pe._published import by_model


def head_dim(config: dict[str, object]) -> int:
    explicit = config.get("head_dim")
    if explicit is not None:
        return int(str(explicit))
    return int(str(config["hidden_size"])) // int(str(config["num_attention_heads"]))


LLAMA2 = by_model("Llama 2 7B, dynamic NTK").config  # Llama-2-7b-hf's own keys
CODE = by_model("Code Llama 7B").config
LLAMA3 = by_model("Llama 3.1 8B").config
GEMMA = by_model("Gemma 3, global layers").config
GEMMA_LAYERS = GEMMA["rope_parameters"]
SETTINGS = (
    ("Llama 2 7B (d 128, base 1e4)", head_dim(LLAMA2), float(LLAMA2["rope_theta"])),
    ("Code Llama 7B (d 128, base 1e6)", head_dim(CODE), float(CODE["rope_theta"])),
    ("Llama 3.1 8B (d 128, base 5e5)", head_dim(LLAMA3), float(LLAMA3["rope_theta"])),
    (
        "Gemma 3 4B local (d 256, base 1e4)",
        head_dim(GEMMA),
        float(GEMMA_LAYERS["sliding_attention"]["rope_theta"]),
    ),
    (
        "Gemma 3 4B global (d 256, base 1e6)",
        head_dim(GEMMA),
        float(GEMMA_LAYERS["full_attention"]["rope_theta"]),
    ),
)
# Distances 1 .. 2^20, about 120 per decade, as integers.
DISTANCES = np.unique(np.round(np.logspace(0, 20 * np.log10(2), 480)).astype(np.int64))


def mean_cosine(distances: np.ndarray, dim: int, base: float) -> np.ndarray:
    """B_m / (d/2): the mean over pairs of cos(m θ_i)."""
    theta = pe.frequencies(dim, base)
    mean: np.ndarray = np.cos(np.multiply.outer(distances.astype(np.float64), theta)).mean(axis=-1)
    return mean


def draw(theme: Theme) -> Figure:
    # On a phone the panels are stacked, each as wide as the column.
    shape, size = ((2, 1), (4.0, 7.6)) if theme.phone else ((1, 2), (7.2, 3.6))
    figure, (left, right) = plt.subplots(*shape, figsize=size, layout="constrained")
    styles = ("-", "--", "-.", ":", "-")
    for (name, dim, base), colour, style in zip(SETTINGS, theme.series, styles, strict=False):
        bound = pe.rope_decay_bound(DISTANCES, dim, base)
        left.plot(DISTANCES, bound / bound.max(), color=colour, ls=style, lw=1.4, label=name)
        right.plot(DISTANCES, mean_cosine(DISTANCES, dim, base), color=colour, ls=style, lw=1.1)
    right.axhline(0, color=theme.muted, lw=0.8)
    for axes in (left, right):
        axes.set_xscale("log")
        axes.set_xlim(1, DISTANCES[-1])
        axes.set_xlabel("relative distance r")
        axes.grid(True, which="major")
    left.set_ylim(0, 1.02)
    left.set_ylabel("RoFormer's bound / its value at r = 0")
    left.set_title("(a) the upper bound")
    right.set_ylabel(r"mean over pairs of $\cos(r\,\theta_i)$")
    right.set_title(r"(b) $B_r\,/\,(d/2)$, Men et al.")
    figure.legend(loc="outside lower center", ncols=1 if theme.phone else 2, fontsize=8)
    return figure


ALT = (
    "Two panels against relative distance from 1 to about a million on a logarithmic axis, "
    "for five settings: Llama 2 7B (head size 128, base 10,000), Code Llama 7B (128, "
    "1,000,000), Llama 3.1 8B (128, 500,000) and Gemma 3 4B's local (256, 10,000) and global "
    "(256, 1,000,000) layers. Left: RoFormer's relative upper bound divided by its value at "
    "distance 0; it falls from 1 and then wobbles around a floor, and it falls later for the "
    "larger bases. Right: the mean over pairs of cos(r theta_i), which starts at 1, falls, "
    "and first crosses zero at a distance that grows with the base."
)

if __name__ == "__main__":
    save_variants(draw, "rope_decay", ALT)
