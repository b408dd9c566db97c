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
so a row is bit-for-bit the same whatever range or batch it was requested in. A
negative position is computed as its mirror: the row of ``|p|`` with its sines
negated (``sin`` is odd, ``cos`` even), so it is as accurate as the positive one
(splitting ``-3`` as ``-16384 + 16381`` would cancel two large angles).

One engine serves numpy and torch: `fill` plans the blocks and multiplies the
factors through `ArrayOps`, a handful of array operations that `NUMPY` (here)
and ``pe.nn``'s ``TorchOps`` implement. Public functions check their arguments
once and call unchecked cores (`encode` here).
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from pe._cache import bytes_cache
from pe._frequencies import cached_frequencies
from pe._stack import outside_stacklevel
from pe._validation import (
    check_base,
    check_d_model,
    check_dtype,
    check_length,
    check_positions,
    check_size,
    is_integer,
)

__all__ = ["BLOCK", "FLOAT32_BOUND", "PrecisionWarning", "sinusoidal"]

#: Largest error of a float32 table against the exact values, at any position
#: ``|p| < 2**24``: four float32 roundings of a product of unit complex numbers
#: (``4 * 2**-24``, derived on the "Precision and speed" page), rounded up. Every
#: test, benchmark, figure and page imports it; test_table checks the docstrings.
FLOAT32_BOUND = 3e-7

#: Positions per block in the exact method: ``p = h + l`` with ``h`` a multiple
#: of ``BLOCK`` and ``0 <= l < BLOCK``.
BLOCK = 256
# The factors themselves are products of two float64 phasors: an offset is
# ``16 a + b`` and a block index ``64 a + b``, so that a table needs only a few
# dozen sines and cosines per pair. Fixed splits keep every factor identical
# from one request to the next.
STEP_SPLIT = 16
HEAD_SPLIT = 64

#: Bytes each factor cache may hold (its least recently used entries go first).
CACHE_BYTES = 64 * 2**20

#: Entries kept by the caches keyed by a run's first block: enough for the few
#: lengths a model asks for again and again, few enough that a decoder asking
#: for a new offset every step does not pile up thousands of small allocations.
RUN_CACHE_ENTRIES = 32

# Rows per chunk where a chunked pass is needed (float16 output, scattered positions).
_CHUNK_ROWS = 4096


class PrecisionWarning(UserWarning):
    """The requested dtype makes two different positions' encodings identical."""


# --8<-- [start:factors]
def _phasors(multiples: NDArray[np.int64], unit: int, omega: NDArray[np.float64]) -> NDArray[Any]:
    r"""$e^{-i\,m u\,\omega} = \cos(mu\omega) - i\sin(mu\omega)$ for integers $m$, unit $u$."""
    theta = (multiples * unit).astype(np.float64)[
        :, np.newaxis
    ] * omega  # exact integer, one rounding
    factors = np.empty(theta.shape, np.complex128)
    factors.real = np.cos(theta)
    factors.imag = -np.sin(theta)
    return factors


def step_factors(
    count: int, omega: NDArray[np.float64], ctype: Any = np.complex128
) -> NDArray[Any]:
    r"""$e^{-il\omega}$ for offsets $0 \le l <$ `count` (at most `BLOCK`), read-only.

    Built as $e^{-i16a\omega}\,e^{-ib\omega}$ and kept in a small cache: the table
    depends only on the frequencies and the dtype, not on the request.
    """
    return step_rows(range(count), omega, ctype)


def _cacheable(rows: int, omega: NDArray[np.float64], ctype: Any) -> bool:
    """Whether a factor table of `rows` rows fits the cache (else: compute only what is used)."""
    return bool(rows * omega.size * np.dtype(ctype).itemsize <= CACHE_BYTES)


