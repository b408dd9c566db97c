"""Argument checks and helpers shared by the torch modules."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from pe._validation import is_integer

__all__ = ["check_count", "check_layout_choice", "check_sequence", "relative_distances"]


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
