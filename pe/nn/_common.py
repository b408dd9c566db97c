"""Argument checks and helpers shared by the torch modules."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import torch
from torch import Tensor

from pe._validation import (
    check_choice,
    check_length,
    check_positions,
    check_size,
    is_integer,
    to_float,
)

__all__ = [
    "apply_temperature",
    "as_position_tensor",
    "check_count",
    "check_device",
    "check_length_or_symbol",
    "check_lengths",
    "check_size_if_known",
    "check_temperature",
    "constrain",
    "is_symbolic",
    "check_dropout",
    "check_index_range",
    "check_integer_tensor",
    "check_layout_choice",
    "check_positions_shape",
    "check_sequence",
    "check_move",
    "relative_distances",
]


def check_count(value: Any, name: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Return `value` as an int after checking it is an integer >= `minimum` (<= `maximum`)."""
    if not is_integer(value):
        raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {int(value)}")
    if maximum is not None and int(value) > maximum:
        raise ValueError(
            f"{name} must be an integer from {minimum} to {maximum:,}; got {int(value):,}"
        )
    return int(value)


def constrain(condition: Any, message: str) -> None:
    """Add `condition` on symbolic sizes to the traced graph (``torch._check``), with `message`."""
    torch._check(condition, lambda: message)  # type: ignore[no-untyped-call]


def is_symbolic(value: Any) -> bool:
    """Tell a symbolic size (``torch.SymInt``, from ``torch.export`` or a dynamic compile)."""
    return isinstance(value, torch.SymInt)


def check_length_or_symbol(value: Any, name: str) -> Any:
    """Check a length as `check_length` does, or constrain a symbolic one to ``>= 0``.

    Under ``torch.export`` with a dynamic sequence length, or ``torch.compile(...,
    dynamic=True)``, lengths read from a tensor's shape are ``torch.SymInt``:
    their values are unknown while tracing, so the check becomes a constraint
    of the graph instead of a refusal.
    """
    if is_symbolic(value):
        constrain(value >= 0, f"{name} must be a non-negative integer")
        return value
    return check_length(value, name=name)


def check_lengths(q_len: Any, k_len: Any) -> tuple[Any, Any]:
    """Check the query and key counts of a bias module (ints >= 0, or symbolic sizes)."""
    checked = []
    for name, value in (("q_len", q_len), ("k_len", k_len)):
        if is_symbolic(value):
            constrain(value >= 0, f"{name} must be an integer >= 0")
            checked.append(value)
        else:
            checked.append(check_count(value, name, minimum=0))
    return checked[0], checked[1]


def check_size_if_known(shape: tuple[Any, ...], *, name: str) -> None:
    """`pe._validation.check_size` for a shape whose entries are all known integers."""
    if not any(is_symbolic(entry) for entry in shape):
        check_size(shape, name=name)


def check_integer_tensor(value: Any, name: str) -> Tensor:
    """Check a tensor of real integers that ``.long()`` reads exactly (not uint64).

    Float, complex and bool tensors are refused (a complex tensor would lose its
    imaginary part, a bool one would be read as 0 and 1), and so is ``uint64``,
    whose values past ``2**63 - 1`` would wrap to negative ones.
    """
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be an integer tensor; got {type(value).__name__}")
    if value.is_floating_point() or value.is_complex() or value.dtype == torch.bool:
        raise TypeError(
            f"{name} must be an integer tensor; got dtype {value.dtype}. Cast explicitly "
            "(e.g. .long()) if the values are whole numbers"
        )
    if value.dtype == torch.uint64:
        raise TypeError(
            f"{name} must be a signed integer tensor or uint8/16/32; got dtype torch.uint64, "
            "whose values past 2**63 - 1 cannot be read as int64. Cast with .long() if "
            "they fit"
        )
    return value


def _unavailable(what: str, error: BaseException) -> ValueError:
    built = "with CUDA" if torch.cuda.is_available() else "without a usable CUDA device"
    return ValueError(
        f"{what}: {error} (this torch {torch.__version__} runs {built}; 'cpu' always works)"
    )


