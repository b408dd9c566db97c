"""Every page of the built site in a real browser (Chromium through Playwright).

No request may leave the local server, the console stays free of errors, math
is drawn by KaTeX at build time, every figure loads, no page is too heavy, and
search works offline.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import pytest
from conftest import ScreensRun, SiteBuild, wait_for_math, watched_page

from tools import screen_checks as screens
from tools.local_site import OMNIBOX_POPUPS, idle_search, is_search_worker, open_page

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


@pytest.fixture
def search_watch(browser: Browser, server: str) -> Iterator[tuple[Page, list[str], list[str]]]:
    """`page_watch` with the theme's real search worker, for the tests that search."""
    with watched_page(browser, server, search=True) as watched:
        yield watched


def test_the_sitemap_lists_the_pages(site: SiteBuild) -> None:
    pages = site_pages(site)
    assert "/" in pages
    assert "/formula/" in pages


def test_every_page_is_local_clean_rendered_and_light(
    site: SiteBuild, screen_check: ScreensRun
) -> None:
    """Each page, as the every-page check saw it (`tools.screen_checks`): nothing from
    another host, no console error in any view, math and figures drawn (`_RENDERED`),
    and no page heavier than `tools.weight.LIMIT` with its figures, fonts and scripts."""
    from tools.weight import LIMIT, file_sizes

    result, base = screen_check.result, screen_check.base
    assert list(result.pages) == site_pages(site)
    outside = {path: facts.outside for path, facts in result.pages.items() if facts.outside}
    assert outside == {}, f"requests left the local server: {outside}"
    errors = {path: facts.errors for path, facts in result.pages.items() if facts.errors}
    assert errors == {}, f"console errors: {errors}"
    assert result.rendering == [], "\n".join(result.rendering)
    weights = {
        path: [
            file_sizes(site.directory, url, base) for url in facts.fetched if url.startswith(base)
        ]
        for path, facts in result.pages.items()
    }
    heavy = {path: sum(p for _, p in sizes) for path, sizes in weights.items()}
    heavy = {path: packed for path, packed in heavy.items() if packed > LIMIT}
    assert heavy == {}, f"pages over {LIMIT / 2**20} MiB compressed: {heavy}"
    # Every page loads its stylesheets, scripts and fonts from this site.
    assert all(len(sizes) >= 10 for sizes in weights.values()), weights


def test_the_rendering_check_sees_each_problem(server: str, browser: Browser) -> None:
    """`_RENDERED` is not blind: TeX left raw, a formula with no MathML, a broken or
    unnamed image and a formula in a scroll box of its own, made on a real page; and
    `_TABLES` sees a table that scrolls sideways."""
    with watched_page(browser, server) as watched:
        page = watched[0]
        open_page(page, server + "formula/")
        wait_for_math(page)
        screens._load_figures(page)
        assert page.evaluate(screens._RENDERED) == []
        page.evaluate(
            """() => {
              const article = document.querySelector('article');
              const raw = document.createElement('span');
              raw.className = 'arithmatex'; raw.textContent = '\\(\\sin x\\)';
              const image = document.createElement('img');
              image.src = 'figures/no-such-figure.svg'; image.alt = 'missing';
              const unnamed = document.createElement('img');
              unnamed.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
              article.append(raw, image, unnamed);
              document.querySelector('.arithmatex .katex-mathml').remove();
              document.querySelector('span.arithmatex').style.overflowX = 'auto';
              document.querySelector('article table th').style.minWidth = '3000px';
            }"""
        )
        page.wait_for_function(screens._FIGURES_LOADED)
        found = "\n".join(page.evaluate(screens._RENDERED))
        tables = page.evaluate(screens._TABLES)
    for problem in (
        "math left as TeX",
        "without its hidden drawing and MathML",
        "images failed to load: figures/no-such-figure.svg",
        "images without alt text: data:image/gif",
        "inline formulas are scroll boxes",
    ):
        assert problem in found, (problem, found)
    # `_TABLES`, read by the test of the wide tables: the widened table scrolls, no other.
    assert tables[0][1] > 2000, tables
    assert all(over <= 1 for _, over in tables[1:]), tables


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


