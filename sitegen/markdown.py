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
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
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
) -> str:
    """Render a Markdown pipe table; numbers go through `number`.

    `align` has one letter per column: ``l``, ``c`` or ``r`` (default: right for
    numbers, left otherwise, judged from the first row).
    """
    if rows and any(len(row) != len(headers) for row in rows):
        raise ValueError("every row needs one cell per header")

    def cell(value: Any) -> str:
        if isinstance(value, str):
            return value
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
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def matrix(values: Any, *, digits: int = 4, row_label: str = "", col_label: str = "") -> str:
    """Render a 2-D array as a table with numbered rows and columns."""
    import numpy as np

    array = np.asarray(values)
    headers = [row_label or " "] + [f"{col_label}{j}" for j in range(array.shape[1])]
    rows = [[str(i)] + [number(v, digits) for v in array[i]] for i in range(array.shape[0])]
    return table(headers, rows, align="r" * len(headers), digits=digits)
