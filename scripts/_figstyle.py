"""Shared look of every figure: fixed size and fonts, light and dark variants.

A figure script defines ``draw(theme) -> Figure`` and a description of what it
shows, and ends with ``save_variants(draw, "name", alt)``; this writes
``name-light.svg``, ``name-dark.svg`` and the alt text ``name-alt.txt`` into
the directory given on the command line. The SVGs are
reproducible: text is drawn as paths with matplotlib's bundled DejaVu Sans,
element ids are salted with a constant and no date is written.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
from cycler import cycler

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType


@dataclass(frozen=True)
class Theme:
    """Colours of one palette of the site (Material's default and slate schemes)."""

    name: str
    text: str
    muted: str
    grid: str
    series: tuple[str, ...]
    diverging: str
    sequential: str


LIGHT = Theme(
    name="light",
    text="#1f2328",
    muted="#57606a",
    grid="#d0d7de",
    series=("#3f51b5", "#e65100", "#2e7d32", "#8e24aa", "#00838f", "#c62828"),
    diverging="RdBu_r",
    sequential="viridis",
)
DARK = Theme(
    name="dark",
    text="#e6edf3",
    muted="#9da7b3",
    grid="#3d444d",
    series=("#8c9eff", "#ffab40", "#69f0ae", "#ea80fc", "#4dd0e1", "#ff8a80"),
    diverging="RdBu_r",
    sequential="viridis",
)
THEMES = (LIGHT, DARK)


def rc(theme: Theme) -> dict[RcKeyType, Any]:
    """Matplotlib settings for `theme`: transparent background, themed ink."""
    return {
        "figure.figsize": (7.2, 3.6),
        "figure.dpi": 100,
        "savefig.transparent": True,
        "savefig.bbox": "tight",
        "savefig.pad_inches": 0.05,
        "font.family": "DejaVu Sans",
        "font.size": 10,
        "axes.titlesize": 11,
        "axes.edgecolor": theme.muted,
        "axes.labelcolor": theme.text,
        "axes.titlecolor": theme.text,
        "axes.prop_cycle": cycler(color=list(theme.series)),
        "axes.grid": False,
        "grid.color": theme.grid,
        "grid.linewidth": 0.6,
        "xtick.color": theme.muted,
        "ytick.color": theme.muted,
        "xtick.labelcolor": theme.text,
        "ytick.labelcolor": theme.text,
        "legend.frameon": False,
        "legend.labelcolor": theme.text,
        "text.color": theme.text,
        "svg.hashsalt": "pe-figures",
        "svg.fonttype": "path",
        "image.interpolation": "nearest",
        "path.simplify": True,
        "savefig.dpi": 150,
    }


def save_variants(draw: Callable[[Theme], Figure], name: str, alt: str) -> None:
    """Draw the figure once per theme and save it, with its alt text, into ``argv[1]``."""
    if len(sys.argv) != 2:
        raise SystemExit(f"usage: python {sys.argv[0]} OUTPUT_DIRECTORY")
    if not alt.strip():
        raise SystemExit(f"{name}: every figure needs alt text describing what it shows")
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}-alt.txt").write_text(" ".join(alt.split()) + "\n", encoding="utf-8")
    for theme in THEMES:
        with plt.rc_context(rc(theme)):
            figure = draw(theme)
            figure.savefig(out / f"{name}-{theme.name}.svg", metadata={"Date": None})
            plt.close(figure)
