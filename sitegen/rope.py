"""RoPE scaling at build time: tables about published model configurations.

The configurations themselves live in `pe._published` (`PUBLISHED`: the RoPE
settings of real model families with where each was read), which the figure
scripts and the tests import too. `tests/test_rope_scaling.py` checks
`pe.rope_frequencies` against transformers on every one of them; the page
prints its tables from the same data, so what it shows is what is tested.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

import pe
from pe._published import PUBLISHED, Published, by_model
from sitegen.markdown import number, scientific, table
from sitegen.results import provenance, result


def frequencies_of(entry: Published, seq_len: int | None = None) -> pe.RopeFrequencies:
    """`pe.rope_frequencies` for a published configuration.

    Keys that transformers reads outside the frequency rule (Ministral 3's
    ``llama_4_scaling_beta``, Qwen2-VL's ``mrope_section``) are named in a
    warning by `pe`; the tables are about frequencies, so those warnings are
    not repeated here (the tests check them).
    """
    config = entry.config
    scaling = entry.scaling
    if "original_max_position_embeddings" in config:
        scaling["original_max_position_embeddings"] = config["original_max_position_embeddings"]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "scaling.*(read by transformers outside|does not read)")
        return pe.rope_frequencies(
            head_dim_of(entry),
            base=config.get("rope_theta"),
            scaling=scaling or None,
            max_position_embeddings=config.get("max_position_embeddings"),
            seq_len=seq_len,
            partial_rotary_factor=config.get("partial_rotary_factor"),
        )


def head_dim_of(entry: Published) -> int:
    """Return the head width a published configuration gives its (chosen) layers."""
    config = entry.config
    kinds = config.get("layer_types") or []
    for index, override in (config.get("per_layer_config") or {}).items():
        if kinds[int(index)] == entry.layer_type and "head_dim" in override:
            return int(override["head_dim"])
    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    return int(head_dim)


def base_of(entry: Published) -> float:
    """Return the RoPE base of a published configuration (inside its RoPE dict first)."""
    theta = entry.scaling.get("rope_theta", entry.config.get("rope_theta"))
    return float(10000.0 if theta is None else theta)


def rules_table() -> str:
    """One row per rule `pe.rope_frequencies` implements (`pe._rope.ROPE_RULES`), with its keys."""
    from pe._rope import ROPE_RULES

    def keys(names: frozenset[str]) -> str:
        return ", ".join(f"`{name}`" for name in sorted(names)) or "—"

    rows = [
        [f"`{rule}`", keys(required), keys(optional)]
        for rule, (required, optional) in ROPE_RULES.items()
    ]
    return table(["rule", "keys it needs", "keys it may read"], rows)


def published_table() -> str:
    """One row per published configuration: rule, width, base, factor, attention factor.

    Where each was read is `published_sources`: with it, the table would not fit
    the column at 1280 px.
    """
    rows = []
    for entry in PUBLISHED:
        config = entry.config
        scaling = entry.scaling
        long = entry.rule in ("longrope", "dynamic")
        seq_len = config["max_position_embeddings"] * (2 if entry.rule == "dynamic" else 1)
        result = frequencies_of(entry, seq_len if long else None)
        rows.append(
            [
                entry.model,
                f"`{entry.rule}`",
                int(np.count_nonzero(result.frequencies)) * 2,
                number(base_of(entry), 0),
                number(float(scaling.get("factor", 1.0)), 2) if "factor" in scaling else "—",
                number(result.attention_factor, 4),
            ]
        )
    headers = ["model", "rule", "rotated dims", "base", "factor", "attention factor"]
    return table(headers, rows)


def published_sources() -> str:
    """Where each configuration of `published_table` was read (its own table: prose)."""
    return table(["model", "source"], [[entry.model, entry.source] for entry in PUBLISHED])


def band_table(models: tuple[str, ...], seq_len: int | None = None) -> str:
    """Per model: pairs kept, divided by the factor, and in between (columns = models)."""
    columns = []
    for model in models:
        entry = by_model(model)
        config = entry.config
        plain = pe.rope_frequencies(
            head_dim_of(entry),
            base=base_of(entry),
            partial_rotary_factor=config.get("partial_rotary_factor", 1.0),
        ).frequencies
        scaling = entry.scaling
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
            row.append(scientific(case["ours_max_error_by_bucket"][index], 1))
            row.append(scientific(case["transformers_max_error_by_bucket"][index], 1))
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
        f"{facts['prefill_interleaved_vs_copy']:.2f}× in the interleaved one (target for "
        f"each: at most {facts['targets']['prefill_vs_copy']}×); one decoding step takes "
        f"{facts['decode_vs_apply']:.2f}× the time of transformers' `apply_rotary_pos_emb` "
        "alone, with cos and sin given (target: no more). "
        + ("Every target met" if not missed else "Missed in this run: " + "; ".join(missed))
        + f". Of the copy's {facts['copy_ms']:.1f} ms, "
        f"{facts['copy_ms'] - facts['copy_into_ms']:.1f} ms is fresh memory: the operating "
        "system handing over and zeroing the pages that a new tensor is written to (the same "
        f"copy into buffers written before takes {facts['copy_into_ms']:.1f} ms). `pe` returns "
        "new tensors too and pays the same. Beyond that, its C loop for the Llama layout "
        f"takes {facts['llama_ms'] - facts['copy_ms']:.1f} ms more than the copy; with "
        "torch's operations only (its product and two corrections) it takes "
        f"{facts['torch_ops_ms'] - facts['copy_ms']:.1f} ms more, "
        f"{facts['torch_ops_ms'] / facts['copy_ms']:.2f}× the copy"
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
        "copy_ms": speed["median_ms"]["copy of q and k"],
        "copy_into_ms": speed["median_ms"]["copy into buffers written before"],
        "llama_ms": speed["median_ms"]["pe eager (concatenated, Llama)"],
        "torch_ops_ms": speed["median_ms"]["pe eager (Llama), torch's operations only"],
        "cpu_kernel": speed["cpu_kernel"],
        "cpu_kernel_build_seconds": speed["cpu_kernel_build_seconds"],
        "prefill_vs_copy": speed["median_ms"]["pe eager (concatenated, Llama)"]
        / speed["median_ms"]["copy of q and k"],
        "prefill_interleaved_vs_copy": speed["median_ms"]["pe eager (interleaved)"]
        / speed["median_ms"]["copy of q and k"],
        "decode_vs_apply": speed["decode"]["median_us"]["pe eager (concatenated, Llama)"]
        / speed["decode"]["median_us"]["transformers apply only (cos, sin given)"],
        "targets": speed["targets"],
        "met": speed["met"],
    }


#: The GPU tables' rows, in the order of the CPU tables' (copy, pe, then transformers).
_CUDA_ROWS = (
    ("copy of q and k", "copy of q and k"),
    ("pe (interleaved)", "pe eager (interleaved)"),
    ("pe (concatenated, Llama)", "pe eager (concatenated, Llama)"),
    ("pe compiled (concatenated)", "pe compiled"),
    ("transformers apply only (cos, sin given)", "transformers apply only (cos, sin given)"),
    ("transformers eager (module and apply)", "transformers eager (module and apply)"),
    ("transformers compiled", "transformers compiled"),
)


def _cuda_rows(case: dict[str, Any]) -> list[list[object]]:
    prefill, decode = case["prefill"]["median_us"], case["decode"]["median_us"]
    copy, apply = prefill["copy of q and k"], decode["transformers apply only (cos, sin given)"]
    gpu = case["prefill"].get("device_us")
    return [
        [
            label,
            number(prefill[name], 1),
            f"{prefill[name] / copy:.2f}×",
            *([number(gpu[name], 1), f"{gpu[name] / gpu['copy of q and k']:.2f}×"] if gpu else []),
            number(decode[name], 1),
            f"{decode[name] / apply:.2f}×",
        ]
        for name, label in _CUDA_ROWS
    ]


def cuda_setup() -> str:
    """Describe the committed GPU run (benchmarks/rope_cuda.py): where, when, what."""
    data = result("rope_cuda")
    first = data["cases"][0]
    return (
        f"Measured once on an {data['device']['name']} on {data['date']} with torch "
        f"{data['versions']['torch']} (CUDA {data['cuda']}) and transformers "
        f"{data['transformers']}, by {provenance('rope_cuda')}: the same Llama 3.1 head as "
        f"above, a prefill (query {tuple(first['prefill']['q_shape'])}, key "
        f"{tuple(first['prefill']['k_shape'])}) and one decoding step at position "
        f"{first['decode']['offset']:,}, in float32 and in bfloat16. Each sample is the mean "
        f"of {first['prefill']['calls_per_sample']} prefill or "
        f"{first['decode']['calls_per_sample']} decoding calls timed with CUDA events; the "
        "candidates alternate, and each table gives the median of "
        + (
            f"{first['prefill']['rounds']} rounds. "
            if "rounds" in first["prefill"]
            else "the rounds. "
        )
        + (
            "The GPU's own time per call, its kernels and copies as torch's profiler reads "
            "them, is given beside the prefill's: back to back, a call whose host work "
            "outlasts its kernels is timed by the host, while in a model the host runs ahead "
            "and the GPU's time is what the call costs. "
            if "device_us" in first["prefill"]
            else ""
        )
        + "The machine was lent for one session, so `make bench` does not run this again."
    )


def cuda_speed() -> str:
    """Tabulate the committed GPU run, a table per dtype."""
    data = result("rope_cuda")
    gpu = "device_us" in data["cases"][0]["prefill"]
    headers = [
        "implementation",
        "prefill µs",
        "× a copy",
        *(["prefill, GPU µs", "× a copy's"] if gpu else []),
        "decoding µs",
        "× apply only",
    ]
    parts = [
        "“× a copy” is the prefill's time over a copy of q and k"
        + (", “× a copy's” the same for the GPU's own time" if gpu else "")
        + "; “× apply only” the decoding step's time over transformers' "
        "`apply_rotary_pos_emb` given cos and sin."
    ]
    for case in data["cases"]:
        parts.append(f"**{case['dtype']}**")
        parts.append(table(headers, _cuda_rows(case), align="l" + "r" * (len(headers) - 1)))
    return "\n\n".join(parts)


def cuda_summary() -> str:
    """Say what the committed GPU run shows, in numbers read from it."""
    data = result("rope_cuda")
    sentences = []
    for case in data["cases"]:
        prefill, decode = case["prefill"]["median_us"], case["decode"]["median_us"]
        ours, compiled = "pe (concatenated, Llama)", "pe compiled (concatenated)"
        eager, theirs = "transformers eager (module and apply)", "transformers compiled"
        sentences.append(
            f"In {case['dtype']}, `pe`'s eager Llama-layout prefill takes "
            f"{prefill[ours] / prefill[eager]:.2f}× the time of transformers' eager module "
            f"and apply, and its decoding step {decode[ours] / decode[eager]:.2f}×; "
            f"transformers compiled is "
            + ("faster" if prefill[theirs] < prefill[ours] else "slower")
            + f" on the prefill ({number(prefill[theirs], 1)} µs against `pe`'s "
            f"{number(prefill[ours], 1)} µs eager and {number(prefill[compiled], 1)} µs "
            "compiled)"
            + (
                f"; in the GPU's own time `pe`'s eager prefill takes "
                f"{gpu[ours] / gpu['copy of q and k']:.2f}× a copy's and "
                f"{gpu[ours] / gpu[theirs]:.2f}× transformers compiled's."
                if (gpu := case["prefill"].get("device_us"))
                else "."
            )
        )
    return " ".join(sentences)


def cpu_kernel_summary() -> str:
    """Say what turned the CPU run's Llama layout, and how long building the C loop took."""
    facts = bench_facts()
    seconds = facts["cpu_kernel_build_seconds"]
    if seconds is None:
        return f"In the run above, the Llama layout was turned by {facts['cpu_kernel']}."
    return (
        f"In the run above, the Llama layout was turned by {facts['cpu_kernel']}; building "
        f"it into an empty cache took {seconds:.2f} s."
    )


def compiled_summary() -> str:
    """Compare the CPU run's compiled Llama-layout prefill with a copy and with transformers."""
    median = _results()["speed"]["median_ms"]
    copy = median["copy of q and k"]
    return (
        f"Compiled, the Llama-layout prefill of the CPU run above takes "
        f"{median['pe compiled'] / copy:.2f}× a copy's time (eager: "
        f"{median['pe eager (concatenated, Llama)'] / copy:.2f}×), and "
        f"{median['pe compiled'] / median['transformers compiled']:.2f}× the time of "
        "transformers' compiled module and apply."
    )
