"""Sentences and tables that back the guide's prose claims with numbers computed at build time.

Pages print these from executed code blocks, as they do `sitegen.pages`; the
tests in ``tests/test_claims.py`` check the same claims against independent
computations.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import pe
from sitegen.cache import cached_markdown
from sitegen.markdown import fixed, number, scientific, table

ROOT = Path(__file__).resolve().parents[1]
_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _count(value: int) -> str:
    """Write a small count in words, a larger one in digits."""
    return _WORDS[value] if 0 <= value < len(_WORDS) else f"{value:,}"


def mistake_sections() -> list[str]:
    """Names of the `examples/mistakes.py` sections that the mistakes page includes, in order."""
    page = (ROOT / "docs" / "mistakes.md").read_text(encoding="utf-8")
    return re.findall(r'--8<-- "examples/mistakes\.py:([\w-]+)"', page)


def mistakes_census() -> str:
    """How many mistakes the page shows, and how many of them raise an error."""
    from sitegen.examples import load

    sections = mistake_sections()
    found = load("mistakes")["symptoms"]()
    raising = [name for name, value in found.items() if name.endswith(" error") and value]
    silent = len(sections) - len(raising)
    cases = " and ".join(f"the {name.removesuffix(' error')} case" for name in raising)
    loud = (
        f" The other {_count(len(raising))}, {cases}, fails loudly with an error, shown in its "
        "section."
        if raising
        else ""
    )
    return (
        f"The page shows {_count(len(sections))} mistakes. {_count(silent).capitalize()} of them "
        f"raise no error: the model trains, just worse.{loud}"
    )


def float16_limits() -> dict[str, int | float]:
    """Where float16 stops holding whole numbers, its largest finite value, where it overflows."""
    import torch

    integers = np.arange(1, 70_000, dtype=np.float64)
    with np.errstate(over="ignore"):
        rounded = integers.astype(np.float16).astype(np.float64)
    overflow = integers[np.isinf(rounded)]
    brain = torch.arange(1, 1_000, dtype=torch.float64)
    brain_inexact = brain[brain.to(torch.bfloat16).double() != brain]
    return {
        "float16 first inexact integer": int(integers[rounded != integers][0]),
        "float16 largest finite": float(np.finfo(np.float16).max),
        "float16 first integer to overflow": int(overflow[0]),
        "float16 last integer below overflow rounds to": float(
            np.float16(overflow[0] - 1).astype(np.float64)
        ),
        "float16 significant bits": int(np.finfo(np.float16).nmant) + 1,
        "bfloat16 significant bits": 1 - int(np.log2(torch.finfo(torch.bfloat16).eps)),
        "bfloat16 first inexact integer": int(brain_inexact[0]),
    }


def float16_sentence() -> str:
    """State the half-precision limits that make angles formed in half precision useless."""
    limits = float16_limits()
    first = limits["float16 first inexact integer"]
    top = limits["float16 largest finite"]
    over = limits["float16 first integer to overflow"]
    return (
        f"float16 keeps {limits['float16 significant bits']} significant bits: it holds every "
        f"whole number exactly only up to {first - 1:,} ({first:,} already rounds), its largest "
        f"finite value is {top:,.0f}, and rounding sends every number from {over:,} up to "
        f"infinity ({over - 1:,} still rounds down to "
        f"{limits['float16 last integer below overflow rounds to']:,.0f}). bfloat16 keeps "
        f"{limits['bfloat16 significant bits']} significant bits, so it is exact only up to "
        f"{limits['bfloat16 first inexact integer'] - 1:,}."
    )


def _low_precision_errors(low: int, high: int, d_model: int, chunk: int = 1 << 15) -> list[float]:
    """Return the true largest errors over every integer position in [low, high), in chunks."""
    import warnings

    import torch

    import pe.nn.functional
    from sitegen.examples import load

    angles_in = load("mistakes")["angles_in"]
    worst = np.zeros(5)
    for start in range(low, high, chunk):
        positions = np.arange(start, min(start + chunk, high), dtype=np.int64)
        theta = pe.angles(positions, d_model)
        exact = np.empty((positions.size, d_model))
        exact[:, 0::2], exact[:, 1::2] = np.sin(theta), np.cos(theta)
        sines = exact[:, 0::2]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            half = pe.sinusoidal(positions, d_model, dtype=np.float16).astype(np.float64)
            brain = pe.nn.functional.sinusoidal(
                torch.from_numpy(positions), d_model, dtype=torch.bfloat16
            )
        errors = [np.abs(half - exact).max(), np.abs(brain.double().numpy() - exact).max()]
        for dtype in (torch.float16, torch.bfloat16, torch.float32):
            got = angles_in(dtype, torch.from_numpy(positions), d_model).double().numpy()
            errors.append(np.abs(got - sines).max())  # NaN where an angle overflowed
        worst = np.fmax(worst, np.where(np.isnan(errors), np.inf, errors))
    return [float(value) for value in worst]


def low_precision_ranges() -> tuple[tuple[int, int], ...]:
    """Ranges of positions split where float16 stops being exact and where it overflows."""
    limits = float16_limits()
    exact = int(limits["float16 first inexact integer"]) - 1
    over = int(limits["float16 first integer to overflow"])
    return ((0, 256), (256, exact + 1), (exact + 1, 16_384), (16_384, over), (over, 2**18))


@cached_markdown
def low_precision_exhaustive(d_model: int, ranges: tuple[tuple[int, int], ...]) -> str:
    """Largest error over every position of each range: half-precision outputs and angles."""
    rows = []
    for low, high in ranges:
        errors = _low_precision_errors(low, high, d_model)
        cells: list[object] = [f"{low:,} to {high - 1:,}", f"{high - low:,}"]
        cells += ["overflow" if np.isinf(e) else e for e in errors]
        rows.append(cells)
    headers = [
        "positions",
        "positions checked",
        "pe, float16 output",
        "pe, bfloat16 output",
        "angles in float16",
        "angles in bfloat16",
        "angles in float32",
    ]
    formats = [None, None] + ["e1"] * 5  # every error in one style, small or large
    return table(headers, rows, align="lrrrrrr", formats=formats)


def low_precision_agreement(d_model: int = 64) -> str:
    """Set the mistakes page's half-precision symptoms beside the table's ranges that hold them."""
    from sitegen.examples import load

    found = load("mistakes")["symptoms"]()
    columns = {"float16": 2, "bfloat16": 3, "float32": 4}  # index in _low_precision_errors
    ranges = low_precision_ranges()
    lines = []
    for name, value in found.items():
        match = re.fullmatch(r"(\w+) angles, positions (\d+)-(\d+)", name)
        if not match:
            continue
        dtype, first, last = match.group(1), int(match.group(2)), int(match.group(3))
        covering = [(low, high) for low, high in ranges if low <= last and first < high]
        if not covering or covering[-1][1] <= last:
            continue
        entry = max(
            _low_precision_errors(low, high, d_model)[columns[dtype]] for low, high in covering
        )
        spans = " and ".join(f"{low:,} to {high - 1:,}" for low, high in covering)
        lines.append(
            f"- {dtype} angles, positions {first:,} to {last:,}: "
            f"**{scientific(float(value), 1)}** on the mistakes page; the table's "
            f"{'ranges' if len(covering) > 1 else 'range'} "
            f"{spans}: **{scientific(entry, 1)}**."
        )
    return "\n".join(lines)


def _rotation_errors(
    positions: np.ndarray, offset: int, d_model: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per (position, pair): the angle (p+k)·ω_i and |R_i(k) PE_i(p) - PE_i(p+k)|, for k >= 0."""
    start = pe.sinusoidal(positions, d_model, dtype=np.float64).reshape(-1, d_model // 2, 2)
    target = pe.sinusoidal(positions + offset, d_model, dtype=np.float64)
    target = target.reshape(-1, d_model // 2, 2)
    blocks = pe.rotation_blocks(offset, d_model)  # (pairs, 2, 2)
    rotated = np.einsum("iab,pib->pia", blocks, start)
    errors = np.abs(rotated - target).max(axis=-1)
    angles = pe.angles(positions + offset, d_model)  # the largest angle involved
    return angles, errors


@cached_markdown
def rotation_error_by_angle(d_model: int, offsets: tuple[int, ...], count: int = 4000) -> str:
    """Largest rotation-check error, grouped by the size of the angle p·ω_i rather than by p."""
    rng = np.random.default_rng(0)
    positions = np.unique(np.round(10 ** rng.uniform(0, 7, count)).astype(np.int64))
    angle_list, error_list = [], []
    for offset in offsets:
        angles, errors = _rotation_errors(positions, offset, d_model)
        angle_list.append(angles.ravel())
        error_list.append(errors.ravel())
    angles, errors = np.concatenate(angle_list), np.concatenate(error_list)
    superscript = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    rows = []
    for low in range(-3, 7):
        high = low + 1
        inside = (angles >= 10.0**low) & (angles < 10.0**high)
        if not inside.any():
            continue
        rows.append(
            [
                f"10{str(low).translate(superscript)} to 10{str(high).translate(superscript)}",
                f"{int(inside.sum()):,}",
                number(float(errors[inside].max()), 1),
                number(float(max(10.0**high, 1.0) * np.finfo(np.float64).eps), 1),
            ]
        )
    return table(
        [
            r"largest angle \((p+k)\,\omega_i\) (radians)",
            "checks",
            "largest error",
            "max(upper end, 1) × float64 epsilon",
        ],
        rows,
        align="lrrr",
    )


def rotation_case_angles(cases: tuple[tuple[int, int, int], ...], d_model: int) -> str:
    """Name the largest angle (p+k)·ω_i of each checked case, beside its error's size."""
    parts = []
    for position, offset, pair in cases:
        omega = pe.frequencies(d_model)[pair]
        angle = max(abs(position), abs(position + offset)) * omega
        parts.append(f"{angle:,.1f} for p = {position:,}, i = {pair}")
    return "The largest angle in each row: " + "; ".join(parts) + "."


def alibi_heads_note() -> str:
    """Say how the committed run's head count sets ALiBi's slopes, and what that confounds."""
    from fractions import Fraction

    from sitegen.results import result

    data = result("trained")
    heads, train = data["settings"]["heads"], data["settings"]["train_length"]
    slopes = data["alibi_slopes"]

    def fractions(values: list[float]) -> str:
        shown = [str(Fraction(value).limit_denominator(1 << 20)) for value in values]
        return ", ".join(shown[:-1]) + " and " + shown[-1]

    fewer = [float(s) for s in pe.alibi_slopes(2)]
    paper = [float(s) for s in pe.alibi_slopes(8)]
    reach = train - 1
    return (
        f"ALiBi's slopes follow from the number of heads. This run has {heads} heads, so they "
        f"are {fractions(slopes)}: across the {train} trained positions the steepest head lowers "
        f"the score of the farthest key by {number(max(slopes) * reach, 2)} and the flattest "
        f"by only {number(min(slopes) * reach, 2)}. With 2 heads they would be "
        f"{fractions(fewer)}, lowering it by at most {number(max(fewer) * reach, 2)}; since "
        "the bias is ALiBi's only explicit position signal and neighbouring keys would "
        f"differ in it by at most {Fraction(max(fewer)).limit_denominator()}, a model could "
        "barely tell the last token from the one before, so the benchmark does not use 2. "
        f"The paper's rule for 8 heads starts at {Fraction(paper[0]).limit_denominator()}, so "
        f"with {heads} heads ALiBi's loss at the training length still reflects the small "
        "number of heads as well as the method."
    )


def offset_terms(d_model: int, offsets: tuple[int, ...]) -> str:
    """Each pair's share cos(k·ω_i) of the dot product, for a few offsets k, with the turns made."""
    omega = pe.frequencies(d_model)
    headers = ["pair *i*", "ω<sub>i</sub>"]
    formats: list[str | None] = [None, "f6"]
    for k in offsets:
        headers += [f"turns at *k* = {k}", f"cos({k}·ω<sub>i</sub>)"]
        formats += ["f3", "f4"]
    rows: list[list[object]] = []
    for i, rate in enumerate(omega):
        row: list[object] = [i, float(rate)]
        for k in offsets:
            row += [float(k * rate / (2 * np.pi)), float(np.cos(k * rate))]
        rows.append(row)
    total: list[object] = ["sum (dot product)", ""]
    for k in offsets:
        total += ["", float(np.cos(k * omega).sum())]
    rows.append(total)
    return table(headers, rows, align="l" + "r" * (len(headers) - 1), formats=formats)


def offset_surprise(d_model: int, near: int, far: int) -> str:
    """Explain why offset `far` scores above offset `near`: the pairs that nearly come back."""
    omega = pe.frequencies(d_model)
    near_terms, far_terms = np.cos(near * omega), np.cos(far * omega)
    gain = far_terms - near_terms
    leaders = np.argsort(gain)[::-1][:2]
    turns = far * omega[leaders[0]] / (2 * np.pi)
    whole = int(np.round(turns))
    rest = gain.sum() - gain[leaders].sum()  # what the remaining pairs change
    return (
        f"With only {d_model // 2} pairs, one or two of them decide the sum. At offset {far}, "
        f"pair {leaders[0]} has made {turns:.3f} turns, almost exactly {whole} "
        f"({whole} × 2π = {whole * 2 * np.pi:.2f} radians against {far * omega[leaders[0]]:.2f}), "
        "so it is nearly back where it started and adds "
        f"{fixed(far_terms[leaders[0]], 3)}; at offset {near} it adds "
        f"{fixed(near_terms[leaders[0]], 3)}. Pair {leaders[1]} adds "
        f"{fixed(far_terms[leaders[1]], 3)} against {fixed(near_terms[leaders[1]], 3)}. "
        f"Together those two add {fixed(gain[leaders].sum(), 3)} more at offset {far} than at "
        f"{near}; the other pairs, slower and still falling with distance, take back "
        f"{fixed(-rest, 3)}, leaving the dot product {fixed(gain.sum(), 3)} higher. The fast "
        f"pairs alias, and at d = {d_model} there are too few slow pairs to outweigh them."
    )


def sinusoid_extrapolation_sentence() -> str:
    """Say how the trained record's sinusoidal model fares past its training length."""
    from sitegen.trained import cell, compare, data, show

    settings = data()["settings"]
    train, longest = settings["train_length"], settings["lengths"][-1]
    layers, seeds = settings["layers"], len(settings["seeds"])
    at_train = cell("sinusoidal", train, "loss")
    at_longest = cell("sinusoidal", longest, "loss")
    said = compare(
        ("sinusoidal", longest, "loss"),
        ("sinusoidal", train, "loss"),
        ("above", "below", "overlapping"),
    )
    verdict = {
        "above": f"every seed does worse at {longest:,} than any seed at {train}: the "
        "positions exist, but the model does not use the new ones well.",
        "below": f"every seed does better at {longest:,} than any seed at {train}.",
    }.get(said, "the seed ranges of the two lengths overlap, so the record shows no cost.")
    return (
        f"In the small model that the chapter *Comparing the methods* trains on "
        f"{train}-character sequences ({layers} layer{'' if layers == 1 else 's'}, {seeds} "
        f"seeds), the sinusoidal encoding's loss is {show(at_train, 3)} nats per character at "
        f"{train} characters and {show(at_longest, 3)} at {longest:,} (the mean over the "
        f"seeds, lowest to highest in brackets): " + verdict
    )


def shift_table(p: int, q: int, shift: int, d_model: int) -> str:
    """Shift both positions by `shift`: what changes (the vectors) and what does not (their dot)."""
    before = pe.sinusoidal(np.array([p, q]), d_model, dtype=np.float64)
    after = pe.sinusoidal(np.array([p + shift, q + shift]), d_model, dtype=np.float64)
    rotated = before @ pe.rotation_matrix(shift, d_model).T
    rows = [
        [
            "‖PE(p+k) − PE(p)‖: is the encoding shift-invariant?",
            float(np.linalg.norm(after[0] - before[0])),
        ],
        [
            "‖PE(p+k) − M<sub>k</sub> PE(p)‖: is it shift-equivariant?",
            float(np.linalg.norm(after[0] - rotated[0])),
        ],
        [
            "PE(p+k)·PE(q+k) − PE(p)·PE(q), in size: is the dot product shift-invariant?",
            float(abs(after[0] @ after[1] - before[0] @ before[1])),
        ],
    ]
    note = f"\n\nFor p = {p}, q = {q}, k = {shift}, d = {d_model}, in float64."
    return table(["check", "size"], rows, align="lr", formats=[None, "e1"]) + note


def precision_opening() -> str:
    """State the precision page's promise of speed as the committed table benchmark recorded it."""
    from sitegen.results import result

    data = result("table")
    ratios = [
        row["seconds"]["(a) common float32"] / row["seconds"]["pe"]
        for framework in ("numpy", "torch")
        for row in data[framework]
    ]
    met = "all of which it met" if data["targets_met"] else "not all of which it met"
    return (
        f"In the committed run, `pe` computes the table {min(ratios):.1f} to "
        f"{max(ratios):.1f} times as fast as the common recipe, in numpy and torch on a CPU; "
        f"the benchmark also sets itself targets, {met} (listed under Speed below, each "
        "with its measurement)."
    )


def rope_speed_device() -> str:
    """Say on what device the committed RoPE timings were taken."""
    from sitegen.results import recorded, result

    data = result("rope")
    machine = data["machine"]
    if recorded("rope_cuda") is not None:
        return (
            f"These timings are from a CPU ({machine['cpu']}, {machine['threads_used']} "
            "threads). Long-context serving runs mostly on GPUs: one run on a GPU is in the "
            "section “On a GPU” below."
        )
    return (
        f"These timings are from a CPU ({machine['cpu']}, {machine['threads_used']} threads); "
        "no GPU was measured. Long-context serving runs mostly on GPUs, so read them as a "
        "comparison of how much memory each method moves, not as serving times."
    )
