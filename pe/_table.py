r"""The sinusoidal table, computed exactly and in one pass with the rotation property.

The paper's table, in its interleaved layout, is

$$
PE(p, 2i) = \sin(p\,\omega_i), \qquad PE(p, 2i+1) = \cos(p\,\omega_i).
$$

Read each (sin, cos) pair as one complex number $z_p = \sin(p\omega) +
i\cos(p\omega) = i\,e^{-ip\omega}$. Splitting a position into a block start
and an offset, $p = h + l$, turns the angle-addition formulas into one
complex product:

$$
z_{h+l} = z_h \cdot e^{-il\omega}.
$$

So the table needs sines and cosines of only a few block starts and a few
offsets (float64, then rounded once), and every output pair is one complex
multiplication in the output precision, written straight into the result. The
error stays at a few float32 roundings (below 3e-7 in float32) at every position,
where ``sin(p * omega)`` with float32 angles loses about ``p * 6e-8``.

The block split depends on the position alone (``h = floor(p / BLOCK) * BLOCK``),
so a row is bit-for-bit the same whatever range or batch it was requested in.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pe._frequencies import frequencies
from pe._validation import check_base, check_d_model, check_dtype, check_positions

__all__ = ["BLOCK", "PrecisionWarning", "sinusoidal"]

#: Positions per block in the exact method: ``p = h + l`` with ``h`` a multiple
#: of ``BLOCK`` and ``0 <= l < BLOCK``.
BLOCK = 256

# Rows per chunk where a chunked pass is needed (float16 output, scattered positions).
_CHUNK_ROWS = 4096


class PrecisionWarning(UserWarning):
    """The requested dtype makes two different positions' encodings identical."""


# --8<-- [start:factors]
def head_factors(starts: NDArray[np.int64], omega: NDArray[np.float64]) -> NDArray[np.complex128]:
    r"""$z_h = \sin(h\omega) + i\cos(h\omega)$ for block starts `starts`."""
    theta = starts.astype(np.float64)[:, np.newaxis] * omega
    factors = np.empty(theta.shape, np.complex128)
    factors.real = np.sin(theta)
    factors.imag = np.cos(theta)
    return factors


def step_factors(count: int, omega: NDArray[np.float64]) -> NDArray[np.complex128]:
    r"""$e^{-il\omega} = \cos(l\omega) - i\sin(l\omega)$ for offsets ``0 .. count-1``."""
    theta = np.arange(count, dtype=np.float64)[:, np.newaxis] * omega
    factors = np.empty(theta.shape, np.complex128)
    factors.real = np.cos(theta)
    factors.imag = -np.sin(theta)
    return factors


# --8<-- [end:factors]


@dataclass(frozen=True)
class Segment:
    """Rows ``row .. row + heads * steps`` of a run, as ``heads`` blocks of ``steps`` rows.

    Output row ``row + j * steps + k`` is head factor ``head + j`` times step
    factor ``step + k``.
    """

    row: int
    head: int
    heads: int
    step: int
    steps: int


@dataclass(frozen=True)
class RunPlan:
    """How the contiguous positions ``start .. start + count - 1`` split into blocks."""

    head_positions: NDArray[np.int64]
    step_count: int
    segments: tuple[Segment, ...]


