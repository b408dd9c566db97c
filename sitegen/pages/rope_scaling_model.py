"""The page "RoPE scaling rules on a trained model" (beyond/rope-scaling-model.md).

Every table and sentence here reads the committed record of ``make trained``
(``benchmarks/results/trained.json``) through `sitegen.trained`; nothing is
trained while the site is built. A number is shown as the mean over seeds with
the lowest and highest seed in brackets, and an ordering is stated only where
those ranges do not overlap (`sitegen.trained.compare`).
"""

from __future__ import annotations

import math
from typing import Any

from benchmarks.trained_names import (
    FINETUNED,
    RULE_NAMES,
    rule_variants,
    variant_rule,
)
from sitegen.markdown import table
from sitegen.results import provenance as _provenance
from sitegen.trained import cell, compare, data, leaders, listing, relation, show

ZERO_SHOT = rule_variants()
TUNED = rule_variants(finetuned=True)


def label(variant: str) -> str:
    """Name a variant on the page: the rule, its setting, whether it was fine-tuned.

    >>> label("linear@matched"), label("yarn@matched+ft"), label("none")
    ('position interpolation, matched', 'YaRN, matched, fine-tuned', 'no scaling')
    """
    rule = variant_rule(variant)
    name = RULE_NAMES[rule]
    if "@target" in variant:
        name += f", for {_scale()}×"
    elif "@matched" in variant:
        name += ", matched"
    return name + (", fine-tuned" if variant.endswith(FINETUNED) else "")


def _scale() -> int:
    try:
        return int(data()["settings"]["scale"])
    except Exception:  # doctests run without the record's scale in mind
        return 8


def _lengths() -> list[int]:
    return list(data()["settings"]["lengths"])


def _train() -> int:
    return int(data()["settings"]["train_length"])


def _header(length: int) -> str:
    return f"{length} ({length // _train()}L)"


def accuracy_table(variants: tuple[str, ...] = ZERO_SHOT) -> str:
    """Passkey accuracy at L, 2L and the longest length, near and far, one row per variant."""
    lengths, train = _lengths(), _train()
    double, longest = lengths[1], lengths[-1]
    multiple = longest // train
    headers = ["rule", "L", "2L, near", "2L, far", f"{multiple}L, near", f"{multiple}L, far"]
    rows = []
    for variant in variants:
        cells = [label(variant), show(cell(variant, train, "passkey_accuracy"), stacked=True)]
        for n in (double, longest):
            cells += [
                show(cell(variant, n, "passkey_accuracy_near"), stacked=True),
                show(cell(variant, n, "passkey_accuracy_far"), stacked=True),
            ]
        rows.append(cells)
    note = (
        f"\n\nL = {train} characters; *near*: the passkey lies at most "
        f"{_farthest(data()['settings'])} characters before the question (the farthest "
        "distance training shows), *far*: further back (at L every passkey is near). The mean "
        "over seeds, the lowest and highest seed below it; the figure above has every length."
    )
    return table(headers, rows, align="lrrrrr") + note


def loss_table(variants: tuple[str, ...] = ZERO_SHOT + TUNED) -> str:
    """Held-out loss by length (every position), one row per variant, with seed ranges."""
    lengths, train = _lengths(), _train()
    rows = [
        [label(v), *(show(cell(v, n, "loss"), 3, stacked=True) for n in lengths)] for v in variants
    ]
    headers = ["rule", *(f"{n // train}L" if n > train else "L" for n in lengths)]
    return table(headers, rows, align="l" + "r" * len(lengths))


def entropy_table(variants: tuple[str, ...] = ZERO_SHOT + TUNED) -> str:
    """Tabulate the answering query's attention entropy and passkey weight at the longest length."""
    longest, record = _lengths()[-1], data()
    rows = []
    for variant in variants:
        rows.append(
            [
                label(variant),
                *(
                    show(cell(variant, longest, f"{key}_{side}"), stacked=True)
                    for key in ("attention_entropy", "attention_on_passkey")
                    for side in ("near", "far")
                ),
            ]
        )
    headers = ["rule", "entropy, near", "entropy, far", "weight on passkey, near", "far"]
    s = record["settings"]
    keys = longest - s["passkey_digits"]
    note = (
        f"\n\nAt {longest} characters. Entropy in nats, the mean over the {s['layers']} layers "
        f"and {s['heads']} heads of the query that must produce the first digit (spread evenly "
        f"over its {keys} keys it would be {math.log(keys):.2f}); weight on passkey: the "
        "largest share any one head puts on the hidden marker and digits."
    )
    return table(headers, rows, align="lrrrr") + note


