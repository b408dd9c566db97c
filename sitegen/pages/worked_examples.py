"""The worked examples page (worked-examples.md): divisors, angles, a position, comparisons."""

from __future__ import annotations

import numpy as np

import pe
import pe.analysis
from sitegen.markdown import number, table


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
        closed_form = float(pe.analysis.similarity(p, q, d_model, measure="dot"))
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
