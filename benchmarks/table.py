"""Speed, accuracy and memory of `pe`'s table against the code people copy.

Run with ``make bench`` (or ``python -m benchmarks.table``). Every reference is
written out once, in numpy and in torch, in `benchmarks.recipes`, and timed in
the same run:

(a) the common float32 formulation: float32 angles, a table of zeros, strided
    writes of sin and cos (the PyTorch-tutorial recipe);
(b) angles in float64, sin and cos in float64, cast into a float32 table;
(c) the fairseq-style layout: float32 angles with the i/(d/2 - 1) exponent,
    sin and cos concatenated;

plus the time to allocate and fill an output of the same size, which bounds
any method from below (`FILL`: ``np.empty`` then ``ndarray.fill``, and
``torch.empty`` then ``Tensor.fill_``, with one float32 value). Each framework
is timed in three fresh processes, best of 15 calls in each, and every method
keeps its best time over all of them; `pe` and allocate-and-fill alternate call
by call, so that their ratio is taken under the same load.
Prints a table with ratios and checks `TARGETS`, the one definition of the
speed targets; writes ``benchmarks/results/table.json`` (each target next to its
measured ratio), which the "Precision and speed" page reads. Exits with status 1
if a target is missed.
"""

from __future__ import annotations

import multiprocessing
import sys
import time
import tracemalloc
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import mpmath
import numpy as np
import torch

import pe
import pe.nn.functional
from benchmarks._common import best_of, environment, write
from benchmarks.recipes import (
    BASE,
    float64_fairseq,
    float64_interleaved,
    np_common_float32,
    np_fairseq_concat,
    np_fill,
    np_float64_cast,
    torch_common_float32,
    torch_fairseq_concat,
    torch_fill,
    torch_float64_cast,
)
from pe._table import FLOAT32_BOUND

THREADS = 2
REPEATS = 15
PROCESSES = 3  # fresh processes per framework; each method keeps its best
SIZES = ((8192, 512), (65536, 1024))
#: The speed targets, per table size, for numpy and torch alike: `pe` at least
#: ``faster`` times as fast as (a) and (b), and at most ``over_fill`` times the
#: time of allocating and filling the output (`FILL`).
TARGETS: dict[tuple[int, int], dict[str, float]] = {
    (8192, 512): {"faster": 4.0, "over_fill": 1.5},
    (65536, 1024): {"faster": 3.0, "over_fill": 1.3},
}
TARGETED = ("(a) common float32", "(b) float64 angles, cast")
PAIRED = ("pe", "allocate and fill")  # timed alternately, see `time_all`
FILL = {
    "numpy": "np.empty((L, d), np.float32).fill(0.5)",
    "torch": "torch.empty(L, d).fill_(0.5)",
}
ERROR_STARTS = (0, 100, 10_000, 1_000_000, 10_000_000, 2**24 - 256)
ERROR_WINDOW = 256
ERROR_D = 512
BOUND = FLOAT32_BOUND


NUMPY = {
    "pe": lambda p, d: pe.sinusoidal(p, d),
    "(a) common float32": np_common_float32,
    "(b) float64 angles, cast": np_float64_cast,
    "(c) fairseq concat": np_fairseq_concat,
    "allocate and fill": np_fill,
}
TORCH = {
    "pe": lambda p, d: pe.nn.functional.sinusoidal(p, d),
    "(a) common float32": torch_common_float32,
    "(b) float64 angles, cast": torch_float64_cast,
    "(c) fairseq concat": torch_fairseq_concat,
    "allocate and fill": torch_fill,
}
EXACT = {
    "(c) fairseq concat": float64_fairseq,
}


