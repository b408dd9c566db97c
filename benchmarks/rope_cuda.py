"""RoPE on a CUDA device: pe against transformers and a bare copy, side by side.

Run on a machine with a GPU: ``python -m benchmarks.rope_cuda``; writes
``benchmarks/results/rope_cuda.json`` (``--out PATH`` writes there instead).
Not part of ``make bench``: the project's machines have no GPU, so this is run
when one is lent, and its record says which device and when.

The same cases as ``benchmarks/rope.py``, Llama 3.1's head (128, base 500000,
its scaling), in float32 and bfloat16: a prefill (q (1, 32, 4096, 128), k (1, 8,
4096, 128)) and one decoding step (q (1, 32, 1, 128), k (1, 8, 1, 128) at
position 4000). Candidates: a bare copy of q and k, pe in both layouts,
transformers' ``apply_rotary_pos_emb`` with cos and sin given, and its rotary
module plus the apply (eager, and compiled with ``torch.compile``), and pe's
concatenated module compiled. Each sample
is the mean of many calls timed with CUDA events; the candidates alternate in
every round and the median of the rounds is kept.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import transformers
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

from benchmarks._common import RESULTS, environment
from benchmarks.rope import APPLY, BASE, COPY, HEAD_DIM, LLAMA3
from pe.nn import RotaryEmbedding

CONTEXT = 131072
ROUNDS = 15
PREFILL_CALLS = 20
DECODE_CALLS = 200
OFFSET = 4000
OURS = ("pe (concatenated, Llama)", "pe (interleaved)")


def _ours(layout: str, device: torch.device) -> RotaryEmbedding:
    config = {
        "head_dim": HEAD_DIM,
        "rope_theta": BASE,
        "rope_scaling": LLAMA3,
        "max_position_embeddings": CONTEXT,
    }
    return RotaryEmbedding.from_config(config, layout=layout).to(device)


def _theirs(device: torch.device) -> LlamaRotaryEmbedding:
    config = LlamaConfig(
        hidden_size=HEAD_DIM * 32,
        num_attention_heads=32,
        max_position_embeddings=CONTEXT,
        rope_theta=BASE,
        rope_scaling=dict(LLAMA3),
    )
    return LlamaRotaryEmbedding(config=config).to(device)


def medians_us(candidates: dict[str, Callable[[], object]], calls: int) -> dict[str, float]:
    """Median over `ROUNDS` of the mean time per call (microseconds), candidates alternating."""
    samples: dict[str, list[float]] = {name: [] for name in candidates}
    with torch.inference_mode():
        for function in candidates.values():
            for _ in range(3):
                function()
        torch.cuda.synchronize()
        for _ in range(ROUNDS):
            for name, function in candidates.items():
                start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
                end = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
                start.record()
                for _ in range(calls):
                    function()
                end.record()
                end.synchronize()
                samples[name].append(start.elapsed_time(end) * 1e3 / calls)
    return {name: statistics.median(values) for name, values in samples.items()}


def device_us(candidates: dict[str, Callable[[], object]], calls: int) -> dict[str, float]:
    """Microseconds per call of the GPU's own work (its kernels and copies), by the profiler.

    The medians above time calls back to back, so a call whose host work takes
    longer than its kernels is timed by its host; in a model the host runs ahead
    while the GPU works, and the GPU's time is what the call costs.
    """
    times: dict[str, float] = {}
    with torch.inference_mode():
        for name, function in candidates.items():
            function()
            torch.cuda.synchronize()
            activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
            with torch.profiler.profile(activities=activities) as profile:
                for _ in range(calls):
                    function()
                torch.cuda.synchronize()
            times[name] = (
                sum(
                    event.device_time_total
                    for event in profile.key_averages()
                    if event.device_type == torch.profiler.DeviceType.CUDA
                )
                / calls
            )
    return times


def case(dtype: torch.dtype, device: torch.device) -> dict[str, Any]:
    """Prefill and decoding medians for one dtype, with the compile time of transformers."""
    torch.manual_seed(0)
    ours = {
        name: _ours(layout, device)
        for name, layout in zip(OURS, ("concatenated", "interleaved"), strict=True)
    }
    theirs = _theirs(device)

    def transformers_step(q: torch.Tensor, k: torch.Tensor, ids: torch.Tensor) -> object:
        cos, sin = theirs(q, ids)
        return apply_rotary_pos_emb(q, k, cos, sin)

    compiled = torch.compile(transformers_step)
    ours_compiled = torch.compile(ours[OURS[0]])

    def measure(seq: int, offset: int, calls: int) -> dict[str, Any]:
        q = torch.randn(1, 32, seq, HEAD_DIM, device=device).to(dtype)
        k = torch.randn(1, 8, seq, HEAD_DIM, device=device).to(dtype)
        ids = torch.arange(offset, offset + seq, device=device)[None]
        started = time.perf_counter()
        with torch.inference_mode():
            compiled(q, k, ids)
            ours_compiled(q, k, offset=offset)
            cos, sin = theirs(q, ids)
        torch.cuda.synchronize()
        compile_seconds = time.perf_counter() - started
        concatenated, interleaved = ours[OURS[0]], ours[OURS[1]]
        candidates: dict[str, Callable[[], object]] = {
            COPY: lambda: (q.clone(), k.clone()),
            OURS[0]: lambda: concatenated(q, k, offset=offset),
            OURS[1]: lambda: interleaved(q, k, offset=offset),
            "pe compiled (concatenated)": lambda: ours_compiled(q, k, offset=offset),
            APPLY: lambda: apply_rotary_pos_emb(q, k, cos, sin),
            "transformers eager (module and apply)": lambda: transformers_step(q, k, ids),
            "transformers compiled": lambda: compiled(q, k, ids),
        }
        return {
            "q_shape": list(q.shape),
            "k_shape": list(k.shape),
            "offset": offset,
            "calls_per_sample": calls,
            "rounds": ROUNDS,
            "median_us": medians_us(candidates, calls),
            "device_us": device_us(candidates, calls),
            "compile_seconds": compile_seconds,
        }

    result: dict[str, Any] = {
        "dtype": str(dtype).removeprefix("torch."),
        "prefill": measure(4096, 0, PREFILL_CALLS),
        "decode": measure(1, OFFSET, DECODE_CALLS),
    }
    prefill, decode = result["prefill"]["median_us"], result["decode"]["median_us"]
    result["ratios"] = {
        **{f"{name} prefill / copy": prefill[name] / prefill[COPY] for name in OURS},
        **{f"{name} decode / {APPLY}": decode[name] / decode[APPLY] for name in OURS},
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=RESULTS / "rope_cuda.json")
    out = parser.parse_args().out
    if not torch.cuda.is_available():
        raise SystemExit("benchmarks.rope_cuda needs a CUDA device; torch sees none here")
    warnings.simplefilter("ignore")
    device = torch.device("cuda")
    cases = [case(dtype, device) for dtype in (torch.float32, torch.bfloat16)]
    for result in cases:
        for label in ("prefill", "decode"):
            for name, value in result[label]["median_us"].items():
                print(f"{result['dtype']:>8} {label:>7} {name:>40}: {value:9.1f} us")
        for name, value in result["ratios"].items():
            print(f"{result['dtype']:>8} {name}: {value:.2f}")
    properties = torch.cuda.get_device_properties(device)
    payload = {
        "head_dim": HEAD_DIM,
        "base": BASE,
        "device": {"name": properties.name, "multiprocessors": properties.multi_processor_count},
        "cuda": torch.version.cuda,
        "transformers": transformers.__version__,
        "cases": cases,
        **environment(torch.get_num_threads()),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