def loss_by_position(variants: tuple[str, ...] = ZERO_SHOT) -> str:
    """Held-out loss at the longest length in doubling bands of positions: where it rises."""
    longest, train = _lengths()[-1], _train()
    bands = [(0, train)]
    while bands[-1][1] < longest:
        bands.append((bands[-1][1], 2 * bands[-1][1]))
    headers = ["rule", *(f"{a}–{b - 1}" for a, b in bands)]
    rows = [
        [
            label(v),
            *(
                show(cell(v, longest, "loss_by_band", b), 3, stacked=True)
                for b in range(len(bands))
            ),
        ]
        for v in variants
    ]
    note = (
        f"\n\nLoss in nats per character at {longest} characters, averaged over each band of "
        f"positions; the first band is the trained range."
    )
    return table(headers, rows, align="l" + "r" * len(bands)) + note


def _parameters(s: dict[str, Any]) -> int:
    """Learned parameters of the RoPE model the record describes (counted from its sizes)."""
    d, width, vocab = s["d_model"], s["heads"] * s["head_dim"], 128
    norm = 2 * d
    block = norm + (d * 3 * width + 3 * width) + (width * d + d) + norm
    block += (4 * d * d + 4 * d) + (4 * d * d + d)
    return int(vocab * d + s["layers"] * block + norm + (d * vocab + vocab))


def setup() -> str:
    """Describe the experiment's settings, data, cost and machine, read from the record."""
    record = data()
    s = record["settings"]
    machine = record["machine"]
    longest = s["lengths"][-1]
    return (
        f"A decoder of {s['layers']} layers, d_model = {s['d_model']}, {s['heads']} heads of "
        f"{s['head_dim']} dimensions each ({s['head_dim'] // 2} frequency pairs), RoPE with "
        f"base {s['base']:g} and no other position information "
        f"({_parameters(s):,} parameters), reads ASCII characters. It is trained for "
        f"{s['steps']:,} steps of {s['batch']} sequences of {s['train_length']} characters "
        f"(AdamW, learning rate {s['learning_rate']:g}, warm-up then cosine decay) on "
        f"{record['data']['train_characters']:,} characters of {record['data']['source']}; "
        f"every sequence hides a passkey of {s['passkey_digits']} random digits, and the "
        f"digits asked for at the end count {s['answer_weight']:g} times extra in the loss. "
        f"Evaluation at {', '.join(str(n) for n in s['lengths'])} characters: "
        f"{s['eval_passkeys']} passkeys per length, the same for every rule and seed, half "
        f"of them *near* (at most {_farthest(s)} characters before the question, the farthest "
        f"distance training shows) and half *far* (further back) beyond the trained length; "
        f"the loss on {s['eval_text_tokens']:,} characters of the held-out "
        f"{record['data']['test_characters']:,}. Fine-tuning: {s['finetune_steps']} steps of "
        f"{s['finetune_batch']} sequences of {longest} characters at learning rate "
        f"{s['finetune_learning_rate']:g}, the same for every rule. "
        f"{len(s['seeds'])} seeds ({', '.join(str(seed) for seed in s['seeds'])}); every "
        "interval on this page is the range over them, lowest seed to highest. Run by "
        f"{_provenance('trained')} on {record['date']} ({machine['cpu']}, {s['workers']} "
        f"processes of one thread each, torch {record['versions']['torch']}), together with "
        "the other methods' models of *Comparing the methods*: "
        f"{record['wall_seconds'] / 60:.0f} minutes wall time, "
        f"{record['cpu_seconds'] / 60:.0f} minutes of CPU time, load average "
        f"{record['load_average_start'][0]:.1f} at the start and "
        f"{record['load_average'][0]:.1f} at the end on {machine['logical_cpus']} logical "
        "CPUs (the machine was shared, so most of the wall time was spent waiting)."
    )