def step_rows(
    offsets: range | NDArray[np.int64], omega: NDArray[np.float64], ctype: Any = np.complex128
) -> NDArray[Any]:
    r"""$e^{-il\omega}$ for the in-block offsets `offsets` (a range, or an int64 array).

    From the cached table of all `BLOCK` offsets when it fits `CACHE_BYTES`;
    for a wider encoding only the requested rows are computed, with the same
    two products, so the bits are the same either way and one row of a very
    wide table costs one row of factors, not `BLOCK`.
    """
    if _cacheable(BLOCK, omega, ctype):
        table = _step_table(omega.tobytes(), np.dtype(ctype).str)
        if isinstance(offsets, range):
            return table[offsets.start : offsets.stop]
        return table[offsets]
    factors = np.empty((len(offsets), omega.size), ctype)
    if isinstance(offsets, range):  # one slice of rows per coarse multiple, no gather
        groups = range(offsets.start // STEP_SPLIT, (offsets.stop - 1) // STEP_SPLIT + 1)
        coarse = _phasors(np.arange(groups.start, groups.stop), STEP_SPLIT, omega)
        used = np.unique(np.arange(offsets.start, offsets.stop) % STEP_SPLIT)  # sorted
        fine = _phasors(used, 1, omega)  # only the fine multiples the offsets use
        for index, group in enumerate(groups if len(offsets) else ()):
            low = max(offsets.start, group * STEP_SPLIT)
            high = min(offsets.stop, (group + 1) * STEP_SPLIT)
            first = int(np.searchsorted(used, low - group * STEP_SPLIT))  # consecutive in used
            np.multiply(
                coarse[index],
                fine[first : first + high - low],
                out=factors[low - offsets.start : high - offsets.start],
            )  # as in _step_table: rounded once
        return factors
    # At most 16 distinct multiples each: their phasors once, then one row per offset.
    coarse = _distinct_phasors(offsets // STEP_SPLIT, STEP_SPLIT, omega)
    fine = _distinct_phasors(offsets % STEP_SPLIT, 1, omega)
    np.multiply(coarse, fine, out=factors)  # as in _step_table: rounded once
    return factors


def _distinct_phasors(
    multiples: NDArray[np.int64], unit: int, omega: NDArray[np.float64]
) -> NDArray[np.complex128]:
    """`_phasors` of `multiples`, with the sines and cosines of each distinct multiple once.

    The rows are the bits `_phasors` gives (a row depends on its multiple
    alone); for many rows of few multiples, the cost of a gather, not of
    ``len(multiples) * omega.size`` sines and cosines.
    """
    distinct, which = np.unique(multiples, return_inverse=True)
    if distinct.size == multiples.size:
        return _phasors(multiples, unit, omega)
    return _phasors(distinct, unit, omega)[which.reshape(-1)]


@bytes_cache(CACHE_BYTES)
def _step_table(omega_bytes: bytes, ctype: str) -> NDArray[Any]:
    omega = np.frombuffer(omega_bytes, dtype=np.float64)
    coarse = _phasors(np.arange(BLOCK // STEP_SPLIT), STEP_SPLIT, omega)
    fine = _phasors(np.arange(STEP_SPLIT), 1, omega)
    factors = np.empty((BLOCK // STEP_SPLIT, STEP_SPLIT, omega.size), ctype)
    np.multiply(coarse[:, np.newaxis, :], fine[np.newaxis, :, :], out=factors)  # rounded once
    factors.flags.writeable = False
    return factors.reshape(BLOCK, omega.size)


@bytes_cache(CACHE_BYTES)
def _block_phasors(omega_bytes: bytes) -> NDArray[np.complex128]:
    r"""$e^{-i\,256 b\,\omega}$ for $b = 0 \dots 63$, read-only and cached."""
    factors = _phasors(np.arange(HEAD_SPLIT), BLOCK, np.frombuffer(omega_bytes, dtype=np.float64))
    factors.flags.writeable = False
    return factors


def _fine_blocks(
    indices: range | NDArray[np.int64], omega: NDArray[np.float64]
) -> NDArray[np.complex128]:
    r"""Rows `indices` of `_block_phasors`; for a wide encoding, only those rows are computed."""
    if _cacheable(HEAD_SPLIT, omega, np.complex128):
        fine = _block_phasors(omega.tobytes())
        return fine[indices.start : indices.stop] if isinstance(indices, range) else fine[indices]
    wanted = np.arange(indices.start, indices.stop) if isinstance(indices, range) else indices
    return _distinct_phasors(wanted, BLOCK, omega)


def head_factors(
    starts: range | NDArray[np.int64], omega: NDArray[np.float64], ctype: Any = np.complex128
) -> NDArray[Any]:
    r"""$z_h = \sin(h\omega) + i\cos(h\omega) = i\,e^{-ih\omega}$ for block starts $h$.

    `starts` holds multiples of `BLOCK`, as an array or as a ``range`` with step
    `BLOCK`. Block $j = h / 256$ is split as $j = 64a + b$, so only a few sines
    and cosines are evaluated however many blocks there are; the split depends
    on $h$ alone, so a block's factor is the same in every request.
    """
    factors = np.empty((len(starts), omega.size), ctype)
    if isinstance(starts, range):  # consecutive blocks: one slice per coarse group
        first, stop = starts.start // BLOCK, starts.stop // BLOCK
        groups = (
            range(first // HEAD_SPLIT, (stop - 1) // HEAD_SPLIT + 1) if len(starts) else range(0)
        )
        coarse = 1j * _phasors(np.arange(groups.start, groups.stop), BLOCK * HEAD_SPLIT, omega)
        for index, group in enumerate(groups):
            low = max(first, group * HEAD_SPLIT)
            high = min(stop, (group + 1) * HEAD_SPLIT)
            fine = _fine_blocks(range(low - group * HEAD_SPLIT, high - group * HEAD_SPLIT), omega)
            np.multiply(coarse[index], fine, out=factors[low - first : high - first])
        return factors
    blocks = starts // BLOCK
    coarse_index = blocks // HEAD_SPLIT
    groups_array, which = np.unique(coarse_index, return_inverse=True)
    coarse = 1j * _phasors(groups_array, BLOCK * HEAD_SPLIT, omega)  # i e^{-i 64 a 256 omega}
    fine = _fine_blocks(blocks - coarse_index * HEAD_SPLIT, omega)  # e^{-i 256 b omega}
    np.multiply(coarse[which.reshape(-1)], fine, out=factors)
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

    head_positions: range
    step_count: int
    segments: tuple[Segment, ...]


@functools.lru_cache(maxsize=1024)
def plan_run(start: int, count: int) -> RunPlan:
    """Split a contiguous run of positions into at most three broadcast products.

    A partial first block, the full blocks, and a partial last block (a first
    block that starts on a block boundary counts as a full one).
    """
    first = (start // BLOCK) * BLOCK
    lead = min(first + BLOCK - start, count)  # rows in the first (maybe partial) block
    if lead == BLOCK:
        lead = 0  # aligned: the first block is a full one
    full = (count - lead) // BLOCK
    tail = count - lead - full * BLOCK
    segments = []
    if lead:
        segments.append(Segment(row=0, head=0, heads=1, step=start - first, steps=lead))
    if full:
        segments.append(Segment(row=lead, head=int(lead > 0), heads=full, step=0, steps=BLOCK))
    if tail:
        head = int(lead > 0) + full
        segments.append(Segment(row=lead + full * BLOCK, head=head, heads=1, step=0, steps=tail))
    heads = int(lead > 0) + full + int(tail > 0)
    step_count = BLOCK if full else max(s.step + s.steps for s in segments)
    return RunPlan(range(first, first + BLOCK * heads, BLOCK), step_count, tuple(segments))


def as_run(positions: NDArray[np.int64]) -> range | NDArray[np.int64]:
    """Return ``range(start, stop)`` if 1-D `positions` are consecutive, else the array."""
    if positions.size == 0:
        return range(0)
    if positions.size > 1 and not bool(np.all(positions[1:] - positions[:-1] == 1)):
        return positions
    start = int(positions[0])
    return range(start, start + positions.size)


class ArrayOps(Protocol):
    """The few array operations the block engine needs, for one array library.

    `fill` is written once against this interface; `NUMPY` implements it here
    and `pe.nn` implements it for torch (so that ``import pe`` never imports
    torch). Arrays are sliced, indexed with ``None`` and reshaped the same way
    in both libraries, so only what differs is listed.
    """

    def pairs(self, table: Any) -> Any | None:
        """Return the complex (rows x d/2) view of a float32/64 table; None for lower precisions."""

    def scratch(self, table: Any, rows: int) -> Any:
        """Return an uninitialized float32 array of `rows` rows like `table` (width, device)."""

    def heads(
        self, starts: range | NDArray[np.int64], omega: NDArray[np.float64], like: Any
    ) -> Any:
        """Return `head_factors` for `starts` in the complex dtype and on the device of `like`."""

    def steps(self, omega: NDArray[np.float64], like: Any, offsets: range | NDArray[Any]) -> Any:
        """Return `step_rows` for `offsets` in the complex dtype and on the device of `like`."""

    def split(self, positions: Any) -> tuple[NDArray[np.int64], Any, NDArray[np.int64], Any]:
        """Split non-negative positions into blocks and offsets.

        Returns the distinct block starts (numpy), each row's index into them,
        the distinct in-block offsets (numpy) and each row's index into those.
        """

    def host(self, positions: NDArray[np.int64], like: Any) -> Any:
        """Return numpy int64 `positions` as an array of this library, on the device of `like`."""

    def multiply(self, a: Any, b: Any, out: Any) -> None:
        """Write the broadcast product ``a * b`` into `out`, allocating nothing of its size."""

    def negate_sines(self, pairs: Any, rows: Any | None) -> None:
        """Negate the real parts (the sines) of `pairs`, of the rows where `rows` is True or all."""


def fill(ops: ArrayOps, table: Any, positions: Any, omega: NDArray[np.float64]) -> None:
    """Fill `table` (rows x d_model, C-contiguous) with the interleaved table of `positions`.

    `positions` is a ``range`` (consecutive positions) or a 1-D integer array of
    `ops`' library. float32 and float64 tables are written in place, one complex
    product per pair; lower precisions are computed in float32 a chunk at a time
    and rounded once.
    """
    pairs = ops.pairs(table)
    if pairs is not None:
        _fill_pairs(ops, pairs, positions, omega)
        return
    count = len(positions)
    chunk = max(1, min(_CHUNK_ROWS, count // 2))
    buffer = ops.scratch(table, chunk)
    for row in range(0, count, chunk):
        part = positions[row : row + chunk]
        scratch = buffer[: len(part)]
        _fill_pairs(ops, ops.pairs(scratch), part, omega)
        table[row : row + len(part)] = scratch


def _fill_pairs(ops: ArrayOps, pairs: Any, positions: Any, omega: NDArray[np.float64]) -> None:
    r"""Write $\sin + i\cos$ of every position's angles into complex `pairs` (rows x d/2)."""
    if not isinstance(positions, range):
        _fill_scattered(ops, pairs, positions, omega)
        return
    if positions.start < 0:  # the negative rows are the mirrors of positive ones
        split = min(positions.stop, 0)
        count = split - positions.start
        mirrored = np.arange(-positions.start, -split, -1, dtype=np.int64)
        _fill_scattered(ops, pairs[:count], ops.host(mirrored, pairs), omega)
        ops.negate_sines(pairs[:count], None)
        pairs, positions = pairs[count:], range(split, positions.stop)
    if len(positions):
        _fill_run(ops, pairs, positions, omega)


def _fill_run(ops: ArrayOps, pairs: Any, positions: range, omega: NDArray[np.float64]) -> None:
    """`_fill_pairs` for a non-empty run of non-negative positions: broadcast products."""
    # --8<-- [start:run]
    plan = plan_run(positions.start, len(positions))
    heads = ops.heads(plan.head_positions, omega, pairs)
    low = min(seg.step for seg in plan.segments)  # only the offsets the run uses
    steps = ops.steps(omega, pairs, range(low, max(seg.step + seg.steps for seg in plan.segments)))
    half = omega.size
    for seg in plan.segments:
        target = pairs[seg.row : seg.row + seg.heads * seg.steps]
        ops.multiply(
            heads[seg.head : seg.head + seg.heads, None, :],
            steps[None, seg.step - low : seg.step - low + seg.steps, :],
            out=target.reshape(seg.heads, seg.steps, half),
        )
    # --8<-- [end:run]


def _fill_scattered(ops: ArrayOps, pairs: Any, positions: Any, omega: NDArray[np.float64]) -> None:
    """`_fill_pairs` for a 1-D integer array of positions, in any order, with repeats."""
    negative = positions < 0
    mirror = bool(negative.any())
    if mirror:
        positions = abs(positions)
    # Gather per-row factors, a chunk of rows at a time so that no temporary
    # outgrows the output; only the distinct blocks and offsets get factors.
    starts, which, offsets, offset_index = ops.split(positions)
    heads = ops.heads(starts, omega, pairs)
    steps = ops.steps(omega, pairs, offsets)
    for row in range(0, len(which), _CHUNK_ROWS):
        rows = slice(row, row + _CHUNK_ROWS)
        ops.multiply(heads[which[rows]], steps[offset_index[rows]], out=pairs[rows])
        if mirror:
            ops.negate_sines(pairs[rows], negative[rows])


@bytes_cache(CACHE_BYTES, RUN_CACHE_ENTRIES)
def _run_heads(omega_bytes: bytes, ctype: str, start: int, count: int) -> NDArray[Any]:
    """`head_factors` for the consecutive blocks ``start, start + BLOCK, ...``, read-only."""
    omega = np.frombuffer(omega_bytes, dtype=np.float64)
    factors = head_factors(range(start, start + count * BLOCK, BLOCK), omega, np.dtype(ctype))
    factors.flags.writeable = False
    return factors


class _NumpyOps:
    """`ArrayOps` for numpy arrays (on the host)."""

    def pairs(self, table: NDArray[Any]) -> NDArray[Any] | None:
        if table.dtype == np.float64:
            return table.view(np.complex128)
        if table.dtype == np.float32:
            return table.view(np.complex64)
        return None

    def scratch(self, table: NDArray[Any], rows: int) -> NDArray[np.float32]:
        return np.empty((rows, table.shape[1]), np.float32)

    def heads(
        self, starts: range | NDArray[np.int64], omega: NDArray[np.float64], like: NDArray[Any]
    ) -> NDArray[Any]:
        if isinstance(starts, range):  # the same few blocks, call after call
            return _run_heads(omega.tobytes(), like.dtype.str, starts.start, len(starts))
        return head_factors(starts, omega, like.dtype)

    def steps(
        self, omega: NDArray[np.float64], like: NDArray[Any], offsets: range | NDArray[np.int64]
    ) -> NDArray[Any]:
        return step_rows(offsets, omega, like.dtype)

    def split(
        self, positions: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.intp], NDArray[np.int64], NDArray[np.intp]]:
        block_start = (positions // BLOCK) * BLOCK
        starts, which = np.unique(block_start, return_inverse=True)
        offsets, offset_index = np.unique(positions - block_start, return_inverse=True)
        return starts, which.reshape(-1), offsets, offset_index.reshape(-1)

    def host(self, positions: NDArray[np.int64], like: NDArray[Any]) -> NDArray[np.int64]:
        return positions

    def multiply(self, a: NDArray[Any], b: NDArray[Any], out: NDArray[Any]) -> None:
        np.multiply(a, b, out=out)

    def negate_sines(self, pairs: NDArray[Any], rows: NDArray[np.bool_] | None) -> None:
        sines = pairs.real  # a view: writing to it writes the table
        if rows is None:
            np.negative(sines, out=sines)
        else:
            sines[rows] = -sines[rows]


#: The numpy implementation of `ArrayOps`.
NUMPY: ArrayOps = _NumpyOps()


def check_distinct(table: NDArray[Any], positions: NDArray[np.int64], dtype_name: str) -> None:
    """Warn with `PrecisionWarning` if two different positions got bit-identical rows.

    `table` holds the rows (any dtype: only the bytes are compared) for `positions`.
    """
    unique_positions, first_row = np.unique(positions, return_index=True)
    rows = np.ascontiguousarray(table[first_row])
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first_of_key, key_of_row = np.unique(keys, return_index=True, return_inverse=True)
    if first_of_key.size == unique_positions.size:
        return
    clash = int(np.flatnonzero(first_of_key[key_of_row.ravel()] != np.arange(keys.size))[0])
    twin = int(first_of_key[key_of_row.ravel()[clash]])
    warnings.warn(
        f"dtype {dtype_name} cannot distinguish the requested positions: positions "
        f"{int(unique_positions[twin])} and {int(unique_positions[clash])} get identical "
        f"encodings after rounding to {dtype_name}. Use float32, or a larger d_model.",
        PrecisionWarning,
        stacklevel=outside_stacklevel(),
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
        length) and dtype `dtype`. Every value lies in ``[-1, 1]`` up to one
        rounding of `dtype` (each pair is a product of two rounded unit complex
        numbers, so a float32 entry next to 1 can read 1.0000001).

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
    shape: tuple[int, ...]
    request: range | NDArray[np.int64]
    d_model = check_d_model(d_model)
    base = check_base(base)
    dtype = check_dtype(dtype)
    if is_integer(positions):  # a length: positions 0 .. L-1, no array needed
        request = range(check_length(positions, name="positions (a length)"))
        shape = (len(request),)
        check_size((*shape, d_model), name="the table")
    else:
        # Sized before any value is read or the view flattened (a copy).
        array = check_positions(positions, row=d_model, result="the table")
        shape = array.shape
        request = as_run(array.reshape(-1))
    return encode(request, shape, d_model, base, dtype)


def encode(
    request: range | NDArray[np.int64],
    shape: tuple[int, ...],
    d_model: int,
    base: float,
    dtype: np.dtype[np.floating[Any]],
) -> NDArray[np.floating[Any]]:
    """`sinusoidal` for checked arguments: `request` is a run or flat int64 positions.

    The rows come back shaped ``shape + (d_model,)``; nothing is validated here.
    """
    table = np.empty((len(request), d_model), dtype)
    if len(request):
        fill(NUMPY, table, request, cached_frequencies(d_model, base))
        if dtype == np.float16:
            flat = np.arange(request.start, request.stop) if isinstance(request, range) else request
            check_distinct(table, flat, str(dtype))
    result: NDArray[np.floating[Any]] = table.reshape((*shape, d_model))
    return result
