"""The site's search, as a reader meets it: the defining page first, each formula indexed once.

The ranking is Material's own: `search_worker.cjs` loads the theme's search
worker (lunr and Material's query handling, the file the browser runs) under
node and sends it the messages the page sends. Without node the ranking test
is skipped; the index checks need nothing but the build.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import SiteBuild

pytestmark = pytest.mark.site

ROOT = Path(__file__).resolve().parents[1]

#: Key terms of the site and the page that defines each: it must come first.
DEFINED = {
    "critical dimension": "beyond/rope-base/",
    "M-RoPE": "grids/rotary/",
    "position interpolation": "beyond/rope-scaling/",
    "YaRN": "beyond/rope-scaling/",
    "dynamic NTK": "beyond/rope-scaling/",
    "ALiBi": "beyond/alibi/",
    "NoPE": "beyond/rope-variants/",
    "partial rotary": "beyond/rope-variants/",
    "MLA": "beyond/rope-variants/",
    "multi-head latent attention": "beyond/rope-variants/",
    "timestep embedding": "grids/timesteps/",
    "relative position bias": "beyond/relative-bias/",
    "T5 bucket": "beyond/relative-bias/",
    "rope delta": "grids/rotary/",
    "long-term decay": "beyond/rope-base/",
}


def _worker() -> Path:
    """The theme's search worker, the script the browser runs."""
    import material

    found = sorted(
        Path(material.__file__).parent.glob("templates/assets/javascripts/workers/search.*.min.js")
    )
    assert len(found) == 1, found
    return found[0]


def rank(index: Path, queries: list[str]) -> dict[str, list[str]]:
    """Each query's result pages, best first, from Material's worker run by node."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the browser's search engine cannot run")
    done = subprocess.run(
        [node, str(ROOT / "tests/search_worker.cjs"), str(_worker()), str(index), *queries],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    ranked: dict[str, list[str]] = json.loads(done.stdout)
    return ranked


def test_the_defining_page_comes_first(site: SiteBuild) -> None:
    ranked = rank(site.directory / "search/search_index.json", list(DEFINED))
    wrong = {term: ranked[term][:3] for term, page in DEFINED.items() if ranked[term][:1] != [page]}
    assert not wrong, f"the defining page is not first (the first three shown): {wrong}"


class _Formulas(HTMLParser):
    """Each KaTeX formula of a page: its MathML text and its visual HTML's text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.formulas: list[tuple[str, str]] = []
        self._stack: list[str] = []  # "katex", "mathml", "html" or "" per open element
        self._parts = {"mathml": [""], "html": [""]}

    def _part(self) -> str | None:
        return next((kind for kind in reversed(self._stack) if kind in self._parts), None)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        kind = (
            "katex"
            if "katex" in classes
            else "mathml"
            if "katex-mathml" in classes
            else "html"
            if "katex-html" in classes
            else ""
        )
        if tag not in {"br", "img", "wbr", "hr", "input", "meta", "link"}:
            self._stack.append(kind)

    def handle_endtag(self, tag: str) -> None:
        if not self._stack:
            return
        kind = self._stack.pop()
        if kind == "katex":
            self.formulas.append((self._parts["mathml"][0], self._parts["html"][0]))
            self._parts = {"mathml": [""], "html": [""]}

    def handle_data(self, data: str) -> None:
        part = self._part()
        if part is not None:
            self._parts[part][0] += data


def _plain(text: str) -> str:
    """Index text as a reader's query meets it: unescaped, no function-application sign."""
    return html.unescape(text).replace("\u2061", " ")


def test_each_formula_is_indexed_once(site: SiteBuild) -> None:
    """No formula's text stands in the index twice: its MathML's, then its picture's."""
    index = json.loads((site.directory / "search/search_index.json").read_text(encoding="utf-8"))
    texts: dict[str, str] = {}
    for doc in index["docs"]:
        page = doc["location"].split("#")[0]
        texts[page] = texts.get(page, "") + " " + _plain(doc["title"] + " " + doc["text"])
    checked = 0
    doubled = []
    for page, text in texts.items():
        built = site.directory / page / "index.html"
        if not built.is_file():
            continue
        parser = _Formulas()
        parser.feed(built.read_text(encoding="utf-8"))
        for mathml, picture in parser.formulas:
            mathml = mathml.replace("\u2061", " ").strip()
            picture = picture.strip()
            if len(mathml) < 2 or not picture:
                continue  # a one-letter formula doubled ("nn") is not told from a word
            checked += 1
            twice = re.compile(rf"(?<!\w){re.escape(mathml + picture)}(?!\w)")
            if twice.search(text):
                doubled.append((page, mathml + picture))
    assert checked > 500  # the check saw the site's math
    assert not doubled, doubled[:10]


def test_the_index_reads_math_as_words(site: SiteBuild) -> None:
    """Snippets read "sin p", not "sinpsinp"; KaTeX's hidden picture is not in the index."""
    docs = json.loads((site.directory / "search/search_index.json").read_text(encoding="utf-8"))
    texts = [doc["title"] + doc["text"] for doc in docs["docs"]]
    assert not [text for text in texts if "\u2061" in text or "katex" in text]
    definition = next(doc for doc in docs["docs"] if doc["location"] == "formula/#definition")
    assert re.search(r"sin\s*\(", _plain(definition["text"]))
    assert "\u03c9\u03c9" not in definition["text"]
