"""RoPE's cos/sin cache and rotation: accuracy against mpmath, low precision, and speed.

Run with ``make bench`` (or ``python -m benchmarks.rope``); writes
``benchmarks/results/rope.json``, which the precision page and the README read.

* Accuracy: the float32 cos and sin of `pe.nn.RotaryEmbedding` and of
  transformers' ``LlamaRotaryEmbedding`` (head_dim 128, base 500000, with and
  without Llama 3.1's scaling) against mpmath at positions up to 2**20. The
  reference is cos and sin of ``p * theta_i`` in 50-digit arithmetic, with the
  rule's float64 frequencies.
* Low precision: bfloat16 and float16 tables, by where the rounding happens.
* Speed, on the CPU, every candidate in one run, alternating: a prefill
  (rotating a (1, 32, 4096, 128) query and a (1, 8, 4096, 128) key) and one
  decoding step (a (1, 32, 1, 128) query and a (1, 8, 1, 128) key at position
  4000), ours against a bare copy of q and k (and, for the prefill, the same
  copy into buffers written before, which shows what fresh memory costs, and
  our Llama layout with torch's operations only, ``PE_KERNELS=0``, as on a
  machine with no C compiler), transformers' rotary module plus
  ``apply_rotary_pos_emb`` (eager and compiled), ``apply_rotary_pos_emb`` alone
  with cos and sin given, and lucidrains' rotary-embedding-torch. Targets: the
  prefill within 1.3x the copy (each layout eager, and the Llama layout
  compiled), the step no slower than the apply alone, both ahead of every other
  implementation. ``benchmarks/rope_cuda.py`` times the same cases on a GPU.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any, TypedDict

import mpmath
import numpy as np
import torch
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

from benchmarks._common import environment, write
from pe._table import FLOAT32_BOUND
from pe.nn import RotaryEmbedding, _cpu_kernel

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
SPEED_REPEATS = 9
DECODE_REPEATS = 15  # rounds of the decoding step
DECODE_CALLS = 200  # calls per sample: one call takes microseconds
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


class Speed(TypedDict):
    """The result of `speed`, as rope.json stores it."""

    q_shape: list[int]
    k_shape: list[int]
    repeats: int
    median_ms: dict[str, float]
    speedup_vs_transformers_eager: float
    speedup_vs_transformers_compiled: float
    compile_seconds: float
    cpu_kernel: str
    cpu_kernel_build_seconds: float | None
    decode: dict[str, Any]
    load_average: list[float]
    targets: dict[str, float]
    met: dict[str, bool]


PE_PREFILL = ("pe eager (concatenated, Llama)", "pe eager (interleaved)")
COPY = "copy of q and k"
# The copy again, into buffers written before: what is left of COPY without the operating
# system's handing over (and zeroing) the fresh memory that any new result is written to.
COPY_INTO = "copy into buffers written before"
APPLY = "transformers apply only (cos, sin given)"
# pe's Llama layout without its C loop (pe.nn._cpu_kernel): torch's three operations.
TORCH_OPS = "pe eager (Llama), torch's operations only"
LUCIDRAINS = "rotary-embedding-torch"


def interleaved_medians(
    candidates: dict[str, Callable[[], object]], repeats: int, calls: int
) -> dict[str, float]:
    """Median seconds per call: every candidate once per round, rounds repeated.

    Alternating spreads the load of a shared machine over all candidates alike;
    each sample is the mean of `calls` calls (many for microsecond calls).
    """
    times: dict[str, list[float]] = {name: [] for name in candidates}
    with torch.inference_mode():
        for function in candidates.values():
            function()
        for _ in range(repeats):
            for name, function in candidates.items():
                start = time.perf_counter()
                for _ in range(calls):
                    function()
                times[name].append((time.perf_counter() - start) / calls)
    return {name: statistics.median(values) for name, values in times.items()}


def lucidrains() -> Any:
    """lucidrains' rotary-embedding-torch (interleaved pairs), if installed."""
    try:
        from rotary_embedding_torch import RotaryEmbedding as Theirs
    except ImportError:
        return None
    return Theirs(dim=HEAD_DIM, theta=BASE)


