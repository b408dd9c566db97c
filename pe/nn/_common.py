"""Argument checks and helpers shared by the torch modules."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import torch
from torch import Tensor

from pe._validation import check_positions, is_integer

__all__ = [
    "as_position_tensor",
    "check_count",
    "check_dropout",
    "check_index_range",
    "check_layout_choice",
    "check_positions_shape",
    "check_sequence",
    "relative_distances",
]


def check_count(value: Any, name: str, *, minimum: int = 1) -> int:
    """Return `value` as an int after checking it is an integer >= `minimum`."""
    if not is_integer(value):
        raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {int(value)}")
    return int(value)


def check_layout_choice(value: Any, name: str, choices: tuple[str, ...]) -> str:
    """Return `value` after checking it is one of `choices`."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return str(value)


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
        raise TypeError(f"{name} must be a float in [0, 1); got {dropout!r}")
    if not 0.0 <= float(dropout) < 1.0:
        raise ValueError(f"{name} must be a float in [0, 1); got {dropout!r}")
    return float(dropout)


def check_positive_real(value: Any, name: str, *, allow_zero: bool = True) -> float:
    """Return `value` as a float after checking it is a finite real number >= 0 (or > 0)."""
    bound = ">= 0" if allow_zero else "> 0"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite real number {bound}; got {value!r}")
    number = float(value)
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