def test_the_colour_toggle_follows_the_system_then_the_reader(
    browser: Browser, server: str
) -> None:
    """The toggle of overrides/partials/palette.html, as a reader meets it.

    With nothing stored, the page is in the system's scheme from its first
    paint (dark: slate, the page's own colour scheme dark too), with no
    switching attribute to remove later (which would restyle every element;
    the screen check sees that no transition runs while a page loads instead);
    once the theme's script has run the browser's bar has the header's colour.
    A click (or Enter on the focused option) switches the scheme at once, with
    transitions off for a frame, and is kept for the next page; the theme's own
    palette component is not mounted.
    """
    context = browser.new_context(color_scheme="dark", viewport={"width": 1280, "height": 800})
    idle_search(context)
    page = context.new_page()
    page.add_init_script(
        "document.addEventListener('DOMContentLoaded', () => { window.peAtParse ="
        " [document.body.dataset.mdColorScheme, document.body.hasAttribute("
        "'data-md-color-switching')]; }, { once: true });"
    )
    try:
        open_page(page, server + "formula/")
        assert page.evaluate("window.peAtParse") == ["slate", False]
        page.wait_for_function("document.querySelector('meta[name=theme-color]') !== null")
        state = page.evaluate(
            """() => [document.body.dataset.mdColorScheme,
                      getComputedStyle(document.documentElement).colorScheme,
                      document.querySelector('meta[name=theme-color]').content
                        === getComputedStyle(document.querySelector('.md-header')).backgroundColor,
                      [...document.querySelectorAll('[data-pe-palette] label')].map(l => l.hidden),
                      document.querySelectorAll('[data-md-component=palette]').length]"""
        )
        assert state == ["slate", "dark", True, [True, False], 0], state
        page.locator("label[for='__palette_0']").click()  # the visible label: to light
        assert page.evaluate("document.body.dataset.mdColorScheme") == "default"
        page.wait_for_function("!document.body.hasAttribute('data-md-color-switching')")
        assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") != "dark"
        open_page(page, server + "rotation/")  # the choice is kept across pages
        assert page.evaluate("window.peAtParse") == ["default", False]
        page.locator("#__palette_0").focus()  # the checked option; Enter moves to the next
        page.keyboard.press("Enter")
        assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    finally:
        context.close()


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
    # The new page's code blocks, mounted as they come into view, get their copy
    # buttons, each in a <nav> that is no landmark (overrides/main.html's observer).
    page.evaluate(screens.SCROLLED_THROUGH)
    roles = page.evaluate(
        "[...document.querySelectorAll('nav.md-code__nav')].map(n => n.getAttribute('role'))"
    )
    assert roles, "no copy button"
    assert set(roles) == {"none"}, roles
    assert outside == []
    assert errors == []


def test_the_browser_keeps_playwright_s_switches_and_preloads_no_popup(browser: Browser) -> None:
    """The tests' Chromium (`tools.local_site.CHROMIUM_FLAGS`) turns off what Playwright does.

    Chromium reads the last --disable-features only: ours must name every feature
    that Playwright's own switch turns off, and the address bar's popups, which it
    would otherwise preload (two WebUI pages) for every browser context.
    """
    session = browser.new_browser_cdp_session()
    processes = session.send("SystemInfo.getProcessInfo")["processInfo"]
    (pid,) = [p["id"] for p in processes if p["type"] == "browser"]
    command_line = Path(f"/proc/{pid}/cmdline")
    if not command_line.exists():
        pytest.skip("reads the browser's command line from /proc (Linux)")
    switches = command_line.read_text(encoding="utf-8").split("\0")
    lists = [a.split("=", 1)[1].split(",") for a in switches if a.startswith("--disable-features=")]
    assert len(lists) == 2, lists  # Playwright's, then ours
    playwright, ours = lists
    assert set(playwright) <= set(ours), set(playwright) - set(ours)
    assert set(OMNIBOX_POPUPS) <= set(ours)
    context = browser.new_context()
    try:
        context.new_page().goto("about:blank")
        kinds = [t["type"] for t in session.send("Target.getTargets")["targetInfos"]]
        assert "browser_ui" not in kinds, kinds
    finally:
        context.close()
        session.detach()


