"""Sentences and tables that back the guide's prose claims with numbers computed at build time.

Pages print these from executed code blocks, as they do `sitegen.tables`; the
tests in ``tests/test_claims.py`` check the same claims against independent
computations.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import pe
from sitegen.markdown import number, table

ROOT = Path(__file__).resolve().parents[1]
_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _count(value: int) -> str:
    """A small count in words, larger ones in digits."""
    return _WORDS[value] if 0 <= value < len(_WORDS) else f"{value:,}"


def mistake_sections() -> list[str]:
    """Names of the `examples/mistakes.py` sections that the mistakes page includes, in order."""
    page = (ROOT / "docs" / "mistakes.md").read_text(encoding="utf-8")
    return re.findall(r'--8<-- "examples/mistakes\.py:([\w-]+)"', page)


def mistakes_census() -> str:
    """How many mistakes the page shows, and how many of them raise an error."""
    from sitegen.examples import load

    sections = mistake_sections()
    found = load("mistakes")["symptoms"]()
    raising = [name for name, value in found.items() if name.endswith(" error") and value]
    silent = len(sections) - len(raising)
    cases = " and ".join(f"the {name.removesuffix(' error')} case" for name in raising)
    loud = (
        f" The other {_count(len(raising))}, {cases}, fails loudly with an error, shown in its "
        "section."
        if raising
        else ""
    )
    return (
        f"The page shows {_count(len(sections))} mistakes. {_count(silent).capitalize()} of them "
        f"raise no error: the model trains, just worse.{loud}"
    )
