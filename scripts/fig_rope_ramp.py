"""How much each pair slows down under YaRN and llama3, and the attention factors."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

QWEN = {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}  # Qwen2.5
LLAMA = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}  # Llama 3.1
CASES = (
    ("Qwen2.5 yarn, s = 4 (base 1e6)", 128, 1e6, QWEN),
    ("Llama 3.1 llama3, s = 8 (base 5e5)", 128, 500000.0, LLAMA),
)


def draw(theme: Theme) -> Figure:
    # Side by side; stacked on a phone.
    shape, size = ((2, 1), (4.0, 6.4)) if theme.phone else ((1, 2), (7.2, 3.4))
    figure, (left, right) = plt.subplots(*shape, figsize=size, layout="constrained")
    slowest = 1.0
    for (name, head_dim, base, scaling), colour in zip(CASES, theme.series, strict=False):
        plain = pe.rope_frequencies(head_dim, base=base).frequencies
        scaled = pe.rope_frequencies(head_dim, base=base, scaling=scaling).frequencies
        left.plot(np.arange(plain.size), plain / scaled, color=colour, lw=1.8, label=name)
        slowest = max(slowest, float(np.max(plain / scaled)))
    left.set_xlabel("pair index i")
    left.set_ylabel("slow-down θ / θ′")
    left.set_title("the ramp (fast pairs kept)", color=theme.text)
    left.grid(True, axis="y")
    # Room above the slowest pair for the legend, which would cover the ramp beside it.
    left.set_ylim(0.5, slowest * (1.4 if theme.phone else 1.3))
    left.legend(loc="upper left", fontsize="small")
    factors = np.geomspace(1, 64, 200)
    yarn = 0.1 * np.log(factors) + 1
    longrope = np.sqrt(1 + np.log(factors) / math.log(4096))
    right.plot(factors, yarn, color=theme.series[2], lw=1.8, label="yarn: 0.1 ln s + 1")
    right.plot(
        factors,
        longrope,
        color=theme.series[3],
        lw=1.8,
        ls="--",
        label="longrope: √(1 + ln s / ln 4096)",
    )
    right.set_xscale("log", base=2)
    right.set_xlabel("factor s")
    right.set_ylabel("attention factor (on cos, sin)")
    right.set_title("attention factors", color=theme.text)
    right.grid(True)
    right.legend(loc="upper left", fontsize="small")
    return figure


ALT = (
    "Left: for each pair, how many times slower it turns after scaling. Qwen2.5's YaRN "
    "(factor 4) and Llama 3.1's llama3 rule (factor 8) are both flat at 1 for the fast pairs, "
    "rise along a ramp over a few pairs and stay at the full factor for the slow pairs. Right: "
    "the attention factor against the scaling factor from 1 to 64 on a log axis: YaRN's "
    "0.1 ln s + 1 reaches about 1.42 at 64, LongRoPE's square root with a 4096 context about 1.22."
)

if __name__ == "__main__":
    save_variants(draw, "rope_ramp", ALT)
