"""``make serve``: ``mkdocs serve`` that rebuilds only an edited page, or all after a code edit.

``mkdocs serve --dirty`` re-renders only the Markdown pages changed since the
last build: an edited page is shown in about a second instead of the three
that rebuilding every page takes (every executed block, the API reference and
the search index). But a dirty build re-renders no page after an edit to the
code the pages run or include (``pe/``, ``sitegen/``, ``scripts/``,
``examples/``, ``benchmarks/results/``, ``mkdocs.yml``), so their output would
go stale. This runs the MkDocs command line with ``--dirty`` and makes each
rebuild a full one when any of those files changed since the previous build.
A dirty rebuild also hands mkdocs-autorefs what the previous build learned
about where each API entry and heading is, so that the edited page's links to
the API reference (a page a dirty rebuild does not render) still resolve.

Under ``make serve`` (``PE_SERVE=1``) without torch, the figure scripts that
import a library ``make serve`` does not install are left out of the build's
up-front drawing (the MkDocs hook in ``sitegen/hooks.py`` would otherwise
stop the build); the blocks that show those figures then show a note instead
(`sitegen.exec_format`).

Pages are served before their figures are drawn (a newcomer's first
``make serve`` draws every figure, most of the first build's time): where no
block output is cached (``make serve``'s environment, without torch), a build
that finds figures to draw renders each page with a placeholder in place of a
figure not drawn yet, serves the pages, and draws the figures in the
background at a lower priority (`sitegen.figures.later`); once all are drawn
the server rebuilds every page and the browser reloads with the figures. In
an environment with everything installed, block outputs are cached by their
inputs (`sitegen.exec_format`), which a placeholder would outlive: there the
build waits for the figures, as ``make build`` does.

Usage: ``python -m tools.serve [mkdocs serve options]``.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import mkdocs.commands.serve
from mkdocs.__main__ import cli
from mkdocs.commands.build import build
from mkdocs.livereload import LiveReloadServer
from mkdocs_autorefs import AutorefsConfig, AutorefsPlugin

from sitegen import exec_format

ROOT = Path(__file__).resolve().parents[1]
#: What the pages run or include; an edit to any of it rebuilds every page.
CODE = ("pe", "sitegen", "scripts", "examples", "benchmarks/results", "configs", "mkdocs.yml")


def newest_code_change() -> float:
    """Return the latest modification time of the files in `CODE`."""
    newest = 0.0
    for name in CODE:
        path = ROOT / name
        files = [path] if path.is_file() else path.rglob("*")
        for file in files:
            if file.is_file() and "__pycache__" not in file.parts:
                newest = max(newest, file.stat().st_mtime)
    return newest


#: mkdocs-autorefs' maps from an identifier to its URL (and title); filled as pages render.
AUTOREFS_MAPS = ("_primary_url_map", "_secondary_url_map", "_title_map", "_abs_url_map")


def skip_unrunnable_figures() -> None:
    """Under ``PE_SERVE``, leave out the figure scripts that import a missing library.

    MkDocs has just loaded the hooks, which import `sitegen.figures` afresh; its
    list of scripts is narrowed for this build only.
    """
    figures = sys.modules.get("sitegen.figures")
    if figures is None or not exec_format.serving() or not exec_format.missing_optional():
        return
    every = figures.figure_scripts

    def runnable() -> list[Path]:
        return [script for script in every() if exec_format.script_needs(script) is None]

    figures.figure_scripts = runnable  # type: ignore[attr-defined]


class Server(LiveReloadServer):
    """MkDocs' live-reload server, which can be asked for a rebuild without a file edit."""

    #: The server `main` started (MkDocs makes it inside ``mkdocs serve``).
    running: Server | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        Server.running = self

    def rebuild_soon(self) -> None:
        """Ask for a rebuild, as a watched file's change does (MkDocs 1.6's build loop)."""
        with self._rebuild_cond:
            self._want_rebuild = True
            self._rebuild_cond.notify_all()


def figures_later() -> bool:
    """Whether pages may be served before their figures: no block output is cached here."""
    return exec_format.serving() and bool(exec_format.missing_optional())


class Builder:
    """``build`` for the server: dirty unless the code changed since the last build."""

    def __init__(self) -> None:
        self.seen = newest_code_change()
        self.known: dict[str, dict[str, Any]] = {}
        self.drawing: Any = None  # the figures module of a build whose figures are drawing
        self.figures_drawn = False

    def drawn(self) -> None:
        """Rebuild every page: the figures a build left drawing are drawn (`sitegen.figures`)."""
        self.figures_drawn = True
        if Server.running is not None:
            Server.running.rebuild_soon()

    def __call__(self, config: Any, *, serve_url: str | None = None, dirty: bool = False) -> None:
        """Build once, dirty only if no code file changed since the previous build."""
        if self.drawing is not None:
            # An edit while the figures are drawn: this build reloaded the modules, so it
            # waits for the drawing the previous one started rather than starting it again.
            self.drawing.wait_drawn()
            self.drawing = None
        newest = newest_code_change()
        full = newest > self.seen or self.figures_drawn
        self.seen = newest
        self.figures_drawn = False
        skip_unrunnable_figures()
        figures = sys.modules.get("sitegen.figures")
        if figures is not None and figures_later():
            figures.later = self.drawn  # type: ignore[attr-defined]
            self.drawing = figures
        autorefs = config.plugins.get("autorefs")
        if autorefs is None:  # the subdued instance mkdocstrings adds, made here to be filled
            autorefs = AutorefsPlugin()
            autorefs.config = AutorefsConfig()
            autorefs.scan_toc = False
            config.plugins["autorefs"] = autorefs
        if dirty and not full:
            for name, known in self.known.items():
                getattr(autorefs, name).update(known)
        build(config, serve_url=serve_url, dirty=dirty and not full)
        self.known = {name: dict(getattr(autorefs, name, {})) for name in AUTOREFS_MAPS}


class DirtyNotice(logging.Filter):
    """Put MkDocs' warning about dirty builds as what it means under ``make serve``.

    MkDocs warns on every dirty build that links and navigation may be stale;
    here a dirty build re-renders the edited pages, and `Builder` rebuilds
    everything after any edit that could change the others, so the warning is
    shown once, as information, with that said.
    """

    def __init__(self) -> None:
        super().__init__()
        self.told = False

    def filter(self, record: logging.LogRecord) -> bool:
        """Pass other records; the first dirty-build warning becomes INFO, later ones drop."""
        if record.levelno != logging.WARNING or "'dirty' build" not in record.getMessage():
            return True
        if self.told:
            return False
        self.told = True
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.msg, record.args = (
            "make serve: an edited page is rebuilt alone (a 'dirty' build), and every page "
            "after an edit to %s",
            (", ".join(CODE),),
        )
        return True


def main(argv: list[str]) -> None:
    """Run ``mkdocs serve --dirty`` with `argv`, rebuilding in full after a code edit."""
    logging.getLogger("mkdocs.commands.build").addFilter(DirtyNotice())
    mkdocs.commands.serve.build = Builder()  # type: ignore[attr-defined]
    mkdocs.commands.serve.LiveReloadServer = Server  # type: ignore[attr-defined]
    cli(["serve", "--dirty", *argv])


if __name__ == "__main__":
    main(sys.argv[1:])
