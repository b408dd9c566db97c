r"""The properties that make the encoding usable, each measured rather than asserted.

Each function computes one quantity from explicit encoding vectors (float64),
so it can be checked against its closed form: values stay in $[-1, 1]$, every
norm is $\sqrt{d/2}$, a shift is the rotation $M_k$, no two positions share an
encoding, and positions beyond a training length behave like those inside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from pe._rotation import _matrix
from pe._similarity import similarity
from pe._table import as_run, encode
from pe._validation import (
    check_base,
    check_d_model,
    check_length,
    check_positions,
    check_size,
    is_integer,
)

__all__ = [
    "Extrapolation",
    "Uniqueness",
    "extrapolation",
    "norm_deviation",
    "rotation_error",
    "uniqueness",
    "value_range",
]


def _positions(positions: Any, d_model: int) -> NDArray[np.int64]:
    """Check `positions` as `pe.sinusoidal` does: a length or integer positions."""
    if is_integer(positions):  # check the size before building the positions
        length = check_length(positions, name="positions (a length)")
        check_size((length, d_model), name="the table")
        return np.arange(length)
    return check_positions(positions)


def _table(positions: NDArray[np.int64], d_model: int, base: float) -> NDArray[np.float64]:
    """Return the float64 table of checked arguments (the core of `pe.sinusoidal`)."""
    check_size((*positions.shape, d_model), name="the table")
    flat = as_run(positions.reshape(-1))
    table = encode(flat, positions.shape, d_model, base, np.dtype(np.float64))
    return cast("NDArray[np.float64]", table)


@dataclass(frozen=True)
class Uniqueness:
    r"""The closest two encodings among positions ``0 .. length-1``.

    Attributes
    ----------
    min_distance : float
        Smallest Euclidean distance between the encodings of two different
        positions; positive means every position has its own vector.
    offset : int
        The offset $|p - q|$ at which it occurs (distances depend only on it).

    Examples
    --------
    >>> import pe
    >>> pe.analysis.uniqueness(100, d_model=2)
    Uniqueness(min_distance=0.0177..., offset=44)
    """

    min_distance: float
    offset: int


@dataclass(frozen=True)
class Extrapolation:
    r"""How positions after a training length compare with those inside it.

    Attributes
    ----------
    profile_deviation : float
        Largest difference, over offsets up to ``window``, between the dot
        products $PE(p)\cdot PE(p+k)$ of positions inside and outside the
        training range. Near float64 rounding: the similarity structure is the
        same everywhere.
    min_distance_to_training : float
        Smallest distance from any new position's encoding to any training
        position's; positive means no new position repeats a seen one.
    max_abs_value : float
        Largest absolute value in the new positions' encodings (at most 1).

    Examples
    --------
    >>> import pe
    >>> result = pe.analysis.extrapolation(100, 400, d_model=16)
    >>> round(result.min_distance_to_training, 3), result.max_abs_value <= 1
    (1.015, True)
    """

    profile_deviation: float
    min_distance_to_training: float
    max_abs_value: float


def value_range(positions: Any, d_model: int, *, base: float = 10000.0) -> tuple[float, float]:
    """Smallest and largest value of the encodings of `positions` (float64).

    Parameters
    ----------
    positions : int or array_like of int
        A length or integer positions, as for `pe.sinusoidal`.
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base; a finite real number greater than 1.

    Returns
    -------
    tuple of (float, float)
        Within $[-1, 1]$ for any positions.

    Raises
    ------
    TypeError, ValueError
        As `pe.sinusoidal`: for positions that are not integers within
        ``±(2**31 - 1)``, a `d_model` that is not a positive even integer, or
        a `base` that is not a finite number greater than 1.

    Examples
    --------
    >>> import pe
    >>> low, high = pe.analysis.value_range(100_000, d_model=32)
    >>> -1 <= low < -0.99 and 0.99 < high <= 1
    True
    """
    d_model, base = check_d_model(d_model), check_base(base)
    table = _table(_positions(positions, d_model), d_model, base)
    return float(table.min()), float(table.max())


def norm_deviation(positions: Any, d_model: int, *, base: float = 10000.0) -> float:
    r"""Largest $\bigl|\lVert PE(p) \rVert^2 - d/2\bigr|$ over `positions` (float64).

    Each pair contributes $\sin^2 + \cos^2 = 1$, so every squared norm is
    $d/2$; this returns how far the computed vectors stray from it.

    Parameters
    ----------
    positions : int or array_like of int
        A length or integer positions, as for `pe.sinusoidal`.
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base; a finite real number greater than 1.

    Returns
    -------
    float
        0 for no positions; otherwise a few float64 roundings of $d/2$.

    Raises
    ------
    TypeError, ValueError
        As `pe.sinusoidal`: for positions that are not integers within
        ``±(2**31 - 1)``, a `d_model` that is not a positive even integer, or
        a `base` that is not a finite number greater than 1.

    Examples
    --------
    >>> import pe
    >>> pe.analysis.norm_deviation(10_000, d_model=512) < 1e-12
    True
    """
    d_model, base = check_d_model(d_model), check_base(base)
    table = _table(_positions(positions, d_model), d_model, base)
    squared = np.einsum("...j,...j->...", table, table)
    return float(np.abs(squared - d_model / 2).max(initial=0.0))


def rotation_error(positions: Any, offsets: Any, d_model: int, *, base: float = 10000.0) -> float:
    r"""Largest $|M_k\,PE(p) - PE(p + k)|$ over all `positions` and `offsets` (float64).

    Multiplies explicit encoding vectors by the explicit block-diagonal matrix
    from `pe.rotation_matrix`, so a wrong table or a wrong matrix shows up as a
    large error; for the true encoding it is at float64 rounding level.

    Parameters
    ----------
    positions : int or array_like of int
        Starting positions $p$ (a length means ``0 .. length-1``).
    offsets : array_like of int
        Shifts $k$, of any shape; every ``p + k`` must stay within
        ``±(2**31 - 1)``.
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base; a finite real number greater than 1.

    Returns
    -------
    float
        The largest absolute difference; 0 if either argument is empty.

    Raises
    ------
    TypeError, ValueError
        As `pe.sinusoidal`: for positions or offsets that are not integers within
        ``±(2**31 - 1)``, a `d_model` that is not a positive even integer, or
        a `base` that is not a finite number greater than 1.

    Examples
    --------
    >>> import pe
    >>> pe.analysis.rotation_error(1000, offsets=[1, 7, 100, -50], d_model=64) < 1e-12
    True
    """
    d_model, base = check_d_model(d_model), check_base(base)
    starts = _positions(positions, d_model).reshape(-1)
    shifts = check_positions(offsets, name="offsets").reshape(-1)
    table = _table(starts, d_model, base)
    worst = 0.0
    for shift in shifts:
        rotated = table @ _matrix(int(shift), d_model, base).T
        target = _table(check_positions(starts + shift, name="p + offset"), d_model, base)
        worst = max(worst, float(np.abs(rotated - target).max(initial=0.0)))
    return worst


def uniqueness(length: int, d_model: int, *, base: float = 10000.0) -> Uniqueness:
    """Find the smallest distance between the encodings of two of the first `length` positions.

    Distances depend only on the offset (see `pe.analysis.similarity`), so this scans the
    offsets ``1 .. length-1`` instead of all pairs of positions.

    Parameters
    ----------
    length : int
        Number of positions, at least 2.
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base; a finite real number greater than 1.

    Returns
    -------
    Uniqueness
        The smallest distance and the offset where it occurs.

    Raises
    ------
    ValueError
        If `length` is below 2.

    Examples
    --------
    >>> import pe
    >>> result = pe.analysis.uniqueness(512, d_model=64)
    >>> result.offset, round(result.min_distance, 4)
    (1, 1.4718)
    """
    length = check_length(length)
    if length < 2:
        raise ValueError(f"length must be at least 2 to compare positions; got {length}")
    distances = similarity(0, np.arange(1, length), d_model, base=base, measure="distance")
    best = int(np.argmin(distances))
    return Uniqueness(min_distance=float(distances[best]), offset=best + 1)


def extrapolation(
    train_length: int,
    test_length: int,
    d_model: int,
    *,
    base: float = 10000.0,
    window: int = 64,
) -> Extrapolation:
    r"""Compare positions beyond `train_length` (up to `test_length`) with those inside.

    Parameters
    ----------
    train_length : int
        Positions ``0 .. train_length-1`` were seen in training; at least 1.
    test_length : int
        Positions up to ``test_length-1`` are used; greater than `train_length`.
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base; a finite real number greater than 1.
    window : int, default 64
        Largest offset in the similarity profile.

    Returns
    -------
    Extrapolation
        See its attributes.

    Raises
    ------
    ValueError
        If the lengths are not ``1 <= train_length < test_length``.

    Examples
    --------
    >>> import pe
    >>> result = pe.analysis.extrapolation(512, 2048, d_model=64)
    >>> result.profile_deviation < 1e-10, result.min_distance_to_training > 0.5
    (True, True)
    """
    train_length = check_length(train_length, name="train_length")
    test_length = check_length(test_length, name="test_length")
    window = check_length(window, name="window")
    if not 1 <= train_length < test_length:
        raise ValueError(
            "need 1 <= train_length < test_length; "
            f"got train_length={train_length}, test_length={test_length}"
        )
    d_model = check_d_model(d_model)
    base = check_base(base)
    offsets = np.arange(-window, window + 1)
    inside = _table(np.arange(train_length), d_model, base)
    outside = _table(np.arange(train_length, test_length), d_model, base)

    def profile(table: NDArray[Any], start: int) -> NDArray[Any]:
        shifted = _table(start + offsets, d_model, base)
        dots: NDArray[Any] = shifted @ table[0]
        return dots

    deviation = float(np.abs(profile(inside, 0) - profile(outside, train_length)).max())
    nearest = np.inf
    for row in range(0, outside.shape[0], 1024):  # bounded memory: 1024 new positions at a time
        chunk = outside[row : row + 1024]
        squared = (
            np.sum(chunk**2, axis=1)[:, None]
            + np.sum(inside**2, axis=1)[None, :]
            - 2.0 * chunk @ inside.T
        )
        nearest = min(nearest, float(np.sqrt(max(squared.min(), 0.0))))
    return Extrapolation(
        profile_deviation=deviation,
        min_distance_to_training=nearest,
        max_abs_value=float(np.abs(outside).max()),
    )
