"""The "RoPE at long context" panel's numbers, read off the page in Chromium, against pe."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np
import pytest
from conftest import watched_page

import pe

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
    page.goto(server + "beyond/rope-scaling/", wait_until="load")
    panel = page.locator("[data-pe-rope-panel]")
    panel.wait_for()
    page.wait_for_function("document.querySelector('[data-pe-rope-panel]').dataset.ropeMounted")
    return panel


@pytest.mark.parametrize(
    ("rule", "factor"), [("yarn", 16.0), ("llama3", 8.0), ("dynamic", 4.0), ("linear", 2.5)]
)
def test_panel_numbers_match_pe(page: Page, server: str, rule: str, factor: float) -> None:
    panel = open_panel(page, server)
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
    plain = pe.rope_frequencies(HEAD_DIM, base=BASE).frequencies
    ratio = plain / expected.frequencies
    shown_attention = float(panel.locator('[data-field="attention"]').inner_text())
    assert shown_attention == pytest.approx(expected.attention_factor, abs=5e-7)
    kept = int(np.sum(np.isclose(ratio, 1.0, rtol=1e-9)))
    divided = int(np.sum(np.isclose(ratio, factor, rtol=1e-9)))
    assert int(panel.locator('[data-field="kept"]').inner_text()) == kept
    assert int(panel.locator('[data-field="divided"]').inner_text()) == divided
    assert int(panel.locator('[data-field="between"]').inner_text()) == ratio.size - kept - divided
    rows = panel.locator("tr[data-pair]")
    assert rows.count() > 5
    for index in range(rows.count()):
        row = rows.nth(index)
        pair = int(row.get_attribute("data-pair") or "")
        slowdown = float(row.locator('[data-field="slowdown"]').inner_text())
        assert slowdown == pytest.approx(ratio[pair], rel=6e-6)  # 6 significant digits
        after = float(row.locator('[data-field="after"]').inner_text().replace(",", ""))
        assert after == pytest.approx(2 * math.pi / expected.frequencies[pair], abs=0.5)


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