def time_all(
    methods: dict[str, Callable[[Any, int], Any]],
    make_positions: Callable[[int], Any],
    sync: Callable[[], None] = lambda: None,
) -> list[dict[str, Any]]:
    rows = []
    for length, d_model in SIZES:
        positions = make_positions(length)

        def call(
            method: Callable[[Any, int], Any], positions: Any = positions, d_model: int = d_model
        ) -> Callable[[], None]:
            def run() -> None:
                method(positions, d_model)
                sync()

            return run

        times = {
            name: best_of(call(method), REPEATS)
            for name, method in methods.items()
            if name not in PAIRED
        }
        # pe and its floor, allocate and fill, alternate call by call: on a shared
        # machine both then see the same load, and their ratio (a target) with them.
        first, second = (call(methods[name]) for name in PAIRED)
        times.update(zip(PAIRED, best_of_pair(first, second, REPEATS), strict=True))
        times = {name: times[name] for name in methods}  # the table's order
        rows.append({"length": length, "d_model": d_model, "seconds": times})
    return rows


def best_of_pair(
    first: Callable[[], None], second: Callable[[], None], repeats: int
) -> tuple[float, float]:
    """Best wall times of `first` and `second`, called alternately (one warm-up each)."""
    first()
    second()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for function, record in ((first, times[0]), (second, times[1])):
            start = time.perf_counter()
            function()
            record.append(time.perf_counter() - start)
    return min(times[0]), min(times[1])


def cold_calls() -> dict[str, float]:
    """One call with every cache of `pe` emptied (the first call for a configuration)."""
    import pe._table
    import pe.nn._sinusoidal

    def clear() -> None:
        pe._table._step_table.cache_clear()
        pe._table._block_phasors.cache_clear()
        pe._table._run_heads.cache_clear()
        pe._table.plan_run.cache_clear()
        pe.nn._sinusoidal._device_steps.cache_clear()
        pe.nn._sinusoidal._device_heads.cache_clear()

    result = {}
    length, d_model = SIZES[0]
    for name, call in (
        ("numpy", lambda: pe.sinusoidal(length, d_model)),
        ("torch", lambda: pe.nn.functional.sinusoidal(length, d_model)),
    ):
        times = []
        for _ in range(5):
            clear()
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
        result[name] = min(times)
    return result


def errors() -> list[dict[str, Any]]:
    """Largest error against float64, per window of positions and per method."""
    rows = []
    for start in ERROR_STARTS:
        positions = np.arange(start, start + ERROR_WINDOW)
        exact = float64_interleaved(positions, ERROR_D)
        row: dict[str, Any] = {"start": start, "stop": start + ERROR_WINDOW - 1}
        for name, method in NUMPY.items():
            if name == "allocate and fill":
                continue
            reference = EXACT.get(name, float64_interleaved)(positions, ERROR_D)
            row[f"numpy {name}"] = float(np.abs(method(positions, ERROR_D) - reference).max())
        row["torch pe"] = float(
            np.abs(
                pe.nn.functional.sinusoidal(torch.from_numpy(positions), ERROR_D).numpy() - exact
            ).max()
        )
        row["float32 rounding of the exact table"] = float(
            np.abs(exact.astype(np.float32) - exact).max()
        )
        rows.append(row)
    return rows


def pe_worst_error() -> dict[str, Any]:
    """pe's error over random windows anywhere below 2**24, each with its own start."""
    rng = np.random.default_rng(0)
    worst = 0.0
    starts = rng.integers(0, 2**24 - 1024, size=48)
    for start in starts:
        positions = np.arange(start, start + 1024)
        worst = max(
            worst,
            float(
                np.abs(pe.sinusoidal(positions, 256) - float64_interleaved(positions, 256)).max()
            ),
        )
    mp_worst = 0.0
    table_rows = rng.integers(0, 2**24, size=16)
    got = pe.sinusoidal(table_rows, ERROR_D)
    with mpmath.workdps(40):
        for row, position in enumerate(table_rows):
            for column in rng.integers(0, ERROR_D, size=8):
                pair = int(column) // 2
                angle = mpmath.mpf(int(position)) / mpmath.power(
                    BASE, mpmath.mpf(2 * pair) / ERROR_D
                )
                exact = mpmath.sin(angle) if column % 2 == 0 else mpmath.cos(angle)
                mp_worst = max(mp_worst, abs(float(got[row, column]) - float(exact)))
    return {
        "random_windows": int(starts.size),
        "window": 1024,
        "d_model": 256,
        "max_error_float64": worst,
        "mpmath_spot_checks": int(table_rows.size * 8),
        "max_error_mpmath": mp_worst,
    }