def test_the_idle_search_worker_stands_in_for_the_theme_s_own(
    site: SiteBuild, server: str, browser: Browser
) -> None:
    """The tests that do not search serve `IDLE_WORKER` for the theme's worker: its name matches.

    Served idle, the worker never answers, so the theme's search never gets ready;
    the page is otherwise the same, and the worker's address is still fetched.
    """
    workers = sorted((site.directory / "assets" / "javascripts" / "workers").glob("*.js"))
    assert [
        is_search_worker(server + w.relative_to(site.directory).as_posix()) for w in workers
    ] == [True]
    with watched_page(browser, server) as (page, outside, errors):
        fetched: list[str] = []
        page.on("requestfinished", lambda request: fetched.append(request.url))
        open_page(page, server + "changelog/")
        page.wait_for_function(
            "performance.getEntriesByType('resource')"
            ".some(e => e.name.endsWith('search_index.json'))"
        )
        assert [url for url in fetched if is_search_worker(url)], fetched
        page.locator("input.md-search__input").click()
        page.locator("input.md-search__input").press_sequentially("rotation")
        page.wait_for_timeout(300)
        assert page.locator(".md-search-result__item").count() == 0
        assert outside == []
        assert errors == []


def test_search_finds_rotation_offline(
    server: str, search_watch: tuple[Page, list[str], list[str]]
) -> None:
    page, outside, errors = search_watch
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
    for path in ("beyond/rope-scaling/", "changelog/", "playground/"):
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


def test_the_theme_finds_html_and_the_head_as_it_leaves_them(browser: Browser, server: str) -> None:
    """As the theme's script starts it changes nothing on <html> or in the head's addresses.

    It swaps <html>'s no-js for js, marks it for its focus-visible polyfill, and
    writes every relative href in the head again as an absolute one: after the
    first paint each of these restyled every element of the page (a stylesheet's
    link written again is a new stylesheet). overrides/main.html does all three
    while the head is parsed, so the script finds them done: every attribute it
    writes keeps its value (and the stylesheets are requested once, not twice).
    """
    context = browser.new_context(viewport={"width": 375, "height": 800})
    idle_search(context)
    page = context.new_page()
    styles: list[str] = []
    page.on("request", lambda r: styles.append(r.url) if r.resource_type == "stylesheet" else None)
    page.add_init_script(
        """window.peWrites = [];
        document.addEventListener('DOMContentLoaded', () => {
          new MutationObserver(records => { for (const r of records) {
            const now = r.target.getAttribute(r.attributeName);
            if (now !== r.oldValue) window.peWrites.push(
              [r.target.nodeName, r.attributeName, r.oldValue, now]);
          } }).observe(document.documentElement, {attributes: true, attributeOldValue: true,
                       attributeFilter: ['class', 'href', 'src', 'data-js-focus-visible']});
          new MutationObserver(records => { for (const r of records) {
            const now = r.target.getAttribute(r.attributeName);
            if (now !== r.oldValue) window.peWrites.push(
              [r.target.nodeName, r.attributeName, r.oldValue, now]);
          } }).observe(document.head, {attributes: true, attributeOldValue: true,
                       subtree: true, attributeFilter: ['href', 'src']});
        }, { once: true });"""
    )
    try:
        for path in ("reference/rope/", ""):
            styles.clear()
            open_page(page, server + path)
            assert page.evaluate("window.peWrites") == [], path
            assert styles
            assert len(styles) == len(set(styles)), styles
            root = page.evaluate(
                "[document.documentElement.className, "
                "document.documentElement.hasAttribute('data-js-focus-visible')]"
            )
            assert root == ["js js-focus-visible", True], root
            relative = page.evaluate(
                "[...document.head.querySelectorAll('[href]')].map(e => e.getAttribute('href'))"
                ".filter(h => !/^(?:[a-z]+:)?\\/\\//i.test(h))"
            )
            assert relative == [], relative
    finally:
        context.close()


