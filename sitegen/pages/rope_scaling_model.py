"""The page "RoPE scaling rules on a trained model" (beyond/rope-scaling-model.md).

Every table and sentence here reads the committed record of ``make rope-train``
(``benchmarks/results/rope_train.json``) through `sitegen.results`; nothing is
trained while the site is built.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarks.rope_train_names import (
    FINETUNE_SUFFIX,
    FINETUNED_RULES,
    RULES,
    VARIANTS,
    variant_name,
)
from sitegen.markdown import table
from sitegen.results import provenance as _provenance
from sitegen.results import result as _result

#: The variants in the order the page shows them, with their names on the page
#: (one home with the figure's: `benchmarks.rope_train_names`).
LABELS = {variant: variant_name(variant) for variant in VARIANTS}
ZERO_SHOT = RULES
FINETUNED = tuple(rule + FINETUNE_SUFFIX for rule in FINETUNED_RULES)


def _data() -> dict[str, Any]:
    return _result("rope_train")


def _summary(variant: str, key: str) -> list[dict[str, float] | None]:
    return [row[key] for row in _data()["summary"][variant]]


def _spread(cell: dict[str, float] | None, digits: int) -> str:
    """Return ``mean (min to max)`` over the seeds; a dash where no passkey fell in the group."""
    if cell is None:
        return "\u2013"  # an en dash: no passkey in this group
    if cell["min"] == cell["max"]:
        return f"{cell['mean']:.{digits}f}"
    return f"{cell['mean']:.{digits}f} ({cell['min']:.{digits}f}–{cell['max']:.{digits}f})"


def _length_header(length: int, train: int) -> str:
    return f"{length} ({length // train}L)"


def by_length(key: str = "passkey_accuracy", digits: int = 2) -> str:
    """One row per rule, one column per evaluation length: the mean over seeds (range)."""
    data = _data()
    lengths, train = data["settings"]["lengths"], data["settings"]["train_length"]
    rows = [
        [LABELS[variant], *(_spread(cell, digits) for cell in _summary(variant, key))]
        for variant in LABELS
    ]
    headers = ["rule", *(_length_header(n, train) for n in lengths)]
    return table(headers, rows, align="l" + "r" * len(lengths))


def attention(length_index: int = -1) -> str:
    """Near against far passkeys at one length: accuracy, attention weight, entropy."""
    data = _data()
    length = data["settings"]["lengths"][length_index]
    rows = []
    for variant in LABELS:
        row = data["summary"][variant][length_index]
        rows.append(
            [
                LABELS[variant],
                *(
                    "\u2013" if cell is None else f"{cell['mean']:.2f}"
                    for key in ("passkey_accuracy", "attention_on_passkey", "attention_entropy")
                    for side in ("near", "far")
                    for cell in [row[f"{key}_{side}"]]
                ),
            ]
        )
    headers = [
        "rule",
        "accuracy, near",
        "accuracy, far",
        "weight on passkey, near",
        "weight on passkey, far",
        "entropy, near",
        "entropy, far",
    ]
    note = (
        f"\n\nMeans over the seeds, at {length} characters. *Near*: the passkey lies at most "
        f"{data['settings']['train_length'] - 1} characters before the query, within the "
        "trained length; *far*: further back. Weight and entropy (nats) are those of each seed's "
        "retrieval head (the head that put the most weight on the passkey at the trained "
        "length), for the query that must produce the first digit."
    )
    return table(headers, rows, align="l" + "r" * 6) + note


def seeds(variants: tuple[str, ...] = ZERO_SHOT + FINETUNED) -> str:
    """Each seed's passkey accuracy at the longest length, per rule: the spread, unaveraged."""
    data = _data()
    length = data["settings"]["lengths"][-1]
    records = data["seeds"]
    rows = [
        [
            LABELS[variant],
            *(f"{record['variants'][variant][-1]['passkey_accuracy']:.2f}" for record in records),
        ]
        for variant in variants
    ]
    headers = ["rule", *(f"seed {record['seed']}" for record in records)]
    note = f"\n\nPasskey accuracy at {length} characters, seed by seed."
    return table(headers, rows, align="l" + "r" * len(records)) + note


def setup() -> str:
    """Describe the experiment's settings, data, cost and machine, read from the record."""
    data = _data()
    s = data["settings"]
    machine = data["machine"]
    parameters = _parameters(s)
    return (
        f"A decoder of {s['layers']} layers, d_model = {s['d_model']}, {s['heads']} heads of "
        f"{s['head_dim']} dimensions, RoPE with base {s['base']:g} and no other position "
        f"information ({parameters:,} parameters), reads ASCII characters. It is trained for "
        f"{s['steps']:,} steps of {s['batch']} sequences of {s['train_length']} characters "
        f"(AdamW, learning rate {s['learning_rate']:g}, warm-up then cosine decay) on "
        f"{data['data']['train_characters']:,} characters of {data['data']['source']}; every "
        f"sequence hides a passkey of {s['passkey_digits']} random digits, and the digits "
        f"asked for at the end count {s['answer_weight']:g} times extra in the loss. "
        f"Evaluation: {s['eval_passkeys']} passkeys per length, at depths spread uniformly, "
        f"the same for every rule and seed; the loss on {s['eval_text_tokens']:,} characters "
        f"of the held-out {data['data']['test_characters']:,}. Fine-tuning: "
        f"{s['finetune_steps']} steps of {s['finetune_batch']} sequences of "
        f"{s['lengths'][-1]} characters at learning rate {s['finetune_learning_rate']:g}. "
        f"Seeds {', '.join(str(seed) for seed in s['seeds'])}. Run by "
        f"{_provenance('rope_train')} on {data['date']} ({machine['cpu']}, {s['workers']} "
        f"processes of one thread each, torch {data['versions']['torch']}): "
        f"{data['wall_seconds'] / 60:.1f} minutes wall time, "
        f"{data['cpu_seconds'] / 60:.1f} minutes of CPU time. The machine was shared (load "
        f"average {data['load_average'][0]:.1f} on {machine['logical_cpus']} logical CPUs at "
        "the end of the run), so most of the wall time was spent waiting; on two idle cores "
        f"the same CPU time takes about {data['cpu_seconds'] / 2 / 60:.1f} minutes."
    )


def _parameters(s: dict[str, Any]) -> int:
    """Learned parameters of the model the record describes (counted from its sizes)."""
    d, vocab = s["d_model"], 128
    norm = 2 * d
    block = norm + (3 * d * d + 3 * d) + (d * d + d) + norm + (4 * d * d + 4 * d) + (4 * d * d + d)
    return int(vocab * d + s["layers"] * block + norm + (d * vocab + vocab))


def rules() -> str:
    """How each rule was configured, as the record stores it."""
    data = _data()
    factor = data["settings"]["scale"]
    lines = []
    for name in ZERO_SHOT:
        arguments = data["rules"][name]
        if name == "none":
            text = "the trained frequencies, unchanged"
        elif "scaling" in arguments:
            text = f"`scaling={json.dumps(arguments['scaling'])}`"
            if "max_position_embeddings" in arguments:
                text += f", `max_position_embeddings={arguments['max_position_embeddings']}`"
        else:
            text = (
                f"`base={arguments['base']:.1f}`, from "
                f"`pe.ntk_aware_base({data['settings']['base']:g}, {factor}, "
                f"{data['settings']['head_dim']})`"
            )
        lines.append(f"- {LABELS[name]}: {text}")
    return "\n".join(lines)


def mean_of(variant: str, key: str, length_index: int) -> float:
    """Return the mean over seeds that the tables show, for prose."""
    cell = _summary(variant, key)[length_index]
    if cell is None:
        raise ValueError(f"no value of {key} for {variant} at length index {length_index}")
    return float(cell["mean"])


def limits() -> str:
    """List what this experiment cannot show, with its sizes read from the record."""
    data = _data()
    s = data["settings"]
    tokens = s["steps"] * s["batch"] * s["train_length"]
    tuned = s["finetune_steps"] * s["finetune_batch"] * s["lengths"][-1]
    return "\n".join(
        [
            f"- *Scale.* {_parameters(s):,} parameters trained on {tokens:,} characters at "
            f"{s['train_length']} positions, against billions of parameters trained at "
            "thousands of positions for the models the rules were designed for. The rules' "
            "settings (YaRN's bounds, llama3's factors) are counts of turns within the "
            "trained length and were chosen for those lengths (exercise 2).",
            f"- *Fine-tuning.* {s['finetune_steps']} steps of {s['finetune_batch']} sequences "
            f"({tuned:,} characters), far less than the papers' 1,000 (PI) and 400 (YaRN) steps "
            "on sequences of thousands of tokens: the fine-tuned rows show the direction of a "
            "fine-tune's effect, not its end point.",
            f"- *Task.* One marker character opens both the passkey and the question, and the "
            f"{s['passkey_digits']} digits are the only digits in the filler, so retrieval needs "
            "one match, not reading comprehension; an answer is scored by whether each digit "
            "is the most likely next character given the right digits before it, the same as "
            "greedy decoding when all are right.",
            f"- *Seeds.* {len(s['seeds'])} seeds, {s['eval_passkeys']} passkeys per length: a "
            f"difference of one passkey is {1 / s['eval_passkeys']:.3f} in accuracy, and the "
            "spread across seeds in the tables is the honest error bar.",
            "- *Attention.* The weights are those of one head per seed (the one that attends "
            "most to the passkey at the trained length), for one query; other heads and layers "
            "may carry part of the retrieval.",
        ]
    )


def _compare(a: float, b: float) -> str:
    """Say how `a` stands against `b`, for prose."""
    return "above" if a > b else "below" if a < b else "equal to"


def reading() -> str:
    """Read the record into sentences, so that the reading follows the data."""
    data = _data()
    lengths = data["settings"]["lengths"]
    train, double, longest = lengths[0], lengths[1], lengths[-1]

    def acc(variant: str, index: int = -1, key: str = "passkey_accuracy") -> float:
        return mean_of(variant, key, index)

    def loss(variant: str, index: int = -1) -> float:
        return mean_of(variant, "loss", index)

    rules = [v for v in ZERO_SHOT if v != "none"]
    best = max(rules, key=acc)
    best_loss = min(rules, key=loss)
    entropy = {v: mean_of(v, "attention_entropy_far", -1) for v in ("none", "yarn")}
    steps = data["settings"]["finetune_steps"]
    weights = [
        cell["mean"]
        for v in LABELS
        for side in ("near", "far")
        if (cell := _summary(v, f"attention_on_passkey_{side}")[-1]) is not None
    ]
    lines = [
        f"- *The failure is at unseen distances.* With no rule the model retrieves "
        f"{acc('none', 0):.2f} of the passkeys at {train} characters and {acc('none'):.2f} at "
        f"{longest}. At {double} it still finds {acc('none', 1, 'passkey_accuracy_near'):.2f} "
        f"of the passkeys less than {train} characters back, but only "
        f"{acc('none', 1, 'passkey_accuracy_far'):.2f} of those further back: the positions are "
        f"new, the task is not. Its held-out loss rises from {loss('none', 0):.3f} to "
        f"{loss('none'):.3f} nats per character.",
        f"- *Interpolation alone breaks the model here.* Position interpolation retrieves "
        f"{acc('linear', 0):.2f} even at {train} and {acc('linear'):.2f} at {longest}, with loss "
        f"{loss('linear', 0):.3f} at {train} (no rule: {loss('none', 0):.3f}). Dividing every "
        "frequency by 8 puts neighbouring characters an eighth of a radian apart on the "
        "fastest pair, and a character model lives on its neighbours (exercise 2). Chen et al. "
        "fine-tune after interpolating; here the short fine-tune brings it only to "
        f"{acc('linear+finetune'):.2f} at {longest}.",
        f"- *Static NTK-aware keeps the short range and loses the long one.* It retrieves "
        f"{acc('ntk', 0):.2f} at {train} and {acc('ntk', 1):.2f} at {double}, then "
        f"{acc('ntk'):.2f} at {longest}: it slows the slowest pair by the full factor but the "
        "middle pairs by less, and four of the eight still run past their trained arc at "
        f"{longest} (exercise 1). Dynamic NTK is the unscaled model at {train} and the static "
        f"rule at {longest} by construction; between, at {double}, it retrieves "
        f"{acc('dynamic', 1):.2f}.",
        f"- *The targeted rules rescue retrieval, at a price.* Zero-shot, {LABELS[best]} "
        f"retrieves the most at {longest} ({acc(best):.2f}); llama3 {acc('llama3'):.2f}. Both "
        f"cost retrieval at the trained length (YaRN {acc('yarn', 0):.2f}, llama3 "
        f"{acc('llama3', 0):.2f}, against {acc('none', 0):.2f}): at {train} characters their "
        "ramps divide five of the eight pairs by the full factor (exercise 2), so they sit "
        "closer to interpolation than on a model trained at thousands of tokens. The lowest "
        f"zero-shot loss at {longest} is {LABELS[best_loss]}'s ({loss(best_loss):.3f}), still "
        f"{_compare(loss(best_loss), loss('none', 0))} the {loss('none', 0):.3f} of the "
        f"unscaled model at {train}.",
        f"- *Fine-tuned.* After {steps} steps at {longest}, YaRN retrieves "
        f"{acc('yarn+finetune'):.2f} there with loss "
        f"{loss('yarn+finetune'):.3f}; the control fine-tuned with no rule reaches "
        f"{acc('none+finetune'):.2f} and {loss('none+finetune'):.3f}; position interpolation "
        f"{acc('linear+finetune'):.2f} and {loss('linear+finetune'):.3f}. Fine-tuned YaRN "
        f"retrieves {acc('yarn+finetune', 0):.2f} at {train} (zero-shot: {acc('yarn', 0):.2f}). "
        + (
            "Training at the longer length does most of the work, and YaRN adds to it; the "
            "papers' claim that a rule makes a short fine-tune enough holds for YaRN here, "
            "while for interpolation this many steps are too few."
            if acc("yarn+finetune") > acc("none+finetune") > acc("linear+finetune")
            else "The ordering differs from the papers': see the seed table for how firm it is."
        ),
        f"- *What attention shows, and what it does not.* The retrieval head's entropy on far "
        f"passkeys at {longest} is {entropy['yarn']:.2f} nats with YaRN (whose attention factor "
        f"multiplies every logit) against {entropy['none']:.2f} with no rule. The weight "
        f"that one head puts on the passkey is small for every rule (at most "
        f"{max(weights):.2f} on average at {longest}), even where retrieval works: in this "
        "model the retrieval is spread over heads and layers, and one head's weight does not "
        "explain the differences. The split of accuracy by distance above does.",
    ]
    return "\n".join(lines)
