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
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import markdown_exec
import numpy as np

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
    if text:
        return message.replace("`", "") + "\n"
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
        log.info("a block needs %s, which make serve did not install: showing a note", module)
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


def formatter(*args: Any, **kwargs: Any) -> Any:
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
