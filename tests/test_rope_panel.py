"""The "RoPE at long context" panel's numbers, read off the page in Chromium, against pe."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np
import pytest
from conftest import watched_page

import pe
from tools.local_site import open_page

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

pytestmark = pytest.mark.browser

HEAD_DIM, BASE, TRAINED = 128, 500000.0, 8192  # the panel's model: Llama 3.1 8B
SCALINGS: dict[str, Callable[[float], dict[str, object] | None]] = {
    "default": lambda s: None,
    "linear": lambda s: {"type": "linear", "factor": s},
    "dynamic": lambda s: {"type": "dynamic", "factor": s},
    "yarn": lambda s: {"type": "yarn", "factor": s, "original_max_position_embeddings": TRAINED},
    "llama3": lambda s: {
        "rope_type": "llama3",
        "factor": s,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": TRAINED,
    },
}


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    """A page that blocks every request to another host; none may be made."""
    with watched_page(browser, server) as (page, outside, errors):
        yield page
        assert outside == [], outside
        assert errors == [], errors


def open_panel(page: Page, server: str) -> Locator:
    open_page(page, server + "beyond/rope-scaling/")
    panel = page.locator("[data-pe-rope-panel]")
    panel.wait_for()
    page.wait_for_function("document.querySelector('[data-pe-rope-panel]').dataset.ropeMounted")
    return panel


# Each rule at a factor of its own, set one after another on one loaded page.
SETTINGS = [("yarn", 16.0), ("llama3", 8.0), ("dynamic", 4.0), ("linear", 2.5)]


def test_panel_numbers_match_pe(page: Page, server: str) -> None:
    panel = open_panel(page, server)
    plain = pe.rope_frequencies(HEAD_DIM, base=BASE).frequencies
    for rule, factor in SETTINGS:
        panel.locator('[data-control="rule"]').select_option(rule)
        box = panel.locator('[data-control="factor"]')
        box.fill(str(factor))
        box.dispatch_event("change")
        expected = pe.rope_frequencies(
            HEAD_DIM,
            base=BASE,
            scaling=SCALINGS[rule](factor),
            max_position_embeddings=TRAINED,
            seq_len=int(factor * TRAINED),
        )
        ratio = plain / expected.frequencies
        shown_attention = float(panel.locator('[data-field="attention"]').inner_text())
        assert shown_attention == pytest.approx(expected.attention_factor, abs=5e-7), rule
        kept = int(np.sum(np.isclose(ratio, 1.0, rtol=1e-9)))
        divided = int(np.sum(np.isclose(ratio, factor, rtol=1e-9)))
        assert int(panel.locator('[data-field="kept"]').inner_text()) == kept, rule
        assert int(panel.locator('[data-field="divided"]').inner_text()) == divided, rule
        between = int(panel.locator('[data-field="between"]').inner_text())
        assert between == ratio.size - kept - divided, rule
        rows = page.evaluate(
            """() => [...document.querySelectorAll('[data-pe-rope-panel] tr[data-pair]')].map(r =>
                [Number(r.dataset.pair), r.querySelector('[data-field="slowdown"]').innerText,
                 r.querySelector('[data-field="after"]').innerText])"""
        )
        assert len(rows) > 5, rule
        for pair, slowdown, after in rows:
            # six significant digits; the wavelength after scaling to the nearest position
            assert float(slowdown) == pytest.approx(ratio[pair], rel=6e-6), (rule, pair)
            wavelength = 2 * math.pi / expected.frequencies[pair]
            assert float(after.replace(",", "")) == pytest.approx(wavelength, abs=0.5), (rule, pair)


def test_controls_are_labelled_and_show_focus(page: Page, server: str) -> None:
    panel = open_panel(page, server)
    for control in ("rule", "factor"):
        element = panel.locator(f'[data-control="{control}"]')
        element_id = element.get_attribute("id")
        assert panel.locator(f'label[for="{element_id}"]').count() == 1
        element.focus()
        outline = element.evaluate(
            "e => getComputedStyle(e).outlineStyle + ' ' + getComputedStyle(e).outlineWidth"
        )
        assert outline.startswith("solid") or "auto" in outline, outline


def set_factor(panel: Locator, value: str) -> None:
    box = panel.locator('[data-control="factor"]')
    box.fill(value)
    box.dispatch_event("change")


@pytest.mark.parametrize("width", [320, 375])
def test_phone_shows_every_column_and_the_whole_caption(
    browser: Browser, server: str, width: int
) -> None:
    """At phone widths the table reflows: no column, caption word or bar hidden off-screen."""
    with watched_page(browser, server, viewport={"width": width, "height": 800}) as (
        page,
        outside,
        errors,
    ):
        panel = open_panel(page, server)
        for rule, factor in [("yarn", "8"), ("dynamic", "64"), ("linear", "64")]:
            panel.locator('[data-control="rule"]').select_option(rule)
            set_factor(panel, factor)
            hidden = page.evaluate(
                """() => {
                    const panel = document.querySelector('[data-pe-rope-panel]');
                    const right = Math.min(panel.getBoundingClientRect().right, innerWidth);
                    const cut = [];
                    for (const e of panel.querySelectorAll('caption, th, td, p, .pe-rope-bar')) {
                        const box = e.getBoundingClientRect();
                        if (box.width && box.right > right + 0.5) cut.push(e.tagName + ' '
                            + e.textContent.trim().slice(0, 30) + ' ' + box.right + '>' + right);
                        if (e.matches('th, td') && e.scrollWidth > e.clientWidth + 1)
                            cut.push('spills out of its cell: ' + e.textContent.trim());
                    }
                    for (const e of panel.querySelectorAll('*')) {
                        if (e.clientWidth > 1 && e.scrollWidth > e.clientWidth + 1
                            && getComputedStyle(e).overflowX !== 'visible')
                            cut.push('scrolls: ' + e.className);
                    }
                    return cut;
                }"""
            )
            assert hidden == [], (rule, factor, hidden)
            # The explanation of the table is readable text, tied to the table.
            table = panel.locator("table")
            described = table.get_attribute("aria-describedby") or ""
            note = panel.locator(f"#{described}")
            assert "trained context" in note.inner_text()
            assert note.is_visible()
        assert outside == []
        assert errors == []


def test_bars_stay_in_their_box_on_one_log_scale(page: Page, server: str) -> None:
    """Every bar inside its box; bar length linear in log(wavelength after); the mark at 8192.

    Each rule at factors 1 to 64, set one after another on one loaded page.
    """
    panel = open_panel(page, server)
    for rule in ("dynamic", "yarn", "linear", "llama3", "default"):
        panel.locator('[data-control="rule"]').select_option(rule)
        _bars_follow_the_wavelengths(page, panel, rule)


def _bars_follow_the_wavelengths(page: Page, panel: Locator, rule: str) -> None:
    for factor in ("1", "10", "16", "64"):
        set_factor(panel, factor)
        rows = page.evaluate(
            """() => [...document.querySelectorAll('[data-pe-rope-panel] tr[data-pair]')].map(r => {
                const bar = r.querySelector('.pe-rope-bar').getBoundingClientRect();
                const fill = r.querySelector('.pe-rope-fill').getBoundingClientRect();
                const mark = r.querySelector('.pe-rope-mark').getBoundingClientRect();
                return [Number(r.dataset.pair), bar.left, bar.right, fill.left, fill.right,
                        mark.left + mark.width / 2];
            })"""
        )
        expected = pe.rope_frequencies(
            HEAD_DIM,
            base=BASE,
            scaling=SCALINGS[rule](float(factor)),
            max_position_embeddings=TRAINED,
            seq_len=int(float(factor) * TRAINED),
        ).frequencies
        logs, ends, marks = [], [], []
        for pair, left, right, fill_left, fill_right, mark in rows:
            assert left - 0.5 <= fill_left <= fill_right <= right + 0.5, (rule, factor, pair)
            logs.append(math.log(2 * math.pi / expected[pair]))
            ends.append((fill_right - left) / (right - left))
            marks.append((mark - left) / (right - left))
        slope, intercept = np.polyfit(logs, ends, 1)
        assert slope > 0, (rule, factor)
        assert np.abs(np.polyval([slope, intercept], logs) - ends).max() < 0.01, (rule, factor)
        mark_at = slope * math.log(TRAINED) + intercept
        assert marks == pytest.approx([mark_at] * len(marks), abs=0.01)


def test_a_factor_out_of_range_is_shown_corrected_and_explained(page: Page, server: str) -> None:
    panel = open_panel(page, server)
    panel.locator('[data-control="rule"]').select_option("linear")
    box = panel.locator('[data-control="factor"]')
    slowdown = panel.locator('tr[data-pair="63"] [data-field="slowdown"]')

    def explanation() -> str:
        ids = (box.get_attribute("aria-describedby") or "").split()
        shown = [panel.locator(f"#{i}") for i in ids]
        return " ".join(m.inner_text() for m in shown if m.is_visible())

    # While typing, a value out of range is marked and explained; the table keeps the last one.
    box.fill("200")
    assert box.get_attribute("aria-invalid") == "true"
    assert "64" in explanation()
    assert "200" in explanation()
    assert slowdown.inner_text() == "8"
    # Committed (Enter or leaving the box), it is brought into range, in the box too.
    for typed, used in [("200", "64"), ("0.25", "1"), ("-3", "1"), ("", "1"), ("12.5", "12.5")]:
        set_factor(panel, typed)
        assert box.input_value() == used, typed
        assert box.get_attribute("aria-invalid") is None
        assert panel.locator('[data-field="factor"]').inner_text() == used
        assert float(slowdown.inner_text()) == pytest.approx(float(used))
        if used != typed:
            assert used in explanation(), typed
        else:
            assert explanation() == ""
