"""The playground in Chromium: its numbers against pe, its messages, its keyboard, axe.

Each test sets the widget's controls as a reader would (typing into the boxes,
pressing keys, pointing at the table), reads the numbers the page shows, and
compares them with pe, or with float64 formulas written here, to the precision
shown. Other tests check what a reader without a mouse or without sight gets:
refused values explained, every canvas named, a live region that speaks only
when the reader settles, focus rings, 44 px touch targets on phones, no sideways
scroll, and axe-core (shipped by the pinned axe-playwright-python package)
finding no WCAG 2.1 AA violation in the widget at 375 and 1280 px in both schemes.
Screenshots go to .cache/screenshots/ (or $PE_SCREENSHOTS) for a person to look at.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import ROOT, watched_page
from playwright.sync_api import Browser, Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import pe
from tools.local_site import open_page

pytestmark = pytest.mark.browser

SHOWN = 0.5e-6 + 1e-12  # values are shown with 6 decimals
NORM_SHOWN = 0.5e-4 + 1e-12  # norms with 4
SCREENSHOTS = Path(os.environ.get("PE_SCREENSHOTS", ROOT / ".cache" / "screenshots"))
PLAYGROUND = '[data-pe-widget="playground"]'


def contrast(first: tuple[int, ...], second: tuple[int, ...]) -> float:
    """WCAG 2.1 contrast ratio of two sRGB colours given as 0-255 triples."""

    def luminance(colour: tuple[int, ...]) -> float:
        linear = [
            c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4
            for c in colour
        ]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_contrast_formula_knows_black_on_white() -> None:
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast((118, 118, 118), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)


def exact(position: int, d_model: int, base: float) -> np.ndarray:
    return np.asarray(pe.sinusoidal(np.array([position]), d_model, base=base, dtype=np.float64)[0])


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    """A page that blocks every request to another host; none may be made."""
    with watched_page(browser, server) as (page, outside, errors):
        yield page
        assert outside == [], outside
        assert errors == [], errors


def open_widget(page: Page, server: str, path: str, kind: str) -> Locator:
    open_page(page, server + path)
    widget = page.locator(f'[data-pe-widget="{kind}"]')
    widget.wait_for()
    page.wait_for_function(f"document.querySelector('[data-pe-widget=\"{kind}\"]').dataset.mounted")
    return widget


def set_control(widget: Locator, name: str, value: object) -> None:
    box = widget.locator(f'[data-control="{name}"]').first
    box.fill(str(value))
    box.press("Enter")


def field(scope: Locator, name: str) -> float:
    return float(scope.locator(f'[data-field="{name}"]').first.inner_text())


def fields(scope: Locator, name: str) -> list[float]:
    return [float(t) for t in scope.locator(f'[data-field="{name}"]').all_inner_texts()]


def message(widget: Locator, name: str) -> str:
    box = widget.locator(f'[data-role="message-{name}"]')
    return box.inner_text() if box.is_visible() else ""


def read_cell(
    widget: Locator, position: int, dimension: int, *, keyboard: bool = False
) -> dict[str, float]:
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
    else:  # the plotted area sits inside the axes; the canvas says where
        plot = {
            k: float(canvas.get_attribute(f"data-plot-{k}") or "")
            for k in ("left", "top", "width", "height")
        }
        x = plot["left"] + (dimension + 0.5) * plot["width"] / d_model
        y = plot["top"] + (position + 0.5) * plot["height"] / length
        canvas.hover(position={"x": x, "y": y})
    readout = widget.locator('[data-role="cell-readout"]')
    return {name: field(readout, name) for name in ("position", "dimension", "angle", "value")}


CONFIGURATIONS = [
    (64, 10000, 50, [(0, 0), (7, 3), (49, 63), (12, 40)]),
    (8, 100, 20, [(19, 7), (5, 2)]),
    (512, 500000, 256, [(255, 509), (250, 511), (2, 3)]),
    (2, 10000, 3, [(2, 1)]),
]


def test_table_cells_match_pe(page: Page, server: str) -> None:
    widget = open_widget(page, server, "playground/", "playground")
    for d_model, base, length, cells in CONFIGURATIONS:
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


COMPARISONS = [
    (64, 10000, 50, 2, 9, 0),
    (16, 100, 50, 0, 7, 3),
    (128, 10000, 256, 200, 37, 10),
    (2, 10000, 256, 0, 255, 0),
]


def test_two_positions_match_pe(page: Page, server: str) -> None:
    widget = open_widget(page, server, "playground/", "playground")
    for configuration in COMPARISONS:
        check_two_positions(widget, *configuration)
    check_offset_only(widget)


def check_two_positions(
    widget: Locator, d_model: int, base: float, length: int, p: int, q: int, pair: int
) -> None:
    set_control(widget, "d", d_model)
    set_control(widget, "base", base)
    set_control(widget, "length", length)
    set_control(widget, "p", p)
    set_control(widget, "q", q)
    set_control(widget, "pair", pair)
    results = widget.locator('[data-role="pair-results"]')
    assert (field(results, "a"), field(results, "b"), field(results, "offset")) == (p, q, q - p)
    for measure in ("dot", "cosine", "distance"):
        expected = float(pe.analysis.similarity(p, q, d_model, base=base, measure=measure))
        assert field(results, measure) == pytest.approx(expected, abs=SHOWN), measure
    # Both vectors, dimension by dimension, and their product.
    table = widget.locator('[data-role="compare-table"]')
    first, second = exact(p, d_model, base), exact(q, d_model, base)
    shown = min(d_model, 8)
    np.testing.assert_allclose(fields(table, "pe-p"), first[:shown], atol=SHOWN)
    np.testing.assert_allclose(fields(table, "pe-q"), second[:shown], atol=SHOWN)
    np.testing.assert_allclose(fields(table, "product"), first[:shown] * second[:shown], atol=SHOWN)
    # The rotation by the offset takes p's pair to q's.
    rotation = widget.locator('[data-role="rotation-results"]')
    block = pe.rotation_blocks(q - p, d_model, base=base)[pair]
    matrix = [
        [field(rotation, "m00"), field(rotation, "m01")],
        [field(rotation, "m10"), field(rotation, "m11")],
    ]
    np.testing.assert_allclose(matrix, block, atol=SHOWN)
    target = second[2 * pair : 2 * pair + 2]
    np.testing.assert_allclose(
        [field(rotation, "rotated0"), field(rotation, "rotated1")], target, atol=2 * SHOWN
    )
    np.testing.assert_allclose(
        [field(rotation, "target0"), field(rotation, "target1")], target, atol=SHOWN
    )


def test_shifting_both_positions_keeps_the_dot_product(page: Page, server: str) -> None:
    """The shift buttons move p and q together; the dot product is sum_i cos(k omega_i)."""
    widget = open_widget(page, server, "playground/", "playground")
    results = widget.locator('[data-role="pair-results"]')
    omega = 10000.0 ** (-np.arange(32) * 2 / 64)
    later = widget.locator('[data-action="shift-up"]')
    later.focus()
    for step in range(1, 4):
        page.keyboard.press("Enter")
        assert (field(results, "a"), field(results, "b")) == (5 + step, 9 + step)
        assert field(results, "dot") == pytest.approx(np.cos(4 * omega).sum(), abs=SHOWN)
    assert later.get_attribute("aria-disabled") is None
    edge = widget.locator('[data-role="shift-edge"]')
    assert not edge.is_visible()
    set_control(widget, "q", 49)
    later.focus()
    page.keyboard.press("Enter")  # q would leave the table: nothing moves, and the page says why
    assert (field(results, "a"), field(results, "b")) == (8, 49)
    assert later.get_attribute("aria-disabled") == "true"
    assert edge.is_visible()
    assert "q is already at position 49, the last" in edge.inner_text()
    assert widget.locator(f"#{later.get_attribute('aria-describedby')}").inner_text() == (
        edge.inner_text()
    )
    earlier = widget.locator('[data-action="shift-down"]')
    assert earlier.get_attribute("aria-disabled") is None
    earlier.focus()
    page.keyboard.press("Enter")
    assert (field(results, "a"), field(results, "b")) == (7, 48)
    assert later.get_attribute("aria-disabled") is None
    assert not edge.is_visible()
    set_control(widget, "p", 0)
    assert earlier.get_attribute("aria-disabled") == "true"
    assert "p is already at position 0" in edge.inner_text()


def check_offset_only(widget: Locator) -> None:
    """Moving p and q together leaves the dot product as it was (shift invariance)."""
    set_control(widget, "d", 64)
    set_control(widget, "base", 10000)
    set_control(widget, "length", 200)
    results = widget.locator('[data-role="pair-results"]')
    shown = []
    for p in (0, 40, 150):
        set_control(widget, "p", p)
        set_control(widget, "q", p + 13)
        shown.append(field(results, "dot"))
    # sum over pairs of cos(13 omega_i), written out here
    omega = 10000.0 ** (-np.arange(32) * 2 / 64)
    assert shown == pytest.approx([np.cos(13 * omega).sum()] * 3, abs=SHOWN)


def check_prose(page: Page, widget: Locator) -> None:
    """The executed paragraph above the widget and the widget agree at the start."""
    prose = page.locator("article").inner_text()
    results = widget.locator('[data-role="pair-results"]')
    dot = results.locator('[data-field="dot"]').inner_text()
    cosine = results.locator('[data-field="cosine"]').inner_text()
    assert f"dot product {dot} (cosine {cosine})" in prose
    assert widget.locator('[data-field="norm-encoding"]').inner_text() in prose


def pipeline_columns(widget: Locator) -> dict[str, np.ndarray]:
    table = widget.locator('[data-role="pipeline"] table')
    return {key: np.array(fields(table, key)) for key in ("embedding", "scaled", "encoding", "sum")}


def test_pipeline_values_and_norms_match_pe(page: Page, server: str) -> None:
    widget = open_widget(page, server, "playground/", "playground")
    for d_model, token in [(16, 6), (8, 0), (4, 9)]:
        check_pipeline(widget, d_model, token)
    check_wide_pipeline(widget)


def check_pipeline(widget: Locator, d_model: int, token: int) -> None:
    set_control(widget, "d", d_model)
    widget.locator('[data-control="token"]').select_option(str(token))
    column = pipeline_columns(widget)  # every dimension is shown at these widths
    assert len(column["embedding"]) == d_model
    scale = np.sqrt(d_model)
    np.testing.assert_allclose(
        column["scaled"], column["embedding"] * scale, atol=SHOWN * (1 + scale)
    )
    np.testing.assert_allclose(column["encoding"], exact(token, d_model, 10000), atol=SHOWN)
    np.testing.assert_allclose(column["sum"], column["scaled"] + column["encoding"], atol=3 * SHOWN)
    steps = widget.locator('[data-role="pipeline-steps"]')
    rounding = SHOWN * np.sqrt(d_model) * (1 + scale)  # what 6 shown decimals can move a norm
    assert field(steps, "norm-embedding") == pytest.approx(
        np.linalg.norm(column["embedding"]), abs=NORM_SHOWN + rounding
    )
    assert field(steps, "norm-scaled") == pytest.approx(
        np.linalg.norm(column["scaled"]), abs=NORM_SHOWN + rounding
    )
    assert field(steps, "norm-encoding") == pytest.approx(np.sqrt(d_model / 2), abs=NORM_SHOWN)
    expected_sum = np.linalg.norm(column["scaled"] + exact(token, d_model, 10000))
    assert field(steps, "norm-sum") == pytest.approx(expected_sum, abs=NORM_SHOWN + rounding)


def check_wide_pipeline(widget: Locator) -> None:
    """At d = 512: the scaled norm is sqrt(d) times the first; the encoding's is sqrt(d/2)."""
    set_control(widget, "d", 512)
    steps = widget.locator('[data-role="pipeline-steps"]')
    first, scaled = field(steps, "norm-embedding"), field(steps, "norm-scaled")
    assert scaled == pytest.approx(first * np.sqrt(512), abs=NORM_SHOWN * (1 + np.sqrt(512)))
    assert field(steps, "norm-encoding") == pytest.approx(16.0, abs=NORM_SHOWN)
    assert 0.8 < first < 1.2  # entries of standard deviation 1/sqrt(d): norm near 1


