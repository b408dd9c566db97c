"""RoPE's cos/sin cache and rotation: accuracy against mpmath, low precision, and speed.

Run with ``make bench`` (or ``python -m benchmarks.rope``); writes
``benchmarks/results/rope.json``, which the precision page and the README read.

* Accuracy: the float32 cos and sin of `pe.nn.RotaryEmbedding` and of
  transformers' ``LlamaRotaryEmbedding`` (head_dim 128, base 500000, with and
  without Llama 3.1's scaling) against mpmath at positions up to 2**20. The
  reference is cos and sin of ``p * theta_i`` in 50-digit arithmetic, with the
  rule's float64 frequencies.
* Low precision: bfloat16 and float16 tables, by where the rounding happens.
* Speed: rotating a (1, 32, 4096, 128) query and a (1, 8, 4096, 128) key,
  ours (table cached) against transformers' rotary module plus
  ``apply_rotary_pos_emb``, eager and compiled, in one run, alternating.
"""

from __future__ import annotations

import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any, TypedDict

import mpmath
import numpy as np
import torch
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

from benchmarks._common import environment, write
from pe._table import FLOAT32_BOUND
from pe.nn import RotaryEmbedding

THREADS = 2
HEAD_DIM, BASE = 128, 500000.0
LLAMA3 = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}
BUCKETS = ((0, 2**10), (2**10, 2**14), (2**14, 2**17), (2**17, 2**20))
PER_BUCKET = 24  # positions sampled per bucket (plus its two ends)
PAIRS = (0, 1, 8, 16, 24, 32, 40, 48, 56, 63)  # pairs checked with mpmath
SPEED_REPEATS = 7
mpmath.mp.dps = 50


class Accuracy(TypedDict):
    """One case of `accuracy`, as rope.json stores it."""

    case: str
    positions_checked: int
    pairs_checked: list[int]
    buckets: list[list[int]]
    ours_max_error_by_bucket: list[float]
    transformers_max_error_by_bucket: list[float]
    ours_max_error: float
    transformers_max_error: float
    low_precision: list[dict[str, object]]
    float16_angles_error_at_1857: float


class Speed(TypedDict):
    """The result of `speed`, as rope.json stores it."""

    q_shape: list[int]
    k_shape: list[int]
    repeats: int
    median_ms: dict[str, float]
    speedup_vs_transformers_eager: float
    speedup_vs_transformers_compiled: float
    compile_seconds: float
    targets: dict[str, float]


def modules(scaling: dict[str, object] | None) -> tuple[RotaryEmbedding, LlamaRotaryEmbedding]:
    config: dict[str, Any] = {
        "hidden_size": HEAD_DIM * 32,
        "num_attention_heads": 32,
        "max_position_embeddings": 131072,
        "rope_theta": BASE,
    }
    if scaling:
        config["rope_scaling"] = dict(scaling)
    ours = RotaryEmbedding.from_config(config)
    theirs = LlamaRotaryEmbedding(
        LlamaConfig(**{**config, "rope_scaling": dict(scaling or {}) or None})
    )
    return ours, theirs