def rules() -> str:
    """How each rule was configured in each setting, as the harness passes it to pe."""
    s = data()["settings"]
    scale, train, base, d = s["scale"], s["train_length"], s["base"], s["head_dim"]
    ntk = _ntk_base(base, scale, d)
    return "\n".join(
        [
            f"- no scaling: the trained frequencies (base {base:g}), at every length.",
            "- position interpolation: `scaling={'rope_type': 'linear', 'factor': s}`, every "
            "frequency divided by s.",
            f"- static NTK-aware: `base = pe.ntk_aware_base({base:g}, s, {d})`, "
            f"{base:g}·s^({d}/{d - 2}) (for {scale}×: {ntk:,.0f}).",
            f"- dynamic NTK: `scaling={{'rope_type': 'dynamic', 'factor': {scale}}}`, "
            f"`max_position_embeddings={train}`, its base grown for the n characters served "
            f"as transformers grows it, α = {scale}·n/{train} − {scale - 1} (α = 1 at "
            f"n = {train}, {_alpha(scale, scale)} at n = {scale * train}). Matched, factor 1 "
            "gives α = n/L, exactly static NTK-aware with s = n/L, so that row is not repeated.",
            f"- YaRN: `scaling={{'rope_type': 'yarn', 'factor': s, "
            f"'original_max_position_embeddings': {train}}}` (β_fast 32, β_slow 1 and the "
            "attention factor 0.1·ln s + 1, the defaults).",
            f"- llama3: `scaling={{'rope_type': 'llama3', 'factor': s, 'low_freq_factor': 1, "
            f"'high_freq_factor': 4, 'original_max_position_embeddings': {train}}}`.",
            "",
            f"*For {scale}×*: s = {scale} at every length, as a served `config.json` sets it "
            f"once. *Matched*: s = n/{train} for the n characters evaluated (1 at the trained "
            "length, where every rule is the unscaled model).",
        ]
    )


#: How a comparison reads as a sentence of its own: higher, lower, or not ordered.
_ORDER = (
    "the matched setting is higher in every seed",
    "the matched setting is lower in every seed",
    "their seed ranges overlap",
)


_DYNAMIC = (
    "dynamic is higher in every seed",
    "dynamic is lower in every seed",
    "their seed ranges overlap",
)


_ENTROPY = ("higher than", "lower than", "with a seed range overlapping that of")
_NEAR_FAR = ("near is above far in every seed", "near is below far in every seed", "overlap")
_AGAINST = ("above every seed of", "below every seed of", "with a seed range overlapping")
_VS_IT = ("above it in every seed", "below it in every seed", "not ordered against it")
_SEEDS = (
    "above no scaling in every seed",
    "below no scaling in every seed",
    "the seed ranges overlap with no scaling's",
)


def _farthest(s: dict[str, Any]) -> int:
    """Return the farthest distance from the question back to a passkey that training shows."""
    return int(s["train_length"] - s["passkey_digits"])


def _relation(left: tuple[str, int, str], right: tuple[str, int, str]) -> str:
    """Return how two cells' seed ranges stand (``>``, ``<``, ``~``), for a sentence's branch."""
    return relation(cell(*left), cell(*right))


def _pair(found: str) -> str:
    """Finish a near-against-far comparison: ``overlap`` reads as a clause of its own."""
    return "their seed ranges overlap" if found == "overlap" else found


def _overlap(names: list[str]) -> str:
    """Say that the named variants' seed ranges overlap the leader's.

    >>> _overlap(["a"]), _overlap(["a", "b"])
    ('a overlaps its seed range', 'a and b overlap its seed range')
    """
    return f"{listing(names)} overlap{'s' if len(names) == 1 else ''} its seed range"


def _count(value: int) -> str:
    return "no" if value == 0 else str(value)


def _upper(text: str) -> str:
    """Capitalise the first letter only (``YaRN`` stays ``YaRN``)."""
    return text[:1].upper() + text[1:]


def _alpha(factor: int, ratio: int) -> int:
    return factor * ratio - (factor - 1)


def _ntk_base(base: float, factor: float, d: int) -> float:
    import pe

    return float(pe.ntk_aware_base(base, float(factor), d))