def test_pipeline_steps_play_pause_and_keyboard(browser: Browser, server: str) -> None:
    with watched_page(browser, server) as (page, outside, errors):
        page.clock.install()
        widget = open_widget(page, server, "playground/", "playground")
        current = widget.locator('[data-role="pipeline-steps"] [aria-current="step"]')
        assert current.get_attribute("data-step") == "embedding"  # step 1 of 4
        label = widget.locator('[data-role="step-label"]').inner_text()
        assert label.startswith("Step 1 of 4")
        assert widget.locator('[data-action="back"]').is_disabled()
        forward = widget.locator('[data-action="forward"]')
        forward.focus()
        page.keyboard.press("Enter")
        assert current.get_attribute("data-step") == "scaled"
        page.keyboard.press("Enter")
        assert current.get_attribute("data-step") == "encoding"
        page.keyboard.press("Space")
        assert current.get_attribute("data-step") == "sum"
        assert forward.is_disabled()
        back = widget.locator('[data-action="back"]')
        back.focus()
        for _ in range(3):
            page.keyboard.press("Enter")
        assert current.get_attribute("data-step") == "embedding"
        assert back.is_disabled()
        play = widget.locator('[data-action="play"]')
        play.focus()
        page.keyboard.press("Enter")
        assert play.get_attribute("aria-pressed") == "true"
        page.clock.run_for(1700)
        assert current.get_attribute("data-step") == "scaled"
        page.keyboard.press("Enter")  # pause
        assert play.get_attribute("aria-pressed") == "false"
        page.clock.run_for(5000)
        assert current.get_attribute("data-step") == "scaled"
        page.keyboard.press("Enter")  # play to the end, where it stops by itself
        page.clock.run_for(6000)
        assert current.get_attribute("data-step") == "sum"
        assert play.get_attribute("aria-pressed") == "false"
        label = widget.locator('[data-role="pipeline-bars"]').get_attribute("aria-label") or ""
        assert "step 4" in label
        assert "norm" in label
        assert outside == []
        assert errors == []


