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

from tools import screen_checks as screens
from tools.local_site import open_page

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
        open_page(page, server + path.lstrip("/"))
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
    open_page(page, server)

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
    open_page(page, server)
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
    open_page(page, server)
    search = page.locator("input.md-search__input")
    search.click()
    search.press_sequentially("rotation", delay=20)
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    assert page.locator(".md-search-result__item").count() >= 1
    assert outside == []
    assert errors == []


def test_the_scripts_start_after_the_first_paint(
    server: str, page_watch: tuple[Page, list[str], list[str]]
) -> None:
    """The theme's bundle and scroll-regions.js are requested after the first contentful
    paint (overrides/main.html), on a long page, a short one and one with a widget, and
    the theme still starts there: its observables emit once, the palette toggle works."""
    page, outside, errors = page_watch
    for path in ("reference/rope/", "changelog/", "playground/"):
        open_page(page, server + path)
        page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length")
        paint, requests = page.evaluate(
            # paintTime: when the frame was drawn (startTime is when the screen showed it).
            """() => [performance.getEntriesByName('first-contentful-paint')[0].paintTime,
                      performance.getEntriesByType('resource')
                        .filter(e => /(bundle\\.[0-9a-f]+\\.min|scroll-regions)\\.js$/.test(e.name))
                        .map(e => [e.name.split('/').pop(), e.startTime])]"""
        )
        assert sorted(name.split(".")[0] for name, _ in requests) == ["bundle", "scroll-regions"]
        assert all(start >= paint for _, start in requests), (path, paint, requests)
        # Started on the DOMContentLoaded sent again: the theme's observables emitted once.
        assert page.evaluate("window.document$._buffer.length") == 1, path
    page.locator("label[for=__palette_1]").first.click()
    page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
    assert outside == []
    assert errors == []


def test_the_search_index_comes_after_the_page(
    server: str, page_watch: tuple[Page, list[str], list[str]]
) -> None:
    """The theme's request for search/search_index.json is sent after the load event
    (overrides/main.html): the page's fonts and styles do not share the bandwidth with it."""
    page, outside, errors = page_watch
    open_page(page, server + "changelog/")
    page.wait_for_function(
        "performance.getEntriesByType('resource').some(e => e.name.endsWith('search_index.json'))"
    )
    load, start = page.evaluate(
        """() => [performance.getEntriesByType('navigation')[0].loadEventStart,
                  performance.getEntriesByType('resource')
                    .find(e => e.name.endsWith('/search/search_index.json')).startTime]"""
    )
    assert start >= load > 0
    search = page.locator("input.md-search__input")
    search.click()
    search.press_sequentially("wavelength", delay=20)
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
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

    On a 375 px phone the page serves the phone drawing (`<picture>`), and on
    a laptop the full one: on both, no tick label, legend or title under 9.5 px
    (on a phone the full drawing put its legends at about 5 px).
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
            open_page(page, server + path.lstrip("/"))
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
    least = 9.5
    small = {name: found for name, found in smallest.items() if found[0] < least}
    assert small == {}, f"figure text under {least} px at {width} px: {small}"


# Pages that hold each thing the reading checks look at: prose and number
# tables, figures, copyable output blocks, inline math, the API's tables.
READING_PAGES = [
    "/formula/",
    "/rotation/",
    "/conventions/",
    "/precision/",
    "/beyond/comparison/",
    "/worked-examples/",
    "/grids/rotary/",
    "/reference/",
]


def test_pages_read_well_on_a_phone_and_a_laptop(server: str, browser: Browser) -> None:
    """At 375 and 1280 px: no sideways scrolling and none of `tools.screen_checks`' reading
    problems (tables squeezed or too wide, identifiers broken, a copy button on code, a gap
    under a figure, a formula out of its line, an unnamed dialog, a small nav target).
    ``tests/test_a11y.py`` runs the same checks on every page at every width."""
    result = screens.check(
        browser, server, READING_PAGES, widths=(375, 1280), axe_widths=(), schemes=("light",)
    )
    assert result.checks == 2 * len(READING_PAGES)
    assert result.sideways == [], "\n".join(result.sideways)
    assert result.layout == [], "\n".join(result.layout)


