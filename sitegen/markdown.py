"""Format numbers and tables as Markdown for the pages' executed code blocks."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from typing import Any


def number(value: Any, digits: int = 4) -> str:
    """Format a number: fixed point with `digits` decimals, scientific when tiny or huge.

    Zero is shown as ``0``; negative zero as ``0`` too (a table reader cannot
    use the sign of a zero).
    """
    if not isinstance(value, bool) and isinstance(value, numbers.Integral):
        return str(int(value))
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == 0.0:
        return "0"
    magnitude = abs(x)
    if magnitude < 10 ** (-digits) or magnitude >= 1e7:
        return f"{x:.{max(1, digits - 2)}e}".replace("e-0", "e-").replace("e+0", "e+")
    return f"{x:.{digits}f}"


def fixed(value: Any, decimals: int) -> str:
    """Format a number in fixed point with exactly `decimals` decimals, zero included.

    Negative zero (and anything that rounds to zero) is shown without a sign.

    >>> fixed(0, 4), fixed(1, 4), fixed(-1e-9, 3)
    ('0.0000', '1.0000', '0.000')
    """
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    shown = f"{x:.{decimals}f}"
    return shown[1:] if shown.startswith("-") and float(shown) == 0.0 else shown


def scientific(value: Any, decimals: int) -> str:
    """Format a number in scientific notation, `number`'s style (``6.3e-4``), zero as ``0``.

    >>> scientific(0.00063, 1), scientific(0.001, 1), scientific(1.47, 2), scientific(0.0, 1)
    ('6.3e-4', '1.0e-3', '1.47e0', '0')
    """
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == 0.0:
        return "0"
    mantissa, exponent = f"{x:.{decimals}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _formatter(spec: str) -> Any:
    """Turn a column format such as ``"f4"`` (fixed, 4 decimals) or ``"e1"`` into a function."""
    match = re.fullmatch(r"([fe])(\d+)", spec)
    if match is None:
        raise ValueError(f"column format must be 'f<decimals>' or 'e<decimals>'; got {spec!r}")
    style, decimals = match.group(1), int(match.group(2))
    if style == "f":
        return lambda value: fixed(value, decimals)
    return lambda value: scientific(value, decimals)


_NUMBER = re.compile(r"^\**[-+−]?\d[\d,]*(\.\d+)?(e[-+]?\d+)?°?\**$")


def _numeric(value: Any) -> bool:
    """Tell whether a cell holds a number (or a formatted one), for right alignment."""
    if isinstance(value, numbers.Number):
        return True
    return isinstance(value, str) and bool(_NUMBER.match(value.strip()))


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    align: str | None = None,
    digits: int = 4,
    formats: Sequence[str | None] | None = None,
) -> str:
    """Render a Markdown pipe table; numbers go through `number`.

    `align` has one letter per column: ``l``, ``c`` or ``r`` (default: right for
    numbers, left otherwise, judged from the first row). `formats`, one entry per
    column, gives a column one style for every number in it: ``"f4"`` (fixed
    point, 4 decimals, so zero is ``0.0000``), ``"e1"`` (scientific, ``6.3e-4``)
    or ``None`` (`number`'s default). Strings are never reformatted.

    >>> print(table(["x", "y"], [[0.0, 0.00063], [1.0, 0.001]], formats=["f4", "e1"]))
    | x | y |
    | --: | --: |
    | 0.0000 | 6.3e-4 |
    | 1.0000 | 1.0e-3 |
    """
    if rows and any(len(row) != len(headers) for row in rows):
        raise ValueError("every row needs one cell per header")
    if formats is not None and len(formats) != len(headers):
        raise ValueError(f"formats needs one entry per column ({len(headers)}); got {len(formats)}")
    styles = [None if spec is None else _formatter(spec) for spec in (formats or [])]

    def cell(value: Any, column: int = 0) -> str:
        if isinstance(value, str):
            return value
        if not isinstance(value, bool) and isinstance(value, numbers.Number):
            style = styles[column] if styles else None
            return style(value) if style is not None else number(value, digits)
        if isinstance(value, numbers.Number):
            return number(value, digits)
        return str(value)

    if align is None:
        first = rows[0] if rows else ["" for _ in headers]
        align = "".join("r" if _numeric(v) else "l" for v in first)
    marks = {"l": ":--", "c": ":-:", "r": "--:"}
    lines = [
        "| " + " | ".join(headers) + " |",
        "| " + " | ".join(marks[a] for a in align) + " |",
    ]
    lines += ["| " + " | ".join(cell(v, j) for j, v in enumerate(row)) + " |" for row in rows]
    return "\n".join(lines)


def matrix(values: Any, *, digits: int = 4, row_label: str = "", col_label: str = "") -> str:
    """Render a 2-D array as a table with numbered rows and columns."""
    import numpy as np

    array = np.asarray(values)
    headers = [row_label or " "] + [f"{col_label}{j}" for j in range(array.shape[1])]
    rows = [[str(i)] + [number(v, digits) for v in array[i]] for i in range(array.shape[0])]
    return table(headers, rows, align="r" * len(headers), digits=digits)