def peak_memory() -> list[dict[str, Any]]:
    """Largest temporary beyond the output, as a fraction of the output, via tracemalloc."""
    rows = []
    length, d_model = SIZES[-1]
    positions = np.arange(length)
    output = length * d_model * 4
    for name, method in NUMPY.items():
        tracemalloc.start()
        result = method(positions, d_model)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del result
        rows.append({"method": name, "extra_over_output": (peak - output) / output})
    return rows


def cuda_rows() -> list[dict[str, Any]] | None:
    if not torch.cuda.is_available():
        return None
    device = torch.device("cuda")
    rows = time_all(
        TORCH,
        lambda n: torch.arange(n, device=device),
        torch.cuda.synchronize,
    )
    for row in rows:
        length, d_model = row["length"], row["d_model"]
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        table = pe.nn.functional.sinusoidal(torch.arange(length, device=device), d_model)
        torch.cuda.synchronize()
        extra = torch.cuda.max_memory_allocated() - base - table.numel() * 4
        row["pe_extra_over_output"] = extra / (table.numel() * 4)
        row["device"] = torch.cuda.get_device_name()
    return rows


def check_targets(rows: list[dict[str, Any]]) -> None:
    """Add each size's targets, the measured ratios and a verdict to its row, in place."""
    for row in rows:
        seconds = row["seconds"]
        ours = seconds["pe"]
        target = TARGETS[(row["length"], row["d_model"])]
        row["targets"] = {
            "faster_than": dict.fromkeys(TARGETED, target["faster"]),
            "over_fill": target["over_fill"],
        }
        row["ratios"] = {
            "faster_than": {name: seconds[name] / ours for name in TARGETED},
            "over_fill": ours / seconds["allocate and fill"],
        }
        row["met"] = {
            "faster_than": {name: seconds[name] / ours >= target["faster"] for name in TARGETED},
            "over_fill": ours / seconds["allocate and fill"] <= target["over_fill"],
        }


def report(title: str, framework: str, rows: list[dict[str, Any]]) -> list[str]:
    print(f"\n{title}; allocate and fill = {FILL[framework]}")
    failures = []
    check_targets(rows)
    for row in rows:
        seconds = row["seconds"]
        ours = seconds["pe"]
        size = f"{row['length']}x{row['d_model']}"
        print(f"  {row['length']:6d} x {row['d_model']:<5d}")
        for name, value in seconds.items():
            ratio = "" if name == "pe" else f"   pe is {value / ours:5.2f}x as fast"
            if name in TARGETED:
                ratio += f" (target >= {row['targets']['faster_than'][name]:g}x)"
            if name == "allocate and fill":
                ratio = f"   pe takes {ours / value:4.2f}x this"
                ratio += f" (target <= {row['targets']['over_fill']:g}x)"
            print(f"    {name:26s} {value * 1e3:9.3f} ms{ratio}")
        for name in TARGETED:
            if not row["met"]["faster_than"][name]:
                failures.append(
                    f"{title} {size}: {name} only {seconds[name] / ours:.2f}x "
                    f"(target {row['targets']['faster_than'][name]:g}x)"
                )
        if not row["met"]["over_fill"]:
            failures.append(
                f"{title} {size}: {row['ratios']['over_fill']:.2f}x the fill time "
                f"(target {row['targets']['over_fill']:g}x)"
            )
    return failures


def time_framework(framework: str) -> list[dict[str, Any]]:
    """Time one framework's methods; run in a fresh process so runs do not interact."""
    torch.set_num_threads(THREADS)
    # Every method builds the table for positions 0 .. L-1 from the length L.
    return time_all(NUMPY if framework == "numpy" else TORCH, lambda n: n)


