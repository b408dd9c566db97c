"""Every page of the built site in a real browser (Chromium through Playwright).

No request may leave the local server, the console stays free of errors, math
is drawn by KaTeX at build time, every figure loads, no page is too heavy, and
search works offline.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import urlparse

import pytest
from conftest import SiteBuild, wait_for_math, watched_page

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser


def site_pages(site: SiteBuild) -> list[str]:
    """Paths of every page, read from the sitemap MkDocs wrote."""
    tree = ET.parse(site.directory / "sitemap.xml")
    namespace = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    return [urlparse(loc.text or "").path for loc in tree.findall(".//s:loc", namespace)]


@pytest.fixture
def page_watch(browser: Browser, server: str) -> Iterator[tuple[Page, list[str], list[str]]]:
    """A fresh page that blocks and records every non-local request and console error."""
    with watched_page(browser, server) as watched:
        yield watched


def test_the_sitemap_lists_the_pages(site: SiteBuild) -> None:
    pages = site_pages(site)
    assert "/" in pages
    assert "/formula/" in pages


def test_every_page_is_local_clean_rendered_and_light(
    site: SiteBuild, server: str, page_watch: tuple[Page, list[str], list[str]]
) -> None:
    """Each page once: nothing from another host, no console error, math and figures drawn,
    and no page heavier than `tools.weight.LIMIT` with its figures, fonts and scripts."""
    from tools.weight import LIMIT, file_sizes

    page, outside, errors = page_watch
    fetched: set[str] = set()
    page.on("requestfinished", lambda request: fetched.add(request.url))
    weights: dict[str, tuple[int, int]] = {}
    for path in site_pages(site):
        fetched.clear()
        page.goto(server + path.lstrip("/"), wait_until="load")
        if page.locator(".arithmatex").count():
            wait_for_math(page)
            raw = page.evaluate(
                "() => [...document.querySelectorAll('.arithmatex')]"
                ".filter(e => !e.querySelector('.katex') || /\\\\[a-zA-Z(\\[]/.test(e.textContent))"
                ".map(e => e.textContent)"
            )
            assert raw == [], f"{path}: math left as TeX: {raw[:3]}"
            # KaTeX's HTML drawn with a real size in KaTeX's own fonts (loaded from
            # the site); its MathML, what screen readers read, beside it.
            drawn = page.evaluate(
                "() => [...document.querySelectorAll('.arithmatex .katex')].map(k => ["
                " k.querySelector('.katex-html').getBoundingClientRect().height,"
                " k.querySelector('.katex-html').getAttribute('aria-hidden'),"
                " k.querySelectorAll('.katex-mathml > math').length])"
            )
            assert all(hidden == "true" and maths == 1 for _, hidden, maths in drawn), (
                path,
                drawn[:3],
            )
            assert all(height > 5 for height, _, _ in drawn if height), (path, drawn[:3])
            fonts = page.evaluate(
                "() => [...document.fonts].filter(f => f.family.startsWith('KaTeX'))"
                ".map(f => [f.family, f.status])"
            )
            assert ["KaTeX_Main", "loaded"] in fonts, (path, fonts)
            assert all(status != "error" for _, status in fonts), (path, fonts)
            # No inline formula is a scroll box of its own (a phone hid half of one).
            boxes = page.evaluate(
                "() => [...document.querySelectorAll('span.arithmatex')]"
                ".filter(s => getComputedStyle(s).overflowX !== 'visible').length"
            )
            assert boxes == 0, path
        # Figures are lazy: load the ones this palette shows, then check them all.
        page.evaluate(
            "() => document.querySelectorAll('article img').forEach(i => {"
            " if (i.offsetParent !== null) i.loading = 'eager'; })"
        )
        page.wait_for_function(
            "() => [...document.querySelectorAll('article img')]"
            ".filter(i => i.offsetParent !== null).every(i => i.complete)"
        )
        broken = page.evaluate(
            "() => [...document.querySelectorAll('article img')]"
            ".filter(i => i.offsetParent !== null && i.naturalWidth === 0)"
            ".map(i => i.getAttribute('src'))"
        )
        assert broken == [], f"{path}: images failed to load: {broken}"
        missing_alt = page.evaluate(
            "() => [...document.querySelectorAll('article img')]"
            ".filter(i => !(i.getAttribute('alt') || '').trim()).map(i => i.src)"
        )
        assert missing_alt == [], f"{path}: images without alt text: {missing_alt}"
        page.evaluate("document.fonts.ready")
        sizes = [file_sizes(site.directory, u, server) for u in fetched if u.startswith(server)]
        weights[path] = (len(sizes), sum(packed for _, packed in sizes))
    assert outside == [], f"requests left the local server: {outside}"
    assert errors == [], f"console errors: {errors}"
    heavy = {path: packed for path, (_, packed) in weights.items() if packed > LIMIT}
    assert heavy == {}, f"pages over {LIMIT / 2**20} MiB compressed: {heavy}"
    # Every page loads its stylesheets, scripts and fonts from this site.
    assert all(files >= 10 for files, _ in weights.values()), weights


def test_light_and_dark_figures_follow_the_palette(
    server: str, page_watch: tuple[Page, list[str], list[str]]
) -> None:
    page, _, _ = page_watch
    page.goto(server, wait_until="load")

    def visible_variants() -> list[str]:
        sources: list[str] = page.evaluate(
            "() => [...document.querySelectorAll('article img')]"
            ".filter(i => i.offsetParent !== null).map(i => i.getAttribute('src'))"
        )
        return sources

    shown = visible_variants()
    assert shown
    assert all("#only-light" in src for src in shown)
    page.locator("label[for='__palette_1']").first.click()
    page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
    shown = visible_variants()
    assert shown
    assert all("#only-dark" in src for src in shown)


def test_instant_navigation_typesets_the_new_page(
    server: str, page_watch: tuple[Page, list[str], list[str]]
) -> None:
    page, outside, errors = page_watch
    page.goto(server, wait_until="load")
    wait_for_math(page)
    page.locator("nav.md-nav--primary a[href$='formula/']").first.click()
    page.wait_for_url(re.compile(r".*/formula/$"))
    wait_for_math(page)
    assert page.locator(".arithmatex .katex").count() > 10
    assert outside == []
    assert errors == []


def test_search_finds_rotation_offline(
    server: str, page_watch: tuple[Page, list[str], list[str]]
) -> None:
    page, outside, errors = page_watch
    page.goto(server, wait_until="load")
    search = page.locator("input.md-search__input")
    search.click()
    search.press_sequentially("rotation", delay=20)
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    assert page.locator(".md-search-result__item").count() >= 1
    assert outside == []
    assert errors == []


# The text of a figure drawn by matplotlib (text as paths): a comment naming the
# text, then a group scaled by size / 100 (matplotlib's text-to-path units).
_SVG_TEXT = re.compile(r"<!-- (.*?) -->\s*<g\b[^>]*\btransform=\"[^\"]*scale\(([\d.]+) -[\d.]+\)")


def svg_text_sizes(svg: str) -> tuple[float, list[tuple[str, float]]]:
    """Width of an SVG's viewBox and the size of each text in it, both in its own units."""
    box = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
    assert box is not None
    return float(box[1]), [(text, float(scale) * 100) for text, scale in _SVG_TEXT.findall(svg)]


