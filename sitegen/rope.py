"""RoPE scaling at build time: published model configurations and the tables about them.

`PUBLISHED` holds the RoPE settings of real model families as they appear in
their ``config.json`` (the dict under ``rope_scaling``, plus the few top-level
keys a rule reads). `tests/test_rope_scaling.py` checks `pe.rope_frequencies`
against transformers on every one of them; the page prints its tables from
the same data, so what it shows is what is tested.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import pe
from sitegen.markdown import number, table
from sitegen.results import result

# Phi-3.5-mini-instruct's LongRoPE factors, one per rotated pair (48 for head_dim 96),
# as published under "rope_scaling" in microsoft/Phi-3.5-mini-instruct/config.json.
_PHI35_LONG = [
    1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601,
    1.5899999141693115, 1.600000023841858, 1.6200000047683716, 2.620000123977661,
    3.2300000190734863, 3.2300000190734863, 4.789999961853027, 7.400000095367432,
    7.700000286102295, 9.09000015258789, 12.199999809265137, 17.670000076293945,
    24.46000099182129, 28.57000160217285, 30.420001983642578, 30.840002059936523,
    32.590003967285156, 32.93000411987305, 42.320003509521484, 44.96000289916992,
    50.340003967285156, 50.45000457763672, 57.55000305175781, 57.93000411987305,
    58.21000289916992, 60.1400032043457, 62.61000442504883, 62.62000274658203,
    62.71000289916992, 63.1400032043457, 63.1400032043457, 63.77000427246094,
    63.93000411987305, 63.96000289916992, 63.970001220703125, 64.02999877929688,
    64.06999969482422, 64.08000183105469, 64.12000274658203, 64.41000366210938,
    64.4800033569336, 64.51000213623047, 64.52999877929688, 64.83999633789062,
]  # fmt: skip
_PHI35_SHORT = [
    1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705,
    1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842,
    1.0499999523162842, 1.0699999332427979, 1.0999999046325684, 1.1099998950958252,
    1.1599998474121094, 1.1599998474121094, 1.1699998378753662, 1.2899998426437378,
    1.339999794960022, 1.679999828338623, 1.7899998426437378, 1.8199998140335083,
    1.8499997854232788, 1.8799997568130493, 1.9099997282028198, 1.9399996995925903,
    1.9899996519088745, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346,
    2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0799996852874756, 2.0899996757507324, 2.189999580383301, 2.2199995517730713,
    2.5899994373321533, 2.729999542236328, 2.749999523162842, 2.8399994373321533,
]  # fmt: skip


@dataclass(frozen=True)
class Published:
    """One model's RoPE settings, as its configuration publishes them."""

    model: str
    source: str
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def rule(self) -> str:
        """The scaling rule's name (``default`` when there is none)."""
        scaling = self.config.get("rope_scaling") or {}
        return str(scaling.get("rope_type", scaling.get("type", "default")))