def theory() -> str:
    """Set the RoPE pages' numbers for this model (from pe's functions) beside what it does."""
    record = data()
    t, s = record["theory"], record["settings"]
    train, longest, d = s["train_length"], s["lengths"][-1], s["head_dim"]
    decay = t["decay_bound"]
    rows = [
        [
            "pairs that complete a turn within L "
            "(the critical dimension of RoPE's base page, `pe.rope_critical_dimension`)",
            f"{t['critical_dimension'] // 2} of {t['pairs']} (d_c = {t['critical_dimension']})",
        ],
        [
            f"smallest base with no negative mean score up to L = {train} (`pe.rope_min_base`)",
            f"{t['min_base_train']:,.0f} (the model's: {s['base']:g})",
        ],
        [f"the same up to {longest}", f"{t['min_base_longest']:,.0f}"],
        [
            "RoFormer's decay bound at distance 0, L − 1 and 8L − 1 (`pe.rope_decay_bound`)",
            f"{decay['0']:.1f}, {decay[str(train - 1)]:.2f}, {decay[str(longest - 1)]:.2f}",
        ],
    ]
    for rule in ("none", "linear", "ntk", "dynamic", "yarn", "llama3"):
        variant = "none" if rule == "none" else f"{rule}@target"
        rows.append(
            [
                f"{RULE_NAMES[rule]} for {s['scale']}×: pairs past their trained arc at "
                f"{longest}; measured far accuracy there",
                f"{t['pairs_past_trained_arc_at_longest'][rule]}; "
                f"{show(cell(variant, longest, 'passkey_accuracy_far'))}",
            ]
        )
    note = (
        f"\n\nHead width d = {d}, base {s['base']:g}, trained length L = {train}. A pair is "
        "past its trained arc when it did not complete a turn within L and its largest angle "
        f"at {longest} is beyond its angle at L."
    )
    return table(["quantity", "this model"], rows, align="lr") + note


