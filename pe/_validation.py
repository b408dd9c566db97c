"""Argument checks shared by every public function of `pe`.

Each check returns the value in canonical form (a Python ``int``, a ``float``,
an ``int64`` array, a numpy dtype) or raises a `TypeError` or `ValueError`
whose message names the parameter, repeats the value it got and says what is
accepted. Nothing here computes an encoding.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "MAX_D_MODEL",
    "MAX_ELEMENTS",
    "MAX_POSITION",
    "check_base",
    "check_choice",
    "check_d_model",
    "check_dtype",
    "check_flag",
    "check_length",
    "check_offset",
    "check_positions",
    "check_real",
    "check_size",
    "is_integer",
    "to_float",
]

#: Largest accepted ``abs(position)``, and grid coordinate (an index times its
#: scale). Beyond it the float64 angle ``position * omega`` loses more than
#: float32 resolution.
MAX_POSITION = 2**31 - 1

#: Largest accepted width (``d_model``, ``dim``, ``head_dim``, the sum of
#: ``axes_dim``). Wider than any model by orders of magnitude; a larger value
#: is a mistake, and would allocate gigabytes for one row.
MAX_D_MODEL = 2**24

#: Most values one call builds, as its result or as an array on the way (8 GiB
#: of float32). Checked before allocating, so an impossible request is a
#: ``ValueError`` and not a ``MemoryError``.
MAX_ELEMENTS = 2**31

_FLOAT_DTYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def _describe(value: Any) -> str:
    """Show a value in an error message: its repr, shortened, and its type."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} (type {type(value).__name__})"