#: Real configurations, one or more per rule. Keys are those of each ``config.json``.
PUBLISHED: tuple[Published, ...] = (
    Published(
        "Llama 3.1 8B",
        "meta-llama/Llama-3.1-8B, config.json",
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 131072,
            "rope_theta": 500000.0,
            "rope_scaling": {
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
        },
    ),
    Published(
        "Llama 3.2 1B",
        "meta-llama/Llama-3.2-1B, config.json",
        {
            "hidden_size": 2048,
            "num_attention_heads": 32,
            "head_dim": 64,
            "max_position_embeddings": 131072,
            "rope_theta": 500000.0,
            "rope_scaling": {
                "factor": 32.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
        },
    ),
    Published(
        "Qwen2.5 7B Instruct",
        'Qwen/Qwen2.5-7B-Instruct, model card, "Processing Long Texts"',
        {
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "max_position_embeddings": 32768,
            "rope_theta": 1000000.0,
            "rope_scaling": {
                "factor": 4.0,
                "original_max_position_embeddings": 32768,
                "type": "yarn",
            },
        },
    ),
    Published(
        "DeepSeek-V2-Lite",
        "deepseek-ai/DeepSeek-V2-Lite, config.json (rotary part: qk_rope_head_dim 64)",
        {
            "head_dim": 64,
            "hidden_size": 2048,
            "num_attention_heads": 16,
            "max_position_embeddings": 163840,
            "rope_theta": 10000,
            "rope_scaling": {
                "beta_fast": 32,
                "beta_slow": 1,
                "factor": 40,
                "mscale": 0.707,
                "mscale_all_dim": 0.707,
                "original_max_position_embeddings": 4096,
                "type": "yarn",
            },
        },
    ),
    Published(
        "DeepSeek-V3",
        "deepseek-ai/DeepSeek-V3, config.json (rotary part: qk_rope_head_dim 64)",
        {
            "head_dim": 64,
            "hidden_size": 7168,
            "num_attention_heads": 128,
            "max_position_embeddings": 163840,
            "rope_theta": 10000,
            "rope_scaling": {
                "beta_fast": 32,
                "beta_slow": 1,
                "factor": 40,
                "mscale": 1.0,
                "mscale_all_dim": 1.0,
                "original_max_position_embeddings": 4096,
                "type": "yarn",
            },
        },
    ),
    Published(
        "gpt-oss 20B",
        "openai/gpt-oss-20b, config.json",
        {
            "head_dim": 64,
            "hidden_size": 2880,
            "num_attention_heads": 64,
            "max_position_embeddings": 131072,
            "rope_theta": 150000,
            "rope_scaling": {
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "factor": 32.0,
                "original_max_position_embeddings": 4096,
                "rope_type": "yarn",
                "truncate": False,
            },
        },
    ),
    Published(
        "Phi-3.5 mini instruct",
        "microsoft/Phi-3.5-mini-instruct, config.json",
        {
            "hidden_size": 3072,
            "num_attention_heads": 32,
            "max_position_embeddings": 131072,
            "original_max_position_embeddings": 4096,
            "rope_theta": 10000.0,
            "rope_scaling": {
                "long_factor": _PHI35_LONG,
                "short_factor": _PHI35_SHORT,
                "type": "longrope",
            },
        },
    ),
    Published(
        "Vicuna 7B v1.5 16k",
        "lmsys/vicuna-7b-v1.5-16k, config.json",
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 4096,
            "rope_theta": 10000.0,
            "rope_scaling": {"factor": 4.0, "type": "linear"},
        },
    ),
    Published(
        "Llama 2 7B, dynamic NTK",
        'meta-llama/Llama-2-7b-hf config.json with the override rope_scaling={"type": "dynamic", '
        '"factor": 2.0} from transformers\' Llama documentation',
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 4096,
            "rope_theta": 10000.0,
            "rope_scaling": {"factor": 2.0, "type": "dynamic"},
        },
    ),
    Published(
        "Phi-2",
        "microsoft/phi-2, config.json (partial rotary)",
        {
            "hidden_size": 2560,
            "num_attention_heads": 32,
            "max_position_embeddings": 2048,
            "partial_rotary_factor": 0.4,
            "rope_theta": 10000.0,
        },
    ),
)


def by_model(model: str) -> Published:
    """Return the entry of `PUBLISHED` for `model`."""
    return next(entry for entry in PUBLISHED if entry.model == model)


def frequencies_of(entry: Published, seq_len: int | None = None) -> pe.RopeFrequencies:
    """`pe.rope_frequencies` for a published configuration."""
    config = entry.config
    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    scaling = dict(config.get("rope_scaling") or {})
    if "original_max_position_embeddings" in config:
        scaling["original_max_position_embeddings"] = config["original_max_position_embeddings"]
    return pe.rope_frequencies(
        head_dim,
        base=float(config.get("rope_theta", 10000.0)),
        scaling=scaling or None,
        max_position_embeddings=config.get("max_position_embeddings"),
        seq_len=seq_len,
        partial_rotary_factor=config.get("partial_rotary_factor", 1.0),
    )