def reading() -> str:
    """Read the record into sentences; each ordering is one the seed ranges allow."""
    s = data()["settings"]
    lengths, train, scale = s["lengths"], s["train_length"], s["scale"]
    double, longest = lengths[1], lengths[-1]

    def a(variant: str, n: int, key: str = "passkey_accuracy") -> str:
        return show(cell(variant, n, key))

    def loss(variant: str, n: int) -> str:
        return show(cell(variant, n, "loss"), 3)

    near, far, acc = "passkey_accuracy_near", "passkey_accuracy_far", "passkey_accuracy"
    lines = []
    # 1. The unscaled model: where it fails.
    lines.append(
        f"- *No scaling.* The model retrieves {a('none', train)} of the passkeys at the trained "
        f"length. At {double} it retrieves {a('none', double, near)} of the near ones and "
        f"{a('none', double, far)} of the far ones ("
        f"{_pair(compare(('none', double, near), ('none', double, far), _NEAR_FAR))}); at "
        f"{longest}, {a('none', longest, near)} near and {a('none', longest, far)} far ("
        f"{_pair(compare(('none', longest, near), ('none', longest, far), _NEAR_FAR))}). Its "
        f"near accuracy at {longest} against its accuracy at {train}: "
        + {
            "<": "lower in every seed, so the longer sequence costs retrieval even at "
            "distances seen in training; the failure is not only at unseen distances.",
            ">": "higher in every seed, so the longer sequence costs no retrieval at "
            "distances seen in training.",
            "~": "the seed ranges overlap, so this record does not settle whether the longer "
            "sequence costs retrieval at distances seen in training.",
        }[_relation(("none", longest, near), ("none", train, acc))]
        + f" Its held-out loss goes from {loss('none', train)} to {loss('none', longest)} nats "
        "per character."
    )
    theory = data()["theory"]
    past = theory["pairs_past_trained_arc_at_longest"]
    lines.append(
        f"- *The theory beside it.* With no rule, {past['none']} of the {theory['pairs']} "
        f"pairs sweep arcs at {longest} that training never showed, and far passkeys there "
        f"are retrieved {a('none', longest, far)}; YaRN for {scale}×, which leaves "
        f"{_count(past['yarn'])} pair{'' if past['yarn'] == 1 else 's'} past its arc, "
        f"retrieves {a('yarn@target', longest, far)} "
        f"({compare(('yarn@target', longest, far), ('none', longest, far), _SEEDS)}); static "
        f"NTK-aware for {scale}× leaves {past['ntk']} and retrieves "
        f"{a('ntk@target', longest, far)} "
        f"({compare(('ntk@target', longest, far), ('none', longest, far), _SEEDS)}). "
        f"Position interpolation also leaves {_count(past['linear'])} pair"
        f"{'' if past['linear'] == 1 else 's'} past its arc and retrieves "
        f"{a('linear@target', longest, far)} "
        f"({compare(('linear@target', longest, far), ('none', longest, far), _SEEDS)})"
        + (
            ": on this model, keeping every pair inside its trained arc is not enough on its "
            "own. Interpolation also slows the fast pairs that tell neighbouring characters "
            "apart, which YaRN slows less or not at all (exercise 2); the record agrees "
            "with that reason, YaRN's own argument for leaving them (its section 3.2), but "
            "does not isolate it."
            if _relation(("linear@target", longest, far), ("none", longest, far)) != ">"
            else "."
        )
    )
    # 2. The setting: 8x from the start, or matched to the length served.
    for rule in ("linear", "yarn"):
        target, matched = f"{rule}@target", f"{rule}@matched"
        at_train = compare((target, train, acc), ("none", train, acc), _AGAINST)
        at_double = compare((matched, double, acc), (target, double, acc), _ORDER)
        decides = "overlapping" not in at_train or "overlap" not in at_double
        lines.append(
            f"- *{_upper(RULE_NAMES[rule])}: "
            + ("the setting decides" if decides else "the two settings")
            + f".* Configured for {scale}× it retrieves {a(target, train)} at the trained "
            f"length, {at_train} the unscaled {a('none', train)}; matched (s = 1 there, the "
            f"unscaled model) it loses nothing. At {double}, matched (s = 2) gives "
            f"{a(matched, double)} against {a(target, double)} for {scale}×: {at_double}; "
            f"against the unscaled model's {a('none', double)} there, matched is "
            f"{compare((matched, double, acc), ('none', double, acc), _VS_IT)}. At "
            f"{longest} the "
            f"two settings are the same rule (s = {scale}): {a(target, longest)}."
        )
    # 3. Dynamic NTK with transformers' factor against static NTK.
    lines.append(
        f"- *Dynamic NTK with factor {scale}.* At {longest}, with α = "
        f"{_alpha(scale, scale)}, it retrieves {a('dynamic@target', longest)}, "
        f"{compare(('dynamic@target', longest, acc), ('ntk@target', longest, acc), _AGAINST)}"
        f" static NTK-aware for {scale}× ({a('ntk@target', longest)}); at {double} "
        f"(α = {_alpha(scale, 2)}) {a('dynamic@target', double)} against static NTK matched "
        f"(s = 2) {a('ntk@matched', double)}: "
        f"{compare(('dynamic@target', double, acc), ('ntk@matched', double, acc), _DYNAMIC)}."
        " The two are not equal by construction once the factor is transformers' "
        f"{scale}: dynamic grows the base far faster than n/L."
    )
    # 4. Zero-shot at the longest length: the leading group.
    candidates = [v for v in ZERO_SHOT if "@matched" not in v]
    best, group = leaders(candidates, longest, "passkey_accuracy")
    others = [label(v) for v in group[1:]]
    lines.append(
        f"- *Zero-shot at {longest}.* The highest mean accuracy is that of {label(best)} "
        f"({a(best, longest)})"
        + (
            f"; {listing(others)} {'overlaps' if len(others) == 1 else 'overlap'} its seed "
            "range, so this record does not order them"
            if others
            else ", above every other rule's seed range"
        )
        + f". No scaling: {a('none', longest)}."
    )
    # 5. Fine-tuned.
    steps = s["finetune_steps"]
    tuned = [v for v in TUNED if "@matched" not in v]
    best_t, group_t = leaders(tuned, longest, acc)
    control = "none" + FINETUNED
    others_t = [label(v) for v in group_t[1:] if v != control]
    if best_t == control:
        verdict = "The control has the highest mean" + (
            f"; {_overlap(others_t)}" if others_t else ""
        )
    else:
        verdict = (
            f"The highest mean is that of {label(best_t)} ({a(best_t, longest)}), "
            f"{compare((best_t, longest, acc), (control, longest, acc), _AGAINST)} the control"
            + (f"; {_overlap(others_t)}" if others_t else "")
        )
    lines.append(
        f"- *After {steps} steps at {longest}.* The control (no rule, fine-tuned) retrieves "
        f"{a(control, longest)} there. {verdict}. Fine-tuned YaRN for {scale}× at the "
        f"trained length: {a('yarn@target' + FINETUNED, train)} (zero-shot "
        f"{a('yarn@target', train)})."
    )
    # The loss at the longest length, zero-shot.
    lowest, lowest_group = leaders(candidates, longest, "loss", highest=False)
    others_l = [label(v) for v in lowest_group[1:]]
    lines.append(
        f"- *Loss at {longest}, zero-shot.* The lowest mean is that of {label(lowest)} "
        f"({loss(lowest, longest)})"
        + (f"; {_overlap(others_l)}" if others_l else "")
        + f". The unscaled model at its trained length: {loss('none', train)}."
    )
    # 6. Entropy.
    ent = "attention_entropy_far"
    lines.append(
        f"- *Attention entropy.* At {longest} the answering query's entropy on far passkeys is "
        f"{a('none', longest, ent)} nats with no scaling, {a('yarn@target', longest, ent)} with "
        f"YaRN for {scale}× "
        f"({compare(('yarn@target', longest, ent), ('none', longest, ent), _ENTROPY)}"
        f" no scaling) and {a('linear@target', longest, ent)} with position interpolation; at "
        f"the trained length the unscaled model's is {a('none', train, 'attention_entropy_near')}."
    )
    return "\n".join(lines)