def is_integer(value: Any) -> bool:
    """Tell whether `value` is a Python or numpy integer (booleans excluded)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def check_d_model(d_model: Any, *, name: str = "d_model") -> int:
    """Return `d_model` as an ``int`` after checking it is a positive even integer."""
    if not is_integer(d_model):
        raise TypeError(f"{name} must be a positive even integer; got {_describe(d_model)}")
    value = int(d_model)
    if value <= 0 or value % 2:
        raise ValueError(
            f"{name} must be a positive even integer (sin and cos come in pairs); got {value}"
        )
    if value > MAX_D_MODEL:
        raise ValueError(f"{name} must be at most {MAX_D_MODEL:,} (2**24); got {value:,}")
    return value


def check_size(
    shape: tuple[int, ...], *, name: str = "the result", hint: str | None = None
) -> None:
    """Raise a `ValueError` before allocating more than `MAX_ELEMENTS` values of `shape`.

    The one rule of `pe` for "too large to build": every function sizes its
    result, and any large intermediate array, with it before allocating.
    `name` says what would be built, from which arguments; `hint` what to ask
    for instead (by default, fewer positions at a time).
    """
    elements = math.prod(shape)
    if elements > MAX_ELEMENTS:
        if hint is None:
            hint = (
                "Ask for fewer positions at a time (any start is allowed, so a long table "
                "can be built in pieces)"
            )
        raise ValueError(
            f"{name} would have shape {tuple(int(n) for n in shape)}: {elements:,} values, "
            f"more than the {MAX_ELEMENTS:,} (2**31) one call builds. {hint}"
        )


def check_length(length: Any, *, name: str = "length") -> int:
    """Return `length` as an ``int`` after checking it is a non-negative integer."""
    if not is_integer(length):
        raise TypeError(f"{name} must be a non-negative integer; got {_describe(length)}")
    value = int(length)
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {value}")
    if value > MAX_POSITION:
        raise ValueError(f"{name} must be at most {MAX_POSITION}; got {value}")
    return value


def check_offset(offset: Any, *, name: str = "offset") -> int:
    """Return `offset` as an ``int`` after checking it is an integer position."""
    if not is_integer(offset):
        raise TypeError(f"{name} must be an integer; got {_describe(offset)}")
    value = int(offset)
    if abs(value) > MAX_POSITION:
        raise ValueError(f"{name} must lie in [-{MAX_POSITION}, {MAX_POSITION}]; got {value}")
    return value


def to_float(value: Any, *, name: str, accepted: str) -> float:
    """Return ``float(value)``, or raise a `ValueError` naming `name` for an integer past float64.

    ``float(10**400)`` raises `OverflowError`; `accepted` says what the parameter takes.
    """
    try:
        return float(value)
    except OverflowError:
        raise ValueError(
            f"{name} must be {accepted}; got an integer of {len(str(abs(int(value))))} digits, "
            "beyond what a float64 can hold"
        ) from None


def check_real(value: Any, *, name: str, positive: bool = False) -> float:
    """Return `value` as a ``float`` after checking it is finite and real (``> 0`` if `positive`).

    Booleans, strings and complex numbers are refused with a `TypeError`; NaN,
    infinities and integers past float64 (``10**400``) with a `ValueError`.
    """
    wanted = "a finite real number" + (" > 0" if positive else "")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {wanted}; got {_describe(value)}")
    number = to_float(value, name=name, accepted=wanted)
    if not math.isfinite(number) or (positive and number <= 0):
        raise ValueError(f"{name} must be {wanted}; got {value!r}")
    return number


def check_choice(value: Any, *, name: str, choices: tuple[str, ...]) -> str:
    """Return `value` after checking it is one of the strings `choices`.

    Anything but a string is a `TypeError` (an array would otherwise be compared
    element by element, and a list never matches); an unknown string a `ValueError`.
    """
    known = ", ".join(map(repr, choices))
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {known}; got {_describe(value)}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {known}; got {value!r}")
    return str(value)


def check_base(base: Any, *, name: str = "base") -> float:
    """Return `base` as a ``float`` after checking it is a finite real number above 1."""
    if isinstance(base, (bool, np.bool_)) or not isinstance(base, numbers.Real):
        raise TypeError(f"{name} must be a real number greater than 1; got {_describe(base)}")
    value = to_float(base, name=name, accepted="a finite real number greater than 1")
    if not math.isfinite(value) or value <= 1.0:
        raise ValueError(f"{name} must be a finite real number greater than 1; got {value!r}")
    return value


def check_dtype(dtype: Any, *, name: str = "dtype") -> np.dtype[np.floating[Any]]:
    """Return `dtype` as a numpy dtype after checking it is float16, float32 or float64.

    ``None``, which numpy reads as float64, is refused: say which dtype you mean.
    """
    if dtype is None:
        raise TypeError(
            f"{name} must be numpy float16, float32 or float64; got None (numpy would read it "
            "as float64: pass np.float64 if that is what you mean)"
        )
    try:
        value = np.dtype(dtype)
    except TypeError:
        raise TypeError(
            f"{name} must be numpy float16, float32 or float64; got {_describe(dtype)}"
        ) from None
    if value not in _FLOAT_DTYPES:
        raise TypeError(f"{name} must be numpy float16, float32 or float64; got {value}")
    return cast("np.dtype[np.floating[Any]]", value)


def _nested_integers(value: Any) -> list[int]:
    """Return the entries of nested lists or tuples of Python integers; [] for anything else."""
    if not isinstance(value, (list, tuple)):
        return []
    leaves: list[int] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            leaves.append(item)
        else:
            return []
    return leaves


def _is_torch_tensor(value: Any) -> bool:
    """Tell a torch tensor without importing torch (the numpy core never does)."""
    return type(value).__module__.partition(".")[0] == "torch" and hasattr(value, "is_meta")


def _read_tensor(tensor: Any, name: str) -> NDArray[Any]:
    """Return a torch tensor's values as a numpy array, or name why they cannot be read.

    ``np.asarray`` would raise torch's own errors: a tensor that requires grad
    (a float one: the dtype is the mistake), one on the meta device (no values
    at all) or one on an accelerator.
    """
    dtype = str(tensor.dtype).removeprefix("torch.")
    if tensor.is_floating_point() or tensor.is_complex() or dtype == "bool":
        raise TypeError(
            f"{name} must hold integers; got a torch tensor of dtype {dtype}"
            + (" that requires grad" if tensor.requires_grad else "")
            + ". Positions are integers such as torch.arange(16)"
        )
    if tensor.is_meta:
        raise ValueError(
            f"{name} is a tensor on the meta device, which holds no values to encode; "
            "pass positions that hold values (e.g. on the CPU)"
        )
    values: NDArray[Any] = tensor.detach().cpu().numpy()
    return values


def check_positions(
    positions: Any, *, name: str = "positions", row: int | None = None, result: str = "the result"
) -> NDArray[np.int64]:
    """Return integer positions as an ``int64`` array of any shape.

    An integer ``L`` means the positions ``0, 1, ..., L - 1``; anything else must
    be an array-like of integers (no floats, no booleans) with magnitudes at most
    `MAX_POSITION`. A torch tensor is read on the host (any integer dtype, any
    device but ``meta``). With `row`, the `result` of shape ``positions.shape +
    (row,)`` is checked (`check_size`) before any value is read: a broadcast view
    of billions of positions is refused at once, not after scanning them.
    """
    if is_integer(positions):
        return np.arange(check_length(positions, name=f"{name} (a length)"), dtype=np.int64)
    if isinstance(positions, (bool, np.bool_, numbers.Real, str, bytes)) or positions is None:
        raise TypeError(
            f"{name} must be a non-negative integer length or an array of integer "
            f"positions; got {_describe(positions)}"
        )
    if isinstance(positions, np.ma.MaskedArray):
        raise TypeError(
            f"{name} must be a plain array of integer positions; got a masked array, whose "
            "mask would be ignored. Fill it (positions.filled(0)) or drop the masked entries "
            "(positions.compressed()) first"
        )
    if _is_torch_tensor(positions):
        positions = _read_tensor(positions, name)
    leaves = _nested_integers(positions)
    if leaves:
        # Python integers beyond int64 can turn a list into float64 or uint64 arrays
        # (``[0, 2**63]``): name the out-of-range value rather than the dtype.
        worst = max(leaves, key=abs)
        if abs(worst) > MAX_POSITION:
            raise ValueError(
                f"{name} must lie in [-{MAX_POSITION}, {MAX_POSITION}]; got a value of {worst}"
            )
    try:
        array = np.asarray(positions)
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"{name} must be an integer length or an array of integer positions; "
            f"could not read {_describe(positions)} as an array ({error})"
        ) from None
    if array.size == 0 and array.dtype.kind in "fO":
        # ``np.asarray([])`` is float64; an empty list is still a valid request.
        array = array.astype(np.int64)
    if array.dtype.kind == "O" and all(is_integer(item) for item in array.flat):
        # Python integers too large for int64: numpy keeps them as objects.
        worst = max(array.flat, key=lambda item: abs(int(item)))
        raise ValueError(
            f"{name} must lie in [-{MAX_POSITION}, {MAX_POSITION}]; got a value of {int(worst)}"
        )
    if array.dtype.kind not in "iu":
        kinds = {"f": "a floating-point", "c": "a complex", "b": "a bool", "O": "an object"}
        kind = kinds.get(array.dtype.kind, f"a {array.dtype}")
        hint = (
            "Round and cast explicitly (e.g. positions.astype(np.int64)) if the values are "
            "whole numbers"
            if array.dtype.kind == "f"
            else "Positions are integers such as 0, 1, 2 or np.arange(16)"
        )
        raise TypeError(
            f"{name} must hold integers; got {kind} array (dtype {array.dtype}). {hint}"
        )
    if row is not None:
        check_size((*array.shape, row), name=result)
    if array.size:
        low, high = int(array.min()), int(array.max())
        if max(-low, high) > MAX_POSITION:
            worst = low if -low > high else high
            raise ValueError(
                f"{name} must lie in [-{MAX_POSITION}, {MAX_POSITION}]; got a value of {worst}"
            )
    return array.astype(np.int64, copy=False)


def check_flag(value: Any, *, name: str) -> bool:
    """Return `value` after checking it is ``True`` or ``False`` (not merely truthy)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {_describe(value)}")
    return bool(value)
