"""Wavelength of every pair on a log scale: a straight line from 2*pi towards 2*pi*base."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

D_MODELS = (64, 128, 512)
BASE = 10000.0


def draw(theme: Theme) -> Figure:
    figure, axes = plt.subplots(figsize=(7.2, 3.4), layout="constrained")
    for d_model, colour in zip(D_MODELS, theme.series, strict=False):
        pairs = np.arange(d_model // 2)
        axes.plot(
            pairs, pe.wavelengths(d_model, BASE), color=colour, lw=1.8, label=f"d = {d_model}"
        )
    axes.axhline(2 * np.pi, color=theme.muted, lw=0.8, ls=":")
    axes.axhline(2 * np.pi * BASE, color=theme.muted, lw=0.8, ls=":")
    axes.text(2, 2 * np.pi * 1.25, "2π", color=theme.muted)
    axes.text(2, 2 * np.pi * BASE * 1.25, "2π·base (never reached)", color=theme.muted)
    axes.set_yscale("log")
    axes.set_ylim(3, 2 * np.pi * BASE * 4)
    axes.set_xlim(0, max(D_MODELS) // 2)
    axes.set_xlabel("pair index i")
    axes.set_ylabel("wavelength (positions)")
    axes.grid(True, which="major", axis="y")
    axes.legend(loc="lower right")
    return figure


ALT = (
    "Wavelength of each pair against its index on a logarithmic vertical axis, for "
    f"d = {', '.join(map(str, D_MODELS))}. Each is a straight line from 2π at pair 0 up to "
    "just below the dotted line at 2π·10000, which no pair reaches; the smaller d climbs "
    "the same range in fewer, larger steps."
)

if __name__ == "__main__":
    save_variants(draw, "wavelengths", ALT)