def test_svg_text_sizes_reads_matplotlibs_text() -> None:
    svg = (
        '<svg viewBox="0 0 288 216"><!-- position p -->\n'
        '<g style="fill: #000" transform="translate(1 2) rotate(-90) scale(0.09 -0.09)"></g></svg>'
    )
    assert svg_text_sizes(svg) == (288.0, [("position p", 9.0)])


@pytest.mark.parametrize("width", [375, 1280])
def test_figure_text_is_readable_at_phone_and_laptop_widths(
    site: SiteBuild, server: str, browser: Browser, width: int
) -> None:
    """Each figure's text, as drawn on the screen: its size in the SVG times the image's scale.

    On a 375 px phone the page serves the phone drawing (`<picture>`): no tick
    label, legend or title under 9.5 px (the full-size drawing would put its
    legends at about 5 px); at 1280 px none under 10 px.
    """
    pages = [
        path
        for path in site_pages(site)
        if "figures/" in (site.directory / path.lstrip("/") / "index.html").read_text("utf-8")
    ]
    assert len(pages) >= 10
    smallest: dict[str, tuple[float, str]] = {}
    with watched_page(browser, server, viewport={"width": width, "height": 900}) as watched:
        page = watched[0]
        for path in pages:
            page.goto(server + path.lstrip("/"), wait_until="load")
            page.evaluate(
                "() => document.querySelectorAll('article img').forEach(i => {"
                " if (i.offsetParent !== null) i.loading = 'eager'; })"
            )
            page.wait_for_function(
                "() => [...document.querySelectorAll('article figure img')]"
                ".filter(i => i.offsetParent !== null).every(i => i.complete)"
            )
            drawn = page.evaluate(
                "() => [...document.querySelectorAll('article figure img')]"
                ".filter(i => i.offsetParent !== null)"
                ".map(i => [i.currentSrc, i.getBoundingClientRect().width])"
            )
            assert drawn, path
            for source, shown_width in drawn:
                name = urlparse(source).path.rsplit("/", 1)[-1]
                if width <= 600:
                    assert name.endswith("-phone.svg"), (path, name)
                svg = (site.directory / "figures" / name).read_text(encoding="utf-8")
                box, texts = svg_text_sizes(svg)
                assert texts, name
                scale = shown_width / box  # CSS px per SVG unit on this screen
                size, text = min((size * scale, text) for text, size in texts)
                smallest[name] = (round(size, 1), text)
    least = 9.5 if width <= 600 else 10.0
    small = {name: found for name, found in smallest.items() if found[0] < least}
    assert small == {}, f"figure text under {least} px at {width} px: {small}"
