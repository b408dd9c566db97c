"""Tables more than one page prints: the encoding itself, row by row."""

from __future__ import annotations

import numpy as np

import pe
from sitegen.markdown import table


def encoding(length: int, d_model: int, *, digits: int = 4, start: int = 0) -> str:
    """Print the table itself: one row per position, one column per dimension."""
    values = pe.sinusoidal(np.arange(start, start + length), d_model, dtype=np.float64)
    headers = ["pos"] + [f"{'sin' if j % 2 == 0 else 'cos'} {j}" for j in range(d_model)]
    rows = [[start + r, *(float(v) for v in values[r])] for r in range(length)]
    formats = [None] + [f"f{digits}"] * d_model  # one style per column: 0 shows as 0.0000
    return table(headers, rows, align="r" * len(headers), digits=digits, formats=formats)