def check_wave_legend(widget: Locator) -> None:
    set_control(widget, "d", 128)
    set_control(widget, "dims", "3, 40")
    legend = widget.locator('[data-role="waves-legend"]').inner_text()
    wavelengths = pe.wavelengths(128)
    for dimension in (3, 40):
        assert f"dim {dimension}" in legend
        assert f"wavelength {wavelengths[dimension // 2]:.1f}" in legend


REFUSED = [
    ("d", "7", "is odd"),
    ("d", "1024", "too large"),
    ("d", "abc", "not a number"),
    ("d", "", "not a number"),
    ("d", "6.5", "not whole"),
    ("base", "1", "too small"),
    ("length", "0", "too small"),
    ("p", "50", "too large"),
    ("dims", "1, 99", "no dimension 99"),
    ("dims", "x", "not a number"),
    ("dims", "1, 2, 3, 4, 5", "at most 4"),
    ("dims", " ", "at least one"),
]


def test_refused_values_are_explained_and_the_figures_keep_going(page: Page, server: str) -> None:
    widget = open_widget(page, server, "playground/", "playground")
    for name, typed, words in REFUSED:
        check_refused(widget, name, typed, words)


def check_refused(widget: Locator, name: str, typed: str, words: str) -> None:
    heatmap = widget.locator('[data-role="heatmap"]')
    before = heatmap.get_attribute("aria-label")
    box = widget.locator(f'[data-control="{name}"]')
    set_control(widget, name, typed)
    text = message(widget, name)
    assert words in text, text
    assert "still show" in text  # and says what the figures show instead
    assert box.get_attribute("aria-invalid") == "true"
    described = box.get_attribute("aria-describedby")
    assert widget.locator(f"#{described}").inner_text() == text
    assert heatmap.get_attribute("aria-label") == before  # never an empty plot
    assert "Line plot" in (widget.locator('[data-role="waves"]').get_attribute("aria-label") or "")
    # A good value clears the message.
    good = {"d": 64, "base": 10000, "length": 50, "p": 5, "dims": "0, 1, 10, 30"}[name]
    set_control(widget, name, good)
    assert message(widget, name) == ""
    assert box.get_attribute("aria-invalid") is None


