"""RoPE's rotation as one GPU kernel (Triton), where Triton is installed.

Written with torch's operations, a rotation on a GPU is several kernels, each a
pass over memory: for concatenated pairs a product and two corrections, and in
half precision a float32 copy on the way in or the way out. This kernel reads
each pair once, turns it in float32 and writes it once, rounded to the input's
dtype, for either layout. It is used for large inputs on a CUDA device (a
prefill), where it takes the GPU's time of about one copy; `pe.nn.RotaryEmbedding`
falls back to torch's operations where Triton is missing (the CPU builds of
torch do not bring it), for float64, for interleaved float32 pairs (one complex
product already) and for inputs this kernel does not take (see `turn`). Its
launch costs the host more than a torch operation's: a call alone, with nothing
else for the GPU to do, is bound by the host (see benchmarks/rope_cuda.py).

Only `pe.nn._rotary` imports this module, and only once a CUDA input arrives.
The first call for a dtype compiles the kernel: on an H200's host, 2.2 s for the
first (Triton's import included) and 0.2 s for the next; Triton keeps what it
compiles on disk for later runs.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from typing import Any

import torch
from torch import Tensor

from pe._stack import outside_stacklevel

try:
    import triton
    import triton.language as tl
except Exception:  # the CPU builds of torch, a platform Triton lacks, or a broken install
    triton = None

#: Set when the kernel failed to run here (no C compiler for Triton's launcher, say).
_FAILED: list[str] = []

#: Input dtypes the kernel turns (in float32, each result rounded once to the dtype).
DTYPES = (torch.float32, torch.bfloat16, torch.float16)
#: About this many pairs per program: enough to keep a GPU's memory busy.
_PAIRS_PER_PROGRAM = 4096


if triton is not None:

    @triton.jit  # type: ignore[untyped-decorator]
    def _turn_pairs(  # type: ignore[no-untyped-def]
        x,
        out,
        cos,
        sin,
        rows,
        seq,
        cos_row,
        sin_row,
        width: tl.constexpr,
        half: tl.constexpr,
        pairs: tl.constexpr,
        block: tl.constexpr,
        interleaved: tl.constexpr,
    ):
        # One program turns `block` rows (a head at a position each) of `half` pairs.
        row = tl.program_id(0).to(tl.int64) * block + tl.arange(0, block)[:, None]
        position = row % seq  # rows are (..., seq), contiguous: the position cycles
        if interleaved:
            # Pairs are adjacent: read each row's 2 * half values (and cos, sin as they lie
            # in the complex table) in one contiguous load, then split them into pairs.
            lane = tl.arange(0, 2 * pairs)[None, :]
            inside = (row < rows) & (lane < 2 * half)
            values = tl.load(x + row * width + lane, mask=inside).to(tl.float32)
            first, second = tl.split(tl.reshape(values, (block, pairs, 2)))
            factors = tl.load(cos + position * cos_row + lane, mask=inside)
            c, s = tl.split(tl.reshape(factors, (block, pairs, 2)))
            turned = tl.join(first * c - second * s, second * c + first * s)
            turned = tl.reshape(turned, (block, 2 * pairs)).to(out.dtype.element_ty)
            tl.store(out + row * width + lane, turned, mask=inside)
        else:
            pair = tl.arange(0, pairs)[None, :]
            inside = (row < rows) & (pair < half)
            first_at = row * width + pair
            second_at = first_at + half
            first = tl.load(x + first_at, mask=inside).to(tl.float32)
            second = tl.load(x + second_at, mask=inside).to(tl.float32)
            c = tl.load(cos + position * cos_row + pair, mask=inside)
            s = tl.load(sin + position * sin_row + pair, mask=inside)
            kind = out.dtype.element_ty
            tl.store(out + first_at, (first * c - second * s).to(kind), mask=inside)
            tl.store(out + second_at, (second * c + first * s).to(kind), mask=inside)


def wanted(dtype: torch.dtype, *, interleaved: bool) -> bool:
    """Tell whether the kernel would turn a large CUDA input of `dtype` (before any views).

    Not for interleaved float32 pairs: torch's complex product is already one
    pass there, and launched faster (Triton's launch took about 45 us of the
    host's time per call on an H200's host).
    """
    return (
        dtype in DTYPES
        and not (interleaved and dtype == torch.float32)
        and not _FAILED
        and available()
    )


@functools.cache
def available() -> bool:
    """Tell whether Triton is installed and torch sees a CUDA device."""
    return triton is not None and torch.cuda.is_available()


def turn(x: Tensor, cos: Tensor, sin: Tensor, rotary: int, *, interleaved: bool) -> Tensor | None:
    """Turn the first `rotary` dimensions of `x` in one kernel; None where it does not apply.

    `x` is a contiguous CUDA tensor ``(..., seq, width)`` of a dtype in
    `DTYPES`. For concatenated pairs `cos` and `sin` are float32 ``(seq,
    rotary / 2)`` with rows of contiguous values; for interleaved pairs `cos`
    is the float32 ``(seq, rotary / 2, 2)`` view of the complex table (cos and
    sin of each pair side by side) and `sin` is unused. Dimensions past
    `rotary` are copied.
    """
    half = rotary // 2
    seq = x.shape[-2] if x.dim() >= 2 else -1
    tables = (
        (cos.shape == (seq, half, 2) and cos.stride()[1:] == (2, 1))
        if interleaved
        else (cos.shape == sin.shape == (seq, half) and cos.stride(1) == sin.stride(1) == 1)
    )
    if not (
        wanted(x.dtype, interleaved=interleaved)
        and x.is_cuda
        and x.is_contiguous()
        and x.numel() > 0
        and tables
        and cos.dtype == sin.dtype == torch.float32
        and cos.device == sin.device == x.device
    ):
        return None
    return _run(x, cos, sin, rotary, interleaved=interleaved)


def _run(x: Tensor, cos: Tensor, sin: Tensor, rotary: int, *, interleaved: bool) -> Tensor | None:
    """`_launch`, or None (and a warning, once) where Triton cannot compile or launch here."""
    try:
        return _launch(x, cos, sin, rotary, interleaved=interleaved)
    except Exception as error:  # no C compiler for Triton's launcher, say: torch's operations
        _FAILED.append(f"{type(error).__name__}: {error}")
        warnings.warn(
            f"pe: RoPE's Triton kernel could not run here ({_FAILED[0][:300]}); turning "
            "with torch's operations from now on",
            RuntimeWarning,
            stacklevel=outside_stacklevel(),
        )
        return None


def _launch(x: Tensor, cos: Tensor, sin: Tensor, rotary: int, *, interleaved: bool) -> Tensor:
    """Run the kernel on checked arguments (also on the CPU, under ``TRITON_INTERPRET=1``)."""
    seq, width = x.shape[-2:]
    half = rotary // 2
    pairs = triton.next_power_of_2(half)
    per_program = max(1, _PAIRS_PER_PROGRAM // pairs)
    rows = x.numel() // width
    out = torch.empty_like(x)
    launch: Any = _turn_pairs[(triton.cdiv(rows, per_program),)]
    # Triton launches on the current device: made x's for the call where it is another.
    elsewhere = x.is_cuda and x.device.index != torch.cuda.current_device()
    with torch.cuda.device(x.device) if elsewhere else contextlib.nullcontext():
        launch(
            x,
            out,
            cos,
            sin,
            rows,
            seq,
            cos.stride(0),
            sin.stride(0),
            width=width,
            half=half,
            pairs=pairs,
            block=per_program,
            interleaved=interleaved,
        )
    if rotary < width:
        out.narrow(-1, rotary, width - rotary).copy_(x.narrow(-1, rotary, width - rotary))
    return out
