r"""Name the convention of a sinusoidal table, or the mistake in it.

A table of $n$ positions by $d$ columns is read in three steps.

1. **Pairs.** For each of four layouts (sin and cos interleaved, or in two
   halves, sines or cosines first) the sine and cosine columns of each
   frequency are paired. In the right layout every pair is a unit vector
   whose angle $\theta_i(p) = \operatorname{atan2}(\sin, \cos)$ grows by a
   constant $\omega_i$ per row: a straight line fitted to the unwrapped
   angles gives each pair's frequency and the angle of row 0 (so the
   position of the first row, $s = \theta_0(0) / \omega_0$). All-zero rows
   (a padding row) are left out of the fit.
2. **Frequencies.** Every convention's frequencies are $\omega_i = b^{-e_i}$
   with its own exponents $e_i$ (``2i/d``, ``i/(d/2-1)``, ...), so
   $\log b$ is a least-squares fit of $\log \omega_i = -e_i \log b$; the
   conventions whose exponents fit the measured frequencies share the rule.
3. **Tables.** Each convention that has that layout and that rule rebuilds
   its table at the found base and first position, with its own float32
   arithmetic and exactly: within a few roundings (`tolerance`) it is that
   convention. Otherwise the same frequencies in the found layout, or with
   angles rounded to float16 or bfloat16, or two known mistakes (an exponent
   per column, positions multiplied by the divisor) are tried, and the report
   names the closest convention and each difference from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pe._conventions import Convention, conventions
from pe._identify_common import (
    MAX_PROBE_ELEMENTS,
    Identification,
    bfloat16,
    check_finite,
    column_ranges,
    read_array,
    to_float64,
    tolerance,
)

__all__ = ["identify_table", "table_rows"]

LAYOUTS = (
    "interleaved",
    "interleaved, cosines first",
    "concatenated",
    "concatenated, cosines first",
)
#: Rows whose angles are fitted with a line (enough for a slow pair's rate to
#: 1e-9 per position; few enough that angles rounded in a low precision still
#: unwrap).
FIT_ROWS = 64
#: A pairing is a layout when every pair is within this of unit length and its
#: angle within `MISFIT` of a line.
UNIT = 0.05
MISFIT = 0.5
#: A rule fits the measured frequencies when it moves no angle of the fitted
#: rows by more than this.
RULE_FIT = 0.25
_LOW_PRECISION = ("float16 angles", "bfloat16 angles", "float16 rates", "bfloat16 rates")


@dataclass(frozen=True)
class _Pairs:
    """The line fitted to each pair's angle in one layout."""

    layout: str
    split: int  # the first column of the second block (concatenated layouts)
    omega: NDArray[np.float64]
    first: float  # the position of row 0
    misfit: float
    zero_rows: NDArray[np.intp]