def test_figures_are_named_and_follow_the_state(page: Page, server: str) -> None:
    widget = open_widget(page, server, "playground/", "playground")
    check_prose(page, widget)
    canvases = widget.locator("canvas")
    assert canvases.count() == 5
    for k in range(canvases.count()):
        canvas = canvases.nth(k)
        assert canvas.get_attribute("role") == "img"
        assert len(canvas.get_attribute("aria-label") or "") > 60
    set_control(widget, "d", 128)
    set_control(widget, "p", 20)
    assert "128 dimensions" in (
        widget.locator('[data-role="heatmap"]').get_attribute("aria-label") or ""
    )
    assert "position 20" in (
        widget.locator('[data-role="similarity"]').get_attribute("aria-label") or ""
    )
    assert "d_model 128" in (
        widget.locator('[data-role="waves"]').get_attribute("aria-label") or ""
    )
    check_wave_legend(widget)
    # The palette switch redraws in the other scheme's colours.
    scale = widget.locator(".pe-scale-bar")
    light = scale.evaluate("(node) => node.style.backgroundImage")
    page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
    page.wait_for_function(
        "(before) => document.querySelector('.pe-scale-bar').style.backgroundImage !== before",
        arg=light,
    )


def test_live_region_speaks_when_the_reader_settles(browser: Browser, server: str) -> None:
    with watched_page(browser, server) as (page, outside, errors):
        page.clock.install()
        widget = open_widget(page, server, "playground/", "playground")
        live = widget.locator('[data-role="announce"]')
        assert live.get_attribute("aria-live") == "polite"
        assert widget.locator("[aria-live]").count() == 1  # one region for the whole widget
        canvas = widget.locator('[data-role="heatmap"]')
        box = canvas.bounding_box()
        assert box is not None
        for k in range(12):  # the mouse sweeps across the table: nothing is said
            canvas.hover(position={"x": box["width"] * (0.2 + 0.05 * k), "y": box["height"] * 0.4})
            page.clock.run_for(100)
        page.clock.run_for(2000)
        assert live.inner_text() == ""
        canvas.focus()
        for key in (
            "Home",
            "ArrowRight",
            "ArrowRight",
            "ArrowDown",
        ):  # quick keys: only the last is said
            canvas.press(key)
            page.clock.run_for(100)
        assert live.inner_text() == ""
        page.clock.run_for(700)
        assert live.inner_text().startswith("position 1, dimension 2 (sin, pair 1)")
        set_control(widget, "d", 9)
        page.clock.run_for(700)
        assert "is odd" in live.inner_text()
        assert outside == []
        assert errors == []


def test_sliders_work_from_the_keyboard(page: Page, server: str) -> None:
    widget = open_widget(page, server, "playground/", "playground")
    slider = widget.locator('[data-slider="d"]')
    slider.focus()
    page.keyboard.press("ArrowRight")
    assert widget.locator('[data-control="d"]').input_value() == "66"
    assert "66 dimensions" in (
        widget.locator('[data-role="heatmap"]').get_attribute("aria-label") or ""
    )
    q = widget.locator('[data-slider="q"]')
    q.focus()
    page.keyboard.press("End")
    assert widget.locator('[data-control="q"]').input_value() == "49"
    assert field(widget.locator('[data-role="pair-results"]'), "b") == 49


def test_base_slider_reaches_round_values_and_comes_back(page: Page, server: str) -> None:
    """The base slider steps through round values on a log scale: 10000 is one of them."""
    widget = open_widget(page, server, "playground/", "playground")
    box = widget.locator('[data-control="base"]')
    slider = widget.locator('[data-slider="base"]')
    slider.focus()
    seen = []
    for key in ("ArrowRight", "ArrowRight", "ArrowLeft", "ArrowLeft", "ArrowLeft", "ArrowRight"):
        page.keyboard.press(key)
        seen.append(box.input_value())
    assert seen == ["15000", "20000", "15000", "10000", "7000", "10000"]
    assert slider.get_attribute("aria-valuetext") == "10000"
    assert "base 10000" in (
        widget.locator('[data-role="heatmap"]').get_attribute("aria-label") or ""
    )
    page.keyboard.press("Home")
    assert box.input_value() == "2"
    page.keyboard.press("End")
    assert box.input_value() == "1000000"
    # A typed value between two stops is kept; the slider moves to the nearest stop.
    set_control(widget, "base", 11000)
    assert box.input_value() == "11000"
    slider.focus()
    page.keyboard.press("ArrowLeft")
    assert box.input_value() == "7000"


def test_formula_page_widget_by_keyboard(page: Page, server: str) -> None:
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


