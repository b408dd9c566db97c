"""Precomputed table versus on-the-fly encoding in `pe.nn`: time per forward, with its spread.

Run with ``make bench`` (or ``python -m benchmarks.modes``); writes
``benchmarks/results/modes.json``, which the Implementation page reads.

A difference of a few percent is easily lost in the noise of a shared machine,
so the three calls (table, on the fly, and the addition alone for scale) are
timed in interleaved rounds, in a fresh random order each round, and compared
round by round: the ratio of two calls timed in the same round shares that
round's load. The result keeps every method's median and quartiles and, for
each ratio, the median over the rounds with a bootstrap 95% interval. Where the
interval contains 1, this run cannot tell the two apart.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypedDict

import numpy as np
import torch

from benchmarks._common import environment, write
from pe.nn import SinusoidalPositionalEncoding

THREADS = 1  # one thread: on a shared machine two threads spin-wait on each other
D_MODEL = 512
BATCH = 8
MAX_LEN = 8192
LENGTHS = (128, 512, 2048, 8192)
ROUNDS = 61
MIN_ROUND_SECONDS = 2e-3  # short calls are repeated within a round to reach this
BOOTSTRAP = 2000
SEED = 0


class RatioSummary(TypedDict):
    median: float
    ci95: list[float]


def calls_per_round(function: Callable[[], object]) -> int:
    """How many back-to-back calls make one timed sample of at least MIN_ROUND_SECONDS."""
    start = time.perf_counter()
    function()
    once = max(time.perf_counter() - start, 1e-7)
    return max(1, int(np.ceil(MIN_ROUND_SECONDS / once)))


def interleaved(
    functions: dict[str, Callable[..., object]], rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Seconds per call of each function, ROUNDS samples each, in shuffled order per round."""
    for function in functions.values():
        function()  # warm-up
    repeats = {name: calls_per_round(function) for name, function in functions.items()}
    samples: dict[str, list[float]] = {name: [] for name in functions}
    names = list(functions)
    for _ in range(ROUNDS):
        for index in rng.permutation(len(names)):
            name = names[index]
            function, count = functions[name], repeats[name]
            start = time.perf_counter()
            for _ in range(count):
                function()
            samples[name].append((time.perf_counter() - start) / count)
    return {name: np.array(times) for name, times in samples.items()}


def ratio_summary(
    numerator: np.ndarray, denominator: np.ndarray, rng: np.random.Generator
) -> RatioSummary:
    """Median of the per-round ratios and a bootstrap 95% interval of that median."""
    ratios = numerator / denominator
    draws = rng.integers(0, ratios.size, size=(BOOTSTRAP, ratios.size))
    medians = np.median(ratios[draws], axis=1)
    low, high = np.percentile(medians, [2.5, 97.5])
    return {"median": float(np.median(ratios)), "ci95": [float(low), float(high)]}


def spread(seconds: np.ndarray) -> dict[str, float]:
    """Median and quartiles, in milliseconds."""
    q1, median, q3 = np.percentile(seconds * 1e3, [25, 50, 75])
    return {"median_ms": float(median), "q1_ms": float(q1), "q3_ms": float(q3)}


def main() -> None:
    torch.set_num_threads(THREADS)
    rng = np.random.default_rng(SEED)
    precomputed = SinusoidalPositionalEncoding(D_MODEL, max_len=MAX_LEN).eval()
    on_the_fly = SinusoidalPositionalEncoding(D_MODEL, max_len=None).eval()
    rows: list[dict[str, Any]] = []
    with torch.inference_mode():
        for length in LENGTHS:
            x = torch.randn(BATCH, length, D_MODEL)
            times = interleaved(
                {
                    "table": lambda x=x: precomputed(x),
                    "on_the_fly": lambda x=x: on_the_fly(x),
                    "addition_only": lambda x=x: x + x[0],  # the addition alone, for scale
                },
                rng,
            )
            fly = ratio_summary(times["on_the_fly"], times["table"], rng)
            table_vs_add = ratio_summary(times["table"], times["addition_only"], rng)
            rows.append(
                {
                    "seq_len": length,
                    "table": spread(times["table"]),
                    "on_the_fly": spread(times["on_the_fly"]),
                    "addition_only": spread(times["addition_only"]),
                    "on_the_fly_over_table": fly,
                    "table_over_addition": table_vs_add,
                    "on_the_fly_extra_bytes": length * D_MODEL * 4,
                    "samples_ms": {
                        name: [round(t * 1e3, 6) for t in seconds]
                        for name, seconds in times.items()
                    },
                }
            )
            print(
                f"seq {length:5d}: table {rows[-1]['table']['median_ms']:7.3f} ms   "
                f"on the fly {rows[-1]['on_the_fly']['median_ms']:7.3f} ms   "
                f"addition alone {rows[-1]['addition_only']['median_ms']:7.3f} ms   "
                f"on the fly / table {fly['median']:.3f} "
                f"[{fly['ci95'][0]:.3f}, {fly['ci95'][1]:.3f}]"
            )
    payload = {
        "d_model": D_MODEL,
        "batch": BATCH,
        "max_len": MAX_LEN,
        "rounds": ROUNDS,
        "min_round_seconds": MIN_ROUND_SECONDS,
        "bootstrap": BOOTSTRAP,
        "table_bytes": MAX_LEN * D_MODEL * 4,
        "rows": rows,
        **environment(THREADS),
    }
    print(f"wrote {write('modes', payload).name}")


if __name__ == "__main__":
    main()
