r"""How alike two positions' encodings are, computed from their offset alone.

Because a shift is a rotation (`pe.rotation_matrix`), the dot product of two
encodings depends only on the offset $k = q - p$:

$$
PE(p) \cdot PE(q) = \sum_i \bigl(\sin p\omega_i \sin q\omega_i
    + \cos p\omega_i \cos q\omega_i\bigr) = \sum_i \cos(k\omega_i),
$$

every encoding has squared norm $d/2$, and the distance is
$\lVert PE(p) - PE(q) \rVert = 2\sqrt{\sum_i \sin^2(k\omega_i/2)}$, a form that
stays accurate when the two positions are close.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from pe._frequencies import cached_frequencies
from pe._validation import (
    MAX_POSITION,
    check_base,
    check_d_model,
    check_offset,
    check_positions,
    check_size,
    is_integer,
)

#: Offsets per piece in `closest_return`: memory stays bounded at any `max_offset`.
_PIECE = 2**20
#: Angles per piece in `measure_offsets` (1 MiB of float64).
_ANGLES_PER_PIECE = 2**17

__all__ = ["Measure", "closest_return", "measure_offsets", "pair_distance", "similarity"]

Measure = Literal["dot", "cosine", "distance"]


def _as_positions(value: Any, name: str) -> NDArray[np.int64]:
    """Read one integer position or an array of them (a bare integer is not a length here)."""
    if is_integer(value):
        return np.asarray(check_offset(value, name=name), dtype=np.int64)
    return check_positions(value, name=name)


def _offsets(p: Any, q: Any, half: int) -> NDArray[np.float64]:
    """Offsets ``q - p`` as float64, broadcast, with a clear error if shapes clash.

    `half` is the number of pairs: the angles, ``offsets x half`` values, are
    checked against the size limit before anything of that size is made.
    """
    first, second = _as_positions(p, "p"), _as_positions(q, "q")
    try:
        shape = np.broadcast_shapes(first.shape, second.shape)
    except ValueError:
        shapes = f"{first.shape} and {second.shape}"
        raise ValueError(f"p and q must broadcast together; got shapes {shapes}") from None
    check_size((*shape, half), name="the angles (broadcast p and q, d_model / 2)")
    return np.asarray(np.subtract(second, first, dtype=np.int64), dtype=np.float64)


def measure_offsets(
    offsets: NDArray[np.float64], omega: NDArray[np.float64], measure: Measure
) -> NDArray[np.float64]:
    """`similarity` for checked float64 offsets ``q - p`` and frequencies `omega`.

    The angles are made for a piece of the offsets at a time (about
    `_ANGLES_PER_PIECE` of them): the memory stays small and the work stays in
    the processor's cache, and each offset's sum is the same as in one piece.
    """
    flat = offsets.reshape(-1)
    result = np.empty(flat.shape, dtype=np.float64)
    rows = max(1, _ANGLES_PER_PIECE // omega.size)
    for start in range(0, flat.size, rows):
        theta = flat[start : start + rows, np.newaxis] * omega
        if measure == "distance":
            piece = 2.0 * np.sqrt(np.sum(np.sin(theta / 2.0) ** 2, axis=-1))
        else:
            piece = np.sum(np.cos(theta), axis=-1)
        result[start : start + rows] = piece
    if measure == "cosine":
        result = result / omega.size
    return result.reshape(offsets.shape)


def similarity(
    p: Any,
    q: Any,
    d_model: int,
    *,
    base: float = 10000.0,
    measure: Measure = "cosine",
) -> NDArray[np.float64]:
    r"""Dot product, cosine similarity or distance between the encodings of `p` and `q`.

    Parameters
    ----------
    p, q : int or array_like of int
        Positions; arrays broadcast against each other (``p[:, None]`` and
        ``q[None, :]`` give a full matrix). Unlike elsewhere in `pe`, a bare
        integer here is one position, not a length.
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.
    measure : {"cosine", "dot", "distance"}, default "cosine"
        ``"dot"`` is $\sum_i \cos(k\omega_i)$, between $-d/2$ and $d/2$;
        ``"cosine"`` divides it by the squared norm $d/2$; ``"distance"`` is the
        Euclidean distance $2\sqrt{\sum_i \sin^2(k\omega_i/2)}$.

    Returns
    -------
    numpy.ndarray
        float64 array of the broadcast shape of `p` and `q`.

    Raises
    ------
    TypeError
        If `p` or `q` holds non-integers, or another argument has the wrong type.
    ValueError
        If `measure` is not one of the three, the shapes do not broadcast, or
        `d_model` or `base` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> import pe
    >>> float(pe.analysis.similarity(0, 0, d_model=64, measure="dot"))
    32.0
    >>> pe.analysis.similarity(5, [6, 7, 105], d_model=64).round(4)
    array([0.9662, 0.8845, 0.5586])

    The value depends only on the offset:

    >>> bool(pe.analysis.similarity(1000, 1002, 64) == pe.analysis.similarity(0, 2, 64))
    True
    """
    if not isinstance(measure, str):
        raise TypeError(
            f"measure must be one of the strings 'dot', 'cosine' or 'distance'; got "
            f"{type(measure).__name__} {measure!r:.60}"
        )
    if measure not in ("dot", "cosine", "distance"):
        raise ValueError(f"measure must be 'dot', 'cosine' or 'distance'; got {measure!r}")
    d_model = check_d_model(d_model)
    omega = cached_frequencies(d_model, check_base(base))
    return measure_offsets(_offsets(p, q, omega.size), omega, measure)


def pair_distance(offsets: Any, d_model: int, *, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Distance between $PE(p)$ and $PE(p+k)$ within each pair: $2|\sin(k\omega_i/2)|$.

    A pair is a point on the unit circle; this is the chord between the two
    points, 0 when the pair has turned a whole number of times.

    Parameters
    ----------
    offsets : array_like of int
        Offsets $k$ of any shape (an integer here is one offset).
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``offsets.shape + (d_model // 2,)``, each value in
        $[0, 2]$.

    Raises
    ------
    TypeError, ValueError
        For non-integer offsets or an invalid `d_model` or `base`.

    Examples
    --------
    >>> import pe
    >>> pe.analysis.pair_distance(44, d_model=8).round(4)
    array([0.0177, 1.617 , 0.4365, 0.044 ])
    """
    k = _as_positions(offsets, "offsets").astype(np.float64)
    omega = cached_frequencies(check_d_model(d_model), check_base(base))
    check_size((*k.shape, omega.size), name="the result (offsets, d_model / 2)")
    result: NDArray[np.float64] = 2.0 * np.abs(np.sin(k[..., np.newaxis] * omega / 2.0))
    return result


