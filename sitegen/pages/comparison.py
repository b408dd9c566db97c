"""The comparison page (beyond/comparison.md): parameters, and every method trained.

The measured section reads the record of ``make trained``
(``benchmarks/results/trained.json``) through `sitegen.trained`, the same record
as the page on RoPE scaling rules: a number with the range of its seeds, an
ordering only where the ranges allow it.
"""

from __future__ import annotations

from typing import Any

from benchmarks.trained_names import METHOD_NAMES
from sitegen.cache import cached_markdown
from sitegen.markdown import table
from sitegen.results import provenance as _provenance
from sitegen.trained import cell, compare, data, leaders, listing, show


@cached_markdown
def method_parameters(d_model: int = 512, heads: int = 8, max_len: int = 2048) -> str:
    """Learned parameters each method adds, counted on the real modules."""
    import torch.nn as tnn

    import pe.nn

    modules: list[tuple[str, tnn.Module, str]] = [
        ("sinusoidal", pe.nn.SinusoidalPositionalEncoding(d_model, max_len=max_len), "input"),
        ("learned", pe.nn.LearnedPositionalEmbedding(max_len, d_model), "input"),
        ("T5 relative bias", pe.nn.RelativePositionBias(heads), "attention scores"),
        (
            "clipped relative bias",
            pe.nn.RelativePositionBias(heads, kind="clipped"),
            "attention scores",
        ),
        ("RoPE", pe.nn.RotaryEmbedding(d_model // heads), "queries and keys"),
        ("ALiBi", pe.nn.ALiBi(heads), "attention scores"),
    ]
    rows = []
    for name, module, where in modules:
        count = sum(parameter.numel() for parameter in module.parameters())
        buffers = sum(buffer.numel() for buffer in module.buffers())
        rows.append([name, where, f"{count:,}", f"{buffers:,}"])
    headers = ["method", "where position enters", "learned parameters", "fixed buffer values"]
    note = (
        f"\n\nCounted on the `pe.nn` modules for d_model = {d_model}, {heads} heads and "
        f"max_len = {max_len:,} (the table's length, for sinusoidal and learned), per "
        "layer that holds one; T5 keeps a single bias table and shares it across its layers."
    )
    return table(headers, rows, align="llrr") + note


def _methods() -> list[str]:
    return list(data()["methods"])


def loss_table() -> str:
    """Held-out loss by length, one row per method: mean over seeds, seed range below."""
    s = data()["settings"]
    lengths, train = s["lengths"], s["train_length"]
    rows = [
        [METHOD_NAMES[m], *(show(cell(_variant(m), n, "loss"), 3, stacked=True) for n in lengths)]
        for m in _methods()
    ]
    headers = ["method", *(f"{n}{' (trained)' if n == train else ''}" for n in lengths)]
    note = (
        "\n\nNext-character loss on held-out text, nats per character (lower is better), "
        f"at each length served; the mean over {len(s['seeds'])} seeds, the lowest and "
        "highest seed below it."
    )
    return table(headers, rows, align="l" + "r" * len(lengths)) + note


def passkey_table() -> str:
    """Passkey accuracy at the trained length, and near and far at the longest, per method."""
    s = data()["settings"]
    train, longest = s["train_length"], s["lengths"][-1]
    rows = [
        [
            METHOD_NAMES[m],
            show(cell(_variant(m), train, "passkey_accuracy"), stacked=True),
            show(cell(_variant(m), longest, "passkey_accuracy_near"), stacked=True),
            show(cell(_variant(m), longest, "passkey_accuracy_far"), stacked=True),
        ]
        for m in _methods()
    ]
    headers = ["method", f"passkeys at {train}", f"at {longest}, near", f"at {longest}, far"]
    note = (
        "\n\nShare of hidden passkeys retrieved with every digit right. At "
        f"{longest}, *near* passkeys lie at most {train - s['passkey_digits']} characters "
        "before the question (the farthest distance training shows), *far* ones further "
        "back; half are of each kind."
    )
    return table(headers, rows, align="lrrr") + note


#: How a method's loss at the longest length reads against its loss at the trained one.
_CHANGE = ("higher in every seed", "lower in every seed", "the seed ranges overlap")

#: How one method's number reads against another's: ordered, or ranges that overlap.
_AGAINST = ("above every seed of", "below every seed of", "with a seed range overlapping")


def _layers(s: dict[str, Any]) -> str:
    return f"{s['layers']} layer{'' if s['layers'] == 1 else 's'}"


def _variant(method: str) -> str:
    """Return the record's variant of a method: RoPE's is its unscaled rule, ``none``."""
    return "none" if method == "rope" else method


def setup() -> str:
    """Describe the model, data and training every method shares, read from the record."""
    record = data()
    s = record["settings"]
    machine = record["machine"]
    return (
        f"Every method trains the same decoder ({_layers(s)}, d_model = "
        f"{s['d_model']}, {s['heads']} heads of {s['head_dim']}), with the same "
        f"{s['steps']:,} steps of {s['batch']} sequences of {s['train_length']} characters of "
        f"{record['data']['source']}, the same seeds ({len(s['seeds'])}) and the same "
        f"evaluation at {', '.join(str(n) for n in s['lengths'])} characters. Every sequence "
        "hides a passkey (a marker and a few digits) that the model must repeat at the end, "
        "so the record measures both next-character loss and retrieval from far back. Only "
        "where position enters differs: added to the input (sinusoidal, learned; the "
        f"learned table has rows up to {s['lengths'][-1]}, but training only reaches the "
        f"first {s['train_length']}), added to the scores (T5's bucketed bias, shared by the "
        "layers; ALiBi), rotating queries and keys (RoPE), or nothing (NoPE). Run by "
        f"{_provenance('trained')} on {record['date']} ({machine['cpu']}, processes of one "
        f"thread each): {record['wall_seconds'] / 60:.0f} minutes wall time and "
        f"{record['cpu_seconds'] / 60:.0f} minutes of CPU time for all the methods and the "
        "RoPE scaling rules together."
    )


def extrapolation_summary() -> str:
    """Sentences read off the record; each ordering is one the seed ranges allow."""
    s = data()["settings"]
    train, longest = s["train_length"], s["lengths"][-1]
    variants = [_variant(m) for m in _methods()]
    names = {_variant(m): METHOD_NAMES[m] for m in _methods()}

    def named(group: list[str]) -> str:
        return listing([names[v] for v in group])

    fit, fit_group = leaders(variants, train, "loss", highest=False)
    far, far_group = leaders(variants, longest, "loss", highest=False)
    key, key_group = leaders(variants, longest, "passkey_accuracy_far")
    lines = [
        f"- At the trained length ({train} characters) the lowest loss is "
        f"{names[fit]}'s ({show(cell(fit, train, 'loss'), 3)})"
        + (
            f"; {named(fit_group[1:])} {'overlaps' if len(fit_group) == 2 else 'overlap'} its "
            "seed range, so the record does not order them there"
            if len(fit_group) > 1
            else ", below every other method's seed range"
        )
        + ".",
        f"- At {longest} characters, {longest // train} times the trained length, the lowest "
        f"loss is {names[far]}'s ({show(cell(far, longest, 'loss'), 3)})"
        + (
            f", with {named(far_group[1:])} overlapping its seed range"
            if len(far_group) > 1
            else ""
        )
        + ". "
        + " ".join(
            f"{names[v]}: {show(cell(v, train, 'loss'), 3)} at {train}, "
            f"{show(cell(v, longest, 'loss'), 3)} at {longest} "
            f"({compare((v, longest, 'loss'), (v, train, 'loss'), _CHANGE)})."
            for v in variants
        ),
        f"- Retrieval beyond the trained distance (far passkeys at {longest}): the highest is "
        f"{names[key]}'s ({show(cell(key, longest, 'passkey_accuracy_far'))})"
        + (
            f", with {named(key_group[1:])} overlapping its seed range"
            if len(key_group) > 1
            else ""
        )
        + ".",
        f"- NoPE, with {_layers(s)} and the causal mask as its only source of order, "
        f"reaches {show(cell('nope', train, 'loss'), 3)} at the trained length, "
        f"{compare(('nope', train, 'loss'), ('none', train, 'loss'), _AGAINST)} RoPE's "
        f"{show(cell('none', train, 'loss'), 3)}, and retrieves "
        f"{show(cell('nope', train, 'passkey_accuracy'))} of the passkeys there.",
    ]
    return "\n".join(lines)


def limits() -> str:
    """Say what this comparison can and cannot show, and the published results to read beside."""
    s = data()["settings"]
    return (
        f"This is one small model ({_layers(s)}, {s['head_dim']}-wide heads) on one "
        f"character-level task, trained for {s['steps']:,} steps at {s['train_length']} "
        f"characters, over {len(s['seeds'])} seeds: it shows each method's mechanism at work "
        "past the trained length, not a ranking for other models, tasks or lengths, and "
        "methods whose seed ranges overlap are not ordered here. The published comparisons "
        "to read beside it: Press et al. train one language model (Baevski and Auli's, on "
        "WikiText-103) with sinusoidal, rotary, T5 bias and ALiBi positions and evaluate it "
        "up to 15,000 tokens past the training length (Figure 1; sections 2.2 and 4.1); "
        "Kazemnejad et al. compare NoPE with explicit encodings in small decoder-only models "
        "trained on reasoning and mathematical tasks, where NoPE generalises to longer inputs "
        "on par with or better than the best of them (section 4), and prove that the first "
        "layer of such a decoder can recover absolute positions through the causal mask "
        "(their Theorem 1, section 5.1). Their construction reads a beginning-of-sequence "
        "token, which this benchmark's sequences do not have."
    )