def test_the_reading_checks_see_each_problem(server: str, browser: Browser) -> None:
    """The checks are not blind: each problem, made on a real page, is reported."""
    with watched_page(browser, server, viewport={"width": 375, "height": 800}) as watched:
        page = watched[0]
        open_page(page, server + "formula/")
        page.wait_for_selector("article pre > .md-code__nav")
        assert page.evaluate(screens._LAYOUT, 375) == []
        page.evaluate(
            """() => {
              const article = document.querySelector('article');
              article.insertAdjacentHTML('beforeend', '<table><tbody><tr><td>a</td>'
                + '<td style="height: 300px">tall</td></tr><tr><td style="width: 3em">'
                + '<code style="word-break: break-all">tensor2tensor</code></td></tr>'
                + '</tbody></table>'
                + '<table style="display: table; overflow: visible"><tbody><tr>'
                + '<td style="white-space: nowrap">' + 'wide '.repeat(200)
                + '</td></tr></tbody></table>'
                + '<table data-pe-stack><thead><tr><th>a</th><th>b</th></tr></thead><tbody>'
                + '<tr><td data-label="a"><div class="pe-cell"><code style="white-space: nowrap">'
                + 'x'.repeat(80) + '</code></div></td><td data-label="b"><div class="pe-cell">'
                + 'b</div></td></tr></tbody></table>'
                + '<p class="pe-scroll-hint">scroll</p><div>nothing to scroll</div>');
              const code = document.querySelector('article pre > code');
              code.style.borderRight = '0';
              code.insertAdjacentText('afterbegin', 'a_long_line_'.repeat(20) + '\\n');
              document.querySelector('article figcaption').style.marginTop = '60px';
              const formula = document.querySelector('article p span.arithmatex');
              formula.style.cssText = 'display: inline-block; width: 600px';
              document.querySelector('.md-search').removeAttribute('aria-label');
              const link = document.querySelector('.md-nav__link');
              link.style.cssText = 'min-height: 0; height: 12px; padding: 0; overflow: hidden';
            }"""
        )
        found = "\n".join(page.evaluate(screens._LAYOUT, 375))
    for problem in (
        "table row 3",
        "identifier broken in a table",
        "table wider than its column",
        "text runs past its card",
        "a scroll hint where nothing scrolls",
        "copy button covers the text",
        "px under its figure",
        "inline formula leaves its line",
        "a dialog with no name",
        "navigation target",
    ):
        assert problem in found, (problem, found)


# Tables that once scrolled in their own box at 1280 px, each named by its first
# column headers: they are generated to fit the column (sitegen/pages/conventions.py,
# sitegen/rope.py).
FIT_AT_1280 = {
    "/conventions/": [
        ("convention", "layout"),
        ("convention", "odd d_model"),
        ("group", "conventions"),
        ("", "A"),
    ],
    "/beyond/rope-scaling/": [("model", "rule"), ("", "Llama 3.1 8B")],
    # Seven columns of 4.5rem at most (extra.css): at the theme's 5rem these scrolled by 14 px.
    "/formula/": [("pos", "sin 0")],
    "/precision/": [("positions", "exact, rounded to float32"), ("positions", "positions checked")],
    "/beyond/comparison/": [("method", "64 (trained)")],
    "/beyond/rope-scaling-model/": [("rule", "accuracy, near")],
    "/grids/images/": [("grid", "interpolation")],
}


def test_wide_tables_fit_the_column_at_1280(server: str, browser: Browser) -> None:
    """The conventions overview, the distance matrix, the published RoPE configurations and
    the tables of seven columns fit the content column at 1280 px: none scrolls in its box."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        for path, heads in FIT_AT_1280.items():
            open_page(page, server + path.lstrip("/"))
            tables = page.evaluate(
                """() => [...document.querySelectorAll('article table')].map(t => {
                  const box = t.closest('.md-typeset__scrollwrap') || t;
                  const names = [...t.querySelectorAll('thead th')].slice(0, 2)
                    .map(h => h.textContent.trim());
                  return [names, box.scrollWidth - box.clientWidth];
                })"""
            )
            for head in heads:
                over = [o for names, o in tables if tuple(names) == head]
                assert over, f"{path}: no table headed {head}"
                assert max(over) <= 1, f"{path}: the table headed {head} scrolls by {max(over)} px"
    finally:
        context.close()
