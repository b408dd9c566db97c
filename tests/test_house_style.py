"""What a reader sees on every built page: math typeset, numbers in one house style.

The text of each page's article is read from the built HTML, leaving out what
is not prose: code, typeset math (KaTeX), figures' pictures, addresses shown
as links. In what is left:

- no TeX: no ``\\command``, no ``x_i`` or ``W^DQ`` written with ``_`` and ``^``
  (the page writes it as math, or the figure as mathtext);
- numbers in the house style of `sitegen.markdown`: no hyphen-minus as the
  sign of a number, no ``e+7`` or ``e-04`` exponents, no whole number of five
  digits or more without thousands separators (``50331648``), and none of four
  digits either unless it is a year.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import SiteBuild

pytestmark = pytest.mark.site

#: Elements whose text is not prose a reader reads as such.
_SKIPPED_TAGS = {"code", "pre", "kbd", "script", "style", "svg", "math", "samp", "img"}
#: Classes that mark the same: typeset math, the permalink sign.
_SKIPPED_CLASSES = {"katex", "arithmatex", "headerlink", "katex-display"}
_VOID = {"br", "img", "wbr", "hr", "input", "meta", "link", "source", "col", "area"}

_RULES = {
    "a TeX command": re.compile(r"\\[A-Za-z]+"),
    "a TeX subscript": re.compile(
        r"(?<![\w/.-])[A-Za-z\u0391-\u03a9\u03b1-\u03c9]{1,2}_(?:\{|[A-Za-z0-9]\b)"
    ),
    "a TeX superscript": re.compile(r"[A-Za-z0-9)]\^(?:\{|[A-Za-z0-9])"),
    "a hyphen-minus as a number's sign": re.compile(
        r"(?:^|(?<=[\s(\[=:,;]))-\d+(?:[.,]\d+)*(?![\w.])"
    ),
    "an exponent written e+N or e-0N": re.compile(r"\d[eE](?:\+|-?0)\d"),
    "a long whole number without separators": re.compile(r"(?<![\w.,/#:+-])\d{5,}(?!\w|[.,]\d)"),
    "a four-digit number without a separator": re.compile(
        r"(?<![\w.,/#:+-])(?!1[89]\d\d\b|20[0-3]\d\b)\d{4}(?!\w|[.,]\d)"
    ),
}


class _ArticleText(HTMLParser):
    """The prose of a page's article, one string per text node outside skipped elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self._in_article = 0
        self._stack: list[bool] = []  # per open element: does it start a skipped part?
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        if tag == "article":
            self._in_article += 1
        href = attributes.get("href") or ""
        skip = (
            tag in _SKIPPED_TAGS
            or bool(classes & _SKIPPED_CLASSES)
            or (tag == "a" and href.startswith(("http://", "https://")))
        )
        self._stack.append(skip)
        self._skipping += skip

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not self._stack:
            return
        self._skipping -= self._stack.pop()
        if tag == "article":
            self._in_article -= 1

    def handle_data(self, data: str) -> None:
        if self._in_article and not self._skipping and data.strip():
            self.texts.append(data)


def offences(page_html: str) -> list[tuple[str, str]]:
    """Each house-style rule the page's prose breaks, with the text around it."""
    parser = _ArticleText()
    parser.feed(page_html)
    found = []
    for text in parser.texts:
        for rule, pattern in _RULES.items():
            for match in pattern.finditer(text):
                around = text[max(0, match.start() - 30) : match.end() + 30]
                found.append((rule, around.strip()))
    return found


def test_rules_catch_what_they_guard() -> None:
    page = (
        "<article><p>θ_i and W^DQ, \\theta, -0.5, 1.2e+7, 3e-04, 50331648, 4096, "
        'in 2023 <code>x_i -1</code> <span class="katex">θ_i</span> '
        '<a href="https://example.org/a_b">https://example.org/a_b</a></p></article>'
    )
    rules = sorted({rule for rule, _ in offences(page)})
    assert rules == sorted(_RULES), rules
    fine = "<article><p>50,331,648 and \u22120.5, 6.3e-4, 1.2e7; rope_theta in 2024</p></article>"
    assert offences(fine) == []


#: What is left, page by page: at most this many offences (#41). A page not
#: listed has none; a count may only go down.
LEFT = {
    # pe's own error messages, shown as Python prints them (pe/ writes ASCII).
    "errors": 60,
    # Release notes, written as the changes were made.
    "changelog": 15,
    # File permissions (0700) are octal, not quantities.
    "install": 2,
    # Pages of the other helpers of #41 (rewritten beside this change).
    "beyond/rope-scaling-model": 7,
    # Library settings quoted as their source writes them (pe/_timesteps.py's
    # provenance strings, the conventions' source readings, a config key's
    # description in pe/_config.py), and example names of examples/mistakes.py
    # ("positions 2048-4095"): to be written as code or in the house style there.
    "grids/timesteps": 17,
    "conventions": 4,
    "mistakes": 3,
    # Benchmark shapes of benchmarks/results (query (1, 32, 4096, 128)).
    "precision": 6,
    # Prose numbers still typed in the page (GPT-2's 1024, a base of 10000).
    "beyond/learned": 1,
    "frequencies": 2,
    "playground": 1,
    "properties": 1,
    "transformer": 1,
    "worked-examples": 1,
}


def test_every_page_reads_in_the_house_style(site: SiteBuild) -> None:
    pages = sorted(site.directory.glob("**/index.html"))
    assert len(pages) > 30
    found = {}
    for page in pages:
        name = str(page.relative_to(site.directory).parent)
        if name == "reference" or name.startswith("reference/"):
            continue  # the API reference shows docstrings, written for the terminal too
        problems = offences(page.read_text(encoding="utf-8"))
        if len(problems) > LEFT.get(name, 0):
            found[name] = problems[:8]
    assert not found, found


def pages_of(directory: Path) -> dict[str, list[tuple[str, str]]]:
    """Every page's offences (for reading a build by hand)."""
    return {
        str(page.relative_to(directory).parent): offences(page.read_text(encoding="utf-8"))
        for page in sorted(directory.glob("**/index.html"))
    }


#: A power written ``2**16`` in prose, which Markdown read as the start of bold text
#: when another ``**`` followed in the paragraph (``(2<strong>16). ... 2</strong>28``).
_POWER_AS_BOLD = re.compile(r"\d<strong>\d[^<]{0,40}")


def test_no_power_is_read_as_bold(site: SiteBuild) -> None:
    """A docstring writes a power as code (````2**16````), so no page shows it in bold."""
    found = [
        f"{path.relative_to(site.directory)}: {match.group(0)}"
        for path in sorted(site.directory.rglob("*.html"))
        for match in _POWER_AS_BOLD.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []
