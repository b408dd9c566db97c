"""The page "RoPE scaling rules on a trained model" (beyond/rope-scaling-model.md).

Every table and sentence here reads the committed record of ``make rope-train``
(``benchmarks/results/rope_train.json``) through `sitegen.results`; nothing is
trained while the site is built.
"""

from __future__ import annotations

import json
from typing import Any

from sitegen.markdown import table
from sitegen.results import provenance as _provenance
from sitegen.results import result as _result

#: The variants in the order the page shows them, with their names on the page.
LABELS = {
    "none": "no scaling",
    "linear": "position interpolation",
    "ntk": "static NTK-aware",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "llama3",
    "none+finetune": "no scaling, fine-tuned",
    "linear+finetune": "position interpolation, fine-tuned",
    "yarn+finetune": "YaRN, fine-tuned",
}
ZERO_SHOT = ("none", "linear", "ntk", "dynamic", "yarn", "llama3")
FINETUNED = ("none+finetune", "linear+finetune", "yarn+finetune")


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
                    _spread(row[f"{key}_{side}"], 2)
                    for key in ("passkey_accuracy", "attention_on_passkey", "attention_entropy")
                    for side in ("near", "far")
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
        f"\n\nAt {length} characters. *Near*: the passkey lies at most "
        f"{data['settings']['train_length'] - 1} characters before the query, a distance seen "
        "in training; *far*: further back. Weight and entropy (nats) are those of each seed's "
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
        f"{data['cpu_seconds'] / 60:.1f} minutes of CPU time."
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


def reading() -> str:
    """Sentences read off the record, so the reading follows the data."""
    data = _data()
    s = data["settings"]
    lengths = s["lengths"]
    train, longest = lengths[0], lengths[-1]

    def acc(variant: str, index: int = -1) -> float:
        return mean_of(variant, "passkey_accuracy", index)

    def loss(variant: str, index: int = -1) -> float:
        return mean_of(variant, "loss", index)

    rules = [v for v in ZERO_SHOT if v != "none"]
    best = max(rules, key=acc)
    worst = min(rules, key=acc)
    best_loss = min(rules, key=loss)
    far = _summary("none", "passkey_accuracy_far")[-1]
    near = _summary("none", "passkey_accuracy_near")[-1]
    lines = [
        f"- *The failure.* With no rule the model retrieves {acc('none', 0):.2f} of the "
        f"passkeys at its trained length ({train}) and {acc('none'):.2f} at {longest}"
        + (
            f"; at {longest} it finds {near['mean']:.2f} of those within {train} characters of "
            f"the question and {far['mean']:.2f} of those further back"
            if near and far
            else ""
        )
        + f". Its loss on held-out text goes from {loss('none', 0):.3f} to "
        f"{loss('none'):.3f} nats per character.",
        f"- *Zero-shot.* At {longest}, {LABELS[best]} retrieves the most passkeys "
        f"({acc(best):.2f}) and {LABELS[worst]} the fewest ({acc(worst):.2f}); the lowest "
        f"loss is {LABELS[best_loss]}'s ({loss(best_loss):.3f}).",
        f"- *The price at the trained length.* Configured for {longest}, position "
        f"interpolation retrieves {acc('linear', 0):.2f} at {train} (no rule: "
        f"{acc('none', 0):.2f}) with loss {loss('linear', 0):.3f} (no rule: "
        f"{loss('none', 0):.3f}); dynamic NTK changes nothing there by construction "
        f"({acc('dynamic', 0):.2f}, {loss('dynamic', 0):.3f}).",
        f"- *Fine-tuned.* After fine-tuning at {longest}: position interpolation "
        f"{acc('linear+finetune'):.2f}, YaRN {acc('yarn+finetune'):.2f}, and the control "
        f"with no rule {acc('none+finetune'):.2f}; losses {loss('linear+finetune'):.3f}, "
        f"{loss('yarn+finetune'):.3f} and {loss('none+finetune'):.3f}.",
    ]
    return "\n".join(lines)
