"""Markdown tables computed from `pe` at build time.

Pages print these from executed code blocks, for example::

    ```python exec="on"
    from sitegen import tables
    print(tables.frequencies(d_model=16))
    ```

Each function takes the parameters the page shows, asks `pe` for the numbers
and returns a Markdown table; no number is typed by hand.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import pe
from sitegen.cache import cached_markdown
from sitegen.markdown import number, table


def frequencies(d_model: int, base: float = 10000.0) -> str:
    """One row per (sin, cos) pair: its columns, frequency and wavelength."""
    omega = pe.frequencies(d_model, base)
    wavelength = pe.wavelengths(d_model, base)
    rows = [
        [i, f"{2 * i}, {2 * i + 1}", number(omega[i], 6), number(wavelength[i], 2)]
        for i in range(omega.size)
    ]
    return table(["pair *i*", "columns", "ω<sub>i</sub>", "wavelength 2π/ω<sub>i</sub>"], rows)


def encoding(length: int, d_model: int, *, digits: int = 4, start: int = 0) -> str:
    """Print the table itself: one row per position, one column per dimension."""
    values = pe.sinusoidal(np.arange(start, start + length), d_model, dtype=np.float64)
    headers = ["pos"] + [f"{'sin' if j % 2 == 0 else 'cos'} {j}" for j in range(d_model)]
    rows = [[start + r, *(float(v) for v in values[r])] for r in range(length)]
    formats = [None] + [f"f{digits}"] * d_model  # one style per column: 0 shows as 0.0000
    return table(headers, rows, align="r" * len(headers), digits=digits, formats=formats)


def per_dimension(d_model: int, base: float = 10000.0) -> str:
    """Column j, its pair floor(j/2), the shared exponent 2*floor(j/2)/d, and sin or cos."""
    omega = pe.frequencies(d_model, base)
    rows = []
    for j in range(d_model):
        pair = j // 2
        rows.append(
            [
                j,
                "sin" if j % 2 == 0 else "cos",
                pair,
                f"{2 * pair}/{d_model}",
                number(omega[pair], 6),
            ]
        )
    headers = ["column *j*", "function", "pair ⌊j/2⌋", "exponent 2⌊j/2⌋/d", "ω"]
    return table(headers, rows, align="rlrrr")


def frequency_ratios(d_models: tuple[int, ...], base: float = 10000.0) -> str:
    """For several widths: the constant ratio between pairs and the wavelength range."""
    rows = []
    for d_model in d_models:
        omega = pe.frequencies(d_model, base)
        wavelength = pe.wavelengths(d_model, base)
        rows.append(
            [
                d_model,
                omega.size,
                number(omega[1] / omega[0], 6),
                number(wavelength[0], 4),
                number(wavelength[-1], 1),
            ]
        )
    headers = [
        "d",
        "pairs",
        "ratio ω<sub>i+1</sub>/ω<sub>i</sub>",
        "shortest wavelength",
        "longest wavelength",
    ]
    return table(headers, rows)


def frequency_details(d_model: int, base: float = 10000.0) -> str:
    """Per pair: frequency, wavelength, turn per position, positions before it wraps."""
    omega = pe.frequencies(d_model, base)
    wavelength = pe.wavelengths(d_model, base)
    rows = [
        [
            i,
            number(omega[i], 6),
            number(wavelength[i], 2),
            number(np.degrees(omega[i]), 4) + "°",
            int(np.ceil(wavelength[i])),
        ]
        for i in range(omega.size)
    ]
    headers = [
        "pair *i*",
        "ω<sub>i</sub> (rad per position)",
        "wavelength 2π/ω<sub>i</sub>",
        "turn per position",
        "positions before a full turn",
    ]
    return table(headers, rows)


def wavelength_range(d_models: tuple[int, ...], base: float = 10000.0) -> str:
    """Shortest and longest wavelength next to their closed forms."""
    rows = []
    for d_model in d_models:
        wavelength = pe.wavelengths(d_model, base)
        longest_formula = 2 * np.pi * base ** ((d_model - 2) / d_model)
        rows.append(
            [
                d_model,
                number(wavelength[0], 6),
                number(wavelength[-1], 2),
                number(longest_formula, 2),
                number(wavelength[-1] / (2 * np.pi * base), 5),
            ]
        )
    headers = [
        "d",
        "shortest (computed)",
        "longest (computed)",
        "2π·b<sup>(d−2)/d</sup>",
        "longest / (2π·b)",
    ]
    return table(headers, rows)


def closest_returns(d_model: int, pair: int, limits: tuple[int, ...]) -> str:
    """Where a pair comes back closest to its start, within several search limits."""
    rows = []
    for limit in limits:
        offset, gap = pe.closest_return(pair, d_model, max_offset=limit)
        turns = offset * pe.frequencies(d_model)[pair] / (2 * np.pi)
        rows.append([limit, offset, number(turns, 4), float(gap)])
    headers = ["search up to", "closest return at offset *k*", "turns made", "chord to start"]
    return table(headers, rows, formats=[None, None, None, "e1"])


def pair_gaps(d_model: int, offset: int) -> str:
    """Chord distance of every pair after `offset` positions, and the whole-vector distance."""
    gaps = pe.pair_distance(offset, d_model)
    wavelength = pe.wavelengths(d_model)
    rows = [[i, number(wavelength[i], 1), number(gaps[i], 4)] for i in range(gaps.size)]
    distance = float(pe.similarity(0, offset, d_model, measure="distance"))
    rows.append(["whole vector", "", f"**{number(distance, 4)}**"])
    return table(["pair *i*", "wavelength", f"distance after {offset} positions"], rows)


def rotation_checks(cases: tuple[tuple[int, int, int], ...], d_model: int) -> str:
    """PE(p+k) against M_k PE(p), pair by pair, for several (p, k, i)."""
    rows = []
    for position, offset, pair in cases:
        start = pe.sinusoidal(np.array([position]), d_model, dtype=np.float64)[0]
        target = pe.sinusoidal(np.array([position + offset]), d_model, dtype=np.float64)[0]
        block = pe.rotation_blocks(offset, d_model)[pair]
        rotated = block @ start[2 * pair : 2 * pair + 2]
        error = np.abs(rotated - target[2 * pair : 2 * pair + 2]).max()
        rows.append(
            [
                position,
                offset,
                pair,
                f"({number(target[2 * pair], 5)}, {number(target[2 * pair + 1], 5)})",
                f"({number(rotated[0], 5)}, {number(rotated[1], 5)})",
                float(error),
            ]
        )
    headers = ["*p*", "*k*", "pair *i*", "PE(p+k) pair", "block · PE(p) pair", "largest error"]
    return table(headers, rows, align="rrrllr", formats=[None] * 5 + ["e1"])


def shift_invariance(d_model: int, offset: int, positions: tuple[int, ...]) -> str:
    """Dot products PE(p)·PE(p+k) from explicit vectors, for one k and several p."""
    rows = []
    for position in positions:
        a, b = pe.sinusoidal(np.array([position, position + offset]), d_model, dtype=np.float64)
        rows.append([position, number(float(a @ a), 10), number(float(a @ b), 10)])
    return table(["*p*", "‖PE(p)‖²", f"PE(p)·PE(p+{offset})"], rows)


def dot_turning_points(d_model: int, max_offset: int, count: int = 5) -> str:
    """Where the dot product against the offset turns: first dips and rises, global minimum."""
    offsets = np.arange(max_offset + 1)
    dots = pe.similarity(0, offsets, d_model, measure="dot")
    step = np.diff(dots)
    minima = np.flatnonzero((step[:-1] < 0) & (step[1:] >= 0)) + 1
    maxima = np.flatnonzero((step[:-1] > 0) & (step[1:] <= 0)) + 1
    rows = []
    for low, high in zip(minima[:count], maxima[:count], strict=False):
        rows.append(["dip", int(low), number(dots[low], 3)])
        rows.append(["rises again to", int(high), number(dots[high], 3)])
    lowest = int(np.argmin(dots))
    rows.append([f"lowest value up to {max_offset}", lowest, number(dots[lowest], 3)])
    return table(["", "offset *k*", f"PE(0)·PE(k), d = {d_model}"], rows, align="lrr")


def worked_divisors(d_model: int, base: float = 10000.0) -> str:
    """Step 1 of the worked example: the divisor and the rate of each pair."""
    omega = pe.frequencies(d_model, base)
    rows = [
        [
            i,
            f"{2 * i}, {2 * i + 1}",
            f"{2 * i}/{d_model}",
            number(1 / omega[i], 4),
            number(omega[i], 6),
        ]
        for i in range(omega.size)
    ]
    headers = [
        "pair *i*",
        "columns",
        "exponent 2i/d",
        "divisor b<sup>2i/d</sup>",
        "rate ω<sub>i</sub>",
    ]
    return table(headers, rows)


def worked_angles(length: int, d_model: int, base: float = 10000.0) -> str:
    """Step 2: the angle p·ω_i for every position and pair."""
    theta = pe.angles(length, d_model, base)
    headers = ["*p*"] + [f"angle, pair {i}" for i in range(theta.shape[1])]
    rows = [[p, *(float(v) for v in theta[p])] for p in range(length)]
    formats = [None] + ["f4"] * theta.shape[1]
    return table(headers, rows, align="r" * len(headers), formats=formats)


def worked_position(position: int, d_model: int, base: float = 10000.0) -> str:
    """One position, column by column: function, exponent, rate, angle and value."""
    omega = pe.frequencies(d_model, base)
    values = pe.sinusoidal(np.array([position]), d_model, base=base, dtype=np.float64)[0]
    rows = []
    for j in range(d_model):
        pair = j // 2
        rows.append(
            [
                j,
                "sin" if j % 2 == 0 else "cos",
                f"{2 * pair}/{d_model}",
                number(omega[pair], 6),
                number(position * omega[pair], 6),
                number(values[j], 6),
            ]
        )
    headers = ["dimension *j*", "function", "exponent", "rate ω", f"angle {position}·ω", "value"]
    return table(headers, rows, align="rlrrrr")


def comparisons(pairs: tuple[tuple[int, int], ...], d_model: int) -> str:
    """Dot product, cosine similarity and distance from explicit vectors, per pair of positions."""
    rows = []
    for p, q in pairs:
        a, b = pe.sinusoidal(np.array([p, q]), d_model, dtype=np.float64)
        dot = float(a @ b)
        cosine = dot / float(np.linalg.norm(a) * np.linalg.norm(b))
        distance = float(np.linalg.norm(a - b))
        closed_form = float(pe.similarity(p, q, d_model, measure="dot"))
        rows.append(
            [
                f"{p} and {q}",
                q - p,
                number(dot, 4),
                number(closed_form, 4),
                number(cosine, 4),
                number(distance, 4),
            ]
        )
    headers = [
        "positions",
        "offset *k*",
        "dot product",
        "Σ cos(kω<sub>i</sub>)",
        "cosine similarity",
        "distance",
    ]
    return table(headers, rows, align="lrrrrr")


@cached_markdown
def uniqueness_grid(d_models: tuple[int, ...], lengths: tuple[int, ...]) -> str:
    """Smallest distance between two of the first N positions (and its offset), per d and N."""
    rows = []
    for d_model in d_models:
        # Distances depend only on the offset, so one pass over offsets 1 .. max(N) - 1
        # answers every N; pe.uniqueness(N, d) gives the same numbers one N at a time.
        offsets = np.arange(1, max(lengths))
        distances = pe.similarity(0, offsets, d_model, measure="distance")
        cells: list[object] = [d_model]
        for length in lengths:
            best = int(np.argmin(distances[: length - 1]))
            cells.append(f"{number(distances[best], 4)} (k = {offsets[best]})")
        rows.append(cells)
    headers = ["d"] + [f"N = {n:,}" for n in lengths]
    return table(headers, rows, align="r" * len(headers))


@cached_markdown
def property_checks(d_model: int, length: int) -> str:
    """Every property of the encoding, measured by its `pe` function over `length` positions."""
    low, high = pe.value_range(length, d_model)
    offsets = (1, 2, 17, 100, 1000)
    sample = np.arange(0, length, max(1, length // 2000))
    unique = pe.uniqueness(length, d_model)
    rows = [
        [
            "bounded",
            f"values in [{number(low, 6)}, {number(high, 6)}]",
            "within [−1, 1]",
            "`pe.value_range`",
        ],
        [
            "constant norm",
            f"largest ‖PE(p)‖² − d/2: {number(pe.norm_deviation(length, d_model), 2)}",
            f"0 (‖PE(p)‖² = d/2 = {d_model // 2})",
            "`pe.norm_deviation`",
        ],
        [
            "shift is a rotation",
            f"largest error of M<sub>k</sub>·PE(p): "
            f"{number(pe.rotation_error(sample, offsets, d_model), 2)}",
            "0, up to float64 rounding",
            "`pe.rotation_error`",
        ],
        [
            "unique",
            f"closest pair {number(unique.min_distance, 4)} apart, at offset {unique.offset}",
            "greater than 0",
            "`pe.uniqueness`",
        ],
    ]
    caption = (
        f"d = {d_model}, positions 0 to {length - 1:,}; the rotation check uses "
        f"{sample.size:,} starting positions and offsets {', '.join(map(str, offsets))}."
    )
    return table(["property", "measured", "expected", "function"], rows, align="llll") + (
        f"\n\n{caption}"
    )


def extrapolation_checks(train_length: int, test_lengths: tuple[int, ...], d_model: int) -> str:
    """Positions past a training length compared with those inside it."""
    rows = []
    for test_length in test_lengths:
        result = pe.extrapolation(train_length, test_length, d_model)
        rows.append(
            [
                f"{train_length:,} to {test_length - 1:,}",
                number(result.profile_deviation, 2),
                number(result.min_distance_to_training, 4),
                number(result.max_abs_value, 6),
            ]
        )
    headers = [
        "new positions",
        "similarity profile vs inside (largest gap)",
        "closest distance to a training position",
        "largest absolute value",
    ]
    return table(headers, rows, align="lrrr")


def _result(name: str) -> dict[str, object]:
    """Read a committed benchmark result, ``benchmarks/results/<name>.json``."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / f"{name}.json"
    data: dict[str, object] = json.loads(path.read_text())
    return data


