"""Material's search index, page by page, kept under the hash of what it reads.

Material's search plugin parses every page's HTML with Python's ``HTMLParser``
on every build to cut it into sections (about a third of a warm build here,
most of it on the API reference). What it appends for a page depends only on
the page's HTML, its table of contents, address, title and front matter, and
Material's version, so `install` wraps ``SearchIndex.add_entry_from_context``:
a page whose inputs are unchanged gets its entries from ``.cache/search/``
(``PE_CACHE`` overrides the folder), byte for byte what the parser gave before.

Only the MkDocs build uses it (`sitegen.hooks` installs it); Zensical builds
its own index.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable
from importlib import metadata
from typing import Any

from sitegen.cache import cache_root, write_atomically

_MARK = "_pe_search_cache"


def _toc(items: Iterable[Any]) -> list[Any]:
    """Return the table of contents as the plugin reads it: ids, addresses, children."""
    return [[item.id, item.url, _toc(item.children)] for item in items]


def page_key(page: Any) -> str:
    """Hash everything ``add_entry_from_context`` reads of `page`."""
    inputs = [
        metadata.version("mkdocs-material"),
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
        add(index, page)
        write_atomically(path, json.dumps(index.entries[start:]))

    setattr(add_entry_from_context, _MARK, True)
    return add_entry_from_context


def install() -> None:
    """Wrap Material's ``SearchIndex.add_entry_from_context`` once per process."""
    from material.plugins.search.plugin import SearchIndex

    if not getattr(SearchIndex.add_entry_from_context, _MARK, False):
        SearchIndex.add_entry_from_context = _cached(SearchIndex.add_entry_from_context)
