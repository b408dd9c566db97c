"""The timestep embedding and what each of its settings changes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from _figstyle import Theme, save_variants
from matplotlib.axes import Axes
from matplotlib.figure import Figure

import pe

DIM = 64
# Every eighth timestep of 0..999: the heatmaps look the same and the SVG's
# embedded images stay small (the site's figures stay under 200 kB).
STEPS = np.arange(0, 1000, 8)


def _heatmap(axes: Axes, theme: Theme, table: np.ndarray, title: str) -> None:
    extent = (-0.5, table.shape[1] - 0.5, STEPS[-1] + 4, -4)  # rows at their timesteps
    axes.imshow(
        table,
        cmap=theme.diverging,
        vmin=-1,
        vmax=1,
        aspect="auto",
        extent=extent,
        interpolation="none",  # the SVG embeds the 125 x 64 table itself, not a resampled raster
    )
    axes.set_xlabel("column")
    axes.set_ylabel("timestep t")
    axes.axvline(DIM / 2 - 0.5, color=theme.text, lw=0.8, ls=":")
    axes.set_title(title, color=theme.text, fontsize="medium")


def draw(theme: Theme) -> Figure:
    # Side by side; stacked on a phone, each panel in a subfigure of its own, so that
    # the legends go below their panels (the narrow canvas has no room beside the curves).
    if theme.phone:
        figure = plt.figure(figsize=(4.0, 12.0), layout="constrained")
        panels = np.asarray(figure.subfigures(4, 1, height_ratios=(1.0, 1.0, 1.25, 1.15)))
        ddpm_axes, flipped_axes, periods, scaled = (panel.subplots() for panel in panels.flat)
    else:
        figure, grid = plt.subplots(2, 2, figsize=(7.2, 6.4), layout="constrained")
        ddpm_axes, flipped_axes, periods, scaled = grid.flat
    ddpm = pe.timestep_embedding(STEPS, DIM, dtype=np.float64)
    flipped = pe.timestep_embedding(
        STEPS, DIM, flip_sin_to_cos=True, downscale_freq_shift=0, dtype=np.float64
    )
    _heatmap(ddpm_axes, theme, ddpm, "DDPM: [sin | cos], shift 1")
    _heatmap(flipped_axes, theme, flipped, "Stable Diffusion: [cos | sin], shift 0")

    for (shift, period), colour in zip(
        ((1.0, 10000.0), (0.0, 10000.0), (1.0, 1000.0)), theme.series, strict=False
    ):
        omega = pe.timestep_frequencies(DIM, downscale_freq_shift=shift, max_period=period)
        periods.plot(
            np.arange(omega.size),
            2 * np.pi / omega,
            color=colour,
            lw=1.8,
            label=f"shift {shift:g}, max_period {period:g}",
        )
    periods.axhline(1000, color=theme.muted, lw=0.8, ls="--")
    periods.text(0.5, 1150, "1000 steps", color=theme.muted, fontsize="small")
    periods.set_yscale("log")
    periods.set_xlabel("pair i")
    periods.set_ylabel(r"period $2\pi/\omega_i$ (timesteps)")
    periods.set_title("shift and max_period: the slow end", color=theme.text, fontsize="medium")
    periods.grid(True, axis="y")
    _legend(periods, theme)

    sigma = np.linspace(0, 1, 400)
    column = 8  # the sine of pair 8
    for (scale, label), colour in zip(
        ((1.0, "scale 1 on σ"), (1000.0, "scale 1000 on σ (= t = 1000 σ)")),
        theme.series,
        strict=False,
    ):
        values = pe.timestep_embedding(
            sigma, DIM, downscale_freq_shift=0, scale=scale, dtype=np.float64
        )[:, column]
        scaled.plot(sigma, values, color=colour, lw=1.8, label=label)
    scaled.set_xlabel("noise level σ")
    scaled.set_ylabel(f"column {column} (sin of pair {column})")
    scaled.set_title("scale: σ in [0, 1] needs ×1000", color=theme.text, fontsize="medium")
    scaled.set_ylim(-1.1, 1.6)
    scaled.grid(True)
    _legend(scaled, theme)
    return figure


def _legend(axes: Axes, theme: Theme) -> None:
    """The legend of `axes`: inside, top left; below the panel on a phone."""
    panel = axes.get_figure()  # on a phone, the panel's own subfigure
    if theme.phone and panel is not None:
        panel.legend(loc="outside lower center", ncols=1)
    else:
        axes.legend(loc="upper left", fontsize="small")


ALT = (
    "Four panels. Top: heatmaps of a 64-wide timestep embedding for timesteps 0 to 999. "
    "With DDPM's settings the left half (sines) starts at 0 and the right half (cosines) "
    "at 1; with Stable Diffusion's settings the halves are swapped. Bottom left: the "
    "period of each pair on a log scale, rising from 2π; with shift 1 the last pair "
    "reaches 2π·10000 exactly, with shift 0 a little less, with max_period 1000 ten "
    "times less. Bottom right: one column against a noise level in [0, 1]: with scale 1 "
    "it barely moves; multiplied by 1000 it oscillates many times."
)

if __name__ == "__main__":
    save_variants(draw, "timesteps", ALT)
