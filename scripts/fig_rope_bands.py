"""Wavelength of every pair of Llama 3.1 8B's RoPE, before and after each scaling rule."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

HEAD_DIM, BASE = 128, 500000.0  # Llama 3.1 8B (config.json)
TRAINED, TARGET, FACTOR = 8192, 131072, 8.0
RULES = {
    "no scaling": None,
    "linear": {"type": "linear", "factor": FACTOR},
    "dynamic (at 131,072)": {"type": "dynamic", "factor": FACTOR},
    "yarn": {"type": "yarn", "factor": FACTOR, "original_max_position_embeddings": TRAINED},
    "llama3": {
        "rope_type": "llama3",
        "factor": FACTOR,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": TRAINED,
    },
}


def wavelengths(scaling: dict[str, object] | None) -> np.ndarray:
    result = pe.rope_frequencies(
        HEAD_DIM, base=BASE, scaling=scaling, max_position_embeddings=TRAINED, seq_len=TARGET
    )
    return 2 * np.pi / result.frequencies


def draw(theme: Theme) -> Figure:
    figure, axes = plt.subplots(figsize=(7.2, 3.8), layout="constrained")
    pairs = np.arange(HEAD_DIM // 2)
    styles = ("-", "--", "-.", ":", "-")
    for (name, scaling), colour, style in zip(RULES.items(), theme.series, styles, strict=False):
        axes.plot(pairs, wavelengths(scaling), color=colour, ls=style, lw=1.8, label=name)
    # Shorter on a phone, so that each label ends before the curves rise to its line.
    labels = (
        ("trained 8,192", "target 131,072")
        if theme.phone
        else ("trained context 8,192", "target 131,072")
    )
    for length, text in zip((TRAINED, TARGET), labels, strict=True):
        axes.axhline(length, color=theme.muted, lw=0.8, ls=":")
        axes.text(1, length * 1.3, text, color=theme.muted)
    axes.set_yscale("log")
    axes.set_xlim(0, HEAD_DIM // 2 - 1)
    axes.set_xlabel("pair index i")
    axes.set_ylabel("wavelength (positions)")
    axes.grid(True, which="major", axis="y")
    if theme.phone:  # below the axes: the narrow canvas has no room beside the curves
        figure.legend(loc="outside lower center", ncols=2)
    else:
        axes.legend(loc="lower right")
    return figure


ALT = (
    "Wavelength of each of the 64 pairs of Llama 3.1 8B's RoPE (head_dim 128, base 500000) "
    "on a logarithmic axis, without scaling and under five rules with factor 8, with dotted "
    "lines at the trained context 8,192 and the target 131,072. Linear scaling lifts every "
    "pair by 8; dynamic NTK lifts the slow pairs most and leaves pair 0 alone; YaRN and "
    "llama3 keep the fast pairs where they were, lift every pair whose wavelength exceeds "
    "the trained context by exactly 8, and blend in a short band between."
)

if __name__ == "__main__":
    save_variants(draw, "rope_bands", ALT)
