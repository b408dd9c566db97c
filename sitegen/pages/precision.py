"""The precision page (precision.md): the committed speed, error and memory benchmarks."""

from __future__ import annotations

import numpy as np

from pe._table import FLOAT32_BOUND
from sitegen.markdown import number, table
from sitegen.results import provenance as _provenance
from sitegen.results import result as _result


def _milliseconds(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}"


def _tex_power(value: float, digits: int) -> str:
    r"""`value` as TeX, ``2.4 \times 10^{-7}``, with `digits` digits after the point."""
    mantissa, exponent = f"{value:.{digits}e}".split("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"


def bound_sentence() -> str:
    r"""State the float32 error bound: four roundings, and `FLOAT32_BOUND` that the tests check.

    Examples
    --------
    >>> print(bound_sentence())  # doctest: +ELLIPSIS
    That is \(4u \approx 2.4 \times 10^{-7}\); rounded up, \(3 \times 10^{-7}\) is the bound...
    """
    four_roundings = 4 * 2.0**-24
    return (
        rf"That is \(4u \approx {_tex_power(four_roundings, 1)}\); rounded up, "
        rf"\({_tex_power(FLOAT32_BOUND, 0)}\) is the bound `pe` states and the tests check "
        r"against float64 and mpmath at positions up to \(2^{24}\), at many start offsets."
    )


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
        f"Measured on {data['date']} with {_provenance('table')}: {machine['cpu']}, "
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

    import pe.nn.functional
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
        brain = pe.nn.functional.sinusoidal(
            torch.from_numpy(positions), d_model, dtype=torch.bfloat16
        )
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
