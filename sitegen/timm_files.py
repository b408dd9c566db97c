"""timm's position-embedding files, loaded without timm's package ``__init__``.

timm is installed without its dependencies (the Makefile's NO_DEPS): its
``__init__`` imports torchvision, which does not load beside the CPU torch
here. The files the Grids pages and their tests compare with
(``timm/layers/pos_embed_sincos.py``, ``timm/layers/pos_embed.py``) need only
torch, so stub parent packages whose ``__path__`` is the installed folder let
them load on their own; ``sys.modules`` is restored afterwards. The pages and
the tests both use this one loader.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import types
from collections.abc import Iterator
from pathlib import Path

__all__ = ["load_timm_module", "timm_files"]


@contextlib.contextmanager
def timm_files(*names: str) -> Iterator[tuple[types.ModuleType, ...]]:
    """Import ``timm.<name>`` for each name, from the installed files, for the block.

    Raises
    ------
    ModuleNotFoundError
        If timm is not installed.
    """
    spec = importlib.util.find_spec("timm")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("No module named 'timm'", name="timm")
    root = Path(next(iter(spec.submodule_search_locations)))
    saved = {key: module for key, module in sys.modules.items() if key.split(".")[0] == "timm"}
    try:
        stubbed: set[str] = set()
        for name in names:
            parts = name.split(".")[:-1]
            for depth in range(len(parts) + 1):
                package = ".".join(["timm", *parts[:depth]])
                if package not in stubbed:
                    stub = types.ModuleType(package)
                    stub.__path__ = [str(root.joinpath(*parts[:depth]))]
                    sys.modules[package] = stub
                    stubbed.add(package)
        yield tuple(importlib.import_module(f"timm.{name}") for name in names)
    finally:
        for key in [key for key in sys.modules if key.split(".")[0] == "timm"]:
            del sys.modules[key]
        sys.modules.update(saved)


def load_timm_module(name: str) -> types.ModuleType:
    """Import ``timm.<name>`` from the installed files (see `timm_files`) and return it."""
    with timm_files(name) as (module,):
        return module
