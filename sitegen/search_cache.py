"""Material's search index, page by page, kept under the hash of what it reads.

Material's search plugin parses every page's HTML with Python's ``HTMLParser``
on every build to cut it into sections (about a third of a warm build here,
most of it on the API reference). What it appends for a page depends only on
the page's HTML, its table of contents, address, title and front matter, and
Material's version, so `install` wraps ``SearchIndex.add_entry_from_context``:
a page whose inputs are unchanged gets its entries from ``.cache/search/``
(``PE_CACHE`` overrides the folder), byte for byte what the parser gave before.

Each page is indexed from `searchable` HTML: every element marked
``data-search-exclude`` is removed before Material's parser sees it. The
parser honours the mark only until the first element of the same tag inside
the marked one closes (its skip list compares elements by tag name), so
KaTeX's visual HTML (a ``span`` of nested ``span`` elements, marked by
`sitegen.typeset`) was indexed after its first inner ``span``, beside the
MathML text: every formula twice ("sinpsinp", "2π2π"). Removed here,
each formula is indexed once, from its MathML. The function-application
sign KaTeX puts between an operator name and its argument (U+2061, invisible)
becomes a space, so "sin p" is two words a reader can search for.

Only the MkDocs build uses it (`sitegen.hooks` installs it); Zensical builds
its own index.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable, Iterable
from importlib import metadata
from typing import Any

from sitegen.cache import cache_root, write_atomically

_MARK = "_pe_search_cache"
# Part of every page's key: a change to `searchable` must not reuse old entries.
_SEARCHABLE_VERSION = "1"
_EXCLUDED = re.compile(r"<([a-zA-Z][\w-]*)\b[^>]*\sdata-search-exclude(?:=\"[^\"]*\")?[^>]*>")
_INVISIBLE_OPERATORS = {"\u2061": " ", "\u2062": "", "\u2063": "", "\u2064": ""}


def searchable(content: str) -> str:
    """Return `content` without the elements marked ``data-search-exclude``.

    Each marked element is removed with everything inside it, up to its own
    closing tag (nested elements of the same tag are counted). MathML's
    invisible operators are made plain: function application (U+2061) a
    space, invisible times, separator and plus nothing.

    >>> searchable('<p>a <span data-search-exclude><span>x</span>y</span> b</p>')
    '<p>a  b</p>'
    >>> searchable('<math><mi>sin</mi><mo>\u2061</mo><mi>p</mi></math>')
    '<math><mi>sin</mi><mo> </mo><mi>p</mi></math>'
    """
    pieces = []
    start = 0
    while (found := _EXCLUDED.search(content, start)) is not None:
        pieces.append(content[start : found.start()])
        tag = found.group(1)
        inner = re.compile(rf"<(/?){re.escape(tag)}\b[^>]*>")
        depth, end = 1, found.end()
        while depth:
            step = inner.search(content, end)
            if step is None:  # unclosed: drop the rest of the page's marked part
                end = len(content)
                break
            depth += -1 if step.group(1) else 1
            end = step.end()
        start = end
    pieces.append(content[start:])
    text = "".join(pieces)
    for sign, plain in _INVISIBLE_OPERATORS.items():
        text = text.replace(sign, plain)
    return text


def _toc(items: Iterable[Any]) -> list[Any]:
    """Return the table of contents as the plugin reads it: ids, addresses, children."""
    return [[item.id, item.url, _toc(item.children)] for item in items]


def page_key(page: Any) -> str:
    """Hash everything ``add_entry_from_context`` reads of `page`."""
    inputs = [
        metadata.version("mkdocs-material"),
        _SEARCHABLE_VERSION,
        page.url,
        str(page.title),
        page.meta,
        _toc(page.toc),
        page.content,
    ]
    return hashlib.sha256(json.dumps(inputs, default=str).encode()).hexdigest()[:24]


def _cached(add: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    @functools.wraps(add)
    def add_entry_from_context(index: Any, page: Any) -> None:
        path = cache_root() / "search" / f"{page_key(page)}.json"
        if path.is_file():
            index.entries.extend(json.loads(path.read_text(encoding="utf-8")))
            return
        start = len(index.entries)
        content = page.content
        page.content = searchable(content)
        try:
            add(index, page)
        finally:
            page.content = content
        write_atomically(path, json.dumps(index.entries[start:]))

    setattr(add_entry_from_context, _MARK, True)
    return add_entry_from_context


def install() -> None:
    """Wrap Material's ``SearchIndex.add_entry_from_context`` once per process."""
    from material.plugins.search.plugin import SearchIndex

    if not getattr(SearchIndex.add_entry_from_context, _MARK, False):
        SearchIndex.add_entry_from_context = _cached(SearchIndex.add_entry_from_context)