def published_table() -> str:
    """One row per published configuration: rule, width, base, factor, attention factor."""
    rows = []
    for entry in PUBLISHED:
        config = entry.config
        scaling = config.get("rope_scaling") or {}
        long = entry.rule in ("longrope", "dynamic")
        seq_len = config["max_position_embeddings"] * (2 if entry.rule == "dynamic" else 1)
        result = frequencies_of(entry, seq_len if long else None)
        rows.append(
            [
                entry.model,
                f"`{entry.rule}`",
                2 * result.frequencies.size,
                number(float(config.get("rope_theta", 10000.0)), 0),
                number(float(scaling.get("factor", 1.0)), 2) if "factor" in scaling else "—",
                number(result.attention_factor, 4),
                entry.source,
            ]
        )
    return table(
        ["model", "rule", "rotated dims", "base", "factor", "attention factor", "source"], rows
    )


def band_table(models: tuple[str, ...], seq_len: int | None = None) -> str:
    """Per model: pairs kept, divided by the factor, and in between (columns = models)."""
    columns = []
    for model in models:
        entry = by_model(model)
        config = entry.config
        head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
        plain = pe.rope_frequencies(
            head_dim,
            base=float(config.get("rope_theta", 10000.0)),
            partial_rotary_factor=config.get("partial_rotary_factor", 1.0),
        ).frequencies
        scaling = config.get("rope_scaling") or {}
        result = frequencies_of(entry, seq_len)
        ratio = plain / result.frequencies  # how many times slower each pair turns
        factor = float(scaling.get("factor", 1.0))
        kept = int(np.sum(np.isclose(ratio, 1.0, rtol=1e-9)))
        divided = int(np.sum(np.isclose(ratio, factor, rtol=1e-9)))
        original = scaling.get(
            "original_max_position_embeddings", config["max_position_embeddings"]
        )
        turned = int(np.sum(2 * math.pi / plain < original))
        columns.append(
            [
                f"`{entry.rule}`",
                number(factor, 2),
                f"{original:,}",
                ratio.size,
                turned,
                kept,
                divided,
                ratio.size - kept - divided,
                number(result.attention_factor, 4),
            ]
        )
    labels = [
        "rule",
        "factor s",
        "trained context L",
        "pairs",
        "pairs with a full turn within L",
        "kept (slow-down 1)",
        "divided by s",
        "in between",
        "attention factor",
    ]
    rows = [[label, *(column[i] for column in columns)] for i, label in enumerate(labels)]
    return table(["", *models], rows, align="l" + "r" * len(models))


def _results() -> dict[str, Any]:
    return result("rope")


def _bucket_label(bucket: list[int]) -> str:
    return f"{bucket[0]:,} – {bucket[1] - 1:,}"


def cache_accuracy() -> str:
    """Tabulate the float32 cos/sin caches against mpmath, by range of positions."""
    data = _results()
    first = data["accuracy"][0]
    headers = [
        "positions",
        *(f"{case['case']}: {who}" for case in data["accuracy"] for who in ("pe", "transformers")),
    ]
    rows = []
    for index, bucket in enumerate(first["buckets"]):
        row: list[object] = [_bucket_label(bucket)]
        for case in data["accuracy"]:
            row.append(f"{case['ours_max_error_by_bucket'][index]:.1e}")
            row.append(f"{case['transformers_max_error_by_bucket'][index]:.1e}")
        rows.append(row)
    return table(headers, rows, align="l" + "r" * (len(headers) - 1))