def test_rotation_page_widget(page: Page, server: str) -> None:
    widget = open_widget(page, server, "rotation/", "rotation")
    for position, offset, pair in [(3, 5, 1), (100, -37, 6), (0, 200, 0)]:
        check_rotation(widget, position, offset, pair)


def test_rotation_widget_follows_a_narrower_d_model(page: Page, server: str) -> None:
    """Pair 7 with d_model 4 (two pairs): the box, the slider and the numbers all show pair 1."""
    widget = open_widget(page, server, "rotation/", "rotation")
    set_control(widget, "pair", 7)
    set_control(widget, "d", 4)
    assert widget.locator('[data-control="pair"]').input_value() == "1"
    assert widget.locator('[data-slider="pair"]').get_attribute("max") == "1"
    assert "pair 1 turns" in widget.locator('[data-role="rotation-results"]').inner_text()
    block = pe.rotation_blocks(5, 4)[1]
    shown = [
        [field(widget, "m00"), field(widget, "m01")],
        [field(widget, "m10"), field(widget, "m11")],
    ]
    np.testing.assert_allclose(shown, block, atol=SHOWN)
    set_control(widget, "pair", 3)  # refused, and the message names the pairs there are
    assert "from 0 to 1" in message(widget, "pair")


def check_rotation(widget: Locator, position: int, offset: int, pair: int) -> None:
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


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_layout_holds_and_screenshots(browser: Browser, server: str, scheme: str) -> None:
    """At 320, 375, 768 and 1280 px: no sideways scroll, nothing out of the box, 44 px targets."""
    with watched_page(browser, server, color_scheme=scheme) as (page, outside, errors):
        open_page(page, server + "playground/")
        page.wait_for_function(f"document.querySelector('{PLAYGROUND}').dataset.mounted")
        for width in (320, 375, 768, 1280):
            page.set_viewport_size({"width": width, "height": 900})
            page.wait_for_function(  # the widget has redrawn at the new width
                f"Math.abs(document.querySelector('{PLAYGROUND} canvas')"
                ".getBoundingClientRect().width"
                f" - document.querySelector('{PLAYGROUND} .pe-canvas-box').clientWidth) < 1"
            )
            check_layout(page, scheme, width)
        assert outside == []
        assert errors == []


def check_layout(page: Page, scheme: str, width: int) -> None:
    expected = "slate" if scheme == "dark" else "default"
    # Material's search box slides to its new width for a moment: let it settle.
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            "document.documentElement.scrollWidth <= window.innerWidth", timeout=2000
        )
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == expected
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px at {width}px"
    # Nothing inside the widget reaches past its right edge (tables scroll in their own box).
    sticking_out = page.evaluate(
        """(selector) => {
            const widget = document.querySelector(selector);
            const right = widget.getBoundingClientRect().right;
            return [...widget.querySelectorAll('*')]
                .filter((node) => !node.closest('.pe-scroll') && !node.closest('.pe-sr-only'))
                .filter((node) => node.getBoundingClientRect().right > right + 0.5)
                .map((node) => node.tagName + '.' + node.className);
        }""",
        PLAYGROUND,
    )
    assert sticking_out == []
    assert (
        page.evaluate(f"document.querySelector('{PLAYGROUND}').getBoundingClientRect().right")
        <= width
    )
    if width < 720:  # phones (and any coarse pointer, see the CSS): every control a 44 px target
        small = page.evaluate(
            """(selector) => [...document.querySelectorAll(
                    selector + ' input, ' + selector + ' select, ' + selector + ' button')]
                .map((node) => [node.dataset.control || node.dataset.slider || node.dataset.action,
                                node.getBoundingClientRect().height])
                .filter(([, height]) => height < 44)""",
            PLAYGROUND,
        )
        assert small == [], small
    if width in (375, 1280):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"playground-{scheme}-{width}.png"
        page.locator(PLAYGROUND).screenshot(path=str(path))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_focus_is_visible_on_every_control(browser: Browser, server: str, scheme: str) -> None:
    with watched_page(browser, server, color_scheme=scheme) as (page, outside, errors):
        open_widget(page, server, "playground/", "playground")
        page.locator(f"{PLAYGROUND} input").first.focus()
        seen = []
        for _ in range(40):  # walk the widget with Tab, as a keyboard user does
            ring = page.evaluate(
                """(selector) => {
                    const node = document.activeElement;
                    if (!node.closest(selector)) return null;
                    const style = getComputedStyle(node);
                    return [node.tagName, node.type || '', node.matches(':focus-visible'),
                            style.outlineStyle, parseFloat(style.outlineWidth)];
                }""",
                PLAYGROUND,
            )
            if ring is None:
                break
            seen.append(ring)
            page.keyboard.press("Tab")
        kinds = {(tag, kind) for tag, kind, *_ in seen}
        wanted = {
            ("INPUT", "text"),
            ("INPUT", "range"),
            ("CANVAS", ""),
            ("SELECT", "select-one"),
            ("BUTTON", "button"),
        }
        assert wanted <= kinds, kinds
        for tag, kind, visible, style, width in seen:
            assert visible, (tag, kind)
            assert style == "solid", (tag, kind, style)
            assert width >= 2, (tag, kind, width)
        assert outside == []
        assert errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violation_in_the_playground(
    browser: Browser, server: str, scheme: str
) -> None:
    from axe_playwright_python.base import AXE_FILE_PATH

    with watched_page(browser, server, color_scheme=scheme) as (page, outside, errors):
        widget = open_widget(page, server, "playground/", "playground")
        page.add_script_tag(path=str(AXE_FILE_PATH))
        # a refused value and a moved pipeline: the widget in a state with a message
        set_control(widget, "d", 7)
        widget.locator('[data-action="forward"]').click()
        for width in (375, 1280):
            page.set_viewport_size({"width": width, "height": 900})
            result = page.evaluate(
                """(selector) => axe.run(selector, {
                    runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']},
                    resultTypes: ['violations'],
                })""",
                PLAYGROUND,
            )
            violations = [
                (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:5])
                for v in result["violations"]
            ]
            assert violations == [], (width, violations)
            assert result["testEngine"]["version"].startswith("4.")
        # axe cannot see into a canvas: the ends of the colour scale (-1 and +1)
        # must stand out from the page by 3:1, as WCAG asks of graphics.
        gradient = widget.locator(".pe-scale-bar").evaluate("(node) => node.style.backgroundImage")
        stops = [tuple(map(int, c)) for c in re.findall(r"rgb\((\d+), (\d+), (\d+)\)", gradient)]
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        page_colour = tuple(map(int, re.findall(r"\d+", background)[:3]))
        for end in (stops[0], stops[-1]):
            assert contrast(end, page_colour) >= 3, (end, page_colour)
        assert outside == []
        assert errors == []


