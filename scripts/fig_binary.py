"""Binary digits of the positions next to the sine columns: the analogy and its limits."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

import pe

LENGTH = 64
BITS = 6
D_MODEL = 16


def draw(theme: Theme) -> Figure:
    positions = np.arange(LENGTH)
    bits = (positions[:, None] >> np.arange(BITS)[None, :]) & 1
    sines = pe.sinusoidal(LENGTH, D_MODEL, dtype=np.float64)[:, 0::2]
    figure, (left, right) = plt.subplots(1, 2, figsize=(7.2, 4.2), layout="constrained")
    left.imshow(
        bits, cmap="Greys" if theme.name == "light" else "Greys_r", aspect="auto", vmin=0, vmax=1
    )
    left.set_title("binary digits of p")
    left.set_xlabel("digit (1, 2, 4, ... )")
    left.set_xticks(range(BITS), [str(2**j) for j in range(BITS)])
    left.set_ylabel("position p")
    image = right.imshow(sines, cmap=theme.diverging, vmin=-1, vmax=1, aspect="auto")
    right.set_title(f"sine columns, d = {D_MODEL}")
    right.set_xlabel("pair i")
    right.set_yticks([])
    bar = figure.colorbar(image, ax=right, fraction=0.06, pad=0.02)
    bar.outline.set_edgecolor(theme.muted)
    return figure


ALT = (
    f"Left: the {BITS} binary digits of positions 0 to {LENGTH - 1}, black and white stripes "
    "whose period doubles from one column to the next. Right: the sine columns of a "
    f"{D_MODEL}-wide encoding over the same positions, smooth colour gradients whose "
    "period also grows from left to right, but by a factor that is not 2 and without "
    "ever repeating exactly."
)

if __name__ == "__main__":
    save_variants(draw, "binary", ALT)
