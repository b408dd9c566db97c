"""How many bytes a reader downloads for each page of the built site.

A page is loaded in a real browser from a local server, scrolled to the end so
that lazy figures load too, and every response is counted: as served (raw) and
as a static host that compresses text (gzip, as GitHub Pages does) sends it.
"""

from __future__ import annotations

import functools
import gzip
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from tools.local_site import open_page

_SETTLED = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
COMPRESSED = {".html", ".js", ".css", ".svg", ".json", ".xml", ".txt", ".map"}
LIMIT = 1.5 * 2**20


@dataclass(frozen=True)
class PageWeight:
    """Bytes one page needs: raw, and with text compressed as a static host sends it."""

    path: str
    raw: int
    compressed: int
    files: int


def site_pages(site: Path) -> list[str]:
    """Paths of every page, from the sitemap MkDocs writes."""
    namespace = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    tree = ET.parse(site / "sitemap.xml")
    return [urlparse(loc.text or "").path for loc in tree.findall(".//s:loc", namespace)]


def file_sizes(site: Path, url: str, base: str) -> tuple[int, int]:
    """Raw and compressed size of the file of `site` that `url` (served at `base`) names."""
    relative = unquote(urlparse(url).path).removeprefix(urlparse(base).path)
    path = site / relative
    if path.is_dir() or relative.endswith("/") or not relative:
        path = path / "index.html"
    return _file_sizes(path)


@functools.lru_cache(maxsize=4096)
def _file_sizes(path: Path) -> tuple[int, int]:
    """Raw and gzip-compressed size of one file (each shared file is packed once)."""
    data = path.read_bytes()
    packed = len(gzip.compress(data, compresslevel=9, mtime=0))
    return len(data), packed if path.suffix in COMPRESSED else len(data)


def page_weights(browser: Any, base: str, site: Path) -> list[PageWeight]:
    """Load every page of `site` (served at `base`) and total what it fetched."""
    results = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    for path in site_pages(site):
        page = context.new_page()
        fetched: set[str] = set()
        pending: set[Any] = set()
        page.on("request", lambda request, busy=pending: busy.add(request))
        page.on("requestfailed", lambda request, busy=pending: busy.discard(request))
        page.on("requestfinished", lambda request, busy=pending: busy.discard(request))
        page.on("requestfinished", lambda request, seen=fetched: seen.add(request.url))
        open_page(page, base + path.lstrip("/"))
        height = page.evaluate("document.body.scrollHeight")
        # Bring every lazy figure into view: Chromium starts loading a lazy image
        # well before it enters the viewport, so steps of two screens miss none.
        for y in range(0, int(height) + 900, 1800):
            page.evaluate(f"window.scrollTo(0, {y})")
            page.wait_for_timeout(20)
        # Then wait until nothing is in flight (what "networkidle" waits for, without
        # its fixed half second per page), for at most five seconds.
        for _ in range(500):
            page.evaluate(_SETTLED)
            if not pending:
                break
            page.wait_for_timeout(10)
        local = [url for url in fetched if url.startswith(base)]
        sizes = [file_sizes(site, url, base) for url in local]
        results.append(
            PageWeight(path, sum(s[0] for s in sizes), sum(s[1] for s in sizes), len(local))
        )
        page.close()
    context.close()
    return results
