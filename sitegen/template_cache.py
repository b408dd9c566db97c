"""Compiled page templates and formatted signatures, kept from one build to the next.

Two things a warm build used to redo every time, though their inputs rarely change:

- Jinja compiles every template it renders, the theme's and mkdocstrings' (about
  80 of them, over a second of a warm build here). `use_bytecode_cache` gives
  an environment Jinja's own ``FileSystemBytecodeCache`` in ``.cache/jinja/``
  (``PE_CACHE`` overrides the folder): an entry is found by the template's name
  and used only while the template's source is the same, byte for byte, and the
  Python version is the one that compiled it.
- mkdocstrings formats each long signature of the API reference by running
  ``ruff format`` in a new process (over half a second of a warm build).
  `cache_signature_formatting` keeps each answer in ``.cache/signatures/``,
  under the hash of the formatter's input, its line length and ruff's version
  (with mkdocstrings' random stand-ins for cross-references renamed in order).

Neither changes a byte of the site; ``tests/test_site.py`` compares a cold build
(no cache) with a warm one file by file. Only the MkDocs build uses this
module (`sitegen.hooks`); if mkdocstrings' internals change, signatures are
formatted as before, only slower.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Container
from importlib import metadata
from typing import Any

from sitegen.cache import cache_root, write_atomically

_MARK = "_pe_signature_cache"


def use_bytecode_cache(environment: Any) -> None:
    """Give the Jinja `environment` a bytecode cache in ``.cache/jinja/``."""
    from jinja2 import FileSystemBytecodeCache

    folder = cache_root() / "jinja"
    folder.mkdir(parents=True, exist_ok=True)
    environment.bytecode_cache = FileSystemBytecodeCache(str(folder))


# mkdocstrings stands in a random name of the same length for each cross-reference
# of a signature before formatting it (and puts the references back after): the
# same signature reaches the formatter with new names in every build.
_NAME = re.compile(r"\b_[A-Za-z0-9]{2,}\b")


def _canonical(code: str, stand_ins: Container[str]) -> tuple[str, dict[str, str]] | None:
    """`code` with each stand-in renamed ``_0``, ``_1``... padded to its length; the renaming.

    Formatting reads a name's length, not its letters, so the renamed code
    formats to the same layout. None if a new name is already in `code`.
    """
    renamed: dict[str, str] = {}
    for name in _NAME.findall(code):
        if name in stand_ins and name not in renamed:
            renamed[name] = "_" + format(len(renamed), "x").rjust(len(name) - 1, "0")
    if not renamed:
        return code, {}
    if set(renamed.values()) & set(_NAME.findall(code)):
        return None
    text = _NAME.sub(lambda match: renamed.get(match[0], match[0]), code)
    return text, renamed


def _cached(
    formatter: Callable[[str, int], str], version: str, stand_ins: Container[str]
) -> Callable[[str, int], str]:
    @functools.wraps(formatter)
    def format_code(code: str, line_length: int) -> str:
        canonical = _canonical(code, stand_ins)
        if canonical is None:
            return formatter(code, line_length)
        text, renamed = canonical
        key = hashlib.sha256(f"{version}\n{line_length}\n{text}".encode()).hexdigest()[:24]
        path = cache_root() / "signatures" / f"{key}.py"
        if path.is_file():
            formatted = path.read_text(encoding="utf-8")
        else:
            formatted = formatter(text, line_length)
            write_atomically(path, formatted)
        back = {new: old for old, new in renamed.items()}
        return _NAME.sub(lambda match: back.get(match[0], match[0]), formatted)

    setattr(format_code, _MARK, True)
    return format_code


def cache_signature_formatting() -> bool:
    """Keep what mkdocstrings' signature formatter returns; False if it cannot be found.

    mkdocstrings-python asks its private ``_get_formatter`` for the function
    that formats code (Black if installed, else ``ruff format`` run as a
    subprocess); it is wrapped, once per process, so that each distinct input
    is formatted once.
    """
    try:
        from mkdocstrings_handlers.python._internal import rendering
    except ImportError:
        return False
    get_formatter = getattr(rendering, "_get_formatter", None)
    if get_formatter is None:
        return False
    if getattr(get_formatter, _MARK, False):
        return True
    stash = getattr(getattr(rendering, "_StashCrossRefFilter", None), "stash", None)
    if not isinstance(stash, dict):
        return False
    formatter = get_formatter()
    engines = [f"{name} {metadata.version(name)}" for name in ("ruff", "black") if _has(name)]
    cached = _cached(formatter, ", ".join(engines), stash)

    def get_cached_formatter() -> Callable[[str, int], str]:
        return cached

    setattr(get_cached_formatter, _MARK, True)
    setattr(rendering, "_get_formatter", get_cached_formatter)  # noqa: B010
    return True


def _has(package: str) -> bool:
    try:
        metadata.version(package)
    except metadata.PackageNotFoundError:
        return False
    return True
