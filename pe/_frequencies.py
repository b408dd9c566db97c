r"""The frequencies of the sinusoidal encoding, and the angles they produce.

For a model width $d$ and base $b$ (10000 in the paper), pair
$i = 0, 1, \dots, d/2 - 1$ turns at the angular frequency

$$
\omega_i = b^{-2i/d},
$$

so position $p$ sits at the angle $p\,\omega_i$ in pair $i$.
Everything here is float64: the angles are exact up to one rounding.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pe._cache import bytes_cache
from pe._validation import (
    check_base,
    check_d_model,
    check_length,
    check_positions,
    check_size,
    is_integer,
)

__all__ = ["angles", "cached_frequencies", "frequencies", "wavelengths"]


def frequencies(d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Angular frequencies $\omega_i = b^{-2i/d}$ of the ``d_model / 2`` pairs.

    Parameters
    ----------
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(d_model // 2,)``, falling geometrically from
        ``1.0`` (pair 0) by the ratio ``base ** (-2 / d_model)`` per pair.

    Raises
    ------
    TypeError
        If `d_model` is not an integer or `base` is not a real number.
    ValueError
        If `d_model` is not positive and even, or `base` is not finite and above 1.

    Notes
    -----
    Computed as ``base ** (-2 i / d)`` with one float64 power per pair, which is
    accurate to about one unit in the last place. The common
    ``exp(2 i * (-log(base) / d))`` form gives the same numbers to about 1e-15.

    Examples
    --------
    >>> import pe
    >>> pe.frequencies(8)
    array([1.   , 0.1  , 0.01 , 0.001])
    >>> pe.frequencies(4, base=100.0)
    array([1. , 0.1])
    """
    omega = cached_frequencies(check_d_model(d_model), check_base(base))
    copy: NDArray[np.float64] = np.array(omega, dtype=np.float64)
    return copy


@bytes_cache(16 * 2**20)
def cached_frequencies(d_model: int, base: float) -> NDArray[np.float64]:
    """Return `frequencies` for checked arguments, as a shared read-only array."""
    exponents = np.arange(0, d_model, 2, dtype=np.float64) / d_model  # 2i/d
    omega: NDArray[np.float64] = np.power(base, -exponents)
    omega.flags.writeable = False
    return omega


def wavelengths(d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Wavelengths $2\pi / \omega_i$: positions per full turn of each pair.

    Parameters
    ----------
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(d_model // 2,)`` rising from $2\pi$ to
        $2\pi\, b^{(d-2)/d}$, always short of $2\pi b$.

    Raises
    ------
    TypeError
        If `d_model` is not an integer or `base` is not a real number.
    ValueError
        If `d_model` is not positive and even, or `base` is not finite and above 1.

    Examples
    --------
    >>> import pe
    >>> pe.wavelengths(4).round(2)
    array([  6.28, 628.32])
    """
    return 2.0 * np.pi / frequencies(d_model, base)


def angles(positions: Any, d_model: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Angles $p\,\omega_i$ for every position and pair, in float64.

    Parameters
    ----------
    positions : int or array_like of int
        An integer ``L`` for positions ``0 .. L-1``, or integer positions of
        any shape (negative positions are allowed; ``|p| <= 2**31 - 1``).
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``positions.shape + (d_model // 2,)``.

    Raises
    ------
    TypeError
        If `positions` holds non-integers (floats, NaN, booleans), or another
        argument has the wrong type.
    ValueError
        If a length is negative, a position is out of range, `d_model` is not
        positive and even, or `base` is not finite and above 1.

    Examples
    --------
    >>> import pe
    >>> pe.angles(3, d_model=4)
    array([[0.  , 0.  ],
           [1.  , 0.01],
           [2.  , 0.02]])
    >>> pe.angles([[5, 6]], d_model=2).shape
    (1, 2, 1)
    """
    omega = frequencies(d_model, base)
    if is_integer(positions):  # check the size before building the positions
        check_size((check_length(positions, name="positions (a length)"), omega.size))
    positions = check_positions(positions, row=omega.size)
    result: NDArray[np.float64] = positions.astype(np.float64)[..., np.newaxis] * omega
    return result
