"""markdown-exec's Python formatter, each block started as a fresh interpreter would.

markdown-exec runs every block of every page in the build's one process, so a
block that calls ``np.set_printoptions`` would change how every later block
prints, while a reader who copies a later block runs it alone and sees numpy's
defaults. This wrapper restores the default print options of numpy (and of
torch, once a block has imported it) before each block. ``mkdocs.yml`` names
it as the ``format`` of the ``python`` fence.

``make serve`` installs only what serving needs: no torch, and none of the
libraries the Conventions page compares with. It sets ``PE_SERVE=1``; then a
block that fails because one of those libraries is missing (directly, or
through a figure script that imports it) shows a note saying so in place of
its output, and the rest of the page renders. Without ``PE_SERVE`` (``make
build``, ``make test``, any strict build) such a block fails the build as
before, and with the libraries installed every block runs as usual.

A block's HTML is kept in ``.cache/blocks/`` under the hash of its code, its
options, the page converter's extensions, every source file a block can read
(``pe``, ``sitegen``, ``examples``, ``scripts``, ``docs``, ``benchmarks/results``,
``mkdocs.yml``) and the libraries' versions, so a build with nothing changed
imports neither torch nor transformers and runs no block. A block of a
``session`` (which share state) is kept under the sources of every block of
its session before it on the page too; when one is not in the cache, the
session's earlier blocks that were read from the cache run first (their output
unused), so it finds what they defined. Blocks whose output has headings
(which markdown-exec also adds to the page's table of contents) always run,
and so does every block of a ``make serve`` build that lacks a library.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import os
import re
import sys
import textwrap
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import markdown_exec
import numpy as np
from markdown_exec._internal.formatters import base as _exec_base
from markupsafe import Markup

from sitegen.cache import ROOT, cache_root, digest, write_atomically

_NUMPY_DEFAULTS = np.get_printoptions()

#: Top-level modules that ``make serve`` does not install, by the extra that has them.
OPTIONAL = {
    "torch": "torch",
    "transformers": "conventions",
    "keras": "conventions",
    "keras_hub": "conventions",
    "positional_encodings": "conventions",
    "diffusers": "conventions",
    "timm": "conventions",  # installed by the Makefile beside the extra, without dependencies
}

_MISSING = re.compile(r"No module named '(\w+)")
_NOT_DRAWN = re.compile(r"figure '(\w+)' has not been built yet")
SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
log = logging.getLogger("mkdocs.plugins.sitegen.exec_format")
_NOTED: set[str] = set()  # missing modules already reported in this process's log


def serving() -> bool:
    """Tell whether this build runs under ``make serve`` (``PE_SERVE=1``)."""
    return os.environ.get("PE_SERVE", "") not in {"", "0"}


def missing_optional() -> list[str]:
    """Return the optional modules that cannot be imported here, sorted."""
    return sorted(name for name in OPTIONAL if importlib.util.find_spec(name) is None)


def note(module: str, *, html: bool, text: bool) -> str:
    """Return the note shown in place of the output of a block that needs `module`."""
    library = "PyTorch" if module == "torch" else f"`{module}`"
    message = (
        f"This output is computed with {library}, which `make serve` did not install; "
        "`make build` or `make test` installs everything and shows it."
    )
    if text:  # in a block of output: lines that fit the column, no sideways scrolling
        return textwrap.fill(message.replace("`", ""), width=60) + "\n"
    if html:
        body = re.sub(r"`([^`]+)`", r"<code>\1</code>", message)
        return (
            '<div class="admonition note"><p class="admonition-title">Not computed here</p>'
            f"<p>{body}</p></div>\n"
        )
    return f'!!! note "Not computed here"\n\n    {message}\n'


def script_needs(script: Path) -> str | None:
    """Return the missing optional module that figure `script` imports, if any."""
    source = script.read_text(encoding="utf-8")
    for module in missing_optional():
        if re.search(rf"^(?:import|from) {module}\b", source, flags=re.MULTILINE):
            return module
    return None


def _missing_module(error: BaseException) -> str | None:
    """Return the optional module whose absence caused `error` (also for a figure)."""
    if isinstance(error, ModuleNotFoundError) and error.name:
        root = error.name.split(".")[0]
        return root if root in OPTIONAL else None
    match = _MISSING.search(str(error))
    if match and match[1] in OPTIONAL:  # a figure script, drawn on demand, failed
        return match[1]
    match = _NOT_DRAWN.search(str(error))  # a figure the build left out (tools/serve.py)
    return script_needs(SCRIPTS / f"fig_{match[1]}.py") if match else None


def run_block(code: str, namespace: dict[str, Any], *, html: bool, text: bool) -> None:
    """Run one block's `code` in `namespace`; print its output, or the note.

    The block's prints are held back until it has finished, so a block that
    fails halfway for a missing library shows only the note. A later block of
    the same session (`namespace`) that fails after such a note shows the note
    too: it reads what the noted block could not define.
    """
    real_print: Callable[..., None] = namespace["print"]
    held: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    namespace["print"] = lambda *args, **kwargs: held.append((args, kwargs))
    try:
        exec(compile(code, namespace.get("__name__", "<block>"), "exec"), namespace)
    except Exception as error:
        module = _missing_module(error) or namespace.get("_pe_missing")
        if module is None:
            raise
        namespace["_pe_missing"] = module
        if module not in _NOTED:  # once, not once per block (a page can have dozens)
            _NOTED.add(module)
            log.info(
                "blocks that need %s, which make serve did not install, show a note in its "
                "place (make build or make test installs everything)",
                module,
            )
        real_print(note(module, html=html, text=text), end="")
        return
    finally:
        namespace["print"] = real_print
    for args, kwargs in held:
        real_print(*args, **kwargs)


def _guarded(options: dict[str, Any]) -> Callable[[str], tuple[str, str]]:
    """Return a ``transform_source`` for markdown-exec that runs blocks via `run_block`."""
    html = str(options.get("html", "")).lower() in {"1", "true", "on", "yes"}
    text = bool(options.get("result"))

    def transform(code: str) -> tuple[str, str]:
        runner = (
            "import sitegen.exec_format as _pe_exec_format\n"
            f"_pe_exec_format.run_block({code!r}, globals(), html={html}, text={text})\n"
        )
        return runner, code

    return transform


#: What a block can read, and the libraries whose version changes what it prints.
BLOCK_INPUTS = ("pe", "sitegen", "examples", "scripts", "docs", "benchmarks/results")
BLOCK_LIBRARIES = (
    "numpy", "torch", "matplotlib", "markdown", "markdown-exec", "pymdown-extensions",
    "transformers", "diffusers", "timm", "keras-hub", "positional-encodings",
)  # fmt: skip
_HEADING = re.compile(r"<h[1-6][\s>]")


@functools.cache
def _inputs_key() -> str:
    files = sorted(
        path
        for folder in BLOCK_INPUTS
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
        and path.suffix in (".py", ".json", ".md")
        and "__pycache__" not in path.parts
    )
    found = []
    for name in BLOCK_LIBRARIES:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} -")
    extra = f"{sys.version} {found} {missing_optional()} {serving()}"
    return digest([*files, ROOT / "mkdocs.yml"], extra=extra)


def _block_file(source: str, language: str, options: dict[str, Any], md: Any) -> Path:
    settings = sorted((k, repr(v)) for k, v in options.items() if not callable(v))
    converter = sorted(f"{type(e).__module__}.{type(e).__name__}" for e in md.registeredExtensions)
    key = repr((source, language, settings, type(md).__module__, converter, _inputs_key()))
    return cache_root() / "blocks" / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".html")


def _session(md: Any, name: str) -> dict[str, list[Any]]:
    """Return what the page `md` converts has seen of session `name`: sources, blocks skipped."""
    sessions: dict[str, dict[str, list[Any]]] = md.__dict__.setdefault("_pe_sessions", {})
    return sessions.setdefault(name, {"sources": [], "skipped": []})


def formatter(*args: Any, **kwargs: Any) -> Any:
    """Format the block with markdown-exec, or read it from the cache (see the module doc)."""
    source, language, _, options, md = (*args, *[None] * 5)[:5]
    options = kwargs.get("options", options) or {}
    cacheable = (
        isinstance(source, str) and md is not None and not (serving() and missing_optional())
    )
    named = options.get("session")
    session = _session(md, str(named)) if cacheable and named else None
    if session is not None:
        # A session block's output depends on the blocks before it on the page.
        session["sources"].append(source)
        source = "\n\0".join(session["sources"])
    stored = _block_file(source, language, options, md) if cacheable else None
    if stored is not None and stored.is_file():
        if session is not None:
            session["skipped"].append((args, kwargs))
        return Markup(stored.read_text(encoding="utf-8"))
    if session is not None:
        # Run the earlier blocks read from the cache, so the session holds what they defined.
        for earlier_args, earlier_kwargs in session["skipped"]:
            _run_formatter(*earlier_args, **earlier_kwargs)
        session["skipped"].clear()
    failures = len(_FAILURES)
    html = _run_formatter(*args, **kwargs)
    failed = len(_FAILURES) > failures
    if stored is not None and not failed and not _HEADING.search(str(html)):
        write_atomically(stored, str(html))
    return html


# markdown-exec reports a block that fails with a warning (which fails a strict
# build) and renders the error: such a block is never kept, so the next build
# runs it again and fails again. Its logger is wrapped to count the warnings.
_FAILURES: list[str] = []


def _count_failures() -> None:
    reporter = _exec_base._logger

    def warning(message: str, *args: Any, **kwargs: Any) -> None:
        _FAILURES.append(message)
        reporter._logger.warning(message, *args, **kwargs)

    reporter.warning = warning  # type: ignore[attr-defined]


_count_failures()


def _run_formatter(*args: Any, **kwargs: Any) -> Any:
    """Reset print options, then format the block with markdown-exec."""
    np.set_printoptions(**_NUMPY_DEFAULTS)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_printoptions(profile="default")
    if serving() and missing_optional():
        options = dict(kwargs.get("options", args[3] if len(args) > 3 else {}))
        if "transform_source" not in options:
            options["transform_source"] = _guarded(options)
            if "options" in kwargs:
                kwargs["options"] = options
            else:
                args = (*args[:3], options, *args[4:])
    return markdown_exec.formatter(*args, **kwargs)