def test_button_names_contain_their_visible_words(page: Page, server: str) -> None:
    """axe's label-content-name-mismatch (WCAG 2.5.3, an experimental rule axe leaves off)."""
    from axe_playwright_python.base import AXE_FILE_PATH

    widget = open_widget(page, server, "playground/", "playground")
    page.add_script_tag(path=str(AXE_FILE_PATH))
    set_control(widget, "q", 49)  # a shift button marked unavailable, with its reason
    result = page.evaluate(
        """(selector) => axe.run(selector, {
            runOnly: {type: 'rule', values: ['label-content-name-mismatch']},
            resultTypes: ['violations'],
        })""",
        PLAYGROUND,
    )
    assert [n["target"] for v in result["violations"] for n in v["nodes"]] == []
    # The words a reader sees (hidden helpers and arrow glyphs left out), and the
    # name a screen reader gets, from Chromium's accessibility tree.
    buttons = widget.locator("button")
    assert buttons.count() >= 9
    for k in range(buttons.count()):
        button = buttons.nth(k)
        visible = button.evaluate(
            """(b) => { const c = b.cloneNode(true);
                c.querySelectorAll('.pe-sr-only, [aria-hidden="true"]').forEach(n => n.remove());
                return c.textContent.replace(/[◀▶❚]/g, '').replace(/\\s+/g, ' ').trim(); }"""
        )
        name = button.aria_snapshot()
        assert visible, name
        assert visible in name, (visible, name)


@pytest.mark.parametrize("width", [320, 375])
def test_pipeline_table_shows_every_column_on_a_phone(
    browser: Browser, server: str, width: int
) -> None:
    """Each row stacks its four values, each named: nothing hides off-screen, nothing scrolls."""
    with watched_page(browser, server, viewport={"width": width, "height": 800}) as (
        page,
        outside,
        errors,
    ):
        widget = open_widget(page, server, "playground/", "playground")
        set_control(widget, "d", 512)  # the widest values
        box = widget.locator('[data-role="pipeline"] .pe-scroll')
        assert box.evaluate("(e) => e.scrollWidth - e.clientWidth") <= 0
        right = box.evaluate("(e) => e.getBoundingClientRect().right")
        cells = widget.locator('[data-role="pipeline"] td')
        assert cells.count() == 16 * 4
        for key in ("embedding", "scaled", "encoding", "sum"):
            cell = widget.locator(f'[data-role="pipeline"] td[data-field="{key}"]').first
            bounds = cell.bounding_box()
            assert bounds is not None
            assert bounds["x"] + bounds["width"] <= right + 0.5, key
            # The column's name is shown in the cell itself.
            shown = cell.evaluate("(e) => getComputedStyle(e, '::before').content")
            header = STEP_NAMES[key]
            assert shown == f'"{header}"', (key, shown)
        overflowing = widget.locator(
            '[data-role="pipeline"] td, [data-role="pipeline"] tbody th'
        ).evaluate_all(
            "(cells) => cells.filter(c => c.scrollWidth > c.clientWidth + 1)"
            ".map(c => c.textContent)"
        )
        assert overflowing == []
        assert outside == []
        assert errors == []


