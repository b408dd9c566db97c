"""Where each legend of a figure lies: clear of the data, or covering it.

A check, not part of the look: ``tests/test_scripts.py`` reads it for every
figure, desktop and phone drawing. The suite's second run of every figure
script (``tests/conftest.py``) sets ``PE_LEGEND_REPORT`` to a folder, and
`_figstyle.save_variants` then writes there, as ``<script name>.json``, what
`legend_overlaps` finds in the light drawings it has just saved, so that each
figure is drawn once for both checks: the same bytes, and legends clear of the
data.
"""

from __future__ import annotations

from typing import Any

from matplotlib.collections import Collection
from matplotlib.lines import Line2D
from matplotlib.text import Text
from matplotlib.transforms import Bbox


def legend_overlaps(figure: Any) -> list[str]:
    """Say what each legend of a drawn `figure` covers, in the figure's own pixels.

    A line, marker, band or text of its axes (of every axes, for a legend of the
    figure), or another legend. A reference line across the whole axes
    (``axhline``, ``axvline``: drawn partly in axes coordinates) is not data.
    """
    figure.draw_without_rendering()  # the layout, as a save would make it; no pixels
    renderer = figure.canvas.get_renderer()
    legends = [(axes.get_legend(), axes) for axes in figure.axes if axes.get_legend()]
    # A legend of the figure, or of one of its subfigures (checked against every axes).
    figures = [figure]
    while figures:
        owner_figure = figures.pop()
        legends += [(legend, None) for legend in owner_figure.legends]
        figures += owner_figure.subfigs
    found = []
    for legend, owner in legends:
        box = legend.get_window_extent(renderer).padded(-2)  # the text's box, not its margin
        for axes in figure.axes if owner is None else [owner]:
            clip = axes.get_window_extent(renderer)
            inside = Bbox.intersection(box, clip)
            if inside is None or inside.width <= 0 or inside.height <= 0:
                continue
            for artist in [*axes.lines, *axes.collections, *axes.texts]:
                if not artist.get_visible():
                    continue
                name = f"{type(artist).__name__} {artist.get_label()!r}"
                across = artist.get_transform() in (
                    axes.get_xaxis_transform(),
                    axes.get_yaxis_transform(),
                )
                if isinstance(artist, Line2D) and across:
                    continue
                if isinstance(artist, Line2D):
                    path = artist.get_transform().transform_path(artist.get_path())
                    if path.intersects_bbox(inside, filled=False):
                        found.append(f"legend covers {name}")
                elif isinstance(artist, Collection):
                    transform = artist.get_transform()
                    if any(
                        transform.transform_path(path).intersects_bbox(inside, filled=True)
                        for path in artist.get_paths()
                    ):
                        found.append(f"legend covers {name}")
                elif (
                    isinstance(artist, Text)
                    and artist.get_text()
                    and artist.get_window_extent(renderer).overlaps(inside)
                ):
                    found.append(f"legend covers text {artist.get_text()!r}")
    boxes = [legend.get_window_extent(renderer) for legend, _ in legends]
    for i, first in enumerate(boxes):
        found += [f"legends {i} and {j} overlap" for j in range(i) if first.overlaps(boxes[j])]
    return found