def in_fresh_process(function: Callable[..., Any], *args: Any) -> Any:
    """Call `function` in a new interpreter: a clean heap and thread pool for each timing."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(function, *args).result()


def best_of_processes(framework: str) -> list[dict[str, Any]]:
    """Each method's best time over several fresh processes.

    On this kind of machine a method's timings can settle in a slow mode for a
    whole process (large temporaries that keep returning to the operating
    system); taking the best over fresh processes gives every method, the
    references included, its fast mode.
    """
    runs = [in_fresh_process(time_framework, framework) for _ in range(PROCESSES)]
    best: list[dict[str, Any]] = runs[0]
    for run in runs[1:]:
        for row, other in zip(best, run, strict=True):
            for name, value in other["seconds"].items():
                row["seconds"][name] = min(row["seconds"][name], value)
    return best


def main() -> int:
    torch.set_num_threads(THREADS)
    numpy_rows = best_of_processes("numpy")
    torch_rows = best_of_processes("torch")
    failures = report("numpy (pe.sinusoidal), 1 thread", "numpy", numpy_rows)
    failures += report(
        f"torch (pe.nn.functional.sinusoidal), {THREADS} threads", "torch", torch_rows
    )
    cold = cold_calls()
    print(
        f"\nfirst call for a configuration ({SIZES[0][0]} x {SIZES[0][1]}, caches empty): "
        f"numpy {cold['numpy'] * 1e3:.3f} ms, torch {cold['torch'] * 1e3:.3f} ms"
    )

    error_rows = errors()
    print(f"\nlargest error against float64, d_model = {ERROR_D}, {ERROR_WINDOW} positions")
    names = [key for key in error_rows[0] if key not in ("start", "stop")]
    for row in error_rows:
        cells = "  ".join(
            f"{name.split(' ', 1)[1] if name.startswith('numpy') else name}: {row[name]:.1e}"
            for name in names
        )
        print(f"  from {row['start']:>9,}: {cells}")
    worst = pe_worst_error()
    print(
        f"\npe below 2**24: largest error {worst['max_error_float64']:.2e} over "
        f"{worst['random_windows']} random windows; {worst['max_error_mpmath']:.2e} in "
        f"{worst['mpmath_spot_checks']} mpmath spot checks (bound {BOUND:.0e})"
    )
    pe_windows = max(row["numpy pe"] for row in error_rows)
    torch_windows = max(row["torch pe"] for row in error_rows)
    for label, value in (
        ("random windows", worst["max_error_float64"]),
        ("mpmath", worst["max_error_mpmath"]),
        ("numpy windows", pe_windows),
        ("torch windows", torch_windows),
    ):
        if value > BOUND:
            failures.append(f"error {label}: {value:.2e} > {BOUND:.0e}")

    memory = peak_memory()
    size = f"{SIZES[-1][0]} x {SIZES[-1][1]}"
    print(f"\nlargest temporary beyond the output, {size} (numpy, tracemalloc)")
    for row in memory:
        print(f"  {row['method']:26s} {row['extra_over_output']:6.3f} x the output")
    if next(r for r in memory if r["method"] == "pe")["extra_over_output"] > 1.0:
        failures.append("pe allocates a temporary larger than its output")

    cuda = cuda_rows()
    if cuda:
        report("torch on CUDA", "torch", cuda)
    else:
        print("\nno CUDA device here: GPU rows not measured")

    payload = {
        "sizes": [list(size) for size in SIZES],
        "repeats": REPEATS,
        "processes": PROCESSES,
        "numpy": numpy_rows,
        "torch": torch_rows,
        "first_call_seconds": cold,
        "cuda": cuda,
        "errors": error_rows,
        "error_d_model": ERROR_D,
        "error_window": ERROR_WINDOW,
        "pe_below_2_24": worst,
        "memory": memory,
        "targets": {f"{length}x{d_model}": target for (length, d_model), target in TARGETS.items()},
        "fill": FILL,
        "targets_met": not failures,
        **environment(THREADS),
    }
    print(f"\nwrote benchmarks/results/{write('table', payload).name}")
    if failures:
        print("\nTARGETS MISSED:\n  " + "\n  ".join(failures))
        return 1
    print("all targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
