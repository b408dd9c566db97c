"""The playground's numbers, read off the page in Chromium, against pe.

Each test sets the widget's controls as a reader would (typing into the number
inputs, clicking tokens, moving through the table with the keyboard), reads the
numbers the page shows, and compares them with pe to the precision shown.
Screenshots of the playground in light and dark mode, at a phone's width and a
desktop's, go to .cache/screenshots/ for a person to look at.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT, watched_page

import pe

pytestmark = pytest.mark.browser

SHOWN = 0.5e-6 + 1e-12  # values are shown with 6 decimals
SCREENSHOTS = Path(os.environ.get("PE_SCREENSHOTS", ROOT / ".cache" / "screenshots"))


def exact(position: int, d_model: int, base: float) -> np.ndarray:
    return pe.sinusoidal(np.array([position]), d_model, base=base, dtype=np.float64)[0]


@pytest.fixture
def page(browser, server):
    """A page that blocks every request to another host; none may be made."""
    with watched_page(browser, server) as (page, outside, errors):
        yield page
        assert outside == [], outside
        assert errors == [], errors


def open_widget(page, server, path: str, kind: str):
    page.goto(server + path, wait_until="load")
    widget = page.locator(f'[data-pe-widget="{kind}"]')
    widget.wait_for()
    page.wait_for_function(f"document.querySelector('[data-pe-widget=\"{kind}\"]').dataset.mounted")
    return widget


def set_control(widget, name: str, value) -> None:
    box = widget.locator(f'[data-control="{name}"]').first
    box.fill(str(value))
    box.press("Enter")
    box.dispatch_event("change")


def field(scope, name: str) -> float:
    return float(scope.locator(f'[data-field="{name}"]').first.inner_text())


def read_cell(widget, position: int, dimension: int, *, keyboard: bool = False) -> dict[str, float]:
    """Point at a cell with the mouse (or walk to it with the arrow keys) and read it."""
    canvas = widget.locator('[data-role="heatmap"]')
    d_model = int(widget.locator('[data-control="d"]').input_value())
    length = int(widget.locator('[data-control="length"]').input_value())
    if keyboard:  # from the nearer corner: Home is (0, 0), End the last cell
        canvas.focus()
        from_end = (length - 1 - position) + (d_model - 1 - dimension) < position + dimension
        canvas.press("End" if from_end else "Home")
        across = (d_model - 1 - dimension) if from_end else dimension
        down = (length - 1 - position) if from_end else position
        for _ in range(across):
            canvas.press("ArrowLeft" if from_end else "ArrowRight")
        for _ in range(down):
            canvas.press("ArrowUp" if from_end else "ArrowDown")
    else:
        box = canvas.bounding_box()
        x = (dimension + 0.5) * box["width"] / d_model
        y = (position + 0.5) * box["height"] / length
        canvas.hover(position={"x": x, "y": y})
    readout = widget.locator('[data-role="cell-readout"]')
    return {name: field(readout, name) for name in ("position", "dimension", "angle", "value")}


CONFIGURATIONS = [
    (64, 10000, 50, [(0, 0), (7, 3), (49, 63), (12, 40)]),
    (8, 100, 20, [(19, 7), (5, 2)]),
    (512, 500000, 256, [(255, 509), (250, 511), (2, 3)]),
    (2, 10000, 3, [(2, 1)]),
]


@pytest.mark.parametrize(("d_model", "base", "length", "cells"), CONFIGURATIONS)
def test_table_cells_match_pe(page, server, d_model, base, length, cells):
    widget = open_widget(page, server, "playground/", "playground")
    set_control(widget, "d", d_model)
    set_control(widget, "base", base)
    set_control(widget, "length", length)
    for position, dimension in cells:
        # Cells narrower than a few pixels are reached with the keyboard instead.
        shown = read_cell(widget, position, dimension, keyboard=d_model > 128)
        assert (shown["position"], shown["dimension"]) == (position, dimension)
        angle = position * base ** (-2 * (dimension // 2) / d_model)
        assert abs(shown["angle"] - angle) <= SHOWN * max(1, angle)
        assert abs(shown["value"] - exact(position, d_model, base)[dimension]) <= SHOWN


@pytest.mark.parametrize(
    ("d_model", "base", "first", "second", "pair"),
    [(64, 10000, 2, 9, 0), (16, 100, 0, 7, 3), (128, 10000, 8, 1, 10)],
)
def test_two_tokens_match_pe(page, server, d_model, base, first, second, pair):
    widget = open_widget(page, server, "playground/", "playground")
    set_control(widget, "d", d_model)
    set_control(widget, "base", base)
    widget.locator(f'.pe-token[data-position="{first}"]').click()
    token = widget.locator(f'.pe-token[data-position="{second}"]')
    token.focus()
    token.press("Enter")  # the keyboard works as well as the mouse
    set_control(widget, "pair", pair)
    results = widget.locator('[data-role="pair-results"]')
    assert (field(results, "a"), field(results, "b")) == (first, second)
    assert field(results, "dot") == pytest.approx(
        float(pe.similarity(first, second, d_model, base=base, measure="dot")), abs=SHOWN
    )
    assert field(results, "cosine") == pytest.approx(
        float(pe.similarity(first, second, d_model, base=base)), abs=SHOWN
    )
    assert field(results, "distance") == pytest.approx(
        float(pe.similarity(first, second, d_model, base=base, measure="distance")), abs=SHOWN
    )
    block = pe.rotation_blocks(second - first, d_model, base=base)[pair]
    shown = [
        [field(results, "m00"), field(results, "m01")],
        [field(results, "m10"), field(results, "m11")],
    ]
    np.testing.assert_allclose(shown, block, atol=SHOWN)
    target = exact(second, d_model, base)[2 * pair : 2 * pair + 2]
    np.testing.assert_allclose(
        [field(results, "rotated0"), field(results, "rotated1")], target, atol=2 * SHOWN
    )
    np.testing.assert_allclose(
        [field(results, "target0"), field(results, "target1")], target, atol=SHOWN
    )


def test_pipeline_adds_the_encoding_of_pe(page, server):
    widget = open_widget(page, server, "playground/", "playground")
    set_control(widget, "d", 32)
    widget.locator('[data-control="token"]').select_option("6")
    rows = widget.locator('[data-role="pipeline"] tbody tr')
    code = exact(6, 32, 10000)
    assert rows.count() == 8
    for j in range(8):
        row = rows.nth(j)
        embedding, encoding, total = (field(row, n) for n in ("embedding", "encoding", "sum"))
        assert encoding == pytest.approx(code[j], abs=SHOWN)
        assert total == pytest.approx(embedding + encoding, abs=3 * SHOWN)
    pipeline = widget.locator('[data-role="pipeline"]')
    assert field(pipeline, "encoding-norm") == pytest.approx(np.sqrt(16), abs=0.5e-4)


def test_wave_legend_gives_pe_wavelengths(page, server):
    widget = open_widget(page, server, "playground/", "playground")
    set_control(widget, "d", 128)
    set_control(widget, "dims", "3, 40")
    legend = widget.locator('[data-role="waves-legend"]').inner_text()
    wavelengths = pe.wavelengths(128)
    for dimension in (3, 40):
        assert f"dim {dimension}" in legend
        assert f"wavelength {wavelengths[dimension // 2]:.1f}" in legend


def test_formula_page_widget_by_keyboard(page, server):
    widget = open_widget(page, server, "formula/", "table")
    set_control(widget, "d", 10)
    set_control(widget, "base", 1000)
    shown = read_cell(widget, 5, 9, keyboard=True)
    assert (shown["position"], shown["dimension"]) == (5, 9)
    assert shown["value"] == pytest.approx(exact(5, 10, 1000)[9], abs=SHOWN)
    canvas = widget.locator('[data-role="heatmap"]')
    canvas.press("End")
    readout = widget.locator('[data-role="cell-readout"]')
    assert (field(readout, "position"), field(readout, "dimension")) == (23, 9)


@pytest.mark.parametrize(("position", "offset", "pair"), [(3, 5, 1), (100, -37, 6), (0, 200, 0)])
def test_rotation_page_widget(page, server, position, offset, pair):
    widget = open_widget(page, server, "rotation/", "rotation")
    set_control(widget, "p", position)
    set_control(widget, "k", offset)
    set_control(widget, "pair", pair)
    block = pe.rotation_blocks(offset, 16)[pair]
    shown = [
        [field(widget, "m00"), field(widget, "m01")],
        [field(widget, "m10"), field(widget, "m11")],
    ]
    np.testing.assert_allclose(shown, block, atol=SHOWN)
    start = exact(position, 16, 10000)[2 * pair : 2 * pair + 2]
    target = exact(position + offset, 16, 10000)[2 * pair : 2 * pair + 2]
    np.testing.assert_allclose(
        [field(widget, "start0"), field(widget, "start1")], start, atol=SHOWN
    )
    np.testing.assert_allclose(
        [field(widget, "rotated0"), field(widget, "rotated1")], target, atol=2 * SHOWN
    )
    np.testing.assert_allclose(
        [field(widget, "target0"), field(widget, "target1")], target, atol=SHOWN
    )


def test_controls_clamp_to_their_limits(page, server):
    widget = open_widget(page, server, "playground/", "playground")
    set_control(widget, "d", 7)
    assert widget.locator('[data-control="d"]').input_value() == "6"
    set_control(widget, "d", 100000)
    assert widget.locator('[data-control="d"]').input_value() == "512"
    set_control(widget, "length", 0)
    assert widget.locator('[data-control="length"]').input_value() == "1"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [375, 1280])
def test_layout_holds_and_screenshots(browser, server, scheme, width):
    viewport = {"width": width, "height": 900}
    with watched_page(browser, server, viewport=viewport, color_scheme=scheme) as watched:
        page, outside, errors = watched
        check_layout(page, server, scheme, width)
        assert outside == []
        assert errors == []


def check_layout(page, server, scheme: str, width: int) -> None:
    page.goto(server + "playground/", wait_until="load")
    page.wait_for_function(
        "document.querySelector('[data-pe-widget=\"playground\"]').dataset.mounted"
    )
    expected = "slate" if scheme == "dark" else "default"
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == expected
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at {width}px"
    widget_right = page.evaluate(
        "document.querySelector('[data-pe-widget]').getBoundingClientRect().right"
    )
    assert widget_right <= width
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"playground-{scheme}-{width}.png"), full_page=True)