def plan_run(start: int, count: int) -> RunPlan:
    """Split a contiguous run of positions into at most three broadcast products.

    A partial first block, the full blocks, and a partial last block.
    """
    first = (start // BLOCK) * BLOCK
    lead = min(first + BLOCK - start, count)  # rows in the first (maybe partial) block
    full = (count - lead) // BLOCK
    tail = count - lead - full * BLOCK
    segments = [Segment(row=0, head=0, heads=1, step=start - first, steps=lead)]
    if full:
        segments.append(Segment(row=lead, head=1, heads=full, step=0, steps=BLOCK))
    if tail:
        segments.append(
            Segment(row=lead + full * BLOCK, head=1 + full, heads=1, step=0, steps=tail)
        )
    head_positions = first + BLOCK * np.arange(1 + full + (tail > 0), dtype=np.int64)
    step_count = BLOCK if full else max(s.step + s.steps for s in segments)
    return RunPlan(head_positions, step_count, tuple(segments))


def contiguous_start(positions: NDArray[np.int64]) -> int | None:
    """Return the first position if `positions` (1-D) is ``start, start + 1, ...``, else None."""
    if positions.size == 0:
        return None
    if positions.size > 1 and not bool(np.all(positions[1:] - positions[:-1] == 1)):
        return None
    return int(positions[0])


def _fill_pairs(
    pairs: NDArray[np.complexfloating[Any, Any]],
    positions: NDArray[np.int64],
    omega: NDArray[np.float64],
) -> None:
    r"""Write $\sin + i\cos$ of every position's angles into `pairs` (rows x d/2)."""
    ctype = pairs.dtype
    start = contiguous_start(positions)
    # --8<-- [start:run]
    if start is not None:
        plan = plan_run(start, positions.size)
        heads = head_factors(plan.head_positions, omega).astype(ctype)
        steps = step_factors(plan.step_count, omega).astype(ctype)
        half = omega.size
        for seg in plan.segments:
            target = pairs[seg.row : seg.row + seg.heads * seg.steps]
            np.multiply(
                heads[seg.head : seg.head + seg.heads, np.newaxis, :],
                steps[np.newaxis, seg.step : seg.step + seg.steps, :],
                out=target.reshape(seg.heads, seg.steps, half),
            )
        return
    # --8<-- [end:run]
    # Scattered positions: gather per-row factors, a chunk of rows at a time so
    # that no temporary outgrows the output.
    block_start = (positions // BLOCK) * BLOCK
    offset = positions - block_start
    unique_starts, which = np.unique(block_start, return_inverse=True)
    heads = head_factors(unique_starts, omega).astype(ctype)
    steps = step_factors(int(offset.max()) + 1, omega).astype(ctype)
    for row in range(0, positions.size, _CHUNK_ROWS):
        rows = slice(row, row + _CHUNK_ROWS)
        np.multiply(heads[which[rows]], steps[offset[rows]], out=pairs[rows])


def _fill_table(
    out: NDArray[np.floating[Any]], positions: NDArray[np.int64], omega: NDArray[np.float64]
) -> None:
    """Fill `out` (rows x d_model, C-contiguous) with the interleaved table."""
    if out.dtype == np.float64:
        _fill_pairs(out.view(np.complex128), positions, omega)
    elif out.dtype == np.float32:
        _fill_pairs(out.view(np.complex64), positions, omega)
    else:  # float16: compute in float32 a chunk at a time, then round once
        chunk = max(1, min(_CHUNK_ROWS, positions.size // 2))
        buffer = np.empty((chunk, out.shape[1]), np.float32)
        for row in range(0, positions.size, chunk):
            part = positions[row : row + chunk]
            scratch = buffer[: part.size]
            _fill_pairs(scratch.view(np.complex64), part, omega)
            out[row : row + part.size] = scratch


def _check_distinct(table: NDArray[np.floating[Any]], positions: NDArray[np.int64]) -> None:
    """Warn if two different positions got byte-identical rows."""
    unique_positions, first_row = np.unique(positions, return_index=True)
    rows = np.ascontiguousarray(table[first_row])
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first_of_key, key_of_row = np.unique(keys, return_index=True, return_inverse=True)
    if first_of_key.size == unique_positions.size:
        return
    clash = int(np.flatnonzero(first_of_key[key_of_row.ravel()] != np.arange(keys.size))[0])
    twin = int(first_of_key[key_of_row.ravel()[clash]])
    warnings.warn(
        f"dtype {table.dtype} cannot distinguish the requested positions: positions "
        f"{int(unique_positions[twin])} and {int(unique_positions[clash])} get identical "
        f"encodings after rounding to {table.dtype}. Use float32, or a larger d_model.",
        PrecisionWarning,
        stacklevel=3,
    )


def sinusoidal(
    positions: Any,
    d_model: int,
    *,
    base: float = 10000.0,
    dtype: Any = np.float32,
) -> NDArray[np.floating[Any]]:
    r"""Compute the sinusoidal positional encoding table, in the paper's interleaved layout.

    Column ``2i`` holds $\sin(p\,\omega_i)$ and column ``2i+1`` holds
    $\cos(p\,\omega_i)$, with $\omega_i = b^{-2i/d}$.

    Parameters
    ----------
    positions : int or array_like of int
        An integer ``L`` for positions ``0 .. L-1``, or integer positions of any
        shape (any start, e.g. ``np.arange(1000, 1016)``; negative positions and
        repeats are allowed; ``|p| <= 2**31 - 1``).
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.
    dtype : numpy dtype, default numpy.float32
        ``float16``, ``float32`` or ``float64``. Angles are always float64; the
        result is rounded to `dtype` once, at the end.

    Returns
    -------
    numpy.ndarray
        Array of shape ``positions.shape + (d_model,)`` (``(L, d_model)`` for a
        length) and dtype `dtype`. Every value lies in ``[-1, 1]``.

    Raises
    ------
    TypeError
        If `positions` holds non-integers (floats, NaN, booleans), `dtype` is not
        one of the three float types, or another argument has the wrong type.
    ValueError
        If a length is negative, a position is out of range, `d_model` is not
        positive and even, or `base` is not finite and above 1.

    Warns
    -----
    PrecisionWarning
        With ``dtype=float16``, when rounding makes two different requested
        positions' rows identical.

    Notes
    -----
    Computed with the rotation property: each position is a block start plus an
    offset, and each (sin, cos) pair is one complex product of two factors known
    to float64 accuracy. The float32 result is within 3e-7 of the exact value
    for every ``|p| < 2**24``; row ``p`` does not depend on what else was asked.

    Examples
    --------
    >>> import numpy as np
    >>> import pe
    >>> table = pe.sinusoidal(4, d_model=4)
    >>> table.shape, table.dtype
    ((4, 4), dtype('float32'))
    >>> table.round(4)
    array([[ 0.    ,  1.    ,  0.    ,  1.    ],
           [ 0.8415,  0.5403,  0.01  ,  1.    ],
           [ 0.9093, -0.4161,  0.02  ,  0.9998],
           [ 0.1411, -0.99  ,  0.03  ,  0.9996]], dtype=float32)

    Any start, and the rows agree with the table from zero exactly:

    >>> later = pe.sinusoidal(np.arange(1000, 1016), d_model=64)
    >>> bool((later == pe.sinusoidal(1016, d_model=64)[1000:]).all())
    True
    """
    positions = check_positions(positions)
    d_model = check_d_model(d_model)
    base = check_base(base)
    dtype = check_dtype(dtype)
    omega = frequencies(d_model, base)
    flat = positions.reshape(-1)
    table = np.empty((flat.size, d_model), dtype)
    if flat.size:
        _fill_table(table, flat, omega)
        if dtype == np.float16:
            _check_distinct(table, flat)
    result: NDArray[np.floating[Any]] = table.reshape((*positions.shape, d_model))
    return result
