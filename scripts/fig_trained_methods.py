"""Every position method on one trained decoder: loss and far-passkey retrieval against length."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

from benchmarks.trained_names import METHOD_NAMES, METHODS

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks/results/trained.json"
DATA = json.loads(RESULTS.read_text())
LENGTHS = DATA["settings"]["lengths"]
TRAIN = DATA["settings"]["train_length"]
MARKERS = {"nope": "x", "sinusoidal": "o", "learned": "s", "t5": "^", "rope": "D", "alibi": "v"}


def variant(method: str) -> str:
    """The record's variant of a method (RoPE's is its unscaled rule, ``none``)."""
    return "none" if method == "rope" else method


def series(method: str, key: str) -> tuple[list[float], list[float], list[float], list[int]]:
    """Mean, lowest and highest seed at each length where the record has a value."""
    cells = [
        (n, row[key]) for n, row in zip(LENGTHS, DATA["summary"][variant(method)], strict=True)
    ]
    cells = [(n, c) for n, c in cells if c is not None]
    return (
        [c["mean"] for _, c in cells],
        [c["low"] for _, c in cells],
        [c["high"] for _, c in cells],
        [n for n, _ in cells],
    )


def draw(theme: Theme) -> Figure:
    shape, size = ((2, 1), (4.0, 8.4)) if theme.phone else ((1, 2), (7.6, 4.6))
    figure, (loss, far) = plt.subplots(*shape, figsize=size, layout="constrained")
    colours = dict(zip(METHODS, [*list(theme.series), theme.text], strict=False))
    for panel, key in ((loss, "loss"), (far, "passkey_accuracy_far")):
        for method in METHODS:
            mean, low, high, lengths = series(method, key)
            panel.fill_between(lengths, low, high, color=colours[method], alpha=0.12, lw=0)
            panel.plot(
                lengths,
                mean,
                marker=MARKERS[method],
                ms=4,
                color=colours[method],
                lw=1.5,
                label=METHOD_NAMES[method],
            )
        panel.set_xscale("log", base=2)
        panel.set_xticks(LENGTHS, [str(n) for n in LENGTHS])
        panel.set_xlabel("length served (characters)")
        panel.grid(True, axis="y")
    loss.axvline(TRAIN, color=theme.muted, ls=":", lw=1)
    loss.text(
        TRAIN * 1.04, loss.get_ylim()[1], "trained length", color=theme.muted, fontsize=8, va="top"
    )
    loss.set_ylabel("held-out loss (nats per character)")
    far.set_ylabel("far passkeys retrieved")
    far.set_ylim(-0.03, 1.03)
    handles, labels = loss.get_legend_handles_labels()
    figure.legend(
        handles, labels, loc="outside lower center", ncols=2 if theme.phone else 6, fontsize=8
    )
    return figure


def _describe(method: str) -> str:
    loss = series(method, "loss")[0]
    far = series(method, "passkey_accuracy_far")[0]
    return (
        f"{METHOD_NAMES[method]}: loss {loss[0]:.2f} at {LENGTHS[0]} and {loss[-1]:.2f} at "
        f"{LENGTHS[-1]}; far passkeys {far[0]:.2f} at {LENGTHS[1]} and {far[-1]:.2f} at "
        f"{LENGTHS[-1]}."
    )


ALT = (
    "Two panels against the length served, on a doubling scale from "
    f"{LENGTHS[0]} to {LENGTHS[-1]} characters, for one small decoder trained at {TRAIN} with "
    "each position method: left, next-character loss on held-out text; right, the share of "
    "passkeys hidden beyond the trained distance that it retrieves; bands span "
    f"{len(DATA['settings']['seeds'])} seeds. " + " ".join(_describe(m) for m in METHODS)
)

if __name__ == "__main__":
    save_variants(draw, "trained_methods", ALT)
