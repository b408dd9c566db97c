"""The sinusoidal encoding in torch: the exact table on any device, and a module that adds it.

Torch is a thin layer here: the block engine (`pe._table.fill`) and its float64
factors are shared with numpy; `TorchOps` gives the engine torch's few array
operations, so the one complex multiplication per output pair runs in torch,
on the target device.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from pe import _table
from pe._cache import bytes_cache
from pe._frequencies import cached_frequencies
from pe._stack import outside_stacklevel
from pe._validation import (
    MAX_POSITION,
    check_base,
    check_d_model,
    check_flag,
    check_length,
    check_offset,
    check_positions,
    check_size,
    is_integer,
)
from pe.nn._common import (
    check_device,
    check_dropout,
    check_index_range,
    check_length_or_symbol,
    check_move,
    constrain,
    is_symbolic,
)

__all__ = ["SinusoidalPositionalEncoding", "sinusoidal"]

_TORCH_FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_WIDE = (torch.float32, torch.float64)


def _check_torch_dtype(dtype: Any, *, name: str = "dtype") -> torch.dtype:
    if not isinstance(dtype, torch.dtype) or dtype not in _TORCH_FLOATS:
        raise TypeError(
            f"{name} must be torch.float16, torch.bfloat16, torch.float32 or torch.float64; "
            f"got {dtype!r}"
        )
    return dtype


def _check_position_dtype(positions: Tensor, *, name: str = "positions") -> None:
    if positions.is_floating_point() or positions.is_complex() or positions.dtype == torch.bool:
        raise TypeError(
            f"{name} must be an integer tensor; got dtype {positions.dtype}. Cast explicitly "
            "(e.g. positions.long()) if the values are whole numbers"
        )


def _check_position_tensor(positions: Tensor, *, name: str = "positions") -> Tensor:
    _check_position_dtype(positions, name=name)
    if positions.numel():
        worst = max(-int(positions.min()), int(positions.max()))
        if worst > MAX_POSITION:
            raise ValueError(
                f"{name} must lie in [-{MAX_POSITION}, {MAX_POSITION}]; "
                f"got a value of magnitude {worst}"
            )
    return positions.long()


_NUMPY_COMPLEX = {torch.complex64: np.complex64, torch.complex128: np.complex128}


def _to_device(factors: np.ndarray[Any, Any], device: torch.device) -> Tensor:
    if not factors.flags.writeable:  # a cached table: torch needs its own copy
        factors = factors.copy()
    return torch.from_numpy(factors).to(device=device)


@bytes_cache(_table.CACHE_BYTES)
def _device_steps(omega_bytes: bytes, ctype: torch.dtype, device: torch.device) -> Tensor:
    """Copy the step factors to `device` once per configuration."""
    omega = np.frombuffer(omega_bytes, dtype=np.float64)
    return _to_device(_table.step_factors(_table.BLOCK, omega, _NUMPY_COMPLEX[ctype]), device)


@bytes_cache(_table.CACHE_BYTES, _table.RUN_CACHE_ENTRIES)
def _device_heads(
    omega_bytes: bytes, ctype: torch.dtype, device: torch.device, start: int, count: int
) -> Tensor:
    """Head factors of the blocks ``start, start + BLOCK, ...`` on `device`, kept."""
    omega = np.frombuffer(omega_bytes, dtype=np.float64)
    starts = range(start, start + count * _table.BLOCK, _table.BLOCK)
    return _to_device(_table.head_factors(starts, omega, _NUMPY_COMPLEX[ctype]), device)


class TorchOps:
    """`pe._table.ArrayOps` for torch tensors, on any device."""

    def pairs(self, table: Tensor) -> Tensor | None:
        if table.dtype not in _WIDE:
            return None
        return torch.view_as_complex(table.view(table.shape[0], -1, 2))

    def scratch(self, table: Tensor, rows: int) -> Tensor:
        return torch.empty((rows, table.shape[1]), dtype=torch.float32, device=table.device)

    def heads(
        self, starts: range | np.ndarray[Any, Any], omega: np.ndarray[Any, Any], like: Tensor
    ) -> Tensor:
        if isinstance(starts, range):  # the same few blocks, call after call
            return _device_heads(
                omega.tobytes(), like.dtype, like.device, starts.start, len(starts)
            )
        return _to_device(
            _table.head_factors(starts, omega, _NUMPY_COMPLEX[like.dtype]), like.device
        )

    def steps(
        self, omega: np.ndarray[Any, Any], like: Tensor, offsets: range | np.ndarray[Any, Any]
    ) -> Tensor:
        ctype = _NUMPY_COMPLEX[like.dtype]
        if not _table._cacheable(_table.BLOCK, omega, ctype):  # wide: only the rows used
            return _to_device(_table.step_rows(offsets, omega, ctype), like.device)
        table = _device_steps(omega.tobytes(), like.dtype, like.device)
        if isinstance(offsets, range):
            return table[offsets.start : offsets.stop]
        return table[torch.from_numpy(offsets).to(like.device)]

    def split(
        self, positions: Tensor
    ) -> tuple[np.ndarray[Any, Any], Tensor, np.ndarray[Any, Any], Tensor]:
        block_start = torch.div(positions, _table.BLOCK, rounding_mode="floor") * _table.BLOCK
        starts, which = torch.unique(block_start, return_inverse=True)
        offsets, offset_index = torch.unique(positions - block_start, return_inverse=True)
        return (
            starts.cpu().numpy().astype(np.int64),
            which,
            offsets.cpu().numpy().astype(np.int64),
            offset_index,
        )

    def host(self, positions: np.ndarray[Any, Any], like: Tensor) -> Tensor:
        return torch.from_numpy(positions).to(like.device)

    def multiply(self, a: Tensor, b: Tensor, out: Tensor) -> None:
        if out.device.type == "cpu":
            # numpy rounds each complex product the same way whatever the shapes;
            # torch's vectorized and scalar loops differ in the last bit, so a
            # window of the table would not match the full table.
            np.multiply(a.numpy(), b.numpy(), out=out.numpy())
            return
        torch.mul(a, b, out=out)

    def negate_sines(self, pairs: Tensor, rows: Tensor | None) -> None:
        sines = torch.view_as_real(pairs)[..., 0]  # a view: writing to it writes the table
        if rows is None:
            sines.neg_()
        else:
            sines[rows] = -sines[rows]


#: The torch implementation of the engine's array operations.
TORCH = TorchOps()


def _as_run(positions: Tensor) -> range | Tensor:
    """``range(start, stop)`` if 1-D `positions` are consecutive, else the tensor itself."""
    count = positions.numel()
    if count == 1 or (count and bool(torch.all(positions[1:] - positions[:-1] == 1))):
        first = int(positions[0])
        return range(first, first + count)
    return positions


def _encode(
    request: range | Tensor,
    shape: tuple[int, ...],
    d_model: int,
    base: float,
    dtype: torch.dtype,
    device: torch.device,
) -> Tensor:
    """Build the table for checked arguments (`request`: a run, or flat positions on `device`)."""
    rows = len(request) if isinstance(request, range) else request.shape[0]
    out = torch.empty((rows, d_model), dtype=dtype, device=device)
    if rows:
        _table.fill(TORCH, out, request, cached_frequencies(d_model, base))
        if dtype not in _WIDE:
            flat = (
                np.arange(request.start, request.stop)
                if isinstance(request, range)
                else request.cpu().numpy()
            )
            _table.check_distinct(out.view(torch.int16).cpu().numpy(), flat, str(dtype))
    return out.view(*shape, d_model)


def _run(start: int, count: int, d_model: int, base: float, device: Any = None) -> Tensor:
    """Float32 rows for positions ``start .. start + count - 1`` (checked arguments)."""
    check_size((count, d_model), name="the table")
    target = torch.device(device) if device is not None else torch.get_default_device()
    return _encode(range(start, start + count), (count,), d_model, base, torch.float32, target)


@torch.library.custom_op("pe::sinusoidal_rows", mutates_args=())
def _sinusoidal_rows(positions: Tensor, d_model: int, base: float, wide: bool) -> Tensor:
    """Compute the table for int64 `positions` (float64 if `wide`) as one opaque graph node.

    ``torch.compile`` and ``torch.export`` cannot trace the numpy half of the
    exact method; wrapped as a custom op, it runs eagerly inside a compiled
    graph and gives the same bits as outside one.
    """
    return _sinusoidal(positions, d_model, base, torch.float64 if wide else torch.float32, None)


@_sinusoidal_rows.register_fake
def _sinusoidal_rows_shape(positions: Tensor, d_model: int, base: float, wide: bool) -> Tensor:
    dtype = torch.float64 if wide else torch.float32
    return positions.new_empty((*positions.shape, d_model), dtype=dtype)


def sinusoidal(
    positions: int | Tensor | Any,
    d_model: int,
    *,
    base: float = 10000.0,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> Tensor:
    """Compute the sinusoidal table as a tensor, exactly, on `device`.

    The torch twin of `pe.sinusoidal`: the same block method and the same error
    bound, with the products computed on `device` (torch may round a product
    differently from numpy, so the two agree to one float32 rounding).

    Parameters
    ----------
    positions : int, integer Tensor or array_like of int
        A length ``L`` for positions ``0 .. L-1``, or integer positions of any
        shape (``|p| <= 2**31 - 1``). A tensor's device is the default `device`.
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.
    dtype : torch.dtype, default torch.float32
        ``float16``, ``bfloat16``, ``float32`` or ``float64``. Low-precision
        results are computed in float32 and rounded once.
    device : torch.device or str, optional
        Where to build the table; defaults to the positions' device, else
        torch's default device (``torch.get_default_device()``, the CPU unless
        set). On the ``meta`` device only the shape is computed.

    Returns
    -------
    torch.Tensor
        Shape ``positions.shape + (d_model,)``, interleaved (sin, cos) columns.

    Raises
    ------
    TypeError
        If `positions` holds non-integers, `dtype` is not a torch float type, or
        another argument has the wrong type.
    ValueError
        For a negative length, a position out of range, an odd or non-positive
        `d_model`, or a `base` that is not finite and above 1.

    Warns
    -----
    pe.PrecisionWarning
        With ``float16`` or ``bfloat16``, when rounding makes two different
        requested positions' rows identical (not checked inside
        ``torch.compile``, where the values are unknown while tracing).

    Examples
    --------
    >>> import torch
    >>> from pe.nn.functional import sinusoidal
    >>> sinusoidal(3, d_model=4).round(decimals=3)
    tensor([[ 0.0000,  1.0000,  0.0000,  1.0000],
            [ 0.8410,  0.5400,  0.0100,  1.0000],
            [ 0.9090, -0.4160,  0.0200,  1.0000]])
    >>> sinusoidal(torch.tensor([[7, 8, 9]]), d_model=8).shape
    torch.Size([1, 3, 8])
    """
    d_model = check_d_model(d_model)
    base = check_base(base)
    dtype = _check_torch_dtype(dtype)
    return _sinusoidal(positions, d_model, base, dtype, check_device(device))


def _sinusoidal(
    positions: int | Tensor | Any,
    d_model: int,
    base: float,
    dtype: torch.dtype,
    device: torch.device | str | None,
) -> Tensor:
    """`sinusoidal` for a checked `d_model`, `base` and `dtype`: checks only `positions`."""
    request: range | Tensor
    if torch.compiler.is_compiling() and (is_symbolic(positions) or is_integer(positions)):
        # A length, maybe symbolic (``dynamic=True``): its positions as a tensor,
        # the path a compiled graph can hold.
        length = check_length_or_symbol(positions, "positions (a length)")
        target = torch.device(device) if device is not None else torch.get_default_device()
        positions = torch.arange(length, device=target)
    if isinstance(positions, Tensor):
        target = torch.device(device) if device is not None else positions.device
        if torch.compiler.is_compiling() or target.type == "meta" or positions.is_meta:
            _check_position_dtype(positions)
            wide = dtype == torch.float64
            encoded: Tensor = _sinusoidal_rows(positions.long().to(target), d_model, base, wide)
            return encoded if dtype in _WIDE else encoded.to(dtype)
        shape = tuple(positions.shape)
        check_size((*shape, d_model), name="the table")
        request = _as_run(_check_position_tensor(positions).reshape(-1).to(target))
        return _encode(request, shape, d_model, base, dtype, target)
    target = torch.device(device) if device is not None else torch.get_default_device()
    # Sized before any value is read (a meta table allocates nothing, so any size goes).
    row = None if target.type == "meta" else d_model
    array = (
        None if is_integer(positions) else check_positions(positions, row=row, result="the table")
    )
    shape = (
        (check_length(positions, name="positions (a length)"),) if array is None else array.shape
    )
    if target.type == "meta":
        return torch.empty((*shape, d_model), dtype=dtype, device=target)
    # Before flattening: a broadcast view of a huge shape would be copied.
    check_size((*shape, d_model), name="the table")
    if array is None:
        request = range(shape[0])
    else:
        run = _table.as_run(array.reshape(-1))
        request = run if isinstance(run, range) else torch.from_numpy(run).to(target)
    return _encode(request, shape, d_model, base, dtype, target)


def _previous_twin(rows: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """For each row, the index of the nearest earlier bit-identical row, or -1."""
    keys = np.ascontiguousarray(rows).view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1])))
    _, group = np.unique(keys.ravel(), return_inverse=True)
    order = np.lexsort((np.arange(group.size), group.ravel()))
    twins = np.full(group.size, -1, dtype=np.int64)
    same = group.ravel()[order[1:]] == group.ravel()[order[:-1]]
    twins[order[1:]] = np.where(same, order[:-1], -1)
    return twins


class SinusoidalPositionalEncoding(nn.Module):
    """Add the sinusoidal encoding to a batch of token embeddings.

    ``forward(x)`` returns ``dropout(x + PE[positions])``, with the encoding cast
    to ``x.dtype`` at the last moment, so the output has the input's dtype.

    Parameters
    ----------
    d_model : int
        Width of the embeddings and the encoding; a positive even integer.
    max_len : int or None, default 4096
        Rows of the precomputed table (a float32, non-persistent buffer). A
        sequence that needs a position ``>= max_len`` raises a `ValueError`
        naming both lengths: the table is never resized behind your back.
        ``None`` keeps no table and computes the rows on the fly, with output
        identical to the table's, for any length.
    dropout : float, default 0.0
        Dropout probability applied after the addition, in ``[0, 1)``.
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.
    batch_first : bool, default True
        If True, `x` is ``(batch, seq, d_model)``; else ``(seq, batch, d_model)``.
        A 2-D ``(seq, d_model)`` input is accepted either way.

    Raises
    ------
    TypeError, ValueError
        For arguments of the wrong type or out of range, naming the argument.

    Notes
    -----
    Casting the module (``.half()``, ``.to(torch.bfloat16)``) moves the table to
    the new device but keeps it float32; the rounding to ``x.dtype`` happens
    once, after the lookup.

    Examples
    --------
    >>> import torch
    >>> from pe.nn import SinusoidalPositionalEncoding
    >>> encode = SinusoidalPositionalEncoding(d_model=8, max_len=16)
    >>> encode(torch.zeros(2, 5, 8)).shape
    torch.Size([2, 5, 8])
    >>> encode(torch.zeros(1, 3, 8), offset=10)[0, :, 0].round(decimals=4)
    tensor([-0.5440, -1.0000, -0.5366])
    >>> encode.half().table.dtype
    torch.float32
    """

    table: Tensor | None

    def __init__(
        self,
        d_model: int,
        max_len: int | None = 4096,
        dropout: float = 0.0,
        base: float = 10000.0,
        batch_first: bool = True,
    ) -> None:
        super().__init__()
        self.d_model = check_d_model(d_model)
        self.base = check_base(base)
        if max_len is not None:
            max_len = check_length(max_len, name="max_len")
            if max_len == 0:
                raise ValueError("max_len must be a positive integer or None; got 0")
        self.max_len = max_len
        probability = check_dropout(dropout)
        self.batch_first = check_flag(batch_first, name="batch_first")
        self.dropout = nn.Dropout(probability)
        table = None if max_len is None else _run(0, max_len, self.d_model, self.base)
        self.register_buffer("table", table, persistent=False)
        self._twins: dict[torch.dtype, np.ndarray[Any, Any]] = {}

    # --8<-- [start:keep-float32]
    def _apply(self, fn: Any, recurse: bool = True) -> SinusoidalPositionalEncoding:
        # Let ``.to()``/``.cuda()``/``.to_empty()`` move the table, but never
        # change its dtype. A table that leaves the meta device (``to_empty``)
        # is recomputed where it lands: it holds no learned state.
        check_move(fn)  # a device this torch cannot use: a ValueError, nothing moved
        table = self._buffers.pop("table")
        try:
            super()._apply(fn, recurse)  # type: ignore[no-untyped-call]
        finally:
            if table is not None:
                target = fn(table).device
                if table.is_meta and target.type != "meta":
                    table = _run(0, table.shape[0], self.d_model, self.base, target)
                else:
                    table = table.to(device=target)
            self._buffers["table"] = table
        return self

    # --8<-- [end:keep-float32]

    def encoding(
        self, seq_len: int, *, offset: int = 0, device: torch.device | str | None = None
    ) -> Tensor:
        """Return the float32 encoding rows for positions ``offset .. offset + seq_len - 1``.

        Raises
        ------
        ValueError
            If the module keeps a table and the positions run past `max_len`
            (or start below 0), or if they run past ``2**31 - 1``.
        """
        seq_len = check_length_or_symbol(seq_len, "seq_len")
        offset = check_offset(offset)
        device = check_device(device)
        symbolic = is_symbolic(seq_len)  # traced with a dynamic length: constraints, not checks
        if symbolic:
            constrain(offset + seq_len - 1 <= MAX_POSITION, "positions past 2**31 - 1")
        elif seq_len and offset + seq_len - 1 > MAX_POSITION:
            raise ValueError(
                f"positions {offset}..{offset + seq_len - 1} (a sequence of length {seq_len} at "
                f"offset {offset}) run past the largest position, {MAX_POSITION} (2**31 - 1)"
            )
        if self.table is None:
            if symbolic or torch.compiler.is_compiling():  # positions as a tensor: traceable
                positions = torch.arange(offset, offset + seq_len, device=device)
                return _sinusoidal(positions, self.d_model, self.base, torch.float32, None)
            return _run(offset, seq_len, self.d_model, self.base, device)
        if symbolic:
            rows = self.table.shape[0]
            constrain(offset >= 0, "offset must be >= 0 with a table")
            constrain(offset + seq_len <= rows, f"positions do not fit the table of {rows} rows")
        elif offset < 0 or offset + seq_len > self.table.shape[0]:
            raise ValueError(
                f"positions {offset}..{offset + seq_len - 1} (a sequence of length {seq_len} at "
                f"offset {offset}) do not fit the table of max_len={self.table.shape[0]} rows; "
                "build the module with a larger max_len, or max_len=None to compute any length"
            )
        return self.table[offset : offset + seq_len]

    def forward(self, x: Tensor, offset: int = 0, positions: Tensor | None = None) -> Tensor:
        """Return ``dropout(x + encoding)`` with the encoding in ``x.dtype``.

        Parameters
        ----------
        x : torch.Tensor
            Embeddings: ``(batch, seq, d_model)`` if `batch_first`, else
            ``(seq, batch, d_model)``; or ``(seq, d_model)``.
        offset : int, default 0
            Position of the first token (e.g. the cache length when decoding).
        positions : torch.Tensor, optional
            Explicit integer positions instead of ``offset .. offset + seq - 1``:
            shape ``(seq,)``, or the shape of `x` without its last dimension.
        """
        if not isinstance(x, Tensor) or not x.is_floating_point():
            raise TypeError(
                f"x must be a floating-point tensor; got {type(x).__name__}"
                + (f" of dtype {x.dtype}" if isinstance(x, Tensor) else "")
            )
        if x.dim() not in (2, 3) or x.shape[-1] != self.d_model:
            layout = "(batch, seq, d_model)" if self.batch_first else "(seq, batch, d_model)"
            raise ValueError(
                f"x must have shape {layout} or (seq, d_model) with d_model={self.d_model}; "
                f"got shape {tuple(x.shape)}"
            )
        # --8<-- [start:forward]
        seq_axis = 0 if (x.dim() == 2 or not self.batch_first) else 1
        seq_len = x.shape[seq_axis]
        if positions is None:
            encoding = self.encoding(seq_len, offset=offset, device=x.device)
            if x.dim() == 3 and not self.batch_first:
                encoding = encoding.unsqueeze(1)  # (seq, 1, d) broadcasts over the batch
        else:
            if offset != 0:
                raise ValueError("give either offset or positions, not both")
            if not isinstance(positions, Tensor):
                raise TypeError(
                    f"positions must be an integer tensor; got {type(positions).__name__}"
                )
            wanted = (tuple(x.shape[:-1]), (seq_len,))
            if tuple(positions.shape) not in wanted:
                raise ValueError(
                    f"positions must have shape {wanted[1]} or {wanted[0]} to match x of shape "
                    f"{tuple(x.shape)}; got {tuple(positions.shape)}"
                )
            if self.table is None:
                encoding = _sinusoidal(positions, self.d_model, self.base, torch.float32, x.device)
            else:
                _check_position_dtype(positions)
                index = positions.long().to(self.table.device)
                rows = self.table.shape[0]
                check_index_range(
                    index, rows, f"the table of max_len={rows} (use a larger max_len, or None)"
                )
                encoding = self.table[index]
            if positions.dim() == 1 and x.dim() == 3 and not self.batch_first:
                encoding = encoding.unsqueeze(1)
        if (
            x.dtype in (torch.float16, torch.bfloat16)
            and not encoding.is_meta
            and not torch.compiler.is_compiling()
        ):
            self._warn_if_rounding_merges(encoding, x.dtype, offset, positions)
        result: Tensor = self.dropout(x + encoding.to(device=x.device, dtype=x.dtype))
        return result
        # --8<-- [end:forward]

    def _warn_if_rounding_merges(
        self, encoding: Tensor, dtype: torch.dtype, offset: int, positions: Tensor | None
    ) -> None:
        """Warn, as `sinusoidal` does, if rounding to `dtype` merges two requested positions."""
        if self.table is not None and positions is None:
            # Contiguous rows of the table: look up, once per dtype, the nearest
            # earlier row with the same bits, so each call costs a slice on the host.
            twins = self._twins.get(dtype)
            if twins is None:
                rows = self.table.to(dtype).view(torch.int16).cpu().numpy()
                twins = self._twins[dtype] = _previous_twin(rows)
            window = twins[offset : offset + encoding.shape[0]]
            clash = np.flatnonzero(window >= offset)
            if clash.size:
                later = offset + int(clash[0])
                warnings.warn(
                    f"dtype {dtype} cannot distinguish the requested positions: positions "
                    f"{int(twins[later])} and {later} get identical encodings after rounding "
                    f"to {dtype}. Use float32, or a larger d_model.",
                    _table.PrecisionWarning,
                    stacklevel=outside_stacklevel(),
                )
            return
        flat = (
            np.arange(offset, offset + encoding.shape[0])
            if positions is None
            else positions.reshape(-1).cpu().numpy()
        )
        rows = encoding.reshape(-1, self.d_model).to(dtype).view(torch.int16).cpu().numpy()
        _table.check_distinct(rows, flat, str(dtype))

    def extra_repr(self) -> str:
        return (
            f"d_model={self.d_model}, max_len={self.max_len}, base={self.base}, "
            f"batch_first={self.batch_first}"
        )
