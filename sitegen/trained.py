"""Read the trained-model record (``benchmarks/results/trained.json``) for the two pages on it.

The pages *Comparing the methods* (`sitegen.pages.comparison`) and *RoPE
scaling rules on a trained model* (`sitegen.pages.rope_scaling_model`) read the
one record of ``make trained`` through here: a number with its interval, and
an ordering between two numbers only where their intervals allow it.

The interval of a number is the range over seeds, lowest seed to highest, as
the record stores it (``low``, ``high``). One number is said to be above
another only when its lowest seed is above the other's highest seed; where the
ranges overlap, the page says so instead of ordering them. Every comparison a
page prints is kept in `COMPARISONS`, and ``tests/test_trained.py`` checks each
against the record's per-seed runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sitegen.results import result

#: Every comparison printed since the module was loaded (the tests read them back).
COMPARISONS: list[Comparison] = []


def data() -> dict[str, Any]:
    """Return the committed record of ``make trained``."""
    return result("trained")


def cell(variant: str, length: int, key: str, block: int | None = None) -> dict[str, Any]:
    """Return one summary cell (mean, low, high, values) of `variant` at `length` tokens.

    Raises ValueError where the record holds no value (no far passkey at the
    trained length).
    """
    summary = data()["summary"]
    if variant not in summary:
        raise ValueError(f"the record holds no variant {variant!r}; it has {sorted(summary)}")
    lengths = data()["settings"]["lengths"]
    if length not in lengths:
        raise ValueError(f"the record holds no length {length}; it has {lengths}")
    found = summary[variant][lengths.index(length)][key]
    if block is not None:
        found = found[block]
    if found is None:
        raise ValueError(f"the record holds no {key} for {variant} at {length}")
    return dict(found)


def show(found: dict[str, Any] | None, digits: int = 2, stacked: bool = False) -> str:
    r"""Write a number as its mean and seed range; an en dash where there is none.

    `stacked` puts the range on a second, smaller line, for a table cell.

    >>> show({"mean": 0.5, "low": 0.25, "high": 0.75}).replace("\u2013", " to ")
    '0.50 (0.25 to 0.75)'
    >>> show({"mean": 1.0, "low": 1, "high": 1})
    '1.00'
    >>> show({"mean": 0.5, "low": 0.25, "high": 0.75}, stacked=True).replace("\u2013", "-")
    '0.50<br><small>0.25-0.75</small>'
    """
    if found is None:
        return "\u2013"
    if found["low"] == found["high"]:
        return f"{found['mean']:.{digits}f}"
    span = f"{found['low']:.{digits}f}–{found['high']:.{digits}f}"
    if stacked:
        return f"{found['mean']:.{digits}f}<br><small>{span}</small>"
    return f"{found['mean']:.{digits}f} ({span})"


@dataclass(frozen=True)
class Comparison:
    """Two numbers of the record and how their seed ranges stand: ``>``, ``<`` or ``~``."""

    left: tuple[str, int, str]  # (variant, length, key)
    right: tuple[str, int, str]
    relation: str


def relation(left: dict[str, Any], right: dict[str, Any]) -> str:
    """``">"`` where every seed of `left` is above every seed of `right`, ``"<"``, else ``"~"``.

    >>> relation({"low": 0.6, "high": 0.9}, {"low": 0.1, "high": 0.5})
    '>'
    >>> relation({"low": 0.4, "high": 0.9}, {"low": 0.1, "high": 0.5})
    '~'
    """
    if left["low"] > right["high"]:
        return ">"
    if left["high"] < right["low"]:
        return "<"
    return "~"


def compare(
    left: tuple[str, int, str],
    right: tuple[str, int, str],
    words: tuple[str, str, str] = ("above", "below", "within the seed range of"),
) -> str:
    """Say how `left` stands against `right` (each ``(variant, length, key)``), and keep it."""
    found = relation(cell(*left), cell(*right))
    COMPARISONS.append(Comparison(left, right, found))
    return {">": words[0], "<": words[1], "~": words[2]}[found]


def leaders(
    variants: list[str], length: int, key: str, highest: bool = True
) -> tuple[str, list[str]]:
    """Return the best variant by mean, and every variant whose seed range reaches it.

    Returns the best and the tied group (the best first). Every member is kept
    as a comparison with the relation ``~`` against the best, and every other
    variant as a comparison ordered below (or above) it.
    """
    means = {v: cell(v, length, key)["mean"] for v in variants}
    best = max(variants, key=means.__getitem__) if highest else min(variants, key=means.__getitem__)
    group = [best]
    for variant in variants:
        if variant == best:
            continue
        found = relation(cell(variant, length, key), cell(best, length, key))
        COMPARISONS.append(Comparison((variant, length, key), (best, length, key), found))
        if found == "~":
            group.append(variant)
    return best, group


def listing(names: list[str]) -> str:
    """Join names as prose: ``a``, ``a and b``, ``a, b and c``.

    >>> listing(["a"]), listing(["a", "b"]), listing(["a", "b", "c"])
    ('a', 'a and b', 'a, b and c')
    """
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