@contextlib.contextmanager
def environment_variable(name: str, value: str) -> Iterator[None]:
    """Run the block with `name` set to `value` in the environment, then as it was."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before


def without_kernels(function: Callable[[], object]) -> Callable[[], object]:
    """`function` run with ``PE_KERNELS=0``: as on a machine with no C compiler."""

    def run() -> object:
        with environment_variable("PE_KERNELS", "0"):
            return function()

    return run


def cpu_kernel_build_seconds() -> float | None:
    """Build pe's C loop as a first run does, into an empty cache; None where it is not built."""
    with tempfile.TemporaryDirectory() as folder, environment_variable("XDG_CACHE_HOME", folder):
        _cpu_kernel._LOADED.clear()
        _cpu_kernel._FAILED.clear()
        started = time.perf_counter()
        built = _cpu_kernel._library() is not None
        seconds = time.perf_counter() - started
    return seconds if built else None


def cpu_kernel(prefill: Callable[[], object]) -> str:
    """Say what turned the Llama layout in `prefill`: pe's C loop (its compiler), or torch's."""
    turned: list[bool] = []
    turn = _cpu_kernel.turn

    def watched(*args: Any) -> Any:
        out = turn(*args)
        turned.append(out is not None)
        return out

    setattr(_cpu_kernel, "turn", watched)  # noqa: B010  # mypy: a wrapper of another type
    try:
        prefill()
    finally:
        setattr(_cpu_kernel, "turn", turn)  # noqa: B010
    if not turned or not all(turned):
        reason = (
            _cpu_kernel._FAILED[0]
            if _cpu_kernel._FAILED
            else "PE_KERNELS=0"
            if os.environ.get("PE_KERNELS", "").strip() == "0"
            else "the loop did not take the input"
        )
        return f"torch's operations ({reason})"
    command = _cpu_kernel.compiler() or ["?"]
    try:
        version = subprocess.run(
            [*command, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        version = command[0]
    return f"pe's C loop, compiled by {version}"


def speed() -> Speed:
    build_seconds = cpu_kernel_build_seconds()
    torch.manual_seed(0)
    q = torch.randn(1, 32, 4096, HEAD_DIM)
    k = torch.randn(1, 8, 4096, HEAD_DIM)
    ours, theirs = modules(LLAMA3)
    ours_interleaved = RotaryEmbedding.from_config(
        {
            "head_dim": HEAD_DIM,
            "rope_theta": BASE,
            "rope_scaling": LLAMA3,
            "max_position_embeddings": 131072,
        },
        layout="interleaved",
    )
    position_ids = torch.arange(4096)[None]
    other = lucidrains()

    def transformers_step(q: torch.Tensor, k: torch.Tensor, position_ids: torch.Tensor) -> object:
        cos, sin = theirs(q, position_ids)
        return apply_rotary_pos_emb(q, k, cos, sin)

    started = time.perf_counter()
    compiled_theirs = torch.compile(transformers_step)
    compiled_ours = torch.compile(ours)
    compiled_theirs(q, k, position_ids)
    compiled_ours(q, k)
    compile_seconds = time.perf_counter() - started
    with torch.no_grad():
        cos, sin = theirs(q, position_ids)

    q_buffer, k_buffer = torch.zeros_like(q), torch.zeros_like(k)
    prefill: dict[str, Callable[[], object]] = {
        COPY: lambda: (q.clone(), k.clone()),
        COPY_INTO: lambda: (q_buffer.copy_(q), k_buffer.copy_(k)),
        PE_PREFILL[0]: lambda: ours(q, k),
        PE_PREFILL[1]: lambda: ours_interleaved(q, k),
        TORCH_OPS: without_kernels(lambda: ours(q, k)),
        "pe compiled": lambda: compiled_ours(q, k),
        "transformers eager (module and apply)": lambda: transformers_step(q, k, position_ids),
        "transformers compiled": lambda: compiled_theirs(q, k, position_ids),
        APPLY: lambda: apply_rotary_pos_emb(q, k, cos, sin),
    }
    if other is not None:
        prefill[LUCIDRAINS] = lambda: (
            other.rotate_queries_or_keys(q),
            other.rotate_queries_or_keys(k),
        )
    median = interleaved_medians(prefill, SPEED_REPEATS, 1)

    # One decoding step: a token at position 4000 (its keys and values before it cached).
    offset = 4000
    q1 = torch.randn(1, 32, 1, HEAD_DIM)
    k1 = torch.randn(1, 8, 1, HEAD_DIM)
    step_ids = torch.tensor([[offset]])
    with torch.no_grad():
        cos1, sin1 = theirs(q1, step_ids)
    compiled_theirs(q1, k1, step_ids)
    decode: dict[str, Callable[[], object]] = {
        COPY: lambda: (q1.clone(), k1.clone()),
        "pe eager (concatenated, Llama)": lambda: ours(q1, k1, offset=offset),
        "pe eager (interleaved)": lambda: ours_interleaved(q1, k1, offset=offset),
        APPLY: lambda: apply_rotary_pos_emb(q1, k1, cos1, sin1),
        "transformers eager (module and apply)": lambda: transformers_step(q1, k1, step_ids),
        "transformers compiled": lambda: compiled_theirs(q1, k1, step_ids),
    }
    if other is not None:
        decode[LUCIDRAINS] = lambda: (
            other.rotate_queries_or_keys(q1, offset=offset),
            other.rotate_queries_or_keys(k1, offset=offset),
        )
    step = interleaved_medians(decode, DECODE_REPEATS, DECODE_CALLS)

    peers = [
        name for name in median if not name.startswith("pe ") and name not in (COPY, COPY_INTO)
    ]
    slowest_ours = max(median[name] for name in PE_PREFILL)
    step_peers = [name for name in step if not name.startswith("pe ") and name != COPY]
    slowest_step = max(step[name] for name in PE_PREFILL)
    targets = {"prefill_vs_copy": 1.3, "decode_vs_transformers_apply": 1.0}
    met = {
        "prefill within 1.3x a copy (Llama layout)": median[PE_PREFILL[0]] / median[COPY]
        <= targets["prefill_vs_copy"],
        "prefill within 1.3x a copy (interleaved)": median[PE_PREFILL[1]] / median[COPY]
        <= targets["prefill_vs_copy"],
        "prefill within 1.3x a copy (Llama layout, compiled)": median["pe compiled"] / median[COPY]
        <= targets["prefill_vs_copy"],
        "prefill ahead of every peer": all(slowest_ours < median[name] for name in peers),
        "decode no slower than transformers' apply": slowest_step
        <= targets["decode_vs_transformers_apply"] * step[APPLY],
        "decode ahead of every peer": all(slowest_step < step[name] for name in step_peers),
    }
    ours_ms = median[PE_PREFILL[0]]
    return {
        "q_shape": list(q.shape),
        "k_shape": list(k.shape),
        "repeats": SPEED_REPEATS,
        "median_ms": {name: value * 1e3 for name, value in median.items()},
        "speedup_vs_transformers_eager": median["transformers eager (module and apply)"] / ours_ms,
        "speedup_vs_transformers_compiled": median["transformers compiled"] / ours_ms,
        "compile_seconds": compile_seconds,
        "cpu_kernel": cpu_kernel(prefill[PE_PREFILL[0]]),
        "cpu_kernel_build_seconds": build_seconds,
        "decode": {
            "q_shape": list(q1.shape),
            "k_shape": list(k1.shape),
            "offset": offset,
            "repeats": DECODE_REPEATS,
            "calls_per_sample": DECODE_CALLS,
            "median_us": {name: value * 1e6 for name, value in step.items()},
        },
        "load_average": [round(value, 2) for value in os.getloadavg()],
        "targets": targets,
        "met": met,
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
    for name, value in timing["median_ms"].items():
        print(f"prefill {name:>42}: {value:8.1f} ms")
    for name, value in timing["decode"]["median_us"].items():
        print(f"decode  {name:>42}: {value:8.1f} us")
    print(
        f"Llama layout turned by {timing['cpu_kernel']} "
        f"(built in {timing['cpu_kernel_build_seconds'] or 0:.2f} s)"
    )
    print(f"load average {timing['load_average']}")
    payload = {
        "head_dim": HEAD_DIM,
        "base": BASE,
        "accuracy": cases,
        "speed": timing,
        **environment(THREADS),
    }
    print(f"wrote {write('rope', payload).name}")
    missed = [case["case"] for case in cases if case["ours_max_error"] > FLOAT32_BOUND]
    missed += [target for target, met in timing["met"].items() if not met]
    if missed:
        raise SystemExit("targets missed: " + ", ".join(missed))


if __name__ == "__main__":
    main()
