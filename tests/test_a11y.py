"""Every page on every screen: no sideways scrolling, no axe-core violations.

Each page is loaded twice, as a desktop (768 and 1280 px) and as a phone (320
and 375 px: touch, no hover, a mobile viewport), switched through both colour
schemes as the toggle switches them, and in each resized through its widths;
axe-core (WCAG 2.1 A and AA rules, from the axe-playwright-python wheel) runs
at 375 and 1280 px: every rule in the light scheme, the rules that read
colours in the dark one (the others cannot change with the scheme). Two halves
of the pages run side by side, in the background from the moment the site is
built (``tests/conftest.py``). See `tools.screen_checks`.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest
from conftest import ScreensRun, SiteBuild

from tools import screen_checks as screens

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser


def test_no_page_scrolls_sideways_and_axe_finds_nothing(
    screen_check: ScreensRun, site: SiteBuild
) -> None:
    """The check ran in the background from the moment the site was built (tests/conftest.py)."""
    result, paths = screen_check.result, screen_check.paths
    assert paths == screens.site_pages(site.directory)
    assert len(paths) >= 20
    assert result.loads == 2 * len(paths)  # as a desktop, then as a phone (screens.PHONE)
    assert result.checks == len(paths) * len(screens.SCHEMES) * len(screens.WIDTHS)
    assert result.axe_runs == len(paths) * len(screens.SCHEMES) * len(screens.AXE_WIDTHS)
    assert result.sideways == [], "\n".join(result.sideways)
    assert result.stray_permalinks == [], "\n".join(result.stray_permalinks)
    assert result.layout == [], "\n".join(result.layout)
    assert result.violations == [], "\n".join(result.violations)
    seconds = screen_check.seconds
    print(f"{result.checks} page views, {result.axe_runs} axe runs in {seconds:.0f} s")


# The pages these tests make are a real page cut to its title and first few
# blocks (math and links among them), loaded by the check itself, to which a
# script then adds the problem to find (`screen_checks.check`'s ``prepare``): the
# checker runs on the theme's whole frame at a fraction of the cost of axe on
# the whole page.
def made(script: str) -> str:
    """A script that cuts the page to its first blocks, then runs `script`.

    The font preloads at the top of the article (KaTeX's fonts the page draws)
    are not blocks: they stay, and are not counted.
    """
    return (
        "() => { [...document.querySelector('article').children]"
        ".filter(e => e.tagName !== 'LINK').slice(6).forEach(e => e.remove());\n" + script + "\n}"
    )


def test_the_check_sees_sideways_scrolling_and_violations(server: str, browser: Browser) -> None:
    """The checker is not blind: a page made too wide, with a faint line and a stray permalink."""
    result = screens.check(
        browser,
        server,
        ["/formula/"],
        search=False,
        widths=(375,),
        axe_widths=(375,),
        schemes=("light",),
        prepare={
            "/formula/": made(
                "const p = document.createElement('p');"
                " p.style.cssText = 'width: 900px; color: #999; background: #fff';"
                " p.textContent = 'too wide and too faint';"
                " document.querySelector('article').append(p);"
                " const h = document.createElement('h2'); h.style.width = 'min-content';"
                ' h.innerHTML = \'wrapping<a class="headerlink" href="#">¶</a>\';'
                " h.lastChild.style.display = 'inline-block';"
                " document.querySelector('.katex-html .mord').style.color = '#bbb';"
                " document.querySelector('article').append(h);"
                " const f = document.createElement('p'); f.textContent = 'fading';"
                " f.style.transition = 'opacity 1s'; document.querySelector('article').append(f);"
                " f.getBoundingClientRect(); f.style.opacity = '0.5';"
            )
        },
    )
    assert result.sideways
    assert result.stray_permalinks
    # (cut short, the page also moves its table of contents' mark, a colour transition)
    assert any(
        line.startswith("/formula/: transitions ran while the page loaded: P opacity")
        for line in result.rendering
    ), result.rendering
    assert any("color-contrast" in v for v in result.violations)
    assert any("math-ink" in v for v in result.violations)


def test_contrast_is_checked_again_where_a_phone_draws_text_differently(
    server: str, browser: Browser
) -> None:
    """At 375 px axe's contrast rule sees only what changed since 1280 px: it must see this."""
    result = screens.check(
        browser,
        server,
        ["/formula/"],
        search=False,
        widths=(1280, 375),
        axe_widths=(1280, 375),
        schemes=("light",),
        prepare={
            "/formula/": made(
                "const s = document.createElement('style');"
                " s.textContent = '@media (max-width: 600px)"
                " { .pe-faint { color: #bbb !important } }"
                " @media (min-width: 601px) { .pe-phone { display: none } }';"
                " document.head.append(s);"
                " for (const c of ['pe-faint', 'pe-phone']) {"
                " const p = document.createElement('p');"
                " p.className = c; p.textContent = 'drawn apart on a phone';"
                " if (c === 'pe-phone') p.style.color = '#ccc';"
                " document.querySelector('article').append(p); }"
            )
        },
    )
    contrast = [v for v in result.violations if "color-contrast" in v]
    assert len(contrast) == 1, result.violations
    assert contrast[0].startswith("/formula/ 375px"), contrast
    assert " x2:" in contrast[0], contrast  # the recoloured paragraph and the phone-only one


def test_contrast_is_checked_once_per_look_across_pages(server: str, browser: Browser) -> None:
    """Text drawn like text checked on an earlier page is skipped; new-looking text is not.

    Two pages, each given a faint paragraph: one faint grey on both pages (reported
    once, on the first), one a different grey on the second page only (reported there).
    """
    prepare = {
        path: made(
            f"for (const g of {json.dumps(greys)}) {{ const p = document.createElement('p');"
            " p.style.color = g; p.textContent = 'faint ' + g;"
            " document.querySelector('article').append(p); }"
        )
        for path, greys in (("/formula/", ["#bbb"]), ("/rotation/", ["#bbb", "#c4c4c4"]))
    }
    result = screens.check(
        browser,
        server,
        list(prepare),
        search=False,
        widths=(1280,),
        axe_widths=(1280,),
        schemes=("light",),
        prepare=prepare,
    )
    contrast = [v for v in result.violations if "color-contrast" in v]
    assert len(contrast) == 2, result.violations
    assert contrast[0].startswith("/formula/ 1280px"), contrast
    assert " x1:" in contrast[0], contrast
    assert contrast[1].startswith("/rotation/ 1280px"), contrast
    assert " x1:" in contrast[1], contrast
    assert result.contrast_checked > 0


def test_the_second_scheme_checks_colours_and_the_first_everything(
    server: str, browser: Browser
) -> None:
    """Text faint only in the dark scheme is caught there; an unnamed image once, in light."""
    result = screens.check(
        browser,
        server,
        ["/formula/"],
        search=False,
        widths=(1280,),
        axe_widths=(1280,),
        every_rule_in=("light",),
        prepare={
            "/formula/": made(
                "const s = document.createElement('style');"
                " s.textContent = '[data-md-color-scheme=slate] .pe-dark { color: #3a3a3a }';"
                " document.head.append(s); const p = document.createElement('p');"
                " p.className = 'pe-dark'; p.textContent = 'faint in the dark';"
                " const i = document.createElement('img'); i.src = 'data:image/gif;base64,"
                "R0lGODlhAQABAAAAACw=';"
                " document.querySelector('article').append(p, i);"
            )
        },
    )
    found = sorted(re.sub(r"^\S+ \S+ (\w+): ([\w-]+) .*", r"\2 \1", v) for v in result.violations)
    assert found == ["color-contrast dark", "image-alt light"], result.violations
    # and the drawing check saw the unnamed image once, on the page's first view
    assert [line for line in result.rendering if "without alt text" in line] == [
        "/formula/: images without alt text: data:image/gif;base64,R0lGODlhAQABAAAAACw="
    ]


def test_links_are_checked_once_per_look_across_pages(server: str, browser: Browser) -> None:
    """A link that looks like the text around it is caught; the same look again is skipped.

    axe's link-in-text-block runs only on samples of each look of a link against its
    block: a link in the text's own colour without an underline is reported on the
    first page it appears on, not again on the next; a second look, new on the second
    page, is reported there.
    """
    prepare = {
        path: made(
            f"for (const c of {json.dumps(colours)}) {{ const p = document.createElement('p');"
            " p.style.color = '#000'; p.append('words around ');"
            " const a = document.createElement('a'); a.href = '#'; a.textContent = 'a hidden link';"
            " a.style.cssText = 'color: ' + c + '; text-decoration: none';"
            " p.append(a, ' and more words'); document.querySelector('article').append(p); }"
        )
        for path, colours in (("/formula/", ["#222"]), ("/rotation/", ["#222", "#3d3d3d"]))
    }
    result = screens.check(
        browser,
        server,
        list(prepare),
        search=False,
        widths=(1280,),
        axe_widths=(1280,),
        schemes=("light",),
        prepare=prepare,
    )
    found = [v for v in result.violations if "link-in-text-block" in v]
    assert len(found) == 2, result.violations
    assert found[0].startswith("/formula/ 1280px"), found
    assert " x1:" in found[0], found
    assert found[1].startswith("/rotation/ 1280px"), found
    assert " x1:" in found[1], found