def closest_return(
    pair: int, d_model: int, *, max_offset: int, base: float = 10000.0
) -> tuple[int, float]:
    r"""Find the offset $1 \le k \le$ `max_offset` where `pair` comes closest to its start.

    Pair $i$ turns by $\omega_i$ per position, so after $k$ positions it sits at
    chord distance $2|\sin(k\omega_i/2)|$ from its start (`pair_distance`). A
    fast pair comes back close to its start again and again; this finds the
    closest such return within `max_offset` positions.

    Parameters
    ----------
    pair : int
        Pair index $i$, from 0 to ``d_model // 2 - 1``.
    d_model : int
        Width of the encoding; a positive even integer.
    max_offset : int
        Largest offset to search, from 1 to ``2**31 - 1`` (searched a piece at
        a time: the memory used does not grow with it).
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.

    Returns
    -------
    tuple of (int, float)
        The offset and the pair's chord distance at that offset.

    Raises
    ------
    TypeError
        If `pair` or `max_offset` is not an integer.
    ValueError
        If `pair` is out of range or `max_offset` is below 1.

    Examples
    --------
    >>> import pe
    >>> offset, gap = pe.analysis.closest_return(0, d_model=64, max_offset=100)
    >>> offset, round(gap, 4)
    (44, 0.0177)
    """
    d_model = check_d_model(d_model)
    if not is_integer(pair):
        raise TypeError(f"pair must be an integer; got {pair!r:.60}")
    if not 0 <= pair < d_model // 2:
        raise ValueError(
            f"pair must lie in [0, {d_model // 2 - 1}] for d_model={d_model}; got {pair}"
        )
    if not is_integer(max_offset):
        raise TypeError(f"max_offset must be an integer >= 1; got {max_offset!r:.60}")
    if not 1 <= max_offset <= MAX_POSITION:
        raise ValueError(
            f"max_offset must be an integer from 1 to {MAX_POSITION}; got {max_offset}"
        )
    omega = cached_frequencies(d_model, check_base(base))[pair]
    best = (np.inf, 0)
    for first in range(1, int(max_offset) + 1, _PIECE):
        offsets = np.arange(first, min(first + _PIECE, int(max_offset) + 1), dtype=np.float64)
        gaps = 2.0 * np.abs(np.sin(offsets * omega / 2.0))
        index = int(np.argmin(gaps))  # the first of equal gaps, as over the whole range
        if gaps[index] < best[0]:
            best = (float(gaps[index]), first + index)
    return best[1], best[0]