STEP_NAMES = {"embedding": "e", "scaled": "e \u00d7 \u221ad", "encoding": "PE(p)", "sum": "sum"}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_controls_share_one_layout_at_every_width(
    browser: Browser, server: str, scheme: str
) -> None:
    """Label above; text box and slider side by side on one line; the same in every control."""
    with watched_page(browser, server, color_scheme=scheme) as (page, outside, errors):
        widget = open_widget(page, server, "playground/", "playground")
        for width in (320, 375, 768, 1280):
            page.set_viewport_size({"width": width, "height": 900})
            page.evaluate(
                "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
            )
            layouts = widget.locator(".pe-control:has(input[type=range])").evaluate_all(
                """(controls) => controls.map((c) => {
                    const box = (s) => c.querySelector(s).getBoundingClientRect();
                    const label = box('label'), text = box('input[type=text]');
                    const slider = box('input[type=range]'), own = c.getBoundingClientRect();
                    return {
                        name: c.querySelector('input[type=text]').dataset.control,
                        labelAbove: label.bottom <= text.top + 0.5,
                        sameLine: Math.abs((slider.top + slider.bottom) / 2
                            - (text.top + text.bottom) / 2) <= 2,
                        sliderRight: slider.left >= text.right,
                        inside: slider.right <= own.right + 0.5 && slider.width >= 60,
                        gap: Math.round(slider.left - text.right),
                    };
                })"""
            )
            assert len(layouts) == 6  # d_model, base, positions, p, q, pair i
            for layout in layouts:
                assert layout["labelAbove"], (width, layout)
                assert layout["sameLine"], (width, layout)
                assert layout["sliderRight"], (width, layout)
                assert layout["inside"], (width, layout)
            assert len({layout["gap"] for layout in layouts}) == 1, (width, layouts)
        assert outside == []
        assert errors == []


def label_boxes(canvas: Locator) -> list[dict[str, Any]]:
    """The boxes of a canvas's labels: {label, x, y, width, height} in CSS pixels."""
    boxes: list[dict[str, Any]] = json.loads(canvas.get_attribute("data-labels") or "[]")
    return boxes


def plot_box(canvas: Locator) -> dict[str, float]:
    return {
        k: float(canvas.get_attribute(f"data-plot-{k}") or "")
        for k in ("left", "top", "width", "height")
    }


SETTINGS_FOR_LABELS = [(64, 10000, 50, 5, 9), (16, 100, 50, 30, 31), (8, 10000, 200, 190, 3)]


@pytest.mark.parametrize("width", [375, 1280])
def test_chart_labels_are_clear_of_the_data(browser: Browser, server: str, width: int) -> None:
    """The labels p and q sit where no curve runs (the curve computed here from pe)."""
    with watched_page(browser, server, viewport={"width": width, "height": 900}) as (
        page,
        outside,
        errors,
    ):
        widget = open_widget(page, server, "playground/", "playground")
        for d_model, base, length, p, q in SETTINGS_FOR_LABELS:
            set_control(widget, "d", d_model)
            set_control(widget, "base", base)
            set_control(widget, "length", length)
            set_control(widget, "p", p)
            set_control(widget, "q", q)
            # The dot-product curve: X and Y as the plot's axes place them.
            curve = widget.locator('[data-role="similarity"]')
            plot = plot_box(curve)
            values = [
                float(pe.analysis.similarity(p, x, d_model, base=base, measure="dot"))
                for x in range(length)
            ]
            top, bottom = d_model / 2, min(0.0, *values)
            points = [
                (
                    plot["left"] + x / (length - 1) * plot["width"],
                    plot["top"] + (top - v) / (top - bottom) * plot["height"],
                )
                for x, v in enumerate(values)
            ]
            labels = label_boxes(curve)
            assert sorted(b["label"] for b in labels) == [f"p = {p}", f"q = {q}"]
            for box in labels:
                for (x0, y0), (x1, y1) in itertools.pairwise(points):
                    for t in np.linspace(0, 1, 25):
                        x, y = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
                        inside = (
                            box["x"] - 1 <= x <= box["x"] + box["width"] + 1
                            and box["y"] - 1 <= y <= box["y"] + box["height"] + 1
                        )
                        assert not inside, (d_model, p, q, box, (x, y))
            check_labels_apart(labels)
            # The waves: the letters p and q outside the plotted area, apart.
            waves = widget.locator('[data-role="waves"]')
            area = plot_box(waves)
            letters = label_boxes(waves)
            assert sorted(b["label"] for b in letters) == ["p", "q"]
            for box in letters:
                assert box["y"] + box["height"] <= area["top"], box
                assert area["left"] - 1 <= box["x"] <= area["left"] + area["width"] + 1
            check_labels_apart(letters)
        assert outside == []
        assert errors == []


def check_labels_apart(boxes: list[dict[str, Any]]) -> None:
    first, second = sorted(boxes, key=lambda b: b["x"])
    assert first["x"] + first["width"] <= second["x"], boxes


