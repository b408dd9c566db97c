"""The frequencies page (frequencies.md): details, wavelengths and returns."""

from __future__ import annotations

import numpy as np

import pe
import pe.analysis
from sitegen.markdown import number, table


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
        offset, gap = pe.analysis.closest_return(pair, d_model, max_offset=limit)
        turns = offset * pe.frequencies(d_model)[pair] / (2 * np.pi)
        rows.append([limit, offset, number(turns, 4), float(gap)])
    headers = ["search up to", "closest return at offset *k*", "turns made", "chord to start"]
    return table(headers, rows, formats=[None, None, None, "e1"])


def pair_gaps(d_model: int, offset: int) -> str:
    """Chord distance of every pair after `offset` positions, and the whole-vector distance."""
    gaps = pe.analysis.pair_distance(offset, d_model)
    wavelength = pe.wavelengths(d_model)
    rows = [[i, number(wavelength[i], 1), number(gaps[i], 4)] for i in range(gaps.size)]
    distance = float(pe.analysis.similarity(0, offset, d_model, measure="distance"))
    rows.append(["whole vector", "", f"**{number(distance, 4)}**"])
    return table(["pair *i*", "wavelength", f"distance after {offset} positions"], rows)
