"""Shared look of every figure: fixed size and fonts, light and dark variants.

A figure script defines ``draw(theme) -> Figure`` and a description of what it
shows, and ends with ``save_variants(draw, "name", alt)``; this writes
``name-light.svg``, ``name-dark.svg`` and the alt text ``name-alt.txt`` into
the directory given on the command line, and a phone variant of each
(``name-light-phone.svg``, ``name-dark-phone.svg``): the same drawing on a
narrower canvas (`PHONE_WIDTH`) with no text under `PHONE_MIN_FONT`, so that a
phone, which shrinks a figure to its ~340 px column, still draws its text at
9.5 px or more (the pages serve it through ``<picture>``; ``tests/test_site.py``
measures every figure's text at 375 px). A script whose figure needs another
arrangement on a phone (panels stacked, not side by side) reads
``theme.phone``. The SVGs are
reproducible: text is drawn as paths with matplotlib's bundled DejaVu Sans,
element ids are salted with a constant and no date is written.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
from cycler import cycler

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import LogFormatterMathtext

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
    phone: bool = False  # drawn for a phone's column (see `phone_layout`)


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


# The phone variant: at most this wide (inches; 1 in is 96 CSS px), and no text
# smaller than this (points; 1 pt is 4/3 px). Shrunk into the 343 px column of a
# 375 px phone, a 4.0 in figure is drawn at 0.89 of its size: 9 pt text at 10.7 px.
PHONE_WIDTH = 4.0
PHONE_MIN_FONT = 9.0
# A log axis labels its ticks 10^k or 2^k in mathtext, whose exponent is set at
# 0.7 of the label's size: at 9 pt it was drawn at about 8 px on a phone. Such an
# axis' tick labels are 12 pt there, so the exponent is 8.4 pt (10 px at 0.89).
PHONE_EXPONENT_FONT = 12.0


def phone_layout(figure: Figure) -> Figure:
    """Fit `figure` to a phone: `PHONE_WIDTH` wide, no text under `PHONE_MIN_FONT` points.

    The height shrinks less than the width (panels get relatively taller), and
    a figure laid out once by hand (``tight_layout``) is laid out by the
    constrained engine, which keeps its labels and legends inside the canvas.
    """
    width, height = figure.get_size_inches()
    if width > PHONE_WIDTH:
        figure.set_size_inches(PHONE_WIDTH, height * (PHONE_WIDTH / width) ** 0.35)
    engine = figure.get_layout_engine()
    if type(engine).__name__ == "TightLayoutEngine":
        figure.set_layout_engine("constrained")
    for axes in figure.axes:  # tick labels made at drawing time take the axis' size
        for axis in (axes.xaxis, axes.yaxis):
            sizes = [float(label.get_fontsize()) for label in axis.get_ticklabels(which="both")]
            if isinstance(axis.get_major_formatter(), LogFormatterMathtext):
                axis.set_tick_params(which="both", labelsize=PHONE_EXPONENT_FONT)
            elif sizes and min(sizes) < PHONE_MIN_FONT:
                axis.set_tick_params(which="both", labelsize=PHONE_MIN_FONT)
    for text in figure.findobj(Text):
        if text.get_text() and float(text.get_fontsize()) < PHONE_MIN_FONT:
            text.set_fontsize(PHONE_MIN_FONT)
    return figure


def save_variants(draw: Callable[[Theme], Figure], name: str, alt: str) -> None:
    """Draw the figure once per theme and save it, with its alt text, into ``argv[1]``."""
    if len(sys.argv) != 2:
        raise SystemExit(f"usage: python {sys.argv[0]} OUTPUT_DIRECTORY")
    if not alt.strip():
        raise SystemExit(f"{name}: every figure needs alt text describing what it shows")
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}-alt.txt").write_text(" ".join(alt.split()) + "\n", encoding="utf-8")
    report = os.environ.get("PE_LEGEND_REPORT")  # a folder, set by the test suite: see _legends.py
    legends: dict[str, list[str]] = {}
    for theme in THEMES:
        with plt.rc_context(rc(theme)):
            for drawing, suffix in (("desktop", ""), ("phone", "-phone")):
                if drawing == "phone":
                    figure = phone_layout(draw(replace(theme, phone=True)))
                else:
                    figure = draw(theme)
                figure.savefig(out / f"{name}-{theme.name}{suffix}.svg", metadata={"Date": None})
                if report and theme is LIGHT:
                    from _legends import legend_overlaps

                    legends[drawing] = legend_overlaps(figure)
                plt.close(figure)
    if report:
        script = Path(sys.argv[0]).stem  # the report is named after the script that drew
        Path(report, f"{script}.json").write_text(json.dumps(legends), encoding="utf-8")