def check_device(device: Any, name: str = "device") -> torch.device | None:
    """Return `device` as a ``torch.device`` (None stays None) that this torch can use.

    Torch itself answers a CUDA device on a CPU-only build with a bare
    `AssertionError` ("Torch not compiled with CUDA enabled") and an unknown
    name with a `RuntimeError`; both become a `ValueError` naming `name`.
    """
    if device is None:
        return None
    if isinstance(device, torch.device):
        target = device
    elif isinstance(device, str) or is_integer(device):
        try:
            target = torch.device(device)
        except RuntimeError:
            raise ValueError(
                f"{name} must name a torch device such as 'cpu' or 'cuda:0'; got {device!r:.60}"
            ) from None
    else:
        raise TypeError(f"{name} must be a torch.device, a device name or None; got {device!r:.60}")
    if target.type not in ("cpu", "meta") and not torch.compiler.is_compiling():
        try:
            torch.empty(0, device=target)
        except (AssertionError, RuntimeError) as error:
            raise _unavailable(f"{name} {str(target)!r} cannot be used here", error) from None
    return target


def check_move(fn: Any) -> None:
    """Try a module's ``_apply`` function on an empty tensor before moving anything.

    ``module.to("cuda")`` on a CPU-only build would fail with torch's bare
    `AssertionError`, possibly halfway through the module's tensors.
    """
    try:
        fn(torch.empty(0))
    except (AssertionError, RuntimeError) as error:
        raise _unavailable("device: the module cannot move there", error) from None


def check_layout_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    """Return `value` after checking it is one of the strings `choices`.

    Anything but a string is a TypeError naming `name`: an array was compared
    with the choices element by element (numpy's "truth value is ambiguous").
    """
    return check_choice(value, name=name, choices=choices)


def check_sequence(x: Any, name: str, d_model: int | None = None) -> Tensor:
    """Check a floating-point tensor with at least 2 dimensions (and width `d_model`)."""
    if not isinstance(x, Tensor) or not x.is_floating_point():
        kind = f"{type(x).__name__}" + (f" of dtype {x.dtype}" if isinstance(x, Tensor) else "")
        raise TypeError(f"{name} must be a floating-point tensor; got {kind}")
    if x.dim() < 2:
        raise ValueError(
            f"{name} must have at least 2 dimensions (seq, features); got {tuple(x.shape)}"
        )
    if d_model is not None and x.shape[-1] != d_model:
        raise ValueError(f"{name} must have last dimension {d_model}; got shape {tuple(x.shape)}")
    return x


def relative_distances(
    q_len: int, k_len: int, *, offset: int = 0, device: torch.device | str | None = None
) -> Tensor:
    """Key position minus query position, ``(q_len, k_len)`` int64.

    Query ``i`` sits at position ``offset + i`` and key ``j`` at position ``j``
    (``offset`` is the number of cached keys before the queries, when decoding).
    """
    queries = torch.arange(q_len, device=device) + offset
    keys = torch.arange(k_len, device=device)
    return keys[None, :] - queries[:, None]


def check_dropout(dropout: Any, name: str = "dropout") -> float:
    """Return `dropout` as a float after checking it is a real number in ``[0, 1)``."""
    if isinstance(dropout, (bool, np.bool_)) or not isinstance(dropout, numbers.Real):
        raise TypeError(f"{name} must be a float in [0, 1); got {dropout!r:.60}")
    value = to_float(dropout, name=name, accepted="a float in [0, 1)")
    if not 0.0 <= value < 1.0:
        raise ValueError(f"{name} must be a float in [0, 1); got {dropout!r}")
    return value


def check_positive_real(value: Any, name: str, *, allow_zero: bool = True) -> float:
    """Return `value` as a float after checking it is a finite real number >= 0 (or > 0)."""
    bound = ">= 0" if allow_zero else "> 0"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite real number {bound}; got {value!r}")
    number = to_float(value, name=name, accepted=f"a finite real number {bound}")
    if not math.isfinite(number) or number < 0 or (number == 0 and not allow_zero):
        raise ValueError(f"{name} must be a finite real number {bound}; got {value!r}")
    return number


