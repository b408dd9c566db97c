"""The rotation page (rotation.md): rotation checks, shift invariance, dot turning points."""

from __future__ import annotations

import numpy as np

import pe
import pe.analysis
from sitegen.markdown import number, table


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
    dots = pe.analysis.similarity(0, offsets, d_model, measure="dot")
    step = np.diff(dots)
    minima = np.flatnonzero((step[:-1] < 0) & (step[1:] >= 0)) + 1
    maxima = np.flatnonzero((step[:-1] > 0) & (step[1:] <= 0)) + 1
    rows = []
    for low, high in zip(minima[:count], maxima[:count], strict=False):
        rows.append(["dip", int(low), number(dots[low], 3)])
        rows.append(["rises again to", int(high), number(dots[high], 3)])
    lowest = int(np.argmin(dots))
    rows.append([f"lowest value up to {max_offset:,}", lowest, number(dots[lowest], 3)])
    return table(["", "offset *k*", f"PE(0)·PE(k), d = {d_model}"], rows, align="lrr")
