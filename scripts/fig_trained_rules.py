"""Passkey accuracy near and far against length, per RoPE scaling rule and setting."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
from _figstyle import Theme, save_variants
from matplotlib.figure import Figure

from benchmarks.trained_names import RULE_NAMES, RULES, variant_key

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks/results/trained.json"
DATA = json.loads(RESULTS.read_text())
LENGTHS = DATA["settings"]["lengths"]
TRAIN = DATA["settings"]["train_length"]
SCALE = DATA["settings"]["scale"]
MARKERS = {"none": "x", "linear": "o", "ntk": "s", "dynamic": "^", "yarn": "D", "llama3": "v"}


def series(variant: str, key: str) -> tuple[list[int], list[float], list[float], list[float]]:
    """Lengths, mean, lowest and highest seed where the record has a value."""
    rows = zip(LENGTHS, DATA["summary"][variant], strict=True)
    cells = [(n, row[key]) for n, row in rows if row[key] is not None]
    return (
        [n for n, _ in cells],
        [c["mean"] for _, c in cells],
        [c["low"] for _, c in cells],
        [c["high"] for _, c in cells],
    )


def draw(theme: Theme) -> Figure:
    shape, size = ((2, 1), (4.0, 8.8)) if theme.phone else ((1, 2), (7.6, 5.0))
    figure, (near, far) = plt.subplots(*shape, figsize=size, layout="constrained", sharey=True)
    colours = dict(zip(RULES, theme.series, strict=False))
    for panel, key in ((near, "passkey_accuracy_near"), (far, "passkey_accuracy_far")):
        for rule in RULES:
            for setting, style in (("target", "-"), ("matched", "--")):
                if setting == "matched" and rule in ("none", "dynamic"):
                    continue
                lengths, mean, low, high = series(variant_key(rule, setting), key)
                panel.fill_between(lengths, low, high, color=colours[rule], alpha=0.10, lw=0)
                name = RULE_NAMES[rule] + (
                    ""
                    if rule == "none"
                    else f", {'matched' if setting == 'matched' else f'for {SCALE}×'}"
                )
                panel.plot(
                    lengths,
                    mean,
                    marker=MARKERS[rule],
                    ms=4,
                    color=colours[rule],
                    ls=style,
                    lw=1.4,
                    label=name,
                )
        panel.set_xscale("log", base=2)
        panel.set_xticks(LENGTHS, [str(n) for n in LENGTHS])
        panel.set_xlabel("length served (characters)")
        panel.grid(True, axis="y")
    near.set_ylabel("passkeys retrieved (all digits right)")
    near.set_ylim(-0.03, 1.03)
    near.set_title("near: within the trained distance", fontsize=9)
    far.set_title("far: beyond it", fontsize=9)
    handles, labels = near.get_legend_handles_labels()
    figure.legend(
        handles, labels, loc="outside lower center", ncols=1 if theme.phone else 3, fontsize=8
    )
    return figure


def _describe(rule: str, setting: str) -> str:
    key = variant_key(rule, setting)
    _, near, _, _ = series(key, "passkey_accuracy_near")
    _, far, _, _ = series(key, "passkey_accuracy_far")
    name = RULE_NAMES[rule] + ("" if rule == "none" else f" ({setting})")
    return (
        f"{name}: near {near[1]:.2f} at {LENGTHS[1]}, {near[-1]:.2f} at {LENGTHS[-1]}; far "
        f"{far[0]:.2f} at {LENGTHS[1]}, {far[-1]:.2f} at {LENGTHS[-1]}."
    )


ALT = (
    "Two panels against the length served, on a doubling scale from "
    f"{LENGTHS[0]} to {LENGTHS[-1]} characters, for a small RoPE model trained at {TRAIN}: "
    "left, the share of passkeys retrieved that lie within the trained distance; right, of "
    f"those beyond it; one line per scaling rule, solid when configured for {SCALE}×, dashed "
    f"when matched to the length; bands span {len(DATA['settings']['seeds'])} seeds. "
    + " ".join(
        _describe(rule, setting)
        for rule in RULES
        for setting in ("target", "matched")
        if not (setting == "matched" and rule in ("none", "dynamic"))
    )
)

if __name__ == "__main__":
    save_variants(draw, "trained_rules", ALT)