def as_position_tensor(positions: Any, name: str = "positions") -> Tensor:
    """Return integer `positions` as an int64 tensor.

    A tensor must have an integer dtype; anything else (a numpy array, a list)
    goes through `pe._validation.check_positions`, which names what is wrong.
    """
    if isinstance(positions, Tensor):
        if positions.is_floating_point() or positions.is_complex() or positions.dtype == torch.bool:
            raise TypeError(
                f"{name} must be an integer tensor; got dtype {positions.dtype}. Cast explicitly "
                "(e.g. positions.long()) if the values are whole numbers"
            )
        return positions.long()
    if is_integer(positions):
        raise TypeError(
            f"{name} must be a tensor or array of integer positions, not a single integer "
            f"({positions!r}); use offset= for the first position"
        )
    return torch.from_numpy(check_positions(positions, name=name))


def check_positions_shape(positions: Tensor, x_shape: tuple[int, ...], seq_len: int) -> None:
    """Check that `positions` has shape ``(seq,)`` or the shape of `x` without its last axis."""
    wanted = (tuple(x_shape[:-1]), (seq_len,))
    if tuple(positions.shape) not in wanted:
        raise ValueError(
            f"positions must have shape {wanted[1]} or {wanted[0]} to match x of shape "
            f"{tuple(x_shape)}; got {tuple(positions.shape)}"
        )


def check_index_range(index: Tensor, limit: int, describe: str) -> None:
    """Check ``0 <= index < limit``, naming `describe` (the table) in the message.

    Eagerly this raises a `ValueError` with the offending values. Under
    ``torch.compile`` or ``torch.export`` the values are not known while
    tracing, so the check becomes an asynchronous assertion in the graph
    (a `RuntimeError` when it fails).
    """
    if torch.compiler.is_compiling():
        torch._assert_async(
            ((index >= 0) & (index < limit)).all(),
            f"positions must lie in [0, {limit}) for {describe}",
        )
        return
    if index.numel():
        low, high = int(index.min()), int(index.max())
        if low < 0 or high >= limit:
            raise ValueError(
                f"positions must lie in [0, {limit}) for {describe}; got values from {low} to "
                f"{high}"
            )


def check_temperature(value: Any) -> tuple[float, float, int] | None:
    """Return a query temperature ``(scale, step, shift)`` checked, or None."""
    if value is None:
        return None
    if not isinstance(value, tuple) or len(value) != 3:
        raise TypeError(
            "query_temperature must be a tuple (scale, step, shift): queries at position p are "
            f"multiplied by 1 + scale * ln(1 + floor((p + shift) / step)); got {value!r}"
        )
    from pe._rope import _number

    scale = _number(value[0], "query_temperature[0] (scale)", minimum=0.0)
    step = _number(value[1], "query_temperature[1] (step)", minimum=1.0)
    if value[2] not in (0, 1) or isinstance(value[2], bool):
        raise ValueError(f"query_temperature[2] (shift) must be 0 or 1; got {value[2]!r}")
    return scale, step, int(value[2])


def apply_temperature(
    q: Tensor, temperature: tuple[float, float, int], positions: Tensor | None, offset: int
) -> Tensor:
    """Multiply queries by ``1 + scale * ln(1 + floor((p + shift) / step))`` at their positions.

    Llama 4 does this to the queries of its unrotated layers (shift 1), Ministral 3 and
    Mistral 4 to every query after RoPE (``llama_4_scaling_beta``, shift 0). The factor is
    computed in float64 from the integer positions and rounded once to the queries' dtype.
    """
    scale, step, shift = temperature
    if positions is None:
        positions = torch.arange(q.shape[-2], device=q.device) + offset
    elif positions.dim() == 2 and q.dim() >= 4:  # (batch, seq), shared by the heads
        positions = positions.reshape(positions.shape[0], *([1] * (q.dim() - 3)), -1)
    grown = torch.floor((positions.to(torch.float64) + shift) / step)
    factor = 1.0 + scale * torch.log1p(grown)
    return q * factor.unsqueeze(-1).to(device=q.device, dtype=q.dtype)