def sample_positions(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    chosen: list[int] = []
    for low, high in BUCKETS:
        chosen += [low, high - 1, *rng.integers(low, high, PER_BUCKET).tolist()]
    chosen.append(1857)  # a position where float16 angles are known to go wrong
    return np.unique(np.asarray(chosen, dtype=np.int64))


def exact(positions: np.ndarray, frequencies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of p * theta_i in 50-digit arithmetic, for the pairs in PAIRS."""
    cos = np.empty((positions.size, len(PAIRS)))
    sin = np.empty_like(cos)
    for row, p in enumerate(positions.tolist()):
        for column, i in enumerate(PAIRS):
            angle = mpmath.mpf(p) * mpmath.mpf(float(frequencies[i]))
            cos[row, column] = float(mpmath.cos(angle))
            sin[row, column] = float(mpmath.sin(angle))
    return cos, sin


def by_bucket(positions: np.ndarray, errors: np.ndarray) -> list[float]:
    """Largest error (over pairs, cos and sin) within each bucket of positions."""
    worst = errors.max(axis=1)
    return [float(worst[(positions >= low) & (positions < high)].max()) for low, high in BUCKETS]


def accuracy(name: str, scaling: dict[str, object] | None) -> Accuracy:
    ours, theirs = modules(scaling)
    positions = sample_positions()
    cos_ref, sin_ref = exact(positions, ours.frequencies)
    pairs = list(PAIRS)

    def error(cos: torch.Tensor, sin: torch.Tensor) -> np.ndarray:
        c: np.ndarray = cos.double().numpy()[:, pairs]
        s: np.ndarray = sin.double().numpy()[:, pairs]
        worst: np.ndarray = np.maximum(np.abs(c - cos_ref), np.abs(s - sin_ref))
        return worst

    # Ours: rows of the cached table (the same rows the module rotates with).
    table_cos, table_sin = ours.table(int(positions.max()) + 1)
    index = torch.from_numpy(positions)
    ours_error = error(table_cos[index], table_sin[index])
    # Transformers' float32 cache, as its forward computes it.
    x = torch.zeros(1, dtype=torch.float32)
    hf_cos, hf_sin = theirs(x, index[None])
    theirs_error = error(hf_cos[0, :, : HEAD_DIM // 2], hf_sin[0, :, : HEAD_DIM // 2])

    low_precision: list[dict[str, object]] = []
    for dtype in (torch.bfloat16, torch.float16):
        label = str(dtype).removeprefix("torch.")
        variants = {
            # exact float32 table, rounded once to the low precision
            "table rounded once": ours.table(int(positions.max()) + 1)[0][index].to(dtype),
            # transformers: float32 angles and cos, cast to the input's dtype at the end
            "float32 angles, cast at the end": hf_cos[0, :, : HEAD_DIM // 2].to(dtype),
            # inv_freq rounded to the low precision (a module cast with .to(dtype))
            "frequencies rounded first": torch.cos(
                index.float()[:, None]
                * torch.from_numpy(ours.frequencies).to(dtype).float()[None, :]
            ),
            # angles formed in the low precision itself
            "angles in low precision": torch.cos(
                (
                    index.to(dtype)[:, None] * torch.from_numpy(ours.frequencies).to(dtype)[None, :]
                ).float()
            ),
        }
        for where, cos in variants.items():
            c = cos.double().numpy()[:, pairs]
            errors = np.abs(c - cos_ref)
            errors = np.where(np.isfinite(errors), errors, 2.0)  # overflow: no information
            low_precision.append(
                {
                    "dtype": label,
                    "where": where,
                    "max_error_by_bucket": by_bucket(positions, errors),
                }
            )
    at_1857 = int(np.flatnonzero(positions == 1857)[0])
    fp16_angles = (
        torch.cos(
            (
                index.to(torch.float16)[:, None]
                * torch.from_numpy(ours.frequencies).to(torch.float16)[None, :]
            ).float()
        )
        .double()
        .numpy()[at_1857, pairs]
    )
    return {
        "case": name,
        "positions_checked": int(positions.size),
        "pairs_checked": pairs,
        "buckets": [list(bucket) for bucket in BUCKETS],
        "ours_max_error_by_bucket": by_bucket(positions, ours_error),
        "transformers_max_error_by_bucket": by_bucket(positions, theirs_error),
        "ours_max_error": float(ours_error.max()),
        "transformers_max_error": float(theirs_error.max()),
        "low_precision": low_precision,
        "float16_angles_error_at_1857": float(np.abs(fp16_angles - cos_ref[at_1857]).max()),
    }


def speed() -> Speed:
    torch.manual_seed(0)
    q = torch.randn(1, 32, 4096, HEAD_DIM)
    k = torch.randn(1, 8, 4096, HEAD_DIM)
    ours, theirs = modules(LLAMA3)
    position_ids = torch.arange(4096)[None]

    def transformers_eager() -> object:
        cos, sin = theirs(q, position_ids)
        return apply_rotary_pos_emb(q, k, cos, sin)

    def ours_eager() -> object:
        return ours(q, k)

    def transformers_step(q: torch.Tensor, k: torch.Tensor, position_ids: torch.Tensor) -> object:
        cos, sin = theirs(q, position_ids)
        return apply_rotary_pos_emb(q, k, cos, sin)

    started = time.perf_counter()
    compiled_theirs = torch.compile(transformers_step)
    compiled_ours = torch.compile(ours)
    compiled_theirs(q, k, position_ids)
    compiled_ours(q, k)
    compile_seconds = time.perf_counter() - started

    candidates: dict[str, Callable[[], object]] = {
        "transformers eager": transformers_eager,
        "transformers compiled": lambda: compiled_theirs(q, k, position_ids),
        "pe eager (cached table)": ours_eager,
        "pe compiled": lambda: compiled_ours(q, k),
    }
    times: dict[str, list[float]] = {name: [] for name in candidates}
    with torch.inference_mode():
        for function in candidates.values():
            function()
        for _ in range(SPEED_REPEATS):  # alternate, so that load on the machine hits all alike
            for name, function in candidates.items():
                start = time.perf_counter()
                function()
                times[name].append(time.perf_counter() - start)
    median = {name: statistics.median(values) for name, values in times.items()}
    ours_ms = median["pe eager (cached table)"]
    return {
        "q_shape": list(q.shape),
        "k_shape": list(k.shape),
        "repeats": SPEED_REPEATS,
        "median_ms": {name: value * 1e3 for name, value in median.items()},
        "speedup_vs_transformers_eager": median["transformers eager"] / ours_ms,
        "speedup_vs_transformers_compiled": median["transformers compiled"] / ours_ms,
        "compile_seconds": compile_seconds,
        "targets": {"vs_eager": 1.5, "vs_compiled": 1.0},
    }


def main() -> None:
    torch.set_num_threads(THREADS)
    warnings.simplefilter("ignore")
    cases = [accuracy("no scaling", None), accuracy("llama3 (Llama 3.1)", LLAMA3)]
    for case in cases:
        print(
            f"{case['case']:>20}: ours max {case['ours_max_error']:.1e}, "
            f"transformers max {case['transformers_max_error']:.1e}"
        )
    timing = speed()
    print(
        "speed: "
        + ", ".join(f"{name} {value:.1f} ms" for name, value in timing["median_ms"].items())
        + f"; {timing['speedup_vs_transformers_eager']:.2f}x eager, "
        f"{timing['speedup_vs_transformers_compiled']:.2f}x compiled"
    )
    payload = {
        "head_dim": HEAD_DIM,
        "base": BASE,
        "accuracy": cases,
        "speed": timing,
        **environment(THREADS),
    }
    print(f"wrote {write('rope', payload).name}")
    missed = [case["case"] for case in cases if case["ours_max_error"] > FLOAT32_BOUND]
    if timing["speedup_vs_transformers_eager"] < 1.5:
        missed.append("speed vs transformers eager")
    if timing["speedup_vs_transformers_compiled"] < 1.0:
        missed.append("speed vs transformers compiled")
    if missed:
        raise SystemExit("targets missed: " + ", ".join(missed))


if __name__ == "__main__":
    main()
