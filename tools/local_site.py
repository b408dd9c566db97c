"""A built site on a loopback port, and the Chromium that reads it.

Shared by the tools that load every page (``make screens``, ``make weight``)
and by the tests' ``server`` and ``browser`` fixtures, so that all of them
serve the site and start the browser the same way.
"""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

#: Debian's Chromium, headless, as root, on a machine whose only network is the
#: loopback: no sandbox, no GPU, and none of its background connections.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class QuietHandler(SimpleHTTPRequestHandler):
    """Serve files without logging each request."""

    def log_message(self, format: str, *args: object) -> None:
        """Say nothing: the tools print their own results."""


def chromium() -> str | None:
    """Return the path of Debian's Chromium, or None where it is not installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def launch(playwright: Any) -> Any:
    """Start Chromium through `playwright` (a ``sync_playwright()`` instance)."""
    return playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_FLAGS)


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
