"""The site's math looks as KaTeX draws it: screenshots against a reference render.

For the Formula, Rotation and RoPE-scaling pages, every display formula in the
built site is photographed in Chromium, and so is the same TeX (read from the
page's Markdown) typeset by the vendored ``katex.min.js`` running in the
browser itself, in a plain page that holds only ``katex.css``, at the same
font size and colour. The reference does not go through the build (QuickJS,
the cache, the removal of the TeX annotation) nor the site's theme, so a
difference means the build or the theme's CSS changed how KaTeX's output is
drawn (a stretched brace, a squeezed matrix, a fallback font).
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import wait_for_math
from PIL import Image, ImageChops, ImageFilter, ImageStat

from sitegen import typeset
from tools.local_site import idle_search, open_page

ROOT = Path(__file__).resolve().parents[1]
PAGES = {
    "formula/": "docs/formula.md",
    "rotation/": "docs/rotation.md",
    "beyond/rope-scaling/": "docs/beyond/rope-scaling.md",
}
# Mean difference per pixel (0-255, after a one-pixel blur) above which two
# renders differ. Both are drawn at the same offset within a pixel, so the
# same drawing differs by under 0.5 here; a glyph in another font, a brace of
# another height or a shifted script differs by far more.
TOLERANCE = 1.5


def display_tex(markdown: str) -> list[str]:
    """Each display part of a page's Markdown, in order, as the build splits it."""
    prose = re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)
    blocks = re.findall(r"^\$\$\n(.*?)\n\$\$", prose, flags=re.S | re.M)
    return [part for block in blocks for part in typeset.split_parts(block)]


def image(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("L").filter(ImageFilter.BoxBlur(1))


def difference(site: Image.Image, reference: Image.Image) -> float:
    """Mean absolute difference per pixel of two renders of the same size."""
    return float(ImageStat.Stat(ImageChops.difference(site, reference)).mean[0])


def compare(browser: Any, base: str, path: str, source: str) -> list[tuple[str, float]]:
    """(TeX, difference) for each display formula of `path`; fails on a size mismatch."""
    tex = display_tex((ROOT / source).read_text(encoding="utf-8"))
    # One context each: a screenshot of one of two pages sharing a context
    # first brings it to the front (about a second per switch).
    options = {"viewport": {"width": 1280, "height": 900}, "device_scale_factor": 1}
    context, plain_context = browser.new_context(**options), browser.new_context(**options)
    idle_search(context)
    site, plain = context.new_page(), plain_context.new_page()
    open_page(site, base + path)
    wait_for_math(site)
    parts = site.locator("div.arithmatex > .katex-display > .katex")
    assert parts.count() == len(tex), (path, parts.count(), len(tex))
    style = parts.first.evaluate(
        "e => { const s = getComputedStyle(e); return [s.fontSize, s.color]; }"
    )
    plain.goto(base + "assets/katex/katex.css")  # the site's origin: its fonts load, no CORS
    plain.set_content(
        "<!DOCTYPE html><html><head>"
        f'<link rel="stylesheet" href="{base}assets/katex/katex.css"></head>'
        f'<body style="margin: 40px; background: #fff">'
        f"<style>.katex {{ font-size: {style[0]} !important; color: {style[1]}; }}</style>"
        f'<div id="f" style="display: inline-block"></div></body></html>',
        wait_until="load",
    )
    plain.add_script_tag(path=str(typeset.KATEX))
    results = []
    for i, formula in enumerate(tex):
        plain.evaluate(
            "tex => katex.render(tex, document.getElementById('f'),"
            " {displayMode: true, output: 'htmlAndMathml', strict: 'error'})",
            formula,
        )
        plain.evaluate("document.fonts.ready")
        assert plain.evaluate("document.fonts.check('1em KaTeX_Main')"), "no KaTeX fonts"
        drawn = parts.nth(i).locator(".katex-html")
        drawn.scroll_into_view_if_needed()
        # The same offset within a pixel, so both are rasterised alike.
        plain.evaluate(
            "([x, y]) => Object.assign(document.getElementById('f').style,"
            " {position: 'absolute', left: 40 + x + 'px', top: 40 + y + 'px'})",
            drawn.evaluate(
                "e => { const r = e.getBoundingClientRect(); return [r.left % 1, r.top % 1]; }"
            ),
        )
        ours = image(drawn.screenshot(animations="disabled"))
        theirs = image(plain.locator("#f .katex-html").screenshot())
        assert abs(ours.width - theirs.width) <= 1, (path, formula, ours.size, theirs.size)
        assert abs(ours.height - theirs.height) <= 1, (path, formula, ours.size, theirs.size)
        size = (min(ours.width, theirs.width), min(ours.height, theirs.height))
        results.append((formula, difference(ours.crop((0, 0, *size)), theirs.crop((0, 0, *size)))))
    context.close()
    plain_context.close()
    return results


@pytest.mark.parametrize("path", PAGES)
def test_display_math_matches_katex_drawn_alone(browser: Any, server: str, path: str) -> None:
    results = compare(browser, server, path, PAGES[path])
    assert len(results) >= 3
    worse = [(tex[:60], round(d, 2)) for tex, d in results if d > TOLERANCE]
    assert worse == [], f"{path}: drawn unlike KaTeX alone: {worse}"
