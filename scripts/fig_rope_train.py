"""Passkey accuracy and held-out loss against length, per RoPE scaling rule, on a trained model."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

from benchmarks.rope_train_names import FINETUNE_SUFFIX as FINETUNED
from benchmarks.rope_train_names import RULES, VARIANTS, variant_name

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks/results/rope_train.json"
DATA = json.loads(RESULTS.read_text())
MARKERS = {"none": "x", "linear": "o", "ntk": "s", "dynamic": "^", "yarn": "D", "llama3": "v"}
LENGTHS = DATA["settings"]["lengths"]
TRAIN = DATA["settings"]["train_length"]


def series(variant: str, key: str) -> tuple[list[float], list[float], list[float]]:
    """Mean, minimum and maximum over seeds at each length."""
    cells = [row[key] for row in DATA["summary"][variant]]
    return (
        [cell["mean"] for cell in cells],
        [cell["min"] for cell in cells],
        [cell["max"] for cell in cells],
    )


def draw(theme: Theme) -> Figure:
    # On a phone the panels are stacked, each as wide as the column.
    shape, size = ((2, 1), (4.0, 8.8)) if theme.phone else ((1, 2), (7.6, 5.2))
    figure, (accuracy, loss) = plt.subplots(*shape, figsize=size, layout="constrained")
    colours = dict(zip(RULES, theme.series, strict=True))
    for panel, key in ((accuracy, "passkey_accuracy"), (loss, "loss")):
        for variant in VARIANTS:
            rule = variant.removesuffix(FINETUNED)
            tuned = variant.endswith(FINETUNED)
            mean, low, high = series(variant, key)
            panel.fill_between(LENGTHS, low, high, color=colours[rule], alpha=0.12, lw=0)
            panel.plot(
                LENGTHS,
                mean,
                marker=MARKERS[rule],
                ms=4,
                color=colours[rule],
                ls="--" if tuned else "-",
                lw=1.4,
                label=variant_name(variant),
            )
        panel.axvline(TRAIN, color=theme.muted, ls=":", lw=1)
        panel.set_xscale("log", base=2)
        panel.set_xticks(LENGTHS, [str(n) for n in LENGTHS])
        panel.set_xlabel("evaluation length (characters)")
        panel.grid(True, axis="y")
    accuracy.set_ylabel("passkey accuracy (all digits right)")
    accuracy.set_ylim(-0.03, 1.03)
    loss.set_ylabel("held-out loss (nats per character)")
    loss.text(
        TRAIN * 1.04, loss.get_ylim()[1], "trained length", color=theme.muted, fontsize=8, va="top"
    )
    handles, labels = accuracy.get_legend_handles_labels()
    figure.legend(
        handles, labels, loc="outside lower center", ncols=1 if theme.phone else 3, fontsize=8
    )
    return figure


def _describe(variant: str) -> str:
    accuracy = series(variant, "passkey_accuracy")[0]
    loss = series(variant, "loss")[0]
    name = variant_name(variant)
    return (
        f"{name}: accuracy {accuracy[0]:.2f} at {LENGTHS[0]} and {accuracy[-1]:.2f} at "
        f"{LENGTHS[-1]}, loss {loss[0]:.2f} and {loss[-1]:.2f}."
    )


ALT = (
    "Two panels against evaluation length on a doubling scale from "
    f"{LENGTHS[0]} to {LENGTHS[-1]} characters, for a small RoPE model trained at {TRAIN}: "
    "left, passkey retrieval accuracy; right, next-character loss on held-out text; one line "
    "per scaling rule (dashed: fine-tuned at the longest length), a band for the spread over "
    f"{len(DATA['seeds'])} seeds. " + " ".join(_describe(v) for v in VARIANTS)
)

if __name__ == "__main__":
    save_variants(draw, "rope_train", ALT)
