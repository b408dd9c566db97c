"""The drop-in page (beyond/rope-in-a-model.md): pe's RoPE inside a transformers Llama.

Every number comes from ``examples/rope_in_a_model.py`` run at build time on
tiny Llama models with seeded random weights (`measurements`), or from calling
transformers and pe on a YaRN dict (`engine_table`); the engines' rows are the
source readings kept in `sitegen.yarn_keys`.
"""

from __future__ import annotations

import functools
from typing import Any

from sitegen import examples, yarn_keys
from sitegen.cache import cached_markdown
from sitegen.markdown import fixed, number, scientific, table


@functools.lru_cache(maxsize=1)
def _example() -> dict[str, Any]:
    return examples.load("rope_in_a_model")


@functools.lru_cache(maxsize=1)
def measurements() -> dict[str, dict[str, float]]:
    """`measure` of the example for every rule pe implements, in the example's order."""
    example = _example()
    return {rule: example["measure"](rule) for rule in example["supported_rules"]()}


def _setup() -> str:
    example = _example()
    return (
        f"Two-layer Llama models (hidden size 64, 4 query heads and 2 key-value heads of "
        f"width 16) with random weights of standard deviation {example['WEIGHT_STD']}, one "
        f"per rule, trained context {example['ORIGINAL']} positions; a prompt of "
        f"{example['PREFILL']} tokens, decoded one token at a time to {example['LENGTH']}. "
        "Each cell is the largest absolute difference over every position and vocabulary "
        "entry."
    )


def _size(value: float) -> str:
    """Format a difference: two decimals from 0.01 up, scientific below, ``0`` for zero.

    >>> _size(2.84), _size(0.59), _size(1.7e-6), _size(0.0)
    ('2.84', '0.59', '1.7e-6', '0')
    """
    return fixed(value, 2) if value >= 0.01 else scientific(value, 1)


def parity_table() -> str:
    """Return `_parity_table` for the installed transformers (part of the cache key)."""
    return _parity_table(_transformers_version())


@cached_markdown
def _parity_table(transformers_version: str) -> str:
    """Tabulate pe against transformers, every rule: cos and sin, logits, cached decoding."""
    example = _example()
    prefill, length = example["PREFILL"], example["LENGTH"]
    rows = []
    for rule, found in measurements().items():
        rows.append(
            [
                f"`{rule}`",
                *(_size(found[key]) for key in ("cos_sin", "short", "long")),
                *(_size(found[key]) for key in ("pe_decode", "hf_decode")),
            ]
        )
    headers = [
        "rule",
        "cos, sin",
        f"logits, {prefill} tokens",
        f"logits, {length} tokens",
        f"pe decoding vs transformers' {length}-token pass",
        f"transformers decoding vs its own {length}-token pass",
    ]
    found_all = measurements()
    spread = max(found["logit_std"] for found in found_all.values())
    parity = ("short", "long", "pe_decode")
    largest = max(found[key] for found in found_all.values() for key in parity)
    length_dependent = [
        found_all[r]["hf_decode"] for r in ("dynamic", "longrope") if r in found_all
    ]
    bound = example["TOLERANCE"]
    note = (
        f"\n\n{_setup()} The logits have a standard deviation of at most "
        f"{fixed(spread, 2)}. pe's module is built for the length of each pass "
        f"(`seq_len={prefill}` and `seq_len={length}`) and, for decoding, once for "
        f"{length}."
        f"\n\nThe tests' bound on the logit differences of pe and transformers is "
        f"{scientific(bound, 0)}: {fixed(bound / largest, 0)} times the largest of them here "
        f"({_size(largest)})"
    )
    if length_dependent:
        smallest = min(length_dependent)
        note += (
            f", and {fixed(smallest / bound, 0)} times smaller than the smallest decoding "
            f"difference of transformers' length-dependent rules ({_size(smallest)})"
        )
    note += "."
    return table(headers, rows, align="lrrrrr") + note


def cost_table() -> str:
    """Return `_cost_table` for the installed transformers (part of the cache key)."""
    return _cost_table(_transformers_version())


@cached_markdown
def _cost_table(transformers_version: str) -> str:
    """Tabulate the two choices for the length-dependent rules, and what each costs."""
    example = _example()
    prefill, length = example["PREFILL"], example["LENGTH"]
    rows = []
    for rule in ("dynamic", "longrope"):
        found = measurements().get(rule)
        if found is None:
            continue
        rows.append(
            [
                f"`{rule}`",
                "transformers: frequencies of each call's length",
                _size(found["hf_decode"]),
                "0 (the reference)",
            ]
        )
        rows.append(
            [
                f"`{rule}`",
                f"pe: fixed for {length} when built",
                _size(found["pe_self"]),
                _size(found["cost"]),
            ]
        )
    headers = [
        "rule",
        "frequencies",
        f"decoding to {length} vs a full pass of {length}",
        f"a {prefill}-token prompt vs transformers' pass of it",
    ]
    return table(headers, rows, align="llrr")


