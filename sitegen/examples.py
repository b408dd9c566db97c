"""Load the example programs in ``examples/`` so executed blocks can reuse their code."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name: str) -> dict[str, Any]:
    """Run ``examples/<name>.py`` (not as ``__main__``) and return its globals."""
    path = EXAMPLES / f"{name}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no example {path.name} in {EXAMPLES}")
    return runpy.run_path(str(path), run_name=f"examples.{name}")