def _and(items: list[str]) -> str:
    """Join words as prose: "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def modes_benchmark() -> str:
    """Tabulate the precomputed-table versus on-the-fly measurement, its spread and its verdict."""
    data = _result("modes")

    def timing(spread: dict[str, float]) -> str:
        return f"{spread['median_ms']:.3f} ({spread['q1_ms']:.3f}–{spread['q3_ms']:.3f})"

    def ratio(summary: dict[str, Any]) -> str:
        low, high = summary["ci95"]
        return f"{summary['median']:.2f} ({low:.2f}–{high:.2f})"

    rows = []
    separated, unresolved = [], []
    for row in data["rows"]:
        low, high = row["on_the_fly_over_table"]["ci95"]
        (unresolved if low <= 1.0 <= high else separated).append(f"{row['seq_len']:,}")
        rows.append(
            [
                row["seq_len"],
                timing(row["table"]),
                timing(row["on_the_fly"]),
                timing(row["addition_only"]),
                ratio(row["on_the_fly_over_table"]),
                ratio(row["table_over_addition"]),
            ]
        )
    machine = data["machine"]
    threads = machine["threads_used"]
    headers = [
        "seq_len",
        "table (ms)",
        "on the fly (ms)",
        "addition alone (ms)",
        "on the fly / table",
        "table / addition",
    ]
    note = (
        f"\n\nBatch {data['batch']}, d_model = {data['d_model']}; the table of max_len = "
        f"{data['max_len']:,} rows holds {data['table_bytes'] / 2**20:.0f} MiB. Times are the "
        f"median (and quartiles) of {data['rounds']} rounds in which the three calls ran in a "
        f"random order; ratios are the median of the per-round ratios with a bootstrap 95% "
        f"interval ({data['bootstrap']:,} resamples). Measured on {machine['cpu']} with "
        f"{threads} thread{'' if threads == 1 else 's'} (a CPU, so nothing here measures GPU "
        f"memory or speed), torch {data['versions']['torch']}, on {data['date']}, by "
        f"`{data['command']}`."
    )
    verdict = []
    if separated:
        verdict.append(
            f"On the fly is measurably slower than the table at seq_len = {_and(separated)} "
            "(the interval excludes 1)."
        )
    if unresolved:
        verdict.append(
            f"At seq_len = {_and(unresolved)} the interval contains 1: this run cannot tell "
            "the two apart; a difference there, if any, is within its noise."
        )
    return table(headers, rows, align="rrrrrr") + note + "\n\n" + " ".join(verdict)


def _milliseconds(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}"


def speed_benchmark() -> str:
    """Tabulate the committed speed measurement: every method, both frameworks, vs pe."""
    data = _result("table")
    sections = []
    for framework, label in (("numpy", "numpy, 1 thread"), ("torch", "torch, 2 threads")):
        rows = []
        for row in data[framework]:
            seconds = row["seconds"]
            ours = seconds["pe"]
            order = [
                "pe",
                *sorted(n for n in seconds if n not in ("pe", "allocate and fill")),
                "allocate and fill",
            ]
            for name in order:
                value = seconds[name]
                if name == "pe":
                    ratio = "—"
                elif name == "allocate and fill":
                    ratio = f"pe takes {ours / value:.2f}× this"
                else:
                    ratio = f"pe is {value / ours:.1f}× faster"
                size = f"{row['length']:,} × {row['d_model']:,}"
                rows.append(
                    [size, f"`{name}`" if name == "pe" else name, _milliseconds(value), ratio]
                )
        sections.append(
            f"**{label}**\n\n" + table(["table", "method", "ms", "vs pe"], rows, align="llrl")
        )
    return "\n\n".join(sections)


def benchmark_provenance() -> str:
    """Where and how the committed benchmark ran."""
    data = _result("table")
    machine = data["machine"]
    versions = data["versions"]
    cold = data["first_call_seconds"]
    cuda = (
        "no CUDA device was available, so there are no GPU rows"
        if not data["cuda"]
        else (f"GPU rows from {data['cuda'][0]['device']}")
    )
    return (
        f"Measured on {data['date']} with `{data['command']}`: {machine['cpu']}, "
        f"{machine['threads_used']} threads for torch, Python {data['python']}, numpy "
        f"{versions['numpy']}, torch {versions['torch']}; best of {data['repeats']} runs after "
        f"a warm-up call, every method in the same run; {cuda}. `pe` keeps a small cache of "
        "per-configuration factors; the first call for a new (d_model, base) took "
        f"{_milliseconds(cold['numpy'])} ms (numpy) and {_milliseconds(cold['torch'])} ms "
        "(torch) at the first size. All targets met: "
        f"**{'yes' if data['targets_met'] else 'no'}**."
    )


def speed_targets() -> str:
    """State the speed targets recorded by the table benchmark, each with its measured ratio."""
    data = _result("table")
    fill = " and ".join(f"`{code}`" for code in data["fill"].values())
    sizes, measured = [], []
    for length, d_model in data["sizes"]:
        target = data["targets"][f"{length}x{d_model}"]
        size = f"{length:,} × {d_model:,}"
        sizes.append(
            f"at {size}, `pe` at least {target['faster']:g} times as fast as (a) and (b) and "
            f"within {target['over_fill']:g} times the allocate-and-fill time"
        )
        for framework in ("numpy", "torch"):
            row = next(
                r for r in data[framework] if (r["length"], r["d_model"]) == (length, d_model)
            )
            seconds = row["seconds"]
            over = seconds["pe"] / seconds["allocate and fill"]
            verdict = "met" if over <= target["over_fill"] else "missed"
            measured.append(f"{framework} at {size}: {over:.2f}× ({verdict})")
    return (
        "The targets the benchmark checks (and fails loudly on), for numpy and torch alike: "
        + "; ".join(sizes)
        + f". Allocate and fill is {fill}. Measured, `pe` over allocate and fill: "
        + "; ".join(measured)
        + "."
    )


def error_benchmark() -> str:
    """Largest error against float64 for windows of positions, from the committed run."""
    data = _result("table")
    short = {
        "float32 rounding of the exact table": "exact, rounded to float32",
        "numpy (a) common float32": "(a)",
        "numpy (b) float64 angles, cast": "(b)",
        "numpy (c) fairseq concat": "(c)",
        "numpy pe": "`pe` (numpy)",
        "torch pe": "`pe` (torch)",
    }
    names = list(short)
    headers = ["positions"] + [short[name] for name in names]
    rows = [
        [f"{row['start']:,} to {row['stop']:,}", *(float(row[name]) for name in names)]
        for row in data["errors"]
    ]
    worst = data["pe_below_2_24"]
    note = (
        f"\n\nd_model = {data['error_d_model']}. Over {worst['random_windows']} windows of "
        f"{worst['window']:,} positions starting anywhere below 2²⁴ (d_model = "
        f"{worst['d_model']}), pe's largest error was {number(worst['max_error_float64'], 2)}; "
        f"in {worst['mpmath_spot_checks']} spot checks against 40-digit mpmath, "
        f"{number(worst['max_error_mpmath'], 2)}."
    )
    formats = [None] + ["e1"] * len(names)  # every error in one style, small or large
    return table(headers, rows, align="l" + "r" * len(names), formats=formats) + note


def memory_benchmark() -> str:
    """Largest temporary each method allocates, relative to its output."""
    data = _result("table")
    length, d_model = data["sizes"][-1]
    rows = [[row["method"], f"{row['extra_over_output']:.3f} ×"] for row in data["memory"]]
    return table(
        ["method", f"largest temporary / output ({length:,} × {d_model:,})"], rows, align="lr"
    )


def low_precision(d_model: int, ranges: tuple[tuple[int, int], ...]) -> str:
    """Errors of half-precision outputs and of angles formed in half precision, by range."""
    import torch

    import pe.nn
    from sitegen.examples import load

    angles_in = load("mistakes")["angles_in"]
    rows = []
    for low, high in ranges:
        positions = np.unique(np.linspace(low, high - 1, 1024).astype(np.int64))
        exact = np.empty((positions.size, d_model))
        theta = pe.angles(positions, d_model)
        exact[:, 0::2], exact[:, 1::2] = np.sin(theta), np.cos(theta)
        sines = exact[:, 0::2]
        cells: list[object] = [f"{low:,} to {high - 1:,}"]
        half = pe.sinusoidal(positions, d_model, dtype=np.float16).astype(np.float64)
        cells.append(number(np.abs(half - exact).max(), 2))
        brain = pe.nn.sinusoidal(torch.from_numpy(positions), d_model, dtype=torch.bfloat16)
        cells.append(number(np.abs(brain.double().numpy() - exact).max(), 2))
        for dtype in (torch.float16, torch.bfloat16, torch.float32):
            got = angles_in(dtype, torch.from_numpy(positions), d_model).double().numpy()
            error = np.abs(got - sines).max()
            cells.append("overflow" if not np.isfinite(error) else number(error, 2))
        rows.append(cells)
    headers = [
        "positions",
        "pe, float16 output",
        "pe, bfloat16 output",
        "angles in float16",
        "angles in bfloat16",
        "angles in float32",
    ]
    return table(headers, rows, align="lrrrrr")


def _pinned_version(package: str) -> str:
    """Return the version of `package` that constraints.txt pins for this Python."""
    from pathlib import Path

    from packaging.markers import Marker
    from packaging.utils import canonicalize_name

    wanted = canonicalize_name(package)
    path = Path(__file__).resolve().parents[1] / "constraints.txt"
    for line in path.read_text().splitlines():
        requirement, _, marker = line.partition(";")
        name, _, version = requirement.strip().partition("==")
        if canonicalize_name(name) != wanted:
            continue
        if not marker.strip() or Marker(marker.strip()).evaluate():
            return version
    raise LookupError(f"{package} is not pinned in constraints.txt")


def conventions_overview() -> str:
    """One row per named convention: every choice that makes encodings differ."""
    rows = [
        [
            f"`{c.name}`",
            c.layout,
            c.exponent,
            f"{c.base:g}",
            c.first_position,
            c.padding,
            c.odd,
            c.compute,
        ]
        for c in pe.conventions.values()
    ]
    headers = [
        "convention",
        "layout",
        "exponent",
        "base",
        "first position",
        "padding",
        "odd d_model",
        "computes in",
    ]
    return table(headers, rows, align="llllrlll")


def conventions_sources() -> str:
    """Where each convention was read, and whether the tests run the library itself."""
    rows = []
    for c in pe.conventions.values():
        checked = (
            f"run against {c.verified_with} {_pinned_version(c.verified_with)}"
            if c.verified_with
            else "**from source reading**"
        )
        models = ", ".join(c.models) if c.models else "—"
        rows.append([f"`{c.name}`", c.title, models, f"[{c.source}]({c.url})", checked])
    return table(
        ["convention", "used by", "same table in (tested)", "source (file, function)", "checked"],
        rows,
        align="lllll",
    )


def convention_details() -> str:
    """List where each convention was read, and its quirks (a definition list)."""
    blocks = []
    for convention in pe.conventions.values():
        blocks.append(
            f"`{convention.name}` — {convention.title}\n"
            f":   Read from {convention.source} ([source]({convention.url})). {convention.note}"
        )
    return "\n\n".join(blocks)


def convention_differences(d_model: int, length: int) -> str:
    """Largest difference between the encodings each library gives the first tokens."""
    names = list(pe.conventions)
    encodings = {name: pe.conventions[name].encode(length, d_model) for name in names}
    rows = []
    for first in names:
        cells: list[object] = [f"`{first}`"]
        for second in names:
            a, b = encodings[first], encodings[second]
            if a.shape != b.shape:
                cells.append("shape")
            else:
                difference = float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max())
                cells.append(difference)  # exact zero shows as 0
        rows.append(cells)
    headers = [""] + [f"`{name}`" for name in names]
    formats = [None] + ["e1"] * len(names)  # 2.0e0 beside 4.5e-6: one style per column
    return table(headers, rows, align="l" + "r" * len(names), formats=formats)


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


def extrapolation_results() -> str:
    """Tabulate the committed extrapolation run: loss by evaluation length per method."""
    data = _result("extrapolation")
    lengths = data["eval_lengths"]
    train = data["training"]["length"]
    best = data["task"]["entropy_rate"]
    rows = []
    for result in data["results"]:
        losses = {row["length"]: row["loss"] for row in result["eval"]}
        cells: list[object] = [f"`{result['method']}`"]
        cells += [f"{losses[length]:.3f}" for length in lengths]
        cells.append(f"{losses[lengths[-1]] - losses[train]:+.3f}")
        rows.append(cells)
    headers = (
        ["method"]
        + [f"{length}{' (trained)' if length == train else ''}" for length in lengths]
        + [f"change {train} → {lengths[-1]}"]
    )
    task, training, model = data["task"], data["training"], data["model"]
    threads = data["machine"]["threads_used"]
    note = (
        f"\n\nNext-token loss in nats (lower is better); the best possible is the chain's "
        f"entropy rate, {best:.3f}. Task: an order-{task['order']} Markov chain over "
        f"{task['vocab']} tokens (Dirichlet({task['concentration']}) transition rows). Model: "
        f"`examples/tiny_encoder.py`, {model['layers']} layer, {model['heads']} heads, "
        f"d_model = {model['d_model']}. Training: {training['steps']} steps of "
        f"{training['batch']} sequences of {train} tokens, {training['optimiser']} at "
        f"{training['learning_rate']}, the same data and seed for every method; evaluated on "
        f"{data['eval_sequences']} fresh sequences per length. Run by `{data['command']}` on "
        f"{data['date']} ({data['machine']['cpu']}, "
        f"{threads} thread{'' if threads == 1 else 's'}, "
        f"torch {data['versions']['torch']}) in {data['total_seconds']:.0f} s."
    )
    return table(headers, rows, align="l" + "r" * (len(lengths) + 1)) + note


def learned_row_similarity() -> str:
    """Mean cosine similarity of neighbouring learned rows, trained and untrained."""
    data = _result("extrapolation")
    rows = np.array(next(r for r in data["results"] if r["method"] == "learned")["learned_rows"])
    train = data["training"]["length"]
    unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    neighbours = np.sum(unit[1:] * unit[:-1], axis=1)  # row p against row p + 1
    trained = float(neighbours[: train - 1].mean())
    untrained = float(neighbours[train:].mean())
    return table(
        ["rows", "mean cosine similarity of neighbouring rows"],
        [
            [f"0 to {train - 1} (trained)", number(trained, 3)],
            [f"{train} to {rows.shape[0] - 1} (never trained)", number(untrained, 3)],
        ],
        align="lr",
    )


def extrapolation_summary() -> str:
    """Sentences read off the committed extrapolation run (so they follow the data)."""
    data = _result("extrapolation")
    train = data["training"]["length"]
    longest = data["eval_lengths"][-1]
    best = data["task"]["entropy_rate"]
    at_train = {r["method"]: r["eval"][0]["loss"] for r in data["results"]}
    at_long = {r["method"]: r["eval"][-1]["loss"] for r in data["results"]}
    methods = [m for m in at_train if m != "none"]  # "none" is the no-position baseline
    fit = sorted(methods, key=at_train.__getitem__)
    steady = sorted(methods, key=lambda m: at_long[m] - at_train[m])
    lowest_long = min(methods, key=at_long.__getitem__)
    lines = [
        f"- At the training length ({train} tokens), `{fit[0]}` comes closest to the best "
        f"possible loss ({at_train[fit[0]]:.3f} against {best:.3f}); `{fit[-1]}` is furthest "
        f"({at_train[fit[-1]]:.3f}).",
        f"- From {train} to {longest} tokens, the loss of `{steady[0]}` changes least "
        f"({at_long[steady[0]] - at_train[steady[0]]:+.3f}) and that of `{steady[-1]}` most "
        f"({at_long[steady[-1]] - at_train[steady[-1]]:+.3f}).",
        f"- At {longest} tokens the lowest loss is `{lowest_long}`'s ({at_long[lowest_long]:.3f}).",
    ]
    if "none" in at_train:
        lines.append(
            f"- Without any position information (`none`) the loss stays between "
            f"{at_train['none']:.3f} and {at_long['none']:.3f} at every length, "
            f"{at_train['none'] - best:.3f} above the best possible even where the others "
            "were trained."
        )
    return "\n".join(lines)


def exponent_ranges(d_models: tuple[int, ...]) -> str:
    """Compare the slowest frequency and the ratio per pair, paper vs tensor2tensor (b = 10000)."""
    paper, t2t = pe.conventions["paper"], pe.conventions["tensor2tensor"]
    rows = []
    for d in d_models:
        ours, theirs = paper.frequencies(d), t2t.frequencies(d)
        rows.append(
            [
                d,
                f"{ours[-1]:.3e}",
                f"{theirs[-1]:.3e}",
                f"{ours[1] / ours[0]:.4f}",
                f"{theirs[1] / theirs[0]:.4f}",
                f"{ours[-1] / theirs[-1]:.4f}",
            ]
        )
    headers = [
        "d",
        "paper: slowest ω",
        "tensor2tensor: slowest ω",
        "paper: ratio per pair",
        "tensor2tensor: ratio per pair",
        "slowest ω, paper ÷ tensor2tensor",
    ]
    return table(headers, rows, align="rrrrrr")


def _library_tables(rows: int, d_model: int) -> dict[str, tuple[str, np.ndarray]]:
    """Each runnable library's own table (rows 0 .. rows-1), by convention name."""
    import torch
    from positional_encodings.torch_encodings import PositionalEncoding1D
    from transformers.models.distilbert.modeling_distilbert import create_sinusoidal_embeddings
    from transformers.models.m2m_100.modeling_m2m_100 import M2M100SinusoidalPositionalEmbedding
    from transformers.models.marian.modeling_marian import MarianSinusoidalPositionalEmbedding
    from transformers.models.musicgen.modeling_musicgen import (
        MusicgenSinusoidalPositionalEmbedding,
    )
    from transformers.models.whisper.modeling_whisper import sinusoids

    distilbert = torch.empty(rows, d_model)
    create_sinusoidal_embeddings(rows, d_model, distilbert)
    return {
        "m2m100": (
            "M2M100SinusoidalPositionalEmbedding.get_embedding",
            M2M100SinusoidalPositionalEmbedding.get_embedding(rows, d_model, 1).numpy(),
        ),
        "marian": (
            "MarianSinusoidalPositionalEmbedding.create_weight",
            MarianSinusoidalPositionalEmbedding(rows, d_model).create_weight().numpy(),
        ),
        "distilbert": ("create_sinusoidal_embeddings", distilbert.numpy()),
        "whisper": ("sinusoids", sinusoids(rows, d_model).numpy()),
        "musicgen": (
            "MusicgenSinusoidalPositionalEmbedding.get_embedding",
            MusicgenSinusoidalPositionalEmbedding.get_embedding(rows, d_model).numpy(),
        ),
        "positional_encodings": (
            "PositionalEncoding1D",
            PositionalEncoding1D(d_model)(torch.zeros(1, rows, d_model))[0].numpy(),
        ),
    }


@cached_markdown
def convention_bit_equality(rows: int = 2048, d_model: int = 512) -> str:
    """How many entries of each emulated table equal the library's own, bit for bit."""
    angle_rounding = 2.0**-24 * (rows - 1)  # one float32 rounding of the largest angle
    lines = []
    for name, (function, theirs) in _library_tables(rows, d_model).items():
        ours = pe.conventions[name].table(rows, d_model)
        equal = float(np.mean(ours == theirs))
        difference = float(np.abs(ours.astype(np.float64) - theirs.astype(np.float64)).max())
        lines.append(
            [
                f"`{name}`",
                f"`{function}`",
                f"{100 * equal:.2f}%",
                "0" if difference == 0 else f"{difference:.1e}",
                f"{difference / angle_rounding:.2f}",
            ]
        )
    headers = [
        "convention",
        "library function",
        "entries bit-equal",
        "largest difference",
        "in float32 roundings of the largest angle",
    ]
    return table(headers, lines, align="llrrr")
