"""What every identification shares: the report, reading arrays, and the tolerance.

`Identification` is the one report `pe.identify` returns for a sinusoidal
table, a timestep embedding or a grid table (``pe._identify_rope`` returns its
own report with the same fields and a ``config``). `read_array` turns a numpy
array or a torch tensor into float64 values without importing torch, checking
the dtype and the values first and copying only the rows a probe reads.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pe._validation import _describe, _is_torch_tensor

__all__ = [
    "MAX_PROBE_ELEMENTS",
    "Identification",
    "bfloat16",
    "column_ranges",
    "read_array",
    "tolerance",
    "unit_roundoff",
]

#: Width the printed report is wrapped to (as ``python -m pe explain``'s).
REPORT_WIDTH = 88

#: Most values a probe reads from a table (its first rows): 2**18, 2 MiB as
#: float64 (4096 positions of a width of 64, 256 of 1024). Each candidate
#: table built to compare with is no larger.
MAX_PROBE_ELEMENTS = 2**18


@dataclass(frozen=True)
class Identification:
    """What `pe.identify` found: a name with its parameters, or the closest one and how far.

    Attributes
    ----------
    kind : str
        What was examined: ``"sinusoid"``, ``"timestep"`` or ``"grid"``.
    recognised : bool
        True when the input is one of pe's conventions or presets (with the
        parameters given) to within rounding; False for a named bug and for
        anything else, whose `residual` is measured to the closest.
    name : str
        The convention, preset or layout; for an unrecognised input
        ``"closest: <name>"`` or ``"<name> with <bug>"``.
    parameters : dict
        The settings that reproduce it (layout, base, first position, ...),
        JSON-able.
    lines : tuple of str
        The report, in words, one finding a line.
    residual : float
        Largest absolute difference between the input and `name` (for an
        unrecognised input, the closest correct one).
    bugs : tuple of str
        Short names of the mistakes found, as ``pe._identify_rope``'s report
        names its own: ``"low_precision"``, ``"offset"``, ``"layout"``,
        ``"off_by_one_divisor"``, ``"i_instead_of_2i"``,
        ``"exponent_per_column"``, ``"multiplied_divisor"``, ``"exponent"``,
        ``"base"``.

    Examples
    --------
    >>> import pe
    >>> found = pe.identify(pe.sinusoidal(64, 32))
    >>> found.recognised, found.name, found.parameters["base"]
    (True, 'paper', 10000.0)
    """

    kind: str
    recognised: bool
    name: str
    parameters: dict[str, Any] = field(default_factory=dict)
    lines: tuple[str, ...] = ()
    residual: float = math.nan
    bugs: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """Return the report as a JSON-able dict (``json.dumps`` takes it as is)."""
        return {
            "kind": self.kind,
            "recognised": self.recognised,
            "name": self.name,
            "parameters": _jsonable(self.parameters),
            "lines": list(self.lines),
            "residual": float(self.residual),
            "bugs": list(self.bugs),
        }

    def __str__(self) -> str:
        verdict = "recognised" if self.recognised else "not recognised"
        head = f"{self.name} ({self.kind}, {verdict}; residual {self.residual:.2e})"
        lines = [
            textwrap.fill(line, REPORT_WIDTH, initial_indent="  ", subsequent_indent="    ")
            for line in self.lines
        ]
        return "\n".join([head, *lines])


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    return value


def unit_roundoff(dtype: np.dtype[Any] | str) -> float:
    """Half the spacing of floats next to 1 in `dtype` (bfloat16 by name)."""
    name = str(dtype)
    if name == "bfloat16":
        return 2.0**-9
    return float(np.finfo(np.dtype(name)).eps) / 2


def tolerance(dtype: str, angles: NDArray[np.float64]) -> NDArray[np.float64]:
    """How far an entry may be from the exact value and still be the same table.

    Four roundings of the stored dtype (at least float32's, since a float64
    table from a float32 library is float32 arithmetic), plus two float32
    roundings of the angle: a library that computes ``position * rate`` in
    float32 is off by up to about ``|angle| * 2**-24`` from the exact value,
    and more than that is a mistake (angles in a lower precision).
    """
    stored = max(unit_roundoff(dtype), 2.0**-24)
    bound: NDArray[np.float64] = 4 * stored + 2.0**-22 * np.abs(angles)
    return bound


def bfloat16(values: NDArray[Any]) -> NDArray[np.float64]:
    """Round `values` to bfloat16 (to nearest, ties to even), returned as float64."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    result: NDArray[np.float64] = rounded.astype(np.uint32).view(np.float32).astype(np.float64)
    return result


def read_array(value: Any, *, name: str, max_rows: int | None = None) -> tuple[Any, str]:
    """Return ``(array, dtype name)`` for a numpy array or torch tensor of real floats.

    Only the shape and dtype are read here; `finish` converts the rows used.
    Lists of numbers are read with ``numpy.asarray``.

    Raises
    ------
    TypeError
        If `value` is not an array of floating-point numbers (integers,
        booleans, complex numbers, strings and objects are refused).
    """
    if _is_torch_tensor(value):
        dtype = str(value.dtype).removeprefix("torch.")
        if not value.is_floating_point():
            raise TypeError(
                f"{name} must hold floating-point values; got a torch tensor of dtype {dtype}"
            )
        if value.is_meta:
            raise ValueError(f"{name} is a tensor on the meta device, which holds no values")
        return value, dtype
    if isinstance(value, (str, bytes, dict)) or value is None or callable(value):
        raise TypeError(f"{name} must be a numpy array or torch tensor; got {_describe(value)}")
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be an array of floats; could not read it ({error})") from None
    if array.dtype.kind != "f":
        raise TypeError(
            f"{name} must hold floating-point values; got dtype {array.dtype} (shape {array.shape})"
        )
    return array, str(array.dtype)


def to_float64(array: Any) -> NDArray[np.float64]:
    """Return a (sliced) numpy array or torch tensor as float64 numpy values."""
    if _is_torch_tensor(array):
        array = array.detach().cpu().double().numpy()
    values: NDArray[np.float64] = np.array(array, dtype=np.float64)
    return values


def check_finite(values: NDArray[np.float64], *, name: str) -> None:
    """Raise `ValueError` naming the first non-finite entry of 2-D `values`."""
    bad = ~np.isfinite(values)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} must be finite; got {values[where]!r} at index {where} "
            f"({int(bad.sum())} non-finite values in the part read)"
        )


def column_ranges(columns: NDArray[np.intp], most: int = 6) -> str:
    """Write sorted column indices as ranges: ``"0-3, 8, 10-11"`` (the first `most` of them)."""
    if columns.size == 0:
        return "none"
    parts = []
    start = previous = int(columns[0])
    for column in [*(int(c) for c in columns[1:]), None]:
        if column is not None and column == previous + 1:
            previous = column
            continue
        parts.append(f"{start}" if start == previous else f"{start}-{previous}")
        if column is not None:
            start = previous = column
    if len(parts) > most:
        return ", ".join(parts[:most]) + f", ... ({columns.size} in all)"
    return ", ".join(parts)
