"""Format numbers and tables as Markdown for the pages' executed code blocks.

The house style for every number a page computes, in prose and in tables:

- thousands separated by commas, in whole numbers and fixed point alike:
  ``50,331,648``, ``1,000,000.0``;
- other numbers in fixed point, or, when tiny or huge, in scientific notation
  written ``6.3e-4`` and ``1.2e7`` (no plus sign, no leading zero in the
  exponent); a table column in one style throughout (`table`'s `formats`);
- negative numbers with the minus sign U+2212, never the
  hyphen-minus, which is for words and ranges of names.

`number`, `fixed`, `scientific` and `signed_int` write it; `plain` turns a
written number back into one Python reads (for the tests).
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from typing import Any

MINUS = "\u2212"


def _minus(shown: str) -> str:
    """Write a formatted number's leading sign as the minus sign."""
    return MINUS + shown[1:] if shown.startswith("-") else shown


def plain(shown: str) -> str:
    """Turn a number written in the house style back into one `float` reads.

    >>> plain(MINUS + "1,024.5"), plain("6.3e-4")
    ('-1024.5', '6.3e-4')
    """
    return shown.replace(MINUS, "-").replace(",", "")


def signed_int(value: int) -> str:
    """Write a whole number with thousands separators and the minus sign.

    >>> signed_int(-1234567) == MINUS + "1,234,567", signed_int(42)
    (True, '42')
    """
    return _minus(f"{int(value):,}")


def number(value: Any, digits: int = 4) -> str:
    """Format a number: fixed point with `digits` decimals, scientific when tiny or huge.

    Whole numbers (of an integer type) get thousands separators. Zero is shown
    as ``0``; negative zero as ``0`` too (a table reader cannot use the sign
    of a zero).

    >>> number(50331648), number(1.23e7), number(3e-6), number(-0.5) == MINUS + "0.5000"
    ('50,331,648', '1.23e7', '3.00e-6', True)
    """
    if not isinstance(value, bool) and isinstance(value, numbers.Integral):
        return signed_int(int(value))
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == 0.0:
        return "0"
    magnitude = abs(x)
    if magnitude < 10 ** (-digits) or magnitude >= 1e7:
        return scientific(x, max(1, digits - 2))
    return _minus(f"{x:,.{digits}f}")


def fixed(value: Any, decimals: int) -> str:
    """Format a number in fixed point with exactly `decimals` decimals, zero included.

    Negative zero (and anything that rounds to zero) is shown without a sign.

    >>> fixed(0, 4), fixed(1, 4), fixed(-1e-9, 3)
    ('0.0000', '1.0000', '0.000')
    """
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    shown = f"{x:,.{decimals}f}"
    return shown[1:] if shown.startswith("-") and float(shown) == 0.0 else _minus(shown)


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
    return f"{_minus(mantissa)}e{int(exponent)}"


def significant(value: Any, digits: int = 3) -> str:
    """Format a number to `digits` significant digits in the house style.

    Fixed point (with thousands separators) from 0.001 up to ten million,
    scientific beyond.

    >>> significant(19876.5), significant(6.2832), significant(5.06e8), significant(0)
    ('19,900', '6.28', '5.06e8', '0')
    """
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == 0.0:
        return "0"
    magnitude = math.floor(math.log10(abs(float(f"{x:.{digits - 1}e}"))))
    if -3 <= magnitude < 7:
        rounded = round(x, digits - 1 - magnitude)
        return _minus(f"{rounded:,.{max(0, digits - 1 - magnitude)}f}")
    return scientific(x, digits - 1)


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