@pytest.mark.parametrize("width", [320, 375, 1280])
def test_matrix_times_vector_reads_as_one_product(
    browser: Browser, server: str, width: int
) -> None:
    """R(k omega) times a pair gives the turned pair: no operand split over lines or cut off;
    one row at 1280 px, one operand a line (its operator at its left) on a phone."""
    with watched_page(browser, server, viewport={"width": width, "height": 900}) as (
        page,
        outside,
        errors,
    ):
        widget = open_widget(page, server, "playground/", "playground")
        product = widget.locator(".pe-matrix").first
        layout = product.evaluate(
            """(m) => {
              const box = m.getBoundingClientRect();
              const parts = [...m.querySelectorAll(':scope > .pe-bracket')].map(b => {
                const r = b.getBoundingClientRect();
                return {top: Math.round(r.top), left: r.left, right: r.right, width: r.width};
              });
              const split = [...m.querySelectorAll('[data-field]')]
                .filter(f => f.getClientRects().length > 1).map(f => f.textContent);
              const ops = [...m.querySelectorAll(':scope > .pe-op')].filter(o => o.textContent)
                .map(o => [o.textContent, Math.round(o.getBoundingClientRect().left)]);
              const widget = m.closest('.pe-widget').getBoundingClientRect().right;
              return {parts, split, ops, over: m.scrollWidth - m.clientWidth, right: box.right,
                      widget};
            }"""
        )
        assert layout["split"] == []
        assert layout["over"] <= 0
        assert len(layout["parts"]) == 3
        assert all(part["right"] <= layout["widget"] + 0.5 for part in layout["parts"])
        tops = [part["top"] for part in layout["parts"]]
        if width >= 1280:
            assert max(tops) - min(tops) <= 2, tops  # matrix, vector and result on one row
        else:  # each operand on a line of its own, below the one before
            assert all(below > above + 10 for above, below in itertools.pairwise(tops)), tops
            lefts = {left for _, left in layout["ops"]}
            assert len(lefts) == 1, layout["ops"]  # the operators in one column, at the left
        assert outside == []
        assert errors == []


# playground.js waits for a frame (requestAnimationFrame) between building a part
# and drawing it. Here the frames it asks for are held until the test lets them
# go, one at a time, so that the reader can act while the widget is half drawn.
HOLD_WIDGET_FRAMES = """
window.peHeldFrames = [];
const frame = window.requestAnimationFrame.bind(window);
window.requestAnimationFrame = (callback) => /playground\\.js/.test(new Error().stack)
    ? window.peHeldFrames.push(callback) : frame(callback);
"""


def test_settings_changed_while_the_playground_is_drawn_reach_every_part(
    page: Page, server: str
) -> None:
    """The playground is drawn one part a frame (issue 41: one long task before). A
    setting changed before any part is drawn, and one changed after the first, show in
    every part once the last is drawn: those drawn already are drawn again, the others
    start from the settings as they are. 4 positions, set before the comparison is
    built, bring its p and q (5 and 9) down to the last position, 3."""
    page.add_init_script(HOLD_WIDGET_FRAMES)
    page.goto(server + "playground/")
    widget = page.locator(PLAYGROUND)
    mounted = f"document.querySelector('{PLAYGROUND}').dataset.mounted === 'true'"

    def let_a_frame_go() -> None:
        page.wait_for_function("window.peHeldFrames.length === 1")
        page.evaluate("window.peHeldFrames.pop()(performance.now())")

    page.wait_for_function("window.peHeldFrames.length === 1")  # the table built, not drawn
    assert widget.locator("canvas").count() == 1
    assert widget.locator('[data-role="heatmap"]').get_attribute("aria-label") is None
    set_control(widget, "d", 16)
    let_a_frame_go()  # the table is drawn; the waves are built
    page.wait_for_function("window.peHeldFrames.length === 1")
    assert widget.locator("canvas").count() == 2
    set_control(widget, "length", 4)
    drawn = widget.locator('[data-role="heatmap"]').get_attribute("aria-label") or ""
    assert "4 positions down, 16 dimensions across" in drawn
    while not page.evaluate(mounted):
        let_a_frame_go()
        page.wait_for_function(f"window.peHeldFrames.length === 1 || {mounted}")
    assert widget.locator("canvas").count() == 5
    labels = {
        role: widget.locator(f'[data-role="{role}"]').get_attribute("aria-label") or ""
        for role in ("heatmap", "waves", "similarity", "pipeline-bars")
    }
    assert "4 positions down, 16 dimensions across" in labels["heatmap"]
    assert "from 0 to 3, values from \u22121 to 1, d_model 16" in labels["waves"]
    assert "every position from 0 to 3" in labels["similarity"]
    assert "the first 16 of 16 dimensions" in labels["pipeline-bars"]
    results = widget.locator('[data-role="pair-results"]')
    assert (field(results, "a"), field(results, "b")) == (3, 3)
    assert widget.locator('[data-control="q"]').input_value() == "3"
    table = widget.locator('[data-role="compare-table"]')
    np.testing.assert_allclose(fields(table, "pe-p"), exact(3, 16, 10000)[:8], atol=SHOWN)
    assert "d = 16" in widget.locator('[data-role="step-label"]').inner_text()


def test_instant_navigation_brings_the_widget_script(page: Page, server: str) -> None:
    """playground.js is loaded by the pages with a widget only (overrides/main.html); a
    reader who reaches one by instant navigation from a page without it gets a working
    widget, and so on the next such page (the script runs again, mounting only new ones)."""
    open_page(page, server)
    assert page.evaluate("typeof window.pePlayground") == "undefined"
    for path, kind in (("playground/", "playground"), ("rotation/", "rotation")):
        page.locator(f"nav.md-nav--primary a[href$='{path}']").first.click()
        page.wait_for_url(re.compile(f".*/{path}$"))
        selector = f'[data-pe-widget="{kind}"]'
        page.wait_for_function(f"document.querySelector('{selector}')?.dataset.mounted")
        if kind == "playground":
            assert page.locator(f"{selector} canvas").count() >= 1
        else:  # the rotation widget's numbers, checked against pe
            check_rotation(page.locator(selector), 3, 5, 1)
        scripts = "document.querySelectorAll('script[src*=\"playground.js\"]').length"
        assert page.evaluate(scripts) == 1