def test_the_theme_s_start_restyles_only_what_it_changes(browser: Browser, server: str) -> None:
    """As the theme's script starts, the browser restyles what it moves, not the whole page.

    On /reference/rope/, then 8,600 elements, two things made it restyle nearly
    all of them, seen as one style pass of 7,600 elements in a Chromium trace:
    the theme moving each table into its scrolling wrapper among the table's
    siblings (its stylesheet has rules by position among siblings), and a rule
    under :root:has(), which every node added anywhere sends back to the root.
    A table now has a box of its own (sitegen/hooks.py) and the scheme is
    written on <html>. Checked on the site's longest page, /beyond/rope-scaling/
    (about 6,000 elements, 600 of them in its tables): no pass after the
    theme's script starts restyles half of its elements. The counts are the
    browser's own, so they do not depend on the machine's speed.
    """
    context = browser.new_context(viewport={"width": 375, "height": 800})
    idle_search(context)
    page = context.new_page()
    try:
        browser.start_tracing(page=page, categories=["devtools.timeline"])
        open_page(page, server + "beyond/rope-scaling/")
        events = json.loads(browser.stop_tracing())["traceEvents"]
        elements = page.evaluate("document.getElementsByTagName('*').length")
    finally:
        context.close()
    assert elements > 5000, elements  # still the longest page: see the docstring
    bundle = [
        e["ts"]
        for e in events
        if e.get("name") == "EvaluateScript"
        and re.search(r"/bundle\.[0-9a-f]+\.min\.js$", e["args"]["data"].get("url", ""))
    ]
    assert bundle, "the theme's script was not seen in the trace"
    passes = [
        e["args"]["elementCount"]
        for e in events
        if e.get("name") == "UpdateLayoutTree"
        and e["ts"] >= bundle[0]
        and "elementCount" in e.get("args", {})
    ]
    assert passes, "no style pass was seen after the theme's script started"
    assert max(passes) < elements / 2, (elements, passes)


def test_the_search_index_comes_after_the_page(
    server: str, search_watch: tuple[Page, list[str], list[str]]
) -> None:
    """The theme's request for search/search_index.json is sent after the load event
    (overrides/main.html): the page's fonts and styles do not share the bandwidth with it."""
    page, outside, errors = search_watch
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


@pytest.mark.parametrize("width", screens.FIGURE_WIDTHS)
def test_figure_text_is_readable_at_phone_and_laptop_widths(
    site: SiteBuild, screen_check: ScreensRun, width: int
) -> None:
    """Each figure's text, as drawn on the screen: its size in the SVG times the image's scale.

    The every-page check records, at 375 and 1280 px, which drawing each figure
    shows and how wide. On a 375 px phone the page serves the phone drawing
    (`<picture>`), and on a laptop the full one: on both, no tick label, legend
    or title under 9.5 px (on a phone the full drawing put its legends at about 5 px).
    """
    pages = [
        path
        for path in site_pages(site)
        if "figures/" in (site.directory / path.lstrip("/") / "index.html").read_text("utf-8")
    ]
    assert len(pages) >= 10
    smallest: dict[str, tuple[float, str]] = {}
    for path in pages:
        drawn = screen_check.result.pages[path].figures[width]
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


# Each code block a reader can see: whether it scrolls sideways, and its tabindex.
VISIBLE_CODE_MARKS = """() => [...document.querySelectorAll('article pre > code')]
    .filter(c => c.checkVisibility())
    .map(c => [c.scrollWidth > c.clientWidth, c.getAttribute('tabindex')])"""


