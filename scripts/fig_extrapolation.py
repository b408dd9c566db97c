"""Loss against sequence length for the same tiny model with each position method."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks/results/extrapolation.json"
DATA = json.loads(RESULTS.read_text())
MARKERS = {"none": "x", "sinusoidal": "o", "learned": "s", "t5": "^", "rope": "D", "alibi": "v"}


def draw(theme: Theme) -> Figure:
    figure, axes = plt.subplots(figsize=(7.2, 4.0), layout="constrained")
    colours = [*list(theme.series), theme.text]
    for result, colour in zip(DATA["results"], colours, strict=False):
        lengths = [row["length"] for row in result["eval"]]
        loss = [row["loss"] for row in result["eval"]]
        axes.plot(
            lengths,
            loss,
            marker=MARKERS[result["method"]],
            color=colour,
            lw=1.6,
            label=result["method"],
        )
    train = DATA["training"]["length"]
    axes.axvline(train, color=theme.muted, ls=":", lw=1)
    axes.text(
        train * 1.05, axes.get_ylim()[1], "training length", color=theme.muted, va="top", fontsize=8
    )
    axes.axhline(DATA["task"]["entropy_rate"], color=theme.muted, ls="--", lw=1)
    axes.text(
        DATA["eval_lengths"][-1],
        DATA["task"]["entropy_rate"],
        "best possible ",
        color=theme.muted,
        ha="right",
        va="bottom",
        fontsize=8,
    )
    axes.set_xscale("log", base=2)
    axes.set_xticks(DATA["eval_lengths"], [str(n) for n in DATA["eval_lengths"]])
    axes.set_xlabel("evaluation length (tokens)")
    axes.set_ylabel("next-token loss (nats)")
    axes.grid(True, axis="y")
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    return figure


_LOSS = {r["method"]: r["eval"] for r in DATA["results"]}
ALT = (
    "Next-token loss against evaluation length, on a doubling scale from "
    f"{DATA['eval_lengths'][0]} to {DATA['eval_lengths'][-1]} tokens, for one tiny model "
    f"({DATA['model']['heads']} heads) "
    f"trained at {DATA['training']['length']} tokens with each position method. "
    + " ".join(
        f"{method}: {rows[0]['loss']:.2f} at the training length, {rows[-1]['loss']:.2f} at "
        f"{rows[-1]['length']}."
        for method, rows in _LOSS.items()
    )
    + f" The best possible loss is {DATA['task']['entropy_rate']:.2f}."
)

if __name__ == "__main__":
    save_variants(draw, "extrapolation", ALT)
