"""The build's caches: what the site computes is kept under the hash of its inputs.

Two things are slow to compute and rarely change: the figures (a script each)
and a few generated tables that run real experiments (uniqueness searches over
100,000 positions, every error message, parameter counts of torch modules).
Both are stored under ``.cache/`` (``PE_CACHE`` overrides it), outside
``docs/`` so ``mkdocs serve`` does not rebuild in a loop. A key hashes every
file the result could depend on and the versions of the libraries that compute
it, so a stale result is never shown: change a line of ``pe`` and the next build
computes the tables again.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[1]
# What a generated table can depend on: the library, the page generators, the
# examples they run, and the committed measurements they read.
TABLE_INPUTS = ("pe", "sitegen", "examples", "benchmarks/results")
LIBRARIES = ("numpy", "torch", "matplotlib", "markdown-exec")

Function = TypeVar("Function", bound=Callable[..., str])


def cache_root() -> Path:
    """Return the directory that holds every cache (``PE_CACHE`` overrides ``.cache/``)."""
    return Path(os.environ.get("PE_CACHE", ROOT / ".cache"))


def label(path: Path) -> str:
    """Show `path` relative to the repository, as messages and cache keys use it."""
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def digest(paths: Iterable[Path], extra: str = "") -> str:
    """Hash the names and bytes of `paths`, in order, and `extra`."""
    sha = hashlib.sha256(extra.encode())
    for path in paths:
        sha.update(label(path).encode())
        sha.update(path.read_bytes())
    return sha.hexdigest()


def versions(*packages: str) -> str:
    """Python's version and each package's, as one string for a cache key.

    A package that is not installed is named as such (``make serve`` installs no
    torch): a table that does not need it is computed all the same, and one
    that does fails in its own code, which shows the reader a note.
    """
    found = [f"python {sys.version.split()[0]}"]
    for name in packages:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return ", ".join(found)


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so that a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)
    os.replace(scratch, path)


@functools.lru_cache(maxsize=1)
def _inputs_key() -> str:
    files = sorted(
        path
        for folder in TABLE_INPUTS
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and path.suffix in (".py", ".json") and "__pycache__" not in path.parts
    )
    return digest(files, extra=versions(*LIBRARIES))


def cached_markdown(function: Function) -> Function:
    """Keep what `function` returns under a key of its arguments and every input.

    For the page generators that run experiments; a call with the same
    arguments, on the same sources and libraries, reads the stored Markdown.
    The hooks drop ``sitegen`` modules before each build, so a rebuild under
    ``mkdocs serve`` hashes the sources again.
    """

    @functools.wraps(function)
    def wrapper(*args: object, **kwargs: object) -> str:
        call = f"{function.__module__}.{function.__qualname__}{args!r}{sorted(kwargs.items())!r}"
        key = hashlib.sha256(f"{call}\n{_inputs_key()}".encode()).hexdigest()[:20]
        path = cache_root() / "tables" / f"{function.__name__}-{key}.md"
        if path.is_file():
            return path.read_text(encoding="utf-8")
        text = function(*args, **kwargs)
        write_atomically(path, text)
        return text

    return wrapper  # type: ignore[return-value]
