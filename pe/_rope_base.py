r"""What RoPE's base sets: RoFormer's decay bound, the critical dimension, the smallest base.

A head of size $d$ turns pair $i$ at $\theta_i = b^{-2i/d}$, $i = 0 \dots d/2 - 1$.
Three published quantities follow from $d$ and $b$ alone, and each has one
function here (float64 throughout):

* `rope_decay_bound`: RoFormer's *relative upper bound* (Su et al. 2021,
  section 3.4.3). With $S_j(r) = \sum_{k<j} e^{i r\theta_k}$ at relative
  distance $r$, Abel summation bounds the score by
  $\max_i |h_{i+1} - h_i| \sum_j |S_j(r)|$, where $h_i$ is pair $i$ of the
  query times the conjugate of pair $i$ of the key; the bound's $r$-dependent
  part is $\frac{1}{d/2}\sum_{j=1}^{d/2} |S_j(r)|$.
* `rope_critical_dimension`: Liu et al. 2023's critical dimension
  $d_\mathrm{extra} = 2\lceil (d/2) \log_b (T/2\pi) \rceil$: twice the number
  of pairs whose wavelength $2\pi/\theta_i$ fits in a training length $T$.
* `rope_min_base`: the smallest base for which Men et al. 2024's
  $B_m = \sum_i \cos(m\theta_i)$ stays non-negative for every
  $m = 0 \dots L - 1$.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pe._validation import (
    _describe,
    check_base,
    check_d_model,
    check_length,
    check_positions,
    check_size,
    is_integer,
    to_float,
)

__all__ = [
    "MAX_BASE_HEAD_DIM",
    "MAX_BASE_TERMS",
    "MAX_MIN_BASE_CONTEXT",
    "rope_critical_dimension",
    "rope_decay_bound",
    "rope_min_base",
]

#: Longest context `rope_min_base` searches: its work grows with the context
#: times the head size.
MAX_MIN_BASE_CONTEXT = 2**22

#: Largest head size `rope_decay_bound` and `rope_min_base` take: each distance
#: or position sums over every pair of the head, and published heads have at
#: most a few hundred dimensions.
MAX_BASE_HEAD_DIM = 2**16

#: Most terms (a distance or position times a pair of the head) that one call
#: of `rope_decay_bound`, or one full check of a base by `rope_min_base`, sums:
#: Men et al.'s head of 128 over the longest context. Checked before any is
#: computed.
MAX_BASE_TERMS = 2**28

# Positions per block when B_m is evaluated over a range, the length of the
# runs of consecutive positions that `_cos_sums` builds a block from, and the
# most float64 values one intermediate array of either function holds.
_BLOCK = 1 << 15
_RUN = 256
_CHUNK = 1 << 19


def _check_positive_integer(value: Any, *, name: str, largest: int) -> int:
    if not is_integer(value):
        raise TypeError(f"{name} must be a positive integer; got {_describe(value)}")
    number = int(value)
    if number < 1:
        raise ValueError(f"{name} must be a positive integer; got {number}")
    if number > largest:
        raise ValueError(f"{name} must be at most {largest:,}; got {number:,}")
    return number


def _check_head_dim(head_dim: Any) -> int:
    """`check_d_model` for the head size, at most `MAX_BASE_HEAD_DIM`."""
    value = check_d_model(head_dim, name="head_dim")
    if value > MAX_BASE_HEAD_DIM:
        raise ValueError(
            f"head_dim must be at most {MAX_BASE_HEAD_DIM:,} (2**16) in rope_decay_bound and "
            f"rope_min_base, which sum over all head_dim / 2 pairs at each distance; "
            f"got {value:,}"
        )
    return value


def _check_terms(count: int, pairs: int, *, what: str) -> None:
    """Refuse more than `MAX_BASE_TERMS` terms (`count` of `what` times `pairs`) at once."""
    if count * pairs > MAX_BASE_TERMS:
        raise ValueError(
            f"{what} times head_dim / 2 must be at most {MAX_BASE_TERMS:,} (2**28) terms; got "
            f"{count:,} x {pairs:,} = {count * pairs:,}"
        )


def _theta(head_dim: int, base: float) -> NDArray[np.float64]:
    """θ_i = base^(-2i/d) for the d/2 pairs, float64."""
    exponents = np.arange(0, head_dim, 2, dtype=np.float64) / head_dim
    theta: NDArray[np.float64] = np.power(base, -exponents)
    return theta


def rope_decay_bound(distances: Any, head_dim: int, base: float = 10000.0) -> NDArray[np.float64]:
    r"""RoFormer's relative upper bound $\frac{1}{d/2}\sum_{j=1}^{d/2}|S_j(r)|$ at each distance.

    Parameters
    ----------
    distances : int or array_like of int
        Relative distances $r = m - n$: an integer ``R`` for ``0 .. R-1``, or
        integers of any shape (negative ones give the same value as their
        magnitude; ``|r| <= 2**31 - 1``).
    head_dim : int
        The head size $d$; a positive even integer, at most 65,536 (``2**16``).
        The distances times $d/2$ may be at most ``2**28`` terms.
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.

    Returns
    -------
    numpy.ndarray
        float64, the shape of `distances`. At $r = 0$ every $S_j = j$, so the
        value is $(d/2 + 1)/2$; it never exceeds that.

    Raises
    ------
    TypeError
        If `distances` holds non-integers, or `head_dim` or `base` has the wrong type.
    ValueError
        If a distance is out of range, `head_dim` is not positive and even
        or above ``2**16``, `base` is not finite and above 1, or the distances
        times ``head_dim / 2`` exceed ``2**28`` terms (checked before any is
        computed).

    Notes
    -----
    Su et al. (2021, section 3.4.3) write the score of RoPE as
    $\operatorname{Re}\sum_i h_i e^{i r\theta_i}$ and sum by parts with
    $S_j = \sum_{k=0}^{j-1} e^{i r \theta_k}$:
    $|\sum_i h_i e^{i r \theta_i}| \le \max_i |h_{i+1} - h_i| \sum_{j=1}^{d/2} |S_j|$.
    This function returns the second factor divided by $d/2$, the curve of the
    paper's Figure 2. It bounds the score of *every* query and key; it says
    nothing about how the score of a given pair behaves.

    Examples
    --------
    >>> import pe
    >>> pe.rope_decay_bound([0, 1, 100, 10000], head_dim=128).round(2)
    array([32.5 , 31.54, 10.23,  3.86])
    >>> float(pe.rope_decay_bound([0], head_dim=8)[0])  # (4 + 1) / 2
    2.5
    """
    head_dim = _check_head_dim(head_dim)
    base = check_base(base)
    pairs = head_dim // 2
    if is_integer(distances):  # check the size before building the distances
        length = check_length(distances, name="distances (a length)")
        check_size(
            (length, pairs),
            name=f"the terms of {length:,} distances for head_dim {head_dim}",
            hint="Ask for fewer distances at a time",
        )
        _check_terms(length, pairs, what="the number of distances")
    positions = check_positions(
        distances, name="distances", row=pairs, result=f"the terms for head_dim {head_dim}"
    )
    _check_terms(positions.size, pairs, what="the number of distances")
    theta = _theta(head_dim, base)
    flat = np.abs(positions.reshape(-1)).astype(np.float64)
    bound = np.empty(flat.size, dtype=np.float64)
    step = max(1, _CHUNK // pairs)
    for start in range(0, flat.size, step):
        angles = np.multiply.outer(flat[start : start + step], theta)  # r·θ_k
        partial = np.cumsum(np.exp(1j * angles), axis=-1)  # S_1 .. S_{d/2}
        bound[start : start + step] = np.abs(partial).mean(axis=-1)
    return bound.reshape(positions.shape)


def rope_critical_dimension(head_dim: int, train_length: int, base: float = 10000.0) -> int:
    r"""Liu et al.'s critical dimension $2\lceil (d/2)\log_b(T/2\pi)\rceil$, clipped to ``[0, d]``.

    Parameters
    ----------
    head_dim : int
        The head size $d$; a positive even integer.
    train_length : int
        The training length $T$ in positions; a positive integer.
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.

    Returns
    -------
    int
        An even number of dimensions between 0 and `head_dim`: the first
        dimensions, whose pairs turn through at least a full period within
        `train_length` positions. The pairs after them never complete a turn
        in training.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If `head_dim` is not positive and even, `train_length` is below 1 or
        `base` is not finite and above 1.

    Notes
    -----
    Pair $i$ has the wavelength $\lambda_i = 2\pi b^{2i/d}$, and
    $\lambda_i \le T \iff i \le (d/2)\log_b(T/2\pi)$. Liu et al. (2023,
    "Scaling Laws of RoPE-based Extrapolation") call the dimensions before the
    first pair with $\lambda_i > T$ the critical dimension for extrapolation:
    past it, a pair has seen only part of its period in training.

    Examples
    --------
    >>> import pe
    >>> pe.rope_critical_dimension(128, 4096)  # Llama 2: d 128, base 10,000, 4,096 positions
    92
    >>> pe.rope_critical_dimension(128, 8192, base=500000.0)  # Llama 3
    70
    """
    head_dim = check_d_model(head_dim, name="head_dim")
    length = _check_positive_integer(train_length, name="train_length", largest=2**62)
    base = check_base(base)
    turns = (head_dim / 2) * math.log(length / (2 * math.pi)) / math.log(base)
    return int(min(head_dim, max(0, 2 * math.ceil(turns))))


def _cos_sums(start: int, stop: int, theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """Return Σ_i cos(m θ_i) for m = start .. stop - 1, without a cosine per m and i.

    Each m is a run's first position r plus an offset j < `_RUN`, and
    cos((r + j) θ) = cos(r θ) cos(j θ) - sin(r θ) sin(j θ): summed over i, two
    matrix products of the runs' cosines and sines with the offsets'. Each
    angle is the product of a position and θ_i, as in the direct sum, and the
    sum of products adds a few units of rounding per pair, not a drift along m.
    """
    count = stop - start
    run = min(count, _RUN)
    starts = start + run * np.arange(-(-count // run), dtype=np.float64)
    steps = np.arange(run, dtype=np.float64)
    sums = np.zeros((starts.size, run))
    width = max(1, _CHUNK // _RUN)  # pairs at a time: a wide head in bounded memory
    for low in range(0, theta.size, width):
        part = theta[low : low + width]
        firsts, offsets = np.multiply.outer(starts, part), np.multiply.outer(steps, part)
        sums += np.cos(firsts) @ np.cos(offsets).T
        sums -= np.sin(firsts) @ np.sin(offsets).T
    return sums.reshape(-1)[:count]


def _some_negative(theta: NDArray[np.float64], context: int) -> int | None:
    """Return a position m < context with Σ cos(m θ_i) < 0, or None if there is none.

    Any such m proves the base too small, so the scan runs from the end, where
    the sum is usually smallest, in blocks that grow from a few hundred positions.
    """
    stop, size = context, 512
    while stop > 0:
        start = max(0, stop - size)
        sums = _cos_sums(start, stop, theta)
        negative = np.flatnonzero(sums < 0)
        if negative.size:
            return start + int(negative[-1])
        stop, size = start, min(2 * size, _BLOCK)
    return None


def rope_min_base(
    context: int,
    head_dim: int,
    *,
    points_per_decade: int = 1000,
    max_base: float = 1e12,
) -> float:
    r"""Smallest base for which $\sum_i \cos(m\theta_i) \ge 0$ for every $m <$ `context`.

    Men et al. (2024) ask that a key close to the query gets, on average, a
    larger score than a random key at every distance the model is trained on;
    for queries and keys with independent components this is
    $B_m = \sum_{i=0}^{d/2-1} \cos(m\theta_i) \ge 0$ for $m = 0 \dots L - 1$.
    The bases that satisfy it do not form an interval (a base can pass while a
    slightly larger one fails), so this function scans a grid upward and
    returns its first point that passes.

    Parameters
    ----------
    context : int
        The context $L$; positions ``0 .. context - 1`` are checked. From 1 to
        `MAX_MIN_BASE_CONTEXT` (``2**22``).
    head_dim : int
        The head size $d$; a positive even integer, at most 65,536 (``2**16``).
        The context times $d/2$ may be at most ``2**28`` terms.
    points_per_decade : int, default 1000
        The grid: bases $10^{k/n}$ for $k = 1, 2, \dots$ with $n$ =
        `points_per_decade` (1000: steps of 0.23 %). From 1 to 100,000.
    max_base : float, default 1e12
        Where the scan stops; a finite number above 1.

    Returns
    -------
    float
        The first grid base that passes. A window of passing bases narrower
        than the grid's step can lie below it: a finer grid can only find a
        smaller value.

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If an argument is out of range, or no grid base up to `max_base`
        passes (``head_dim`` 2 never does past 2 positions: its only pair
        turns at frequency 1 whatever the base, so that is said at once).

    Notes
    -----
    Each grid base is first tried on the positions that ruled out earlier
    bases (the sum changes smoothly with the base, so they usually rule it
    out too), a batch of bases at a time; only a base that survives them is
    checked on every position.
    That check builds the sums from two matrix products (``cos(a + b) =
    cos a cos b - sin a sin b``, over runs of 256 positions) rather than a
    cosine per position and pair.
    The check is exact in float64 up to rounding: sums within about 1e-9 of
    zero could fall either way.

    Examples
    --------
    >>> import pe
    >>> f"{pe.rope_min_base(1024, 128):.3g}"  # Men et al. report 4.3e3 for d = 128, 1k
    '4.3e+03'
    >>> pe.rope_min_base(2, 128)  # m = 0 and 1 pass for any base: the grid's first point
    1.0023052380778996
    """
    context = _check_positive_integer(context, name="context", largest=MAX_MIN_BASE_CONTEXT)
    head_dim = _check_head_dim(head_dim)
    _check_terms(context, head_dim // 2, what="context")
    per_decade = _check_positive_integer(
        points_per_decade, name="points_per_decade", largest=100_000
    )
    if isinstance(max_base, (bool, np.bool_)) or not isinstance(max_base, (int, float)):
        raise TypeError(f"max_base must be a real number greater than 1; got {_describe(max_base)}")
    ceiling = to_float(max_base, name="max_base", accepted="a finite real number greater than 1")
    if not math.isfinite(ceiling) or ceiling <= 1.0:
        raise ValueError(f"max_base must be a finite real number greater than 1; got {ceiling!r}")
    if head_dim == 2 and context > 2:  # theta_0 = 1 for every base, and cos(2) < 0
        raise _no_base(ceiling, context, head_dim)
    exponents = np.arange(0, head_dim, 2, dtype=np.float64) / head_dim
    witnesses: list[float] = []  # positions that ruled out a smaller base
    batch = max(1, min(1024, _CHUNK // (8 * exponents.size)))
    step = 1
    while True:
        bases = _grid_bases(step, batch, per_decade, ceiling)
        if not bases:
            raise _no_base(ceiling, context, head_dim)
        step += len(bases)
        thetas = np.power(np.asarray(bases)[:, np.newaxis], -exponents)  # a row per base
        fresh: list[float] = []  # witnesses found in this batch, tried on each base left
        for index in np.flatnonzero(_survivors(thetas, witnesses)):
            theta = thetas[index]
            if fresh and (np.cos(np.multiply.outer(fresh, theta)).sum(axis=-1) < 0).any():
                continue
            found = _some_negative(theta, context)
            if found is None:
                return float(bases[index])
            fresh.append(float(found))
        witnesses += fresh


def _grid_bases(first: int, count: int, per_decade: int, ceiling: float) -> list[float]:
    """Return the grid's bases 10**(k / per_decade), k = first, first + 1, ..., up to `ceiling`."""
    bases = []
    for k in range(first, first + count):
        try:
            base = 10.0 ** (k / per_decade)
        except OverflowError:  # past float64, so past any ceiling
            break
        if base > ceiling:
            break
        bases.append(base)
    return bases