def test_on_a_touch_phone_code_that_scrolls_takes_the_focus(server: str, browser: Browser) -> None:
    """On a phone (touch, no hover) a code block that scrolls sideways can take the focus.

    The theme makes such a block focusable only where the pointer can hover;
    overrides/main.html answers its one "(hover)" query as matching. Each copy
    button's <nav> is no landmark (role none), so the page's landmarks stay few
    and named. The theme mounts a block as it comes into view (content.lazy);
    scroll-regions.js makes a block that scrolls focusable before then, so the
    marks are read first as the page loads, then after the page is scrolled
    through (each copy button mounted). A block in a closed fold is left out: it
    is laid out, and marked, when the fold opens.
    """
    phone: dict[str, Any] = {"viewport": {"width": 320, "height": 700}, **screens.PHONE}
    with watched_page(browser, server, **phone) as (page, outside, errors):
        open_page(page, server + "implementation/")
        assert page.evaluate("matchMedia('(hover: none)').matches")
        mounted_at_start = page.evaluate(
            "document.querySelectorAll('article pre > .md-code__nav').length"
        )
        copyable = page.evaluate(
            "document.querySelectorAll('article .highlight:not(.no-copy) pre > code').length"
        )
        # (without content.lazy the theme gives every copyable block its button as it starts,
        # those in closed folds too)
        assert mounted_at_start < copyable, "every code block mounted as the page starts"
        page.wait_for_function(
            "[...document.querySelectorAll('article pre > code')]"
            ".some(c => c.scrollWidth > c.clientWidth && c.getAttribute('tabindex') === '0')"
        )
        codes = page.evaluate(VISIBLE_CODE_MARKS)
        assert any(scrolls for scrolls, _ in codes), codes
        assert all(focus == "0" for scrolls, focus in codes if scrolls), codes
        assert all(focus is None for scrolls, focus in codes if not scrolls), codes
        page.evaluate(screens.SCROLLED_THROUGH)
        mounted = page.evaluate(VISIBLE_CODE_MARKS)
        assert mounted == codes, (mounted, codes)
        # A fold opened: its blocks are laid out now, and the one that scrolls is marked.
        hidden = page.evaluate("document.querySelectorAll('article details:not([open])').length")
        assert hidden, "no closed fold on the page"
        page.evaluate("document.querySelectorAll('article details').forEach(d => d.open = true)")
        page.wait_for_function(
            """() => [...document.querySelectorAll('article pre > code')].every(c =>
                (c.scrollWidth > c.clientWidth) === (c.getAttribute('tabindex') === '0'))"""
        )
        roles = page.evaluate(
            "[...document.querySelectorAll('nav.md-code__nav')].map(n => n.getAttribute('role'))"
        )
        assert roles, "no copy button"
        assert set(roles) == {"none"}, roles
        assert outside == []
        assert errors == []


def test_the_reading_checks_see_each_problem(server: str, browser: Browser) -> None:
    """The checks are not blind: each problem, made on a real page, is reported."""
    phone: dict[str, Any] = {"viewport": {"width": 375, "height": 800}, **screens.PHONE}
    with watched_page(browser, server, **phone) as watched:
        page = watched[0]
        open_page(page, server + "formula/")
        page.evaluate(screens.SCROLLED_THROUGH)
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
                + '<p class="pe-scroll-hint">scroll</p><div>nothing to scroll</div>'
                + '<table data-pe-stack><thead><tr><th>n</th><th></th></tr></thead><tbody>'
                + '<tr><td data-label="n"><div class="pe-cell">1</div></td><td data-label="">'
                + '<div class="pe-cell" style="margin-left: 30px">2.5</div></td></tr>'
                + '<tr><td data-label="n"><div class="pe-cell">2</div></td><td data-label="">'
                + '<div class="pe-cell">3.5</div></td></tr></tbody></table>'
                + '<table data-pe-compare><thead><tr><th>name</th><th>n</th></tr></thead><tbody>'
                + '<tr><td style="position: static">a</td><td style="white-space: nowrap">'
                + '1 '.repeat(300) + '</td></tr></tbody></table>');
              document.querySelector('article div.arithmatex').style.width = '60px';
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
        page.evaluate(screens._SETTLED)
        found = "\n".join(
            page.evaluate(screens._LAYOUT, 375) + page.evaluate(screens._LAYOUT, 1280)
        )
    for problem in (
        "a table of numbers shown as cards",
        "values of cards not lined up",
        "a card cut off",
        "a header cell with no text",
        "a table that scrolls loses its first column",
        "formula wider than its box",
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
    "/beyond/comparison/": [("method", "32 (trained)")],
    "/beyond/rope-scaling-model/": [("rule", "L"), ("rule", "entropy, near")],
    "/grids/images/": [("grid", "interpolation")],
}


def test_wide_tables_fit_the_column_at_1280(screen_check: ScreensRun) -> None:
    """The conventions overview, the distance matrix, the published RoPE configurations and
    the tables of seven columns fit the content column at 1280 px: none scrolls in its box.

    Read from the every-page check, which records each table at 1280 px (`_TABLES`).
    """
    for path, heads in FIT_AT_1280.items():
        tables = screen_check.result.pages[path].tables[1280]
        for head in heads:
            over = [o for names, o in tables if names == head]
            assert over, f"{path}: no table headed {head}"
            assert max(over) <= 1, f"{path}: the table headed {head} scrolls by {max(over)} px"