def _transformers_factor(parameters: dict[str, Any]) -> str:
    """Return the attention factor transformers' Llama rotary module takes from `parameters`.

    transformers logs a warning for a key its rule does not read; the cell says so.
    """
    import logging

    from transformers.utils import logging as hf_logging

    example = _example()
    warned: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: warned.append(record.getMessage())  # type: ignore[method-assign]
    root = hf_logging.get_logger("transformers")
    root.addHandler(handler)
    hf_logging.disable_default_handler()
    try:
        model = example["tiny_llama"]("yarn", parameters)
    finally:
        hf_logging.enable_default_handler()
        root.removeHandler(handler)
    shown = fixed(model.model.rotary_emb.attention_scaling, 4)
    if any("Unrecognized keys" in message for message in warned):
        shown += " (the key ignored, with a warning)"
    return shown


def _pe_factor(parameters: dict[str, Any]) -> str:
    """Return the attention factor `pe.rope_frequencies` takes from `parameters`.

    Like transformers, pe ignores a key its rule does not read, with a warning
    (a `UserWarning` naming the key); the cell says so.
    """
    import warnings

    import pe

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        shown = fixed(pe.rope_frequencies(16, scaling=parameters).attention_factor, 4)
    if any("does not read" in str(warning.message) for warning in caught):
        shown += " (the key ignored, with a warning)"
    return shown


def engine_table() -> str:
    """Return `_engine_table` for the installed transformers (part of the cache key)."""
    return _engine_table(_transformers_version())


@cached_markdown
def _engine_table(transformers_version: str) -> str:
    """Which library honours which attention key of a YaRN dict (measured or read)."""
    example = _example()
    base = dict(example["RULES"]["yarn"][0])
    cases = {
        "attention_factor": dict(base, attention_factor=1.0),
        "attn_factor": dict(base, attn_factor=1.0),
        "mscale": dict(base, mscale=1.0, mscale_all_dim=0.5),
    }
    rows = [
        [
            f"transformers {transformers_version} (run)",
            *(_transformers_factor(cases[key]) for key in cases),
        ],
        ["pe (run)", *(_pe_factor(cases[key]) for key in cases)],
    ]
    for reading in yarn_keys.READINGS:
        rows.append(
            [
                f"{reading.engine} (read)",
                reading.attention_factor,
                reading.attn_factor,
                reading.mscale,
            ]
        )
    headers = [
        "library",
        "`attention_factor: 1.0`",
        "`attn_factor: 1.0`",
        "`mscale: 1.0, mscale_all_dim: 0.5`",
    ]
    default = _pe_factor(base)
    note = (
        f"\n\nThe dict: YaRN with factor {number(base['factor'], 1)} over "
        f"{base['original_max_position_embeddings']} positions, plus the key of the column. "
        "A number is the factor cos and sin are multiplied by, from calling the library; "
        "without any of the three keys transformers and pe both compute "
        f"0.1 ln s + 1 = {default}. Where each row comes from:\n\n"
        "- transformers: `_compute_yarn_parameters` in "
        f"`src/transformers/modeling_rope_utils.py`, version {transformers_version}, "
        "called through `LlamaRotaryEmbedding`.\n"
        "- pe: `pe.rope_frequencies`.\n"
    )
    for reading in yarn_keys.READINGS:
        cited = " and ".join(source.cite() for source in reading.sources)
        note += f"- {reading.engine}: {cited}. {reading.note}\n"
    return table(headers, rows, align="llll") + note


def _transformers_version() -> str:
    import transformers

    return str(transformers.__version__)


def engine_effect() -> str:
    """Return `_engine_effect` for the installed transformers (part of the cache key)."""
    return _engine_effect(_transformers_version())


@cached_markdown
def _engine_effect(transformers_version: str) -> str:
    """Logits of a YaRN model whose config sets attention_factor, honoured or not."""
    example = _example()
    base = dict(example["RULES"]["yarn"][0])
    explicit = dict(base, attention_factor=1.0)
    ids = example["prompt"]()
    honoured = example["full_pass"](example["tiny_llama"]("yarn", explicit), ids)
    ignored = example["full_pass"](example["tiny_llama"]("yarn", base), ids)
    computed = float(example["tiny_llama"]("yarn", base).model.rotary_emb.attention_scaling)
    gap = example["gap"](honoured, ignored)
    return (
        f"On the tiny YaRN model of the table above with `attention_factor: 1.0` in its "
        f"dict, the logits of a {ids.shape[1]}-token prompt computed with the factor the "
        f"dict names and with the computed {fixed(computed, 4)} (every attention logit "
        f"multiplied by {fixed(computed**2, 4)}) differ by up to {_size(gap)}; "
        f"their standard deviation is {fixed(float(honoured.std()), 2)}."
    )