def low_precision_table() -> str:
    """Largest cosine error of bfloat16 / float16 tables, by where the rounding happens."""
    case = _results()["accuracy"][0]
    headers = ["dtype", "where the rounding happens", *(_bucket_label(b) for b in case["buckets"])]
    rows = [
        [
            entry["dtype"],
            entry["where"],
            *(f"{value:.2g}" for value in entry["max_error_by_bucket"]),
        ]
        for entry in case["low_precision"]
    ]
    return table(headers, rows, align="ll" + "r" * len(case["buckets"]))


def _ratio_rows(medians: dict[str, float], copy: float, digits: int) -> list[list[object]]:
    return [
        [name, number(value, digits), f"{value / copy:.2f}×"]
        for name, value in sorted(medians.items(), key=lambda item: item[1])
    ]


def speed_table() -> str:
    """Tabulate the committed run's prefill and decoding step, each against a copy of q, k."""
    speed = _results()["speed"]
    prefill = speed["median_ms"]
    decode = speed["decode"]
    copy = "copy of q and k"
    return "\n\n".join(
        [
            f"Prefill: query {tuple(speed['q_shape'])}, key {tuple(speed['k_shape'])}.",
            table(
                ["implementation", "median ms", "× a copy"],
                _ratio_rows(prefill, prefill[copy], 3),
                align="lrr",
            ),
            f"One decoding step: query {tuple(decode['q_shape'])}, key "
            f"{tuple(decode['k_shape'])}, at position {decode['offset']:,}.",
            table(
                ["implementation", "median µs", "× a copy"],
                _ratio_rows(decode["median_us"], decode["median_us"][copy], 3),
                align="lrr",
            ),
        ]
    )


def speed_summary() -> str:
    """Say how the committed run compares with its targets, and under what load it ran."""
    facts = bench_facts()
    missed = [target for target, met in facts["met"].items() if not met]
    return (
        "Against a bare copy of q and k, the prefill takes "
        f"{facts['prefill_vs_copy']:.2f}× the copy's time in the Llama layout and "
        f"{facts['prefill_interleaved_vs_copy']:.2f}× in the interleaved one (target "
        f"{facts['targets']['prefill_vs_copy']}×); one decoding step takes "
        f"{facts['decode_vs_apply']:.2f}× the time of transformers' `apply_rotary_pos_emb` "
        "alone, with cos and sin given (target: no more). "
        + ("Every target met" if not missed else "Missed in this run: " + "; ".join(missed))
        + f". The machine's load average during the run: {facts['load_average']:.1f} "
        f"(on {facts['logical_cpus']} logical CPUs); timings on a shared machine are noisy."
    )


def bench_facts() -> dict[str, Any]:
    """Numbers the prose quotes from the committed run."""
    data = _results()
    speed = data["speed"]
    return {
        "ours_max": max(case["ours_max_error"] for case in data["accuracy"]),
        "theirs_max": max(case["transformers_max_error"] for case in data["accuracy"]),
        "fp16_1857": data["accuracy"][0]["float16_angles_error_at_1857"],
        "vs_eager": speed["speedup_vs_transformers_eager"],
        "vs_compiled": speed["speedup_vs_transformers_compiled"],
        "q_shape": tuple(speed["q_shape"]),
        "k_shape": tuple(speed["k_shape"]),
        "machine": f"{data['machine']['cpu']}, {data['machine']['threads_used']} threads",
        "load_average": speed["load_average"][0],
        "logical_cpus": data["machine"]["logical_cpus"],
        "prefill_vs_copy": speed["median_ms"]["pe eager (concatenated, Llama)"]
        / speed["median_ms"]["copy of q and k"],
        "prefill_interleaved_vs_copy": speed["median_ms"]["pe eager (interleaved)"]
        / speed["median_ms"]["copy of q and k"],
        "decode_vs_apply": speed["decode"]["median_us"]["pe eager (concatenated, Llama)"]
        / speed["decode"]["median_us"]["transformers apply only (cos, sin given)"],
        "targets": speed["targets"],
        "met": speed["met"],
    }