def limits() -> str:
    """List what this experiment can and cannot show, with its sizes read from the record."""
    s = data()["settings"]
    tokens = s["steps"] * s["batch"] * s["train_length"]
    tuned = s["finetune_steps"] * s["finetune_batch"] * s["lengths"][-1]
    seeds = len(s["seeds"])
    return "\n".join(
        [
            f"- *Scale.* {_parameters(s):,} parameters trained on {tokens:,} characters at "
            f"{s['train_length']} positions, against billions of parameters trained at "
            "thousands of positions for the models the rules were designed for. The rules' "
            "settings (YaRN's bounds, llama3's factors) are counts of turns within the "
            "trained length and were chosen for those lengths (exercise 2). What this model "
            "can show is each rule's mechanism acting on a model that really uses its "
            "positions; what it cannot show is whether the same orderings, or effects of the "
            "same size, hold on a large model.",
            f"- *Fine-tuning.* {s['finetune_steps']} steps of {s['finetune_batch']} sequences "
            f"({tuned:,} characters), far fewer than the papers' (PI: 1,000 steps unless "
            "stated, its section 3.1, with passkeys retrieved across the new window after "
            "200, section 3.3; YaRN: 400 steps at s = 16, its section 4.1): the fine-tuned "
            "rows show the direction of a fine-tune's effect on this model, not its end point.",
            f"- *Task.* One marker character opens both the passkey and the question, and the "
            f"{s['passkey_digits']} digits are the only digits in the filler, so retrieval needs "
            "one match, not reading comprehension.",
            f"- *Statistics.* {seeds} seeds and {s['eval_passkeys'] // 2} near and "
            f"{s['eval_passkeys'] // 2} far passkeys per length and seed: one passkey is "
            f"{2 / s['eval_passkeys']:.3f} of a near or far accuracy. The intervals are seed "
            "ranges, with no promise of coverage; two rules whose ranges overlap are not "
            "ordered on this page, though more seeds might order them.",
            "- *Read beside.* Chen et al. extend LLaMA 7B to 65B with position interpolation, "
            "the factor set by the new window, s = L′/L (section 2.3), and evaluate each "
            "fine-tuned model at that window and shorter ones (Table 1). After 200 steps "
            "their 7B and 33B models retrieve passkeys across the whole new window, while "
            "direct fine-tuning widens the effective window only from 2,048 to 2,560 tokens "
            "in 10,000 steps (section 3.3 and Table 4). Peng et al. compare PI, NTK-aware "
            "and YaRN on Llama 2 extended from 4k to 8k tokens, YaRN fine-tuned on less data "
            "(section 4.3.1, Table 1), and their YaRN models at s = 16 and 32 against "
            "published PI and NTK-aware models to 128k tokens (Table 2, plotted in Figure 1). "
            "Their section 3.3 describes dynamic scaling, s = max(1, l′/L) recomputed for "
            "each length l′ served: with NTK-aware, that is this page's static NTK-aware, "
            f"matched, not transformers' form with factor {s['scale']}. They report that it "
            "works well with no fine-tuning, and that it first appeared in a Reddit post.",
        ]
    )
