"""ruff and mypy over the repository, as ``make lint`` runs them, inside ``make test``.

They run as a background job of the test session (tests/conftest.py), after
the builds, so that mypy's cold run overlaps the tests that keep one core busy.
"""

from __future__ import annotations

import re
from pathlib import Path

from conftest import LINT_COMMANDS

ROOT = Path(__file__).resolve().parents[1]


def test_the_lint_run_is_the_makefile_s() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"(?m)^lint:[^\n]*\n((?:\t[^\n]*\n?)*)", makefile)
    assert recipe is not None
    lines = [line.strip() for line in recipe[1].splitlines()]
    assert lines == [f"$(BIN)/python -m {' '.join(command)}" for command in LINT_COMMANDS]


def test_ruff_and_mypy_pass(lint: tuple[str, ...]) -> None:
    assert lint == tuple(" ".join(command) for command in LINT_COMMANDS)
