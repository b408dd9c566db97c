"""The properties page (properties.md): uniqueness, property checks, extrapolation checks."""

from __future__ import annotations

import numpy as np

import pe
import pe.analysis
from sitegen.cache import cached_markdown
from sitegen.markdown import number, table


@cached_markdown
def uniqueness_grid(d_models: tuple[int, ...], lengths: tuple[int, ...]) -> str:
    """Smallest distance between two of the first N positions (and its offset), per d and N."""
    rows = []
    for d_model in d_models:
        # Distances depend only on the offset, so one pass over offsets 1 .. max(N) - 1
        # answers every N; pe.analysis.uniqueness(N, d) gives the same numbers one N at a time.
        offsets = np.arange(1, max(lengths))
        distances = pe.analysis.similarity(0, offsets, d_model, measure="distance")
        cells: list[object] = [d_model]
        for length in lengths:
            best = int(np.argmin(distances[: length - 1]))
            cells.append(rf"{number(distances[best], 4)} (\(k = {offsets[best]:,}\))")
        rows.append(cells)
    headers = ["d"] + [f"N = {n:,}" for n in lengths]
    return table(headers, rows, align="r" * len(headers))


@cached_markdown
def property_checks(d_model: int, length: int) -> str:
    """Every property of the encoding, measured by its `pe` function over `length` positions."""
    low, high = pe.analysis.value_range(length, d_model)
    offsets = (1, 2, 17, 100, 1000)
    sample = np.arange(0, length, max(1, length // 2000))
    unique = pe.analysis.uniqueness(length, d_model)
    rows = [
        [
            "bounded",
            f"values in [{number(low, 6)}, {number(high, 6)}]",
            "within [−1, 1]",
            "`pe.analysis.value_range`",
        ],
        [
            "constant norm",
            f"largest ‖PE(p)‖² − d/2: {number(pe.analysis.norm_deviation(length, d_model), 2)}",
            f"0 (‖PE(p)‖² = d/2 = {d_model // 2})",
            "`pe.analysis.norm_deviation`",
        ],
        [
            "shift is a rotation",
            f"largest error of M<sub>k</sub>·PE(p): "
            f"{number(pe.analysis.rotation_error(sample, offsets, d_model), 2)}",
            "0, up to float64 rounding",
            "`pe.analysis.rotation_error`",
        ],
        [
            "unique",
            f"closest pair {number(unique.min_distance, 4)} apart, at offset {unique.offset}",
            "greater than 0",
            "`pe.analysis.uniqueness`",
        ],
    ]
    caption = (
        f"d = {d_model}, positions 0 to {length - 1:,}; the rotation check uses "
        f"{sample.size:,} starting positions and offsets {', '.join(map(str, offsets))}."
    )
    return table(["property", "measured", "expected", "function"], rows, align="llll") + (
        f"\n\n{caption}"
    )


def extrapolation_checks(train_length: int, test_lengths: tuple[int, ...], d_model: int) -> str:
    """Positions past a training length compared with those inside it."""
    rows = []
    for test_length in test_lengths:
        result = pe.analysis.extrapolation(train_length, test_length, d_model)
        rows.append(
            [
                f"{train_length:,} to {test_length - 1:,}",
                number(result.profile_deviation, 2),
                number(result.min_distance_to_training, 4),
                number(result.max_abs_value, 6),
            ]
        )
    headers = [
        "new positions",
        "similarity profile vs inside (largest gap)",
        "closest distance to a training position",
        "largest absolute value",
    ]
    return table(headers, rows, align="lrrr")