def _pairing(
    layout: str, d_model: int, split: int | None = None
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Return the sine and cosine column of each pair, in `layout`.

    `split` is where a concatenated layout's second block starts: ``d // 2``,
    or ``d // 2 + 1`` for an odd width whose first block has the extra column
    (Marian's).
    """
    half = d_model // 2
    index = np.arange(half)
    if layout.startswith("interleaved"):
        sines, cosines = 2 * index, 2 * index + 1
    else:
        sines, cosines = index, (half if split is None else split) + index
    if layout.endswith("cosines first"):
        sines, cosines = cosines, sines
    return sines, cosines


def _kinds(layout: str, d_model: int, split: int | None = None) -> NDArray[np.int8]:
    """Return what each column of `layout` holds: 0 sin, 1 cos, 2 the odd width's extra column."""
    kinds = np.full(d_model, 2, np.int8)
    sines, cosines = _pairing(layout, d_model, split)
    kinds[sines], kinds[cosines] = 0, 1
    return kinds


def _fit_pairs(values: NDArray[np.float64], layout: str, split: int) -> _Pairs | None:
    """Fit a line to each pair's angle; None where `layout` does not make unit pairs."""
    sines, cosines = _pairing(layout, values.shape[1], split)
    if sines.size == 0:
        return None
    length = np.hypot(values[:, sines], values[:, cosines])
    filled = length.mean(axis=1) > 0.5
    rows = np.flatnonzero(filled)[:FIT_ROWS]
    if rows.size < 3 or float(np.abs(length[filled] - 1).max()) > UNIT:
        return None
    theta = np.unwrap(np.arctan2(values[rows][:, sines], values[rows][:, cosines]), axis=0)
    p = rows.astype(np.float64)
    centred = p - p.mean()
    omega = (centred[:, None] * (theta - theta.mean(axis=0))).sum(axis=0) / (centred**2).sum()
    start = theta.mean(axis=0) - omega * p.mean()
    misfit = float(np.abs(theta - (start + omega * p[:, None])).max())
    if misfit > MISFIT or omega[0] <= 0:
        return None
    first = float(start[0] / omega[0])
    return _Pairs(layout, split, omega, first, misfit, np.flatnonzero(~filled))


def _rule_base(
    convention: Convention, omega: NDArray[np.float64], width: int, rows: int
) -> float | None:
    """Return the base at which `convention`'s exponents give `omega`, or None where they cannot."""
    try:
        reference = convention.frequencies(width)
    except ValueError:
        return None
    if reference.size < omega.size:
        return None
    reference = reference[: omega.size]  # an odd width's extra sine is not a pair
    exponents = -np.log(reference) / math.log(convention.base)
    used = (exponents > 1e-12) & (omega > 0)
    if not used.any():
        return convention.base if float(np.abs(omega - 1).max()) * rows < RULE_FIT else None
    log_base = -float((exponents[used] * np.log(omega[used])).sum() / (exponents[used] ** 2).sum())
    if not 0 < log_base < 700:
        return None
    predicted = np.exp(-exponents * log_base)
    if float(np.abs(predicted - omega).max()) * rows > RULE_FIT:
        return None
    return math.exp(log_base)


def _bases(
    convention: Convention, measured: float, omega: NDArray[np.float64], d_model: int, rows: int
) -> float:
    """Return the base to rebuild with: the convention's, its root, a round one, or `measured`.

    The first of those whose rates move no fitted angle by more than 1e-4.
    """
    candidates = [convention.base, math.sqrt(convention.base), float(f"{measured:.4g}")]
    for base in candidates:
        rates = replace(convention, base=base).frequencies(d_model)[: omega.size]
        close = math.isclose(math.log(base), math.log(measured), rel_tol=1e-6)
        if close or float(np.abs(rates - omega).max()) * rows <= 1e-4:
            return base
    return measured


def _permutation(
    source: Convention, layout: str, d_model: int, split: int
) -> NDArray[np.intp] | None:
    """Columns of `source`'s table that give its frequencies in `layout`."""
    columns = source._columns(d_model)
    where = {
        (int(k), int(r)): j
        for j, (k, r) in enumerate(zip(columns.kind, columns.rate, strict=True))
        if k < 2
    }
    sines, cosines = _pairing(layout, d_model, split)
    order = np.full(d_model, -1, np.intp)
    for rate, (sine, cosine) in enumerate(zip(sines, cosines, strict=True)):
        if (0, rate) not in where or (1, rate) not in where:
            return None
        order[sine], order[cosine] = where[(0, rate)], where[(1, rate)]
    left = sorted(set(range(d_model)) - set(order.tolist()))
    if len(left) != int((order < 0).sum()):
        return None
    order[order < 0] = left
    return order


def _low_precision(
    mode: str, omega: NDArray[np.float64], positions: NDArray[np.int64], pairs: _Pairs, width: int
) -> NDArray[np.float64]:
    """Return the table with angles (or rates) rounded to float16 or bfloat16, as a bug does."""
    p = positions.astype(np.float64)
    if mode == "float16 angles":
        angles = (p.astype(np.float16)[:, None] * omega.astype(np.float16)[None, :]).astype(
            np.float64
        )
    elif mode == "bfloat16 angles":
        angles = bfloat16(bfloat16(p)[:, None] * bfloat16(omega)[None, :])
    elif mode == "float16 rates":
        angles = p[:, None] * omega.astype(np.float16).astype(np.float64)[None, :]
    else:
        angles = p[:, None] * bfloat16(omega)[None, :]
    table = np.zeros((positions.size, width))
    sines, cosines = _pairing(pairs.layout, width, pairs.split)
    with np.errstate(invalid="ignore"):
        table[:, sines], table[:, cosines] = np.sin(angles), np.cos(angles)
    return table


def _per_column_exponent(positions: NDArray[np.int64], width: int, base: float) -> Any:
    """Build Common mistakes' exponent per column: column j turns at ``base ** (-j / d)``."""
    columns = np.arange(width)
    angles = positions.astype(np.float64)[:, None] / base ** (columns / width)[None, :]
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


def _multiplied(positions: NDArray[np.int64], width: int, base: float) -> Any:
    """Build Common mistakes' multiplied divisor: pair i turns at ``base ** (2i / d)``."""
    rates = base ** (np.arange(0, width - width % 2, 2) / width)
    angles = positions.astype(np.float64)[:, None] * rates[None, :]
    table = np.zeros((positions.size, width))
    table[:, 0 : 2 * rates.size : 2], table[:, 1 : 2 * rates.size : 2] = (
        np.sin(angles),
        np.cos(angles),
    )
    return table


_TEMPLATES = {
    "an exponent per column (j/d where the pair has 2i/d)": (
        "exponent_per_column",
        _per_column_exponent,
        "each column j turns at base^(-j/d), so the sine and the cosine of a pair turn at "
        "different rates: no offset is a rotation (Common mistakes)",
    ),
    "positions multiplied by the divisor": (
        "multiplied_divisor",
        _multiplied,
        "pair i turns at base^(2i/d) radians per position instead of base^(-2i/d): the "
        "rates grow past pi and alias, so neighbouring positions look unrelated "
        "(Common mistakes)",
    ),
}


def table_rows(table: Any, *, name: str = "table") -> tuple[NDArray[np.float64], str, list[str]]:
    """Read `table` as float64 rows ``(positions, d_model)``: the rows a probe uses.

    Returns the values, the stored dtype and notes on the shape (a batch axis of
    one dropped, a sequence-first buffer). At most `MAX_PROBE_ELEMENTS` values
    are copied.
    """
    array, dtype = read_array(table, name=name)
    shape = tuple(int(size) for size in array.shape)
    notes: list[str] = []
    if len(shape) == 3 and shape[0] == 1:
        array = array[0]
        notes.append(f"shape {shape}: the batch axis of size 1 is dropped")
    elif len(shape) == 3 and shape[1] == 1:
        array = array[:, 0]
        notes.append(
            f"shape {shape}: a sequence-first buffer (max_len, 1, d_model), as the PyTorch "
            "tutorial registers it; added to a batch-first (batch, seq, d_model) input it "
            "broadcasts over the sequence (Common mistakes: sequence-first layout)"
        )
    elif len(shape) != 2:
        raise ValueError(
            f"{name} must have shape (positions, d_model), with at most one more axis of size "
            f"1 in front or in the middle; got shape {shape}"
        )
    count, width = (int(size) for size in array.shape)
    if count < 4 or width < 2:
        raise ValueError(
            f"{name} must have at least 4 positions and 2 columns to be identified; got "
            f"shape {shape}"
        )
    if 4 * width > MAX_PROBE_ELEMENTS:
        raise ValueError(
            f"{name} has {width} columns; a probe reads 4 positions or more, at most "
            f"{MAX_PROBE_ELEMENTS} values, so tables up to {MAX_PROBE_ELEMENTS // 4} columns wide "
            f"are identified (shape {shape})"
        )
    rows = min(count, max(4, MAX_PROBE_ELEMENTS // width))
    values = to_float64(array[:rows])
    check_finite(values, name=name)
    if rows < count:
        notes.append(f"rows 0-{rows - 1} of {count} were compared (the probe's limit)")
    return values, dtype, notes


def identify_table(table: Any) -> Identification:
    """Say which of `pe.conventions` a sinusoidal table is, or how it differs from the closest.

    Parameters
    ----------
    table : numpy.ndarray or torch.Tensor
        Floating-point values of shape ``(positions, d_model)``; a batch axis of
        one in front (``(1, n, d)``) or a sequence-first buffer ``(n, 1, d)`` is
        read as ``(n, d)``, and a table with positions along its columns is
        tried transposed. Row ``k`` is read as consecutive positions from an
        offset the report gives. At most ``2**18`` values are read.

    Returns
    -------
    Identification
        ``recognised`` when a convention (at the base and first position found,
        in its own arithmetic or exactly) rebuilds every entry within a few
        roundings; otherwise the closest convention, each difference in words,
        and the named mistake where one reproduces the table.

    Raises
    ------
    TypeError
        If `table` is not a numpy array or torch tensor of floats.
    ValueError
        If its shape is not one of the above, it has fewer than 4 rows or 2
        columns, or a value read is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> import pe
    >>> found = pe.identify_table(pe.conventions["fairseq"].table(64, 32))
    >>> found.name, found.parameters["layout"], found.parameters["exponent"]
    ('fairseq', 'concatenated', 'i/(d/2-1)')
    >>> swapped = pe.sinusoidal(64, 32)[:, [1, 0] * 16 + np.repeat(np.arange(0, 32, 2), 2)]
    >>> pe.identify_table(swapped).recognised
    False
    """
    values, dtype, notes = table_rows(table)
    found = _identify(values, dtype, notes)
    if found.recognised or "pairs" in found.parameters:
        return found
    turned = _transposed(table)
    if turned is not None:
        again = _identify(turned, dtype, [*notes, "read transposed: positions along the columns"])
        if again.recognised or "pairs" in again.parameters:
            return again
    return found


def _transposed(table: Any) -> NDArray[np.float64] | None:
    """Return the first columns of a 2-D `table` as rows, or None where that is not a table."""
    array, _ = read_array(table, name="table")
    if array.ndim != 2 or array.shape[1] < 4 or array.shape[0] < 2:
        return None
    if 4 * int(array.shape[0]) > MAX_PROBE_ELEMENTS:
        return None  # rows as widths: more than a probe reads, so no table's d_model
    columns = min(int(array.shape[1]), max(4, MAX_PROBE_ELEMENTS // int(array.shape[0])))
    values: NDArray[np.float64] = to_float64(array[:, :columns]).T.copy()
    return values


def _identify(values: NDArray[np.float64], dtype: str, notes: list[str]) -> Identification:
    count, width = values.shape
    splits = (width // 2,) if width % 2 == 0 else (width // 2, width // 2 + 1)
    tries = [(layout, split) for layout in LAYOUTS for split in splits]
    fits = [f for f in (_fit_pairs(values, *t) for t in tries) if f is not None]
    if not fits:
        return _without_pairs(values, dtype, notes)
    pairs = min(fits, key=lambda f: f.misfit)
    first = round(pairs.first)
    positions = np.arange(first, first + count, dtype=np.int64)
    column_rates = np.zeros(width)
    sines, cosines = _pairing(pairs.layout, width, pairs.split)
    column_rates[sines] = column_rates[cosines] = np.abs(pairs.omega)
    bound = tolerance(dtype, np.abs(positions.astype(np.float64))[:, None] * column_rates)
    rows = min(count, FIT_ROWS)
    rules = {
        name: base
        for name, c in conventions.items()
        if (base := _rule_base(c, pairs.omega, width, rows)) is not None
    }
    base_of = {
        name: _bases(conventions[name], rules[name], pairs.omega, width, 10 * count)
        for name in rules
    }
    layout_words = [
        f"layout: {pairs.layout} ({_layout_words(pairs.layout, width)})",
        f"first row: position {first}" + _padding_words(pairs.zero_rows),
    ]
    if abs(pairs.first - first) > 0.05:
        layout_words.append(
            f"row 0 sits at position {pairs.first:.3f}, not a whole number: the positions "
            "are scaled or shifted by a fraction"
        )
    matches = []
    for name in rules:
        c = conventions[name]
        if c.layout != pairs.layout:
            continue
        convention = replace(c, base=base_of[name])
        for emulate in (True, False):
            try:
                rebuilt = convention.table(positions, width, emulate=emulate).astype(np.float64)
            except ValueError:
                break
            if rebuilt.shape != values.shape:  # tf_tutorial's odd widths: d_model + 1 columns
                break
            difference = np.abs(values - rebuilt)
            if bool((difference <= bound).all()):
                residual = float(difference.max())
                own = base_of[name] == c.base
                rank = (not own, round(residual / 2.0**-22), list(conventions).index(name))
                matches.append((rank, residual, name, emulate))
    parameters: dict[str, Any] = {
        "layout": pairs.layout,
        "first_position": first,
        "d_model": width,
        "pairs": int(pairs.omega.size),
    }
    if pairs.zero_rows.size:
        parameters["zero_rows"] = pairs.zero_rows.tolist()
    if matches:
        return _named(values, matches, base_of, parameters, notes, layout_words, positions)
    return _unnamed(values, pairs, rules, base_of, parameters, notes, positions, bound)


def _named(
    values: NDArray[np.float64],
    matches: list[tuple[tuple[bool, int, int], float, str, bool]],
    base_of: dict[str, float],
    parameters: dict[str, Any],
    notes: list[str],
    layout_words: list[str],
    positions: NDArray[np.int64],
) -> Identification:
    """Return the report for a table that a convention rebuilds."""
    _, residual, name, emulate = min(matches)
    c = conventions[name]
    base = base_of[name]
    width = values.shape[1]
    other = replace(c, base=base).table(positions, width, emulate=not emulate).astype(np.float64)
    other_residual = float(np.abs(values - other).max())
    arithmetic = f"as {c.name} computes them" if emulate else "the exact values"
    other_words = "the exact values" if emulate else f"{c.name}'s own arithmetic"
    lines = [
        *notes,
        f"{c.name}: {c.title}",
        *layout_words,
        f"exponent: {c.exponent}, base {base:g}"
        + ("" if base == c.base else f" (the convention's is {c.base:g})"),
        f"values: {arithmetic}, to {residual:.1e} ({other_words}: {other_residual:.1e}); "
        f"{c.name} computes in {c.compute}",
    ]
    bug = _base_bug(c, base, width)
    same = sorted(
        {m[2] for m in matches if base_of[m[2]] == base} - {name}, key=list(conventions).index
    )
    if same:
        lines.append("the same table, to rounding: " + ", ".join(same))
        parameters["same_table"] = same
    if c.padding_idx is not None and int(positions[0]) <= c.padding_idx <= int(positions[-1]):
        lines.append(f"row of position {c.padding_idx} is the padding row (zeros)")
    parameters = {
        "convention": name,
        **parameters,
        "exponent": c.exponent,
        "base": base,
        "arithmetic": "library" if emulate else "exact",
    }
    if bug is None:
        return Identification("sinusoid", True, name, parameters, tuple(lines), residual)
    short, sentence, bug_name = bug
    reference = c.table(positions, width, emulate=False).astype(np.float64)
    difference = np.abs(values - reference)
    lines = [
        *notes,
        sentence,
        f"(the same table as {name} with base {base:g}, if that base was meant)",
        *_where_different(difference, name),
    ]
    parameters = {"closest": name, **parameters, "bug": short, "base": c.base}
    return Identification(
        "sinusoid",
        False,
        f"{name} with {short}",
        parameters,
        tuple(lines),
        float(difference.max()),
        (bug_name,),
    )


def _base_bug(c: Convention, base: float, width: int) -> tuple[str, str, str] | None:
    """Return the mistake giving `c`'s table at `base` from `c`'s own: (short, sentence, name)."""
    if math.isclose(base, c.base, rel_tol=1e-9):
        return None
    if c.exponent == "2i/d" and math.isclose(base, math.sqrt(c.base), rel_tol=1e-9):
        return (
            "i instead of 2i",
            f"exponent i/d in place of 2i/d, base {c.base:g}: pair i turns at "
            f"{c.base:g}^(-i/d), as {c.name} does with base {base:g} = sqrt({c.base:g}) "
            "(Common mistakes: i instead of 2i)",
            "i_instead_of_2i",
        )
    found = replace(c, base=base).frequencies(width)
    for other in conventions.values():
        if other.exponent == c.exponent or not _accepts(other, width):
            continue
        rates = other.frequencies(width)
        if rates.size == found.size and np.allclose(rates, found, rtol=1e-9, atol=0):
            words, name = f"exponent {other.exponent} in place of {c.exponent}", "exponent"
            if {other.exponent, c.exponent} == {"2i/d", "i/(d/2-1)"}:
                words, name = "the off-by-one divisor", "off_by_one_divisor"
            return (
                words,
                f"{words}: pair i turns at {other.base:g}^(-{other.exponent}) (as {other.name}) "
                f"where {c.name} has {c.base:g}^(-{c.exponent}); at one width that is "
                f"{c.name}'s rule with base {base:g}",
                name,
            )
    return None


def _unnamed(
    values: NDArray[np.float64],
    pairs: _Pairs,
    rules: dict[str, float],
    base_of: dict[str, float],
    parameters: dict[str, Any],
    notes: list[str],
    positions: NDArray[np.int64],
    bound: NDArray[np.float64],
) -> Identification:
    """Return the report for a table of unit pairs that no convention rebuilds."""
    count, width = values.shape
    first = int(positions[0])
    model = _model(values, pairs, rules, base_of, positions, bound)
    if model is None and first == 0:
        mistake = _mistake(values, "float64", notes)
        if mistake is not None:
            return mistake
    rule, bug, base, reproduced = model if model else (None, "", None, math.nan)
    closest = _closest(pairs.layout, rule, base, first, width)
    c = conventions[closest]
    reference = c.table(np.arange(count), width, emulate=False).astype(np.float64)
    difference = np.abs(values - reference)
    residual = float(difference.max())
    differences: dict[str, str] = {}  # short name: the sentence
    bugs: list[str] = []
    if pairs.layout != c.layout:
        differences[f"the {pairs.layout} layout"] = _layout_difference(pairs, c, width)
        bugs.append("layout")
    if rule is None:
        measured = ", ".join(f"{w:.4g}" for w in pairs.omega[:4])
        differences["other frequencies"] = (
            f"frequencies: no convention's exponents give the measured rates ({measured}, ... "
            "radians per position)"
        )
    else:
        r = conventions[rule]
        if r.exponent != c.exponent:
            short, bug_name = f"exponent {r.exponent}", "exponent"
            if {r.exponent, c.exponent} == {"2i/d", "i/(d/2-1)"}:
                short, bug_name = "the off-by-one divisor", "off_by_one_divisor"
            differences[short] = _exponent_difference(r, c, width)
            bugs.append(bug_name)
        if base is not None and not math.isclose(base, c.base, rel_tol=1e-9):
            differences[f"base {base:g}"] = f"base {base:g} where {c.name} uses {c.base:g}"
            bugs.append("base")
    if first not in (0, c.first_position):
        differences[f"positions offset by {first}"] = (
            f"row 0 holds position {first} where {c.name}'s first row is position 0: the "
            f"positions are offset by {first}"
        )
        bugs.append("offset")
    if bug:
        bugs.append("low_precision")
        precision, what = bug.split()
        growth = difference.max(axis=1)
        worst = int(np.argmax(growth))
        differences[f"{what} in {precision}"] = (
            f"{what} computed in {precision}: the error grows with position, "
            f"{growth[: max(1, count // 8)].max():.1e} in the first rows and {growth[worst]:.2f} "
            f"at row {worst}"
        )
    lines = [*notes, *differences.values(), *_where_different(difference, c.name)]
    if model is not None:
        lines.append(
            f"these differences reproduce the table to {reproduced:.1e}"
            + (" (nothing else differs)" if not bug else "")
        )
    else:
        lines.append("no variant of a convention pe knows reproduces the table")
    parameters = {"closest": closest, **parameters}
    if rule is not None:
        parameters["exponent"] = conventions[rule].exponent
        parameters["base"] = base
    if bug:
        parameters["bug"] = bug
    parameters["differences"] = list(differences)
    name = f"closest: {closest}"
    if model is not None:
        name = f"{closest} with " + ", ".join(differences)
    return Identification("sinusoid", False, name, parameters, tuple(lines), residual, tuple(bugs))


def _model(
    values: NDArray[np.float64],
    pairs: _Pairs,
    rules: dict[str, float],
    base_of: dict[str, float],
    positions: NDArray[np.int64],
    bound: NDArray[np.float64],
) -> tuple[str, str, float, float] | None:
    """``(rule, bug, base, residual)``: a convention's frequencies that rebuild the table.

    In the layout found, exactly, or with angles (or rates) rounded to float16
    or bfloat16; None where none does.
    """
    width = values.shape[1]
    for name in rules:
        order = _permutation(conventions[name], pairs.layout, width, pairs.split)
        if order is None:
            continue
        convention = replace(conventions[name], base=base_of[name])
        try:
            rebuilt = convention.table(positions, width, emulate=False).astype(np.float64)
        except ValueError:
            continue
        if rebuilt.shape != values.shape:
            continue
        difference = np.abs(values - rebuilt[:, order])
        if bool((difference <= bound).all()):
            return (name, "", base_of[name], float(difference.max()))
        for base in dict.fromkeys((conventions[name].base, base_of[name])):
            omega = replace(convention, base=base).frequencies(width)[: pairs.omega.size]
            for mode in _LOW_PRECISION:
                bugged = _low_precision(mode, omega, positions, pairs, width)
                miss = np.abs(values - bugged)
                if bool((miss <= bound).all()):
                    return (name, mode, base, float(miss.max()))
    return None


def _closest(layout: str, rule: str | None, base: float | None, first: int, width: int) -> str:
    """Return the convention with the fewest differences from what was found (earliest on ties)."""

    def differences(c: Convention) -> int:
        count = int(c.layout != layout)
        if rule is not None:
            count += int(c.exponent != conventions[rule].exponent)
            count += int(base is not None and not math.isclose(base, c.base, rel_tol=1e-9))
        count += int(first not in (0, c.first_position))
        return count

    return min((c for c in conventions.values() if _accepts(c, width)), key=differences).name


def _accepts(convention: Convention, width: int) -> bool:
    try:
        convention._check_width(width)
    except ValueError:
        return False
    return True


def _mistake(values: NDArray[np.float64], dtype: str, notes: list[str]) -> Identification | None:
    """Return the report for one of Common mistakes' two tables that are not unit pairs, or None."""
    count, width = values.shape
    positions = np.arange(count, dtype=np.int64)
    angles = positions.astype(np.float64)[:, None] * np.ones(width)
    for bug, (bug_name, build, why) in _TEMPLATES.items():
        base = 10000.0
        miss = np.abs(values - build(positions, width, base))
        if bool((miss <= tolerance(dtype, angles)).all()):
            reference = conventions["paper"].table(count, width, emulate=False)
            residual = float(np.abs(values - reference).max())
            lines = (
                *notes,
                why,
                f"base {base:g}; the mistake reproduces the table to {float(miss.max()):.1e}",
                *_where_different(np.abs(values - reference), "paper"),
            )
            parameters = {"closest": "paper", "bug": bug, "base": base, "d_model": width}
            return Identification(
                "sinusoid", False, f"paper with {bug}", parameters, lines, residual, (bug_name,)
            )
    return None


def _without_pairs(values: NDArray[np.float64], dtype: str, notes: list[str]) -> Identification:
    """Return the report for a table no layout makes unit pairs of: two mistakes, or nothing."""
    mistake = _mistake(values, dtype, notes)
    if mistake is not None:
        return mistake
    count, width = values.shape
    best, residual = "paper", math.inf
    for name, c in conventions.items():
        try:
            reference = c.table(count, width, emulate=False).astype(np.float64)
        except ValueError:
            continue
        if reference.shape == values.shape:
            gap = float(np.abs(values - reference).max())
            if gap < residual:
                best, residual = name, gap
    lines = (
        *notes,
        "no layout pairs the columns into unit (sin, cos) pairs turning at a constant rate: "
        "not a sinusoidal table pe knows",
        f"closest convention: {best}, at most {residual:.2f} away",
    )
    return Identification(
        "sinusoid", False, f"closest: {best}", {"closest": best, "d_model": width}, lines, residual
    )


def _layout_words(layout: str, width: int) -> str:
    half = width // 2
    if layout == "interleaved":
        return "sin in even columns, cos in odd ones"
    if layout == "interleaved, cosines first":
        return "cos in even columns, sin in odd ones"
    first, second = ("sin", "cos") if layout == "concatenated" else ("cos", "sin")
    return f"{first} in columns 0-{half - 1}, {second} in {half}-{2 * half - 1}"


def _padding_words(zero_rows: NDArray[np.intp]) -> str:
    if zero_rows.size == 0:
        return ""
    return f"; all-zero rows (padding): {column_ranges(zero_rows)}"


def _layout_difference(pairs: _Pairs, c: Convention, width: int) -> str:
    """Which columns hold cos where `c` has sin (and the reverse), in words."""
    layout = pairs.layout
    found = _kinds(layout, width, pairs.split)
    expected = np.asarray(c._columns(width).kind)
    cos_for_sin = np.flatnonzero((found == 1) & (expected == 0))
    sin_for_cos = np.flatnonzero((found == 0) & (expected == 1))
    head = f"layout: {layout} ({_layout_words(layout, width)}) where {c.name} is {c.layout}"
    ranges = column_ranges(cos_for_sin)
    if cos_for_sin.size:
        head += f": columns {ranges} hold cos where {c.name} has sin"
        if sin_for_cos.size:
            head += f", and columns {column_ranges(sin_for_cos)} sin where it has cos"
    return head


def _exponent_difference(found: Convention, c: Convention, width: int) -> str:
    slow = 2 * math.pi / float(found.frequencies(width)[-1])
    expected = 2 * math.pi / float(c.frequencies(width)[-1])
    words = f"exponent {found.exponent} (as {found.name}) where {c.name} uses {c.exponent}"
    if {found.exponent, c.exponent} == {"2i/d", "i/(d/2-1)"}:
        words += " (the divisor d/2 - 1 in place of d/2: the off-by-one divisor)"
    return (
        words + f"; the slowest pair's wavelength is {slow:.4g} where {c.name}'s is {expected:.4g}"
    )


def _where_different(difference: NDArray[np.float64], name: str) -> list[str]:
    """Where and by how much a table differs from `name`'s, in words."""
    if difference.size == 0 or float(difference.max()) < 1e-3:
        return []
    row, column = (int(i) for i in np.unravel_index(int(np.argmax(difference)), difference.shape))
    by_column = difference.max(axis=0)
    columns = np.flatnonzero(by_column > 1e-3)
    by_row = difference.max(axis=1)
    rows = np.flatnonzero(by_row > 1e-3)
    return [
        f"differs from {name} by up to {float(difference.max()):.3g} (row {row}, column "
        f"{column}); by more than 1e-3 in columns {column_ranges(columns)}, from row "
        f"{int(rows[0])} on"
    ]