def _survivors(thetas: NDArray[np.float64], witnesses: list[float]) -> NDArray[np.bool_]:
    """Tell, for each row of `thetas`, whether every witness m keeps Σ cos(m θ_i) >= 0.

    The latest witnesses rule out most bases (the sum changes smoothly with
    the base), so the latest is tried first, alone, then the three before it,
    then the others eight at a time, each on the rows left.
    """
    alive = np.ones(len(thetas), dtype=bool)
    latest = len(witnesses) - 1
    groups = [(latest, latest + 1), (max(0, latest - 3), latest)]
    groups += [(max(0, end - 8), end) for end in range(latest - 3, 0, -8)]
    for start, end in groups if witnesses else []:
        rows = np.flatnonzero(alive)
        if not rows.size:
            break
        group = np.asarray(witnesses[start:end])
        angles = thetas[rows][:, np.newaxis, :] * group[:, np.newaxis]  # (rows, witness, pair)
        alive[rows] = (np.cos(angles).sum(axis=-1) >= 0).all(axis=-1)
    return alive


def _no_base(ceiling: float, context: int, head_dim: int) -> ValueError:
    hint = (
        "head_dim 2 has one pair, turning at frequency 1 whatever the base, so no "
        "base passes past 2 positions"
        if head_dim == 2
        else "raise max_base"
    )
    return ValueError(
        f"no base up to max_base={ceiling:g} keeps sum_i cos(m theta_i) >= 0 for every "
        f"m < context={context} with head_dim={head_dim}; {hint}"
    )
