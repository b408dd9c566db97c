r"""The properties that make the encoding usable, each measured rather than asserted.

Each function computes one quantity from explicit encoding vectors (float64),
so it can be checked against its closed form: values stay in $[-1, 1]$, every
norm is $\sqrt{d/2}$, a shift is the rotation $M_k$, no two positions share an
encoding, and positions beyond a training length behave like those inside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from pe._frequencies import cached_frequencies
from pe._rotation import _matrix
from pe._similarity import _as_positions, measure_offsets
from pe._table import as_run, encode
from pe._validation import (
    MAX_POSITION,
    check_base,
    check_d_model,
    check_length,
    check_positions,
    check_size,
    is_integer,
)

#: Values per float64 piece when a measurement walks through a large table (8 MiB):
#: memory stays bounded whatever the number of positions.
_PIECE = 2**20

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


def _pieces(
    positions: NDArray[np.int64], d_model: int, base: float
) -> Iterator[NDArray[np.float64]]:
    """Yield the float64 table of `positions` (flattened) a bounded number of rows at a time."""
    flat = positions.reshape(-1)
    rows = max(1, _PIECE // d_model)
    for row in range(0, flat.size, rows):
        yield _table(flat[row : row + rows], d_model, base)


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
        a `base` that is not a finite number greater than 1; and a
        `ValueError` for no positions at all (no value has a range).

    Examples
    --------
    >>> import pe
    >>> low, high = pe.analysis.value_range(100_000, d_model=32)
    >>> -1 <= low < -0.99 and 0.99 < high <= 1
    True
    """
    d_model, base = check_d_model(d_model), check_base(base)
    checked = _positions(positions, d_model)
    if checked.size == 0:
        raise ValueError(
            f"positions must hold at least one position to have a range of values; got "
            f"{'a length of 0' if is_integer(positions) else f'an empty array {checked.shape}'}"
        )
    check_size((*checked.shape, d_model), name="the table")
    low, high = np.inf, -np.inf
    for piece in _pieces(checked, d_model, base):  # bounded memory at any length
        low, high = min(low, float(piece.min())), max(high, float(piece.max()))
    return low, high


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
    checked = _positions(positions, d_model)
    check_size((*checked.shape, d_model), name="the table")
    worst = 0.0
    for piece in _pieces(checked, d_model, base):  # bounded memory at any length
        squared = np.einsum("...j,...j->...", piece, piece)
        worst = max(worst, float(np.abs(squared - d_model / 2).max(initial=0.0)))
    return worst


def rotation_error(positions: Any, offsets: Any, d_model: int, *, base: float = 10000.0) -> float:
    r"""Largest $|M_k\,PE(p) - PE(p + k)|$ over all `positions` and `offsets` (float64).

    Multiplies explicit encoding vectors by the explicit block-diagonal matrix
    from `pe.rotation_matrix`, so a wrong table or a wrong matrix shows up as a
    large error; for the true encoding it is at float64 rounding level.

    Parameters
    ----------
    positions : int or array_like of int
        Starting positions $p$ (a length means ``0 .. length-1``).
    offsets : int or array_like of int
        Shifts $k$, of any shape; a bare integer is one shift (as the
        offsets of `pe.analysis.pair_distance`), not a count. Every
        ``p + k`` must stay within ``±(2**31 - 1)``.
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
        a `base` that is not a finite number greater than 1; a `ValueError`
        also when the work (offsets x positions x `d_model` values, or the
        ``d_model x d_model`` matrix) passes the limit of one call.

    Examples
    --------
    >>> import pe
    >>> pe.analysis.rotation_error(1000, offsets=[1, 7, 100, -50], d_model=64) < 1e-12
    True
    >>> pe.analysis.rotation_error([0, 5], offsets=3, d_model=8) < 1e-15  # one shift
    True
    """
    d_model, base = check_d_model(d_model), check_base(base)
    starts = _positions(positions, d_model).reshape(-1)
    shifts = _as_positions(offsets, "offsets").reshape(-1)
    check_size((d_model, d_model), name="the rotation matrix")
    check_size((shifts.size, starts.size, d_model), name="the shifted encodings")
    if starts.size and shifts.size:  # every p + k in range, before any work
        ends = (int(starts.min()) + int(shifts.min()), int(starts.max()) + int(shifts.max()))
        check_positions(np.array(ends), name="p + offset")
    worst = 0.0
    rows = max(1, _PIECE // d_model)
    for row in range(0, starts.size, rows):
        piece = starts[row : row + rows]
        table = _table(piece, d_model, base)
        for shift in shifts:
            rotated = table @ _matrix(int(shift), d_model, base).T
            target = _table(piece + shift, d_model, base)
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
    d_model, base = check_d_model(d_model), check_base(base)
    check_size((length - 1, d_model // 2), name="the distances (offsets, pairs)")
    best = (np.inf, 0)
    rows = max(1, _PIECE // d_model)
    for first in range(1, length, rows):  # bounded memory: a piece of offsets at a time
        offsets = np.arange(first, min(first + rows, length))
        distances = measure_offsets(
            offsets.astype(np.float64), cached_frequencies(d_model, base), "distance"
        )
        index = int(np.argmin(distances))
        best = min(best, (float(distances[index]), int(offsets[index])))
    return Uniqueness(min_distance=best[0], offset=best[1])


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
        Largest offset in the similarity profile; ``train_length + window``
        must stay within ``2**31 - 1``.

    Returns
    -------
    Extrapolation
        See its attributes.

    Raises
    ------
    ValueError
        If the lengths are not ``1 <= train_length < test_length``, the window
        runs past ``2**31 - 1``, or a table would pass the limit of one call.

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
    if train_length + window > MAX_POSITION:
        raise ValueError(
            f"window must keep train_length + window within {MAX_POSITION}; got "
            f"train_length={train_length}, window={window}"
        )
    check_size((2 * window + 1, d_model), name="the similarity profile (2 * window + 1 rows)")
    check_size((test_length, d_model), name="the table")
    offsets = np.arange(-window, window + 1)
    inside = _table(np.arange(train_length), d_model, base)
    inside_squared = np.einsum("ij,ij->i", inside, inside)

    def profile(start: int) -> NDArray[Any]:
        shifted = _table(start + offsets, d_model, base)
        dots: NDArray[Any] = shifted @ _table(np.array([start]), d_model, base)[0]
        return dots

    deviation = float(np.abs(profile(0) - profile(train_length)).max())
    nearest, largest = np.inf, 0.0
    # Bounded memory: a piece of new positions at a time, each against every
    # training position in one (rows x train_length) matrix of about _PIECE values.
    rows = max(1, _PIECE // max(train_length, d_model))
    for row in range(train_length, test_length, rows):
        chunk = _table(np.arange(row, min(row + rows, test_length)), d_model, base)
        squared = chunk @ inside.T  # then |a|^2 + |b|^2 - 2 a.b, in place
        squared *= -2.0
        squared += inside_squared[None, :]
        squared += np.einsum("ij,ij->i", chunk, chunk)[:, None]
        nearest = min(nearest, float(np.sqrt(max(squared.min(), 0.0))))
        largest = max(largest, float(np.abs(chunk).max()))
    return Extrapolation(
        profile_deviation=deviation,
        min_distance_to_training=nearest,
        max_abs_value=largest,
    )
