"""A built site on a loopback port, and the Chromium that reads it.

Shared by the tools that load every page (``make screens``, ``make weight``)
and by the tests' ``server`` and ``browser`` fixtures, so that all of them
serve the site and start the browser the same way.
"""

from __future__ import annotations

import functools
import gzip
import re
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

#: The features Playwright turns off in every Chromium it starts (``chromiumSwitches``
#: in its driver; Playwright 1.65 here). Chromium reads only the last --disable-features
#: it is given, so `CHROMIUM_FLAGS` names them again with its own;
#: tests/test_browser.py checks that the browser it starts keeps every one.
PLAYWRIGHT_DISABLES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
#: Chromium preloads its address bar's two popups, pages of its own (WebUI), for every
#: window it opens, headless too, and a browser context opens one: about 0.7 s of a
#: core each time here, more than loading most of the site's pages (Chromium 156:
#: a new context and the playground page took 1.5 busy CPU-s with them, 0.7 without).
OMNIBOX_POPUPS = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "PreloadTopChromeWebUI")

#: Debian's Chromium, headless, as root, on a machine whose only network is the
#: loopback: no sandbox, no GPU, none of its background connections, and no
#: address bar popups to preload (`OMNIBOX_POPUPS`).
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLES + OMNIBOX_POPUPS),
]


class QuietHandler(SimpleHTTPRequestHandler):
    """Serve files without logging each request."""

    def log_message(self, format: str, *args: object) -> None:
        """Say nothing: the tools print their own results."""


#: The suffixes GitHub Pages sends gzip-compressed (to a client that accepts it).
COMPRESSED = frozenset({".html", ".css", ".js", ".svg", ".json", ".xml", ".txt"})


class GzipHandler(QuietHandler):
    """Serve the site as GitHub Pages does: text files gzip-compressed when asked."""

    def do_GET(self) -> None:
        """Send a text file compressed to a client that accepts gzip, else as it is."""
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        wants_gzip = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (wants_gzip and path.is_file() and path.suffix in COMPRESSED):
            super().do_GET()
            return
        body = gzip.compress(path.read_bytes(), mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def chromium() -> str | None:
    """Return the path of Debian's Chromium, or None where it is not installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def launch(playwright: Any) -> Any:
    """Start Chromium through `playwright` (a ``sync_playwright()`` instance)."""
    return playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_FLAGS)


#: The theme's search worker, which builds the search index of every page's text
#: when a page loads (about 0.4 s of one core here, each time a page is loaded in a
#: fresh browser context), and `IDLE_WORKER`, which a check that does not search may
#: serve in its place (`is_search_worker`): the theme's search then never gets ready,
#: and nothing else on the page changes. The tests that search load the real one.
SEARCH_WORKER = re.compile(r"/assets/javascripts/workers/search\.[0-9a-f]+\.min\.js$")
IDLE_WORKER = "self.onmessage = function () {};"


def is_search_worker(url: str) -> bool:
    """Whether `url` is the theme's search worker (`SEARCH_WORKER`)."""
    return SEARCH_WORKER.search(urlparse(url).path) is not None


def idle_search(target: Any) -> None:
    """Serve `IDLE_WORKER` for the search worker to `target` (a Playwright page or context)."""
    target.route(
        SEARCH_WORKER,
        lambda route: route.fulfill(body=IDLE_WORKER, content_type="text/javascript"),
    )


#: Set on ``<html>`` once the theme's script and the site's scripts held with it
#: have run: they start after the first paint (overrides/main.html), so the load
#: event may come first.
HELD_SCRIPTS_RUN = "document.documentElement.getAttribute('data-pe-scripts') === 'run'"
#: The site's scripts have run: those held, and each widget's, which draws one
#: part a frame and marks the widget data-mounted after the last (playground.js).
SCRIPTS_RUN = (
    f"{HELD_SCRIPTS_RUN} && !document.querySelector('[data-pe-widget]:not([data-mounted])')"
)


def open_page(page: Any, url: str, timeout: float = 30_000, ready: str = SCRIPTS_RUN) -> None:
    """Load `url` in `page` and wait until the site's scripts have run (`ready`)."""
    page.goto(url, wait_until="load", timeout=timeout)
    page.wait_for_function(ready, timeout=timeout)


def built_site(arguments: list[str], default: Path) -> Path:
    """Return the site directory named first in `arguments` (else `default`), if built."""
    site = Path(arguments[0] if arguments else default)
    if not (site / "sitemap.xml").is_file():
        raise SystemExit(f"no built site in {site}; run 'make build' first")
    return site


@contextmanager
def served(site: Path, handler: type[SimpleHTTPRequestHandler] = QuietHandler) -> Iterator[str]:
    """Serve `site` on a free loopback port with `handler`; yield its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
