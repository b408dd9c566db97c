r"""Name the RoPE of an implementation you did not write, by turning chosen vectors with it.

`identify_rope` probes a rotary implementation with unit basis vectors at
chosen positions and reads off what it does:

* **which dimensions form a pair** (interleaved ``(2i, 2i+1)`` or
  concatenated ``(i, i + r/2)``) and how many are turned (partial rotary);
* **the frequency of each pair**, from the angle it turns $e_a$ through at
  positions $0, 1, 2, 4, \dots$ (each power of two refines the estimate of
  the one before, so no turn is lost modulo $2\pi$), at several sequence
  lengths, to see rules that change with the length (dynamic NTK, LongRoPE);
* **the attention factor** (the length of a turned basis vector: YaRN's and
  LongRoPE's scale of cos and sin);
* **the transformers rule and parameters** that give those frequencies
  (``default``, ``linear``, ``dynamic``, ``yarn``, ``longrope``, ``llama3``,
  and ``proportional``: Gemma 4's pairs ``(i, i + head_dim/2)`` over the whole
  head with the last ones still), checked by recomputing them with
  `pe.rope_frequencies`, and the residual;
* **the common bugs**: angles computed in float16 or bfloat16 (positions,
  frequencies or their product), positions offset by one, a layout other than
  the checkpoint's (``expected_layout=``), a scaling rule on the wrong layers
  (``expected_config=`` with ``layer=`` or ``layer_type=``).

Why basis vectors: a rotation that depends only on the position is a linear
map $R(p)$ of the head, and turning $e_j$ gives its column $j$. A RoPE map is
block-diagonal in pairs of dimensions, $\alpha$ times a 2x2 rotation by
$p\,\theta_i$ in pair $i$; anything else is reported as not RoPE. The pairs
are found from $R(0)^\top R(p)$ (the matrix of the attention score, which an
implementation that reorders its output, as DeepSeek-V3's interleaved apply
function does, leaves in the input's order), so the layout named is the one
the checkpoint's query and key weights must have.

pe's numpy core does not import torch: torch is imported here only when the
object given is a torch object (a module, a tensor, a function whose module
uses torch).
"""

from __future__ import annotations

import inspect
import math
import sys
import textwrap
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pe._config import LayerRope, ModelRope, frequencies_of, read_config, spans
from pe._rope import rope_frequencies
from pe._validation import check_d_model, is_integer

__all__ = ["RopeIdentification", "identify_rope"]

Array = NDArray[np.float64]

#: Widest head probed: the probe holds ``head_dim**2`` values per position.
MAX_PROBE_HEAD_DIM = 512
#: Most values one probe call may hold (queries and keys counted once each).
MAX_PROBE_VALUES = 1 << 24
#: Lengths probed by default (the rules that depend on the length change beyond
#: the trained length, commonly 2048 to 131072).
DEFAULT_LENGTHS = (64, 2048, 8192, 32768, 131072)
#: Longest length probed: positions beyond it are not float32 integers after a product.
MAX_LENGTH = 1 << 24

_FLOAT32_EPS = 2.0**-24


@dataclass(frozen=True)
class RopeIdentification:
    """What `identify_rope` found: the rule, its parameters, the bugs, in words.

    Attributes
    ----------
    recognised : bool
        True when a transformers rule reproduces the measured rotation within
        float32 rounding (bugs may still be named: a recognised rule computed
        in float16 is reported with its bug).
    name : str
        The rule (``"default"``, ``"linear"``, ``"dynamic"``, ``"yarn"``,
        ``"longrope"``, ``"llama3"``, ``"proportional"``), ``"rotation"`` for
        an apply function probed without its cos/sin, or ``"unrecognised"``.
    parameters : dict
        What was measured and fitted: ``layout``, ``head_dim``,
        ``rotary_dim``, ``base``, the rule's parameters, ``attention_factor``,
        ``offset``, ``lengths``, ``call`` (how the object was called).
    lines : tuple of str
        The report, one finding a line (``str()`` adds a heading with the
        name, the verdict and the residual, and wraps each line).
    config : dict or None
        A config dict that `pe.read_config` and
        `pe.nn.RotaryEmbedding.from_config` accept and that gives the same
        frequencies (pass ``layout=parameters["layout"]`` to ``from_config``
        for interleaved pairs); None when no rule reproduces it.
    residual : float
        The largest relative disagreement between what was measured and what
        `config` gives: per-pair frequencies, the attention factor, and the
        part of each turned vector outside its pair's plane. A float32
        implementation gives about 1e-7.
    bugs : tuple of str
        Short names of the bugs found: ``"low_precision"``, ``"offset"``,
        ``"layout"``, ``"wrong_layers"``, ``"config_mismatch"``, ``"direction"``,
        ``"q_k_differ"``.

    Examples
    --------
    A cos/sin cache as transformers builds it (each frequency in both halves):

    >>> import numpy as np
    >>> from pe._identify_rope import identify_rope
    >>> angles = np.arange(1024)[:, None] * 10000.0 ** (-np.arange(0, 16, 2) / 16)
    >>> halves = np.concatenate([angles, angles], axis=1)
    >>> found = identify_rope((np.cos(halves), np.sin(halves)))
    >>> found.name, found.parameters["layout"], found.config
    ('default', 'concatenated', {'head_dim': 16, 'rope_parameters': {'rope_type': 'default', \
'rope_theta': 10000.0}})
    >>> found.recognised, found.bugs, found.residual < 1e-12
    (True, (), True)
    """

    recognised: bool
    name: str
    parameters: dict[str, Any]
    lines: tuple[str, ...]
    config: dict[str, Any] | None
    residual: float
    bugs: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        """Return the identification as plain JSON-able values."""
        return {
            "recognised": self.recognised,
            "name": self.name,
            "parameters": _jsonable(self.parameters),
            "lines": list(self.lines),
            "config": _jsonable(self.config),
            "residual": float(self.residual),
            "bugs": list(self.bugs),
        }

    def __str__(self) -> str:
        """Return the report: a heading as `pe.identify`'s, then each line wrapped to 88 columns."""
        verdict = "recognised" if self.recognised else "not recognised"
        head = f"{self.name} (rope, {verdict}; residual {self.residual:.2e})"
        body = [
            textwrap.fill(line, 88, initial_indent="  ", subsequent_indent="    ")
            for line in self.lines
        ]
        return "\n".join([head, *body])


def _jsonable(value: Any) -> Any:
    """Return `value` with numpy scalars and arrays, tuples and keys made JSON-able."""
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    if isinstance(value, np.ndarray):
        return [_jsonable(item) for item in value.tolist()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if is_integer(value):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return number if math.isfinite(number) else str(number)
    return value


# --- low precision, emulated --------------------------------------------------------------


def _bfloat16(values: Any) -> Array:
    """Round float values to bfloat16 (nearest, ties to even), returned as float64."""
    single = np.asarray(values, dtype=np.float64).astype(np.float32)
    bits = single.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32).astype(np.float64)


def _float16(values: Any) -> Array:
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float64).astype(np.float16).astype(np.float64)


def _float32(values: Any) -> Array:
    return np.asarray(values, dtype=np.float64).astype(np.float32).astype(np.float64)


_LOW = {"float16": _float16, "bfloat16": _bfloat16}
_LOW_STEP = {"float16": 2.0**-11, "bfloat16": 2.0**-8}


# --- what kind of object --------------------------------------------------------------------


_TORCH_MODULES = ("torch", "transformers", "pe.nn")


def _is_torch_object(obj: Any) -> bool:
    """Tell whether `obj` is a torch tensor or module, or a function of a module using torch."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    if isinstance(obj, (torch.Tensor, torch.nn.Module)):
        return True
    target = inspect.unwrap(obj) if callable(obj) else obj
    module = getattr(target, "__module__", "") or ""
    if module.startswith(_TORCH_MODULES):
        return True
    code = getattr(target, "__code__", None)
    if code is None:
        return False
    # What the function's code (and the functions inside it) reads: torch, or a torch object.
    names: set[str] = set()
    pending = [code]
    while pending:
        current = pending.pop()
        names.update(current.co_names)
        pending.extend(const for const in current.co_consts if inspect.iscode(const))
    scope = getattr(target, "__globals__", {})
    values = [scope[name] for name in names if name in scope]
    for cell in getattr(target, "__closure__", None) or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    return any(
        value is torch
        or isinstance(value, (torch.Tensor, torch.nn.Module))
        or str(getattr(value, "__module__", "") or "").startswith(_TORCH_MODULES)
        for value in values
    )


def _describe(obj: Any) -> str:
    name = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    module = getattr(obj, "__module__", None) or type(obj).__module__
    return f"{module}.{name}" if module else str(name)


def _call_shape(obj: Any) -> str:
    """Pick how to call `obj`: ``"pe"``, ``"cos_sin"``, ``"apply"`` or ``"positions"``."""
    torch = sys.modules.get("torch")
    target = obj.forward if torch is not None and isinstance(obj, torch.nn.Module) else obj
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return "positions"
    parameters = list(signature.parameters.values())
    names = {parameter.name for parameter in parameters}
    if "q_positions" in names:
        return "pe"
    if {"cos", "sin"} <= names:
        return "apply"
    positional = [
        parameter
        for parameter in parameters
        if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)
        and parameter.name != "self"
    ]
    required = [parameter for parameter in positional if parameter.default is parameter.empty]
    if len(positional) >= 3 and positional[1].name.lower().startswith("k"):
        return "positions"  # f(q, k, positions), even with positions optional
    if "position_ids" in names:
        return "cos_sin"  # rotary(x, position_ids[, layer_type])
    if len(positional) >= 2 and len(required) <= 2:
        return "cos_sin"  # rotary(x, position_ids, ...)
    return "positions"


_CALLS = {
    "pe": "rope(q, k, q_positions=positions, k_positions=positions) -> (q', k') (pe.nn)",
    "cos_sin": "rotary(x, position_ids) -> (cos, sin) (a transformers rotary module)",
    "apply": "apply(q, k, cos, sin) -> (q', k') (a transformers apply function)",
    "positions": "f(q, k, positions) -> (q', k')",
    "cache": "a (cos, sin) pair of tables, row p for position p",
}


# --- probing ---------------------------------------------------------------------------------


def _positions_for(length: int) -> NDArray[np.int64]:
    """Positions probed for a sequence of `length`: 0, powers of two, awkward ones, length - 1.

    Powers of two are exact in float16 and bfloat16, so the frequencies fitted
    on them survive low-precision positions; the awkward positions
    (``2**k + 2**(k-8) + 1``) round in both, so that bug shows there.
    """
    chosen = {0, length - 1}
    power = 1
    while power < length:
        chosen.add(power)
        awkward = power + (power >> 8) + 1
        if power >= 512 and awkward < length:
            chosen.add(awkward)
        power *= 2
    return np.array(sorted(chosen), dtype=np.int64)


def _check_probe(head_dim: int, count: int) -> None:
    if head_dim > MAX_PROBE_HEAD_DIM:
        raise ValueError(
            f"head_dim={head_dim} is wider than identify_rope probes (at most "
            f"{MAX_PROBE_HEAD_DIM}): the probe turns head_dim basis vectors at each position"
        )
    if 2 * head_dim * head_dim * count > MAX_PROBE_VALUES:
        raise ValueError(
            f"probing head_dim={head_dim} at {count} positions would hold "
            f"{2 * head_dim * head_dim * count:,} values (limit {MAX_PROBE_VALUES:,}); pass "
            "shorter lengths (fewer positions are probed per call)"
        )


class _Caller:
    """Calls the object under test on chosen inputs, in numpy or torch, with errors wrapped."""

    def __init__(self, obj: Any, shape: str, use_torch: bool, description: str) -> None:
        self.obj, self.shape, self.use_torch, self.description = obj, shape, use_torch, description
        self.positions_2d = False  # f(q, k, positions) called with positions of shape (1, seq)
        self.extra: dict[str, Any] = {}  # keywords of every call (a rotary's layer_type)
        self.complex_result = False  # a rotary that returns cos + i sin (freqs_cis)

    def _complex(self, value: Any) -> NDArray[Any]:
        if isinstance(value, np.ndarray):
            return value.astype(np.complex128)
        torch = sys.modules["torch"]
        return np.asarray(value.detach().to("cpu", torch.complex128).numpy())

    def tensor(self, values: NDArray[Any], *, integer: bool = False) -> Any:
        if not self.use_torch:
            return values.astype(np.int64 if integer else np.float32)
        import torch

        return torch.from_numpy(values.astype(np.int64 if integer else np.float32))

    def call(self, *args: Any, **kwargs: Any) -> Any:
        try:
            if self.use_torch:
                import torch

                with torch.no_grad():
                    return self.obj(*args, **kwargs)
            return self.obj(*args, **kwargs)
        except Exception as error:  # any failure of the code under test, named
            raise ValueError(
                f"{self.description} raised {type(error).__name__} when called as "
                f"{_CALLS[self.shape]}: {error}"
            ) from error

    def array(self, value: Any, what: str) -> NDArray[np.float64]:
        """Return an output as a finite-or-not float64 numpy array, refusing other things."""
        if self.use_torch:
            torch = sys.modules["torch"]
            if isinstance(value, torch.Tensor):
                return np.asarray(value.detach().to("cpu", torch.float64).numpy())
        if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.number):
            return np.asarray(value, dtype=np.float64)
        raise TypeError(
            f"{self.description} returned {type(value).__name__} for {what}; expected "
            f"{'a tensor' if self.use_torch else 'an array'} (called as {_CALLS[self.shape]})"
        )

    def pair(self, result: Any, what: str) -> tuple[Any, Any]:
        if not isinstance(result, (tuple, list)) or len(result) < 2:
            raise TypeError(
                f"{self.description} returned {type(result).__name__}; expected a pair {what} "
                f"(called as {_CALLS[self.shape]})"
            )
        return result[0], result[1]

    def cos_sin(
        self, positions: NDArray[np.int64], head_dim: int
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Call a ``rotary(x, position_ids)`` module: cos and sin, each ``(seq, width)``."""
        x = self.tensor(np.zeros((1, 1, positions.size, head_dim)))
        result = self.call(x, self.tensor(positions[None], integer=True), **self.extra)
        if _is_array(result) and _shape_of(result, "the result")[1]:
            table = _rows(self._complex(result), positions.size, "the complex table")
            self.complex_result = True
            return table.real.copy(), table.imag.copy()  # freqs_cis (DeepSeek-V2, Llama 4)
        cos, sin = self.pair(result, "(cos, sin), or one complex table")
        return (
            _rows(self.array(cos, "cos"), positions.size, "cos"),
            _rows(self.array(sin, "sin"), positions.size, "sin"),
        )

    def turns(
        self,
        positions: NDArray[np.int64],
        head_dim: int,
        cos_sin: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Turn every basis vector at every position: R for q and k, ``(seq, out, in)``."""
        count = positions.size
        _check_probe(head_dim, count)
        basis = np.broadcast_to(
            np.eye(head_dim)[None, :, None, :], (1, head_dim, count, head_dim)
        ).copy()  # (batch, heads = basis vector, seq, head_dim)
        q, k = self.tensor(basis), self.tensor(basis)
        if self.shape == "pe":
            ids = self.tensor(positions, integer=True)
            result = self.call(q, k, q_positions=ids, k_positions=ids)
        elif self.shape == "apply":
            assert cos_sin is not None
            cos, sin = (self.tensor(table[None]) for table in cos_sin)
            result = self.call(q, k, cos, sin)
        else:
            ids = self.tensor(positions, integer=True)
            if self.positions_2d:
                result = self.call(q, k, self.tensor(positions[None], integer=True))
            else:
                try:
                    result = self.call(q, k, ids)
                except ValueError:
                    self.positions_2d = True  # try (1, seq), transformers' position_ids
                    result = self.call(q, k, self.tensor(positions[None], integer=True))
        q_out, k_out = self.pair(result, "(q, k)")
        turned = []
        for name, value in (("q", q_out), ("k", k_out)):
            array = self.array(value, name)
            if array.shape != basis.shape:
                raise ValueError(
                    f"{self.description} returned {name} of shape {array.shape} for {name} of "
                    f"shape {basis.shape} (called as {_CALLS[self.shape]})"
                )
            turned.append(np.transpose(array[0], (1, 2, 0)))  # (seq, out, in)
        return turned[0], turned[1]


def _rows(table: NDArray[Any], count: int, name: str) -> NDArray[Any]:
    """Return a cos or sin output as ``(seq, width)``: leading dimensions of size 1 dropped."""
    shape = table.shape
    squeezed = table.reshape(-1, shape[-1]) if table.ndim >= 2 else table
    if table.ndim < 2 or squeezed.shape[0] != count:
        raise ValueError(
            f"{name} must have one row per position, shape (..., {count}, width) with leading "
            f"dimensions of size 1; got shape {shape}"
        )
    return squeezed


# --- one length measured -------------------------------------------------------------------


@dataclass
class _Measure:
    """The turns of every pair at the positions probed for one length."""

    length: int
    positions: NDArray[np.int64]
    angles: NDArray[np.float64]  # (positions, pairs), in (-pi, pi]
    amplitude: NDArray[np.float64]  # (positions, pairs)
    k_angles: NDArray[np.float64] | None = None


@dataclass
class _Shape:
    """Which dimensions are turned together, and how the output is ordered."""

    head_dim: int
    pairs: list[tuple[int, int]]
    layout: str | None
    rotated: list[int]
    permuted: bool = False
    leakage: float = 0.0
    notes: list[str] = field(default_factory=list)


def _pairing(turns: list[NDArray[np.float64]], head_dim: int) -> _Shape:
    """Find the pairs of input dimensions each turn mixes, from ``R(0)^T R(p)``."""
    mixing = np.zeros((head_dim, head_dim))
    amplitude = 0.0
    for matrices in turns:
        first = matrices[0]
        for matrix in matrices:
            score = first.T @ matrix
            amplitude = max(amplitude, float(np.abs(np.diagonal(first.T @ first)).max()))
            mixing += np.abs(score - np.diag(np.diagonal(score)))
    scale = max(amplitude, 1e-30) * sum(matrices.shape[0] for matrices in turns)
    pairs: list[tuple[int, int]] = []
    taken: set[int] = set()
    for j in range(head_dim):
        if j in taken:
            continue
        partner = int(np.argmax(mixing[:, j]))
        if mixing[partner, j] <= 1e-9 * scale:
            continue  # not turned
        if int(np.argmax(mixing[:, partner])) != j or partner in taken:
            continue
        pairs.append((min(j, partner), max(j, partner)))
        taken.update((j, partner))
    pairs.sort()
    # What is left outside the pairs: the mixing between dimensions of different pairs.
    group = np.full(head_dim, -1)
    for index, (a, b) in enumerate(pairs):
        group[a] = group[b] = index
    same = (group[:, None] == group[None, :]) & (group[:, None] >= 0)
    outside = mixing.copy()
    outside[same] = 0.0
    leakage = float(outside.max() / scale) if head_dim else 0.0
    rotated = sorted(taken)
    count = len(rotated)
    layout: str | None = None
    if pairs and rotated == list(range(count)):
        if pairs == [(2 * i, 2 * i + 1) for i in range(count // 2)]:
            layout = "interleaved"
        elif pairs == [(i, i + count // 2) for i in range(count // 2)]:
            layout = "concatenated"
    if count == 2 and rotated == [0, 1]:
        layout = "concatenated"  # one pair: both layouts are the same
    half = head_dim // 2
    if layout is None and head_dim % 2 == 0 and pairs == [(i, i + half) for i in range(count // 2)]:
        # Halves of the whole head with the last pairs left still (Gemma 4's proportional
        # rule): measured as every pair (i, i + head_dim/2), the still ones turning by 0.
        pairs = [(i, i + half) for i in range(half)]
        rotated, layout = list(range(head_dim)), "concatenated"
    return _Shape(head_dim, pairs, layout, rotated, leakage=leakage)


def _pair_order(shape: _Shape) -> list[tuple[int, int]]:
    """Return the pairs in frequency order: pair i of the layout first (else their own order)."""
    count = len(shape.rotated)
    if shape.layout == "concatenated":
        return [(i, i + count // 2) for i in range(count // 2)]
    return shape.pairs


def _measure_turns(
    matrices: NDArray[np.float64], shape: _Shape, positions: NDArray[np.int64], length: int
) -> tuple[_Measure, bool]:
    """Read each pair's angle and amplitude from the turned basis vectors at each position."""
    order = _pair_order(shape)
    first = matrices[0]
    angles = np.zeros((positions.size, len(order)))
    amplitude = np.zeros_like(angles)
    permuted = False
    for index, (a, b) in enumerate(order):
        # The output dimensions the pair lands on (its own two, unless the output is reordered).
        weight = np.abs(first[:, a]) + np.abs(first[:, b]) + np.abs(matrices[-1][:, a])
        out = sorted(int(i) for i in np.argsort(weight)[-2:])
        if out != [a, b]:
            permuted = True
        block = matrices[:, out][:, :, [a, b]]  # (positions, 2 out, 2 in)
        cos = 0.5 * (block[:, 0, 0] + block[:, 1, 1])
        sin = 0.5 * (block[:, 1, 0] - block[:, 0, 1])
        angles[:, index] = np.arctan2(sin, cos)
        amplitude[:, index] = np.hypot(cos, sin)
    return _Measure(length, positions, angles, amplitude), permuted


def _cache_format(cos: NDArray[np.float64], sin: NDArray[np.float64]) -> tuple[str, int]:
    """Tell how a cos/sin table holds its pairs: ``"halves"``, ``"repeated"`` or ``"pairs"``."""
    width = cos.shape[1]
    if width % 2 == 0 and width >= 2:
        half = width // 2
        tolerance = 1e-6 * max(1.0, float(np.abs(cos).max()))
        if np.abs(cos[:, :half] - cos[:, half:]).max() <= tolerance and (
            np.abs(sin[:, :half] - sin[:, half:]).max() <= tolerance
        ):
            if width == 2 or half == 1:
                return "halves", half
            if not (
                np.abs(cos[:, 0::2] - cos[:, 1::2]).max() <= tolerance
                and np.abs(cos[:, : half // 2 * 2 : 2] - cos[:, 1 : half // 2 * 2 : 2]).max()
                <= tolerance
            ):
                return "halves", half
        if np.abs(cos[:, 0::2] - cos[:, 1::2]).max() <= tolerance and (
            np.abs(sin[:, 0::2] - sin[:, 1::2]).max() <= tolerance
        ):
            return "repeated", half
    return "pairs", width


def _measure_cache(
    cos: NDArray[np.float64], sin: NDArray[np.float64], positions: NDArray[np.int64], length: int
) -> tuple[_Measure, str]:
    kind, pairs = _cache_format(cos, sin)
    if kind == "halves":
        cos, sin = cos[:, :pairs], sin[:, :pairs]
    elif kind == "repeated":
        cos, sin = cos[:, 0::2], sin[:, 0::2]
    measure = _Measure(length, positions, np.arctan2(sin, cos), np.hypot(cos, sin))
    return measure, kind


# --- frequencies from angles -----------------------------------------------------------------


def _wrap(angles: Any) -> Any:
    """Wrap angles into ``[-pi, pi)``."""
    return (np.asarray(angles) + np.pi) % (2 * np.pi) - np.pi


@dataclass
class _Fit:
    """Per-pair frequencies fitted at one length, with the offset and what is left over."""

    length: int
    frequencies: NDArray[np.float64]
    start: NDArray[np.float64]  # the angle at position 0 (an offset turns it)
    errors: NDArray[np.float64]  # (positions, pairs): measured minus fitted angle
    tolerance: NDArray[np.float64]  # (positions, pairs): float32 rounding allowed
    amplitude: float
    amplitude_spread: float
    top: int  # the largest power of two used


def _fit_frequencies(measure: _Measure) -> _Fit:
    """Fit ``angle = start + theta * p`` per pair on the powers of two, refining as p doubles."""
    positions = measure.positions
    angles = measure.angles
    start = angles[0]
    theta = _wrap(angles[positions == 1][0] - start) if np.any(positions == 1) else start * 0.0
    top = 1
    for power in positions[(positions > 1) & ((positions & (positions - 1)) == 0)]:
        turned = _wrap(angles[positions == power][0] - start)
        laps = np.round((theta * power - turned) / (2 * np.pi))
        theta = (turned + 2 * np.pi * laps) / power
        top = int(power)
    predicted = start + np.outer(positions, theta)
    errors = _wrap(angles - predicted)
    tolerance = 8 * _FLOAT32_EPS * np.abs(np.outer(positions, theta)) + 2e-6
    amplitude = float(np.median(measure.amplitude))
    spread = float(np.abs(measure.amplitude - amplitude).max() / max(amplitude, 1e-30))
    return _Fit(measure.length, theta, start, errors, tolerance, amplitude, spread, top)


def _frequency_error(measured: Array, expected: Array, top: int, slack: float = 0.0) -> Array:
    """Return each pair's disagreement in units of the rounding allowed at position `top`.

    float32 rounding, plus `slack` radians (the rounding of cos and sin in a low precision).
    """
    allowed = 8 * _FLOAT32_EPS * np.abs(expected) * top + 4e-6 + slack
    return np.asarray(np.abs(measured - expected) * top / allowed)


def _relative(measured: Array, expected: Array) -> float:
    scale = np.maximum(np.abs(expected), 1e-300)
    return float(np.max(np.abs(measured - expected) / scale)) if measured.size else 0.0


# --- rules fitted -------------------------------------------------------------------------


def _nice(value: float, *, tolerance: float = 1e-6) -> float:
    """Return `value` rounded to the fewest significant digits within `tolerance` (relative)."""
    if value == 0 or not math.isfinite(value):
        return value
    for digits in range(1, 10):
        rounded = float(f"{value:.{digits}g}")
        if abs(rounded - value) <= tolerance * abs(value):
            return rounded
    return value


def _fit_base(frequencies: Array, dim: int, kept: NDArray[np.bool_]) -> float:
    """Least-squares base of ``theta_i = b**(-2i/dim)`` over the `kept` pairs (through 1 at i=0)."""
    exponents = 2 * np.arange(frequencies.size) / dim
    x, y = exponents[kept], np.log(frequencies[kept])
    if not x.size or not np.any(x > 0):
        return math.nan
    return float(np.exp(-np.dot(x, y) / np.dot(x, x)))


@dataclass
class _Candidate:
    rule: str
    scaling: dict[str, Any]
    max_position_embeddings: int | None = None
    notes: list[str] = field(default_factory=list)


def _frequencies_of(
    candidate: _Candidate, head_dim: int, rotary_dim: int, length: int | None
) -> tuple[Array, float] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = rope_frequencies(
                head_dim,
                scaling=candidate.scaling,
                max_position_embeddings=candidate.max_position_embeddings,
                seq_len=length,
                partial_rotary_factor=rotary_dim / head_dim,
            )
    except (TypeError, ValueError):
        return None
    return result.frequencies, result.attention_factor


def _plain_candidates(frequencies: Array, dim: int, base_hint: float | None) -> list[_Candidate]:
    """Fit rules ``default`` and ``linear``: a straight line in log-frequency."""
    pairs = frequencies.size
    if pairs < 2 or np.any(frequencies <= 0):
        return []
    exponents = 2 * np.arange(pairs) / dim
    slope, intercept = np.polyfit(exponents, np.log(frequencies), 1)
    fitted = float(np.exp(-slope))
    factor = _nice(float(np.exp(-intercept)), tolerance=1e-4)
    bases = list(dict.fromkeys([_nice(fitted, tolerance=1e-5), _nice(fitted), fitted]))
    if base_hint is not None:
        bases.insert(0, base_hint)
    found = [_Candidate("default", {"rope_type": "default", "rope_theta": b}) for b in bases]
    if factor > 1.0 + 1e-6:
        found += [
            _Candidate("linear", {"rope_type": "linear", "factor": factor, "rope_theta": b})
            for b in bases
        ]
    return found


def _kept_base(frequencies: Array, dim: int, tolerance: float = 1e-5) -> float:
    """Return the base read from the fast pairs a rule keeps (yarn's and llama3's first pairs).

    The kept pairs are the longest prefix that one power law fits within `tolerance`
    (relative; wider for frequencies rounded to a low precision).
    """
    if frequencies.size < 2 or np.any(frequencies <= 0):
        return math.nan
    exponents = 2 * np.arange(frequencies.size) / dim
    logs = np.log(frequencies)
    base = math.nan
    for count in range(2, frequencies.size + 1):
        x, y = exponents[:count], logs[:count]
        slope = float(np.dot(x, y) / np.dot(x, x))  # through theta_0 = 1
        if np.abs(y - slope * x).max() > tolerance:
            break
        base = math.exp(-slope)
    if not math.isfinite(base) or base <= 1:
        return math.nan
    return base


def _kept_bases(frequencies: Array, dim: int, tolerance: float) -> list[float]:
    """Return the kept pairs' base, rounded to a few digits first (the roundest fit wins)."""
    base = _kept_base(frequencies, dim, tolerance)
    if not math.isfinite(base):
        return []
    digits = (1e-5, 1e-6) if tolerance <= 1e-5 else (1e-2, 4e-3, 1e-3)
    return list(dict.fromkeys([*(_nice(base, tolerance=t) for t in digits), base]))


def _yarn_candidates(
    frequencies: Array,
    dim: int,
    attention: float,
    original_hint: int | None,
    tolerance: float = 1e-5,
) -> list[_Candidate]:
    """Fit rule ``yarn``: a ramp over pair indices from kept (1) to divided by the factor."""
    found = []
    for base in _kept_bases(frequencies, dim, tolerance):
        found += _yarn_with_base(frequencies, base, dim, attention, original_hint)
    return found


def _yarn_with_base(
    frequencies: Array, base: float, dim: int, attention: float, original_hint: int | None
) -> list[_Candidate]:
    pairs = frequencies.size
    ratio = frequencies * base ** (2 * np.arange(pairs) / dim)  # 1 kept, 1/s divided
    drop = 1.0 - ratio
    # Every whole ramp (low, high): ramp[low, high, i] = clip((i - low) / (high - low), 0, 1).
    index = np.arange(pairs, dtype=np.float64)
    lows = np.arange(pairs, dtype=np.float64)[:, None, None]
    highs = np.arange(1, dim, dtype=np.float64)[None, :, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        ramps = np.clip((index - lows) / (highs - lows), 0.0, 1.0)
        ramps = np.where(highs > lows, ramps, np.nan)
        shares = np.einsum("abi,i->ab", ramps, drop) / np.einsum("abi,abi->ab", ramps, ramps)
        misfits = np.abs(drop - ramps * shares[..., None]).max(axis=-1)
    best: tuple[float, int, int, float] | None = None
    if np.isfinite(misfits).any():
        low, high = np.unravel_index(int(np.nanargmin(misfits)), misfits.shape)
        best = (float(misfits[low, high]), int(low), int(high) + 1, float(shares[low, high]))
    found = []
    if best is not None and 0 < best[3] < 1:
        found += _yarn_truncated(best[1], best[2], best[3], base, dim, attention, original_hint)
    divided = [best[3]] if best is not None and 0 < best[3] < 1 else []  # 1 - 1/s
    if attention > 1:
        divided.append(1.0 - 1.0 / math.exp((attention - 1.0) / 0.1))  # the default attention
    for share in divided:
        found += _yarn_untruncated(drop, share, base, dim, attention, original_hint)
    return found


def _with_attention(scaling: dict[str, Any], factor: float, attention: float) -> None:
    default_attention = 0.1 * math.log(factor) + 1.0
    if abs(attention - default_attention) > 1e-5 * default_attention:
        scaling["attention_factor"] = _nice(attention)


def _yarn_truncated(
    low: int,
    high: int,
    share: float,
    base: float,
    dim: int,
    attention: float,
    original_hint: int | None,
) -> list[_Candidate]:
    """Return yarn with whole ramp ends (``truncate``, the default), from its ends."""
    factor = _nice(1.0 / (1.0 - share), tolerance=1e-4)
    if factor <= 1:
        return []
    scaling: dict[str, Any] = {"rope_type": "yarn", "factor": factor, "rope_theta": base}

    # low = floor(dim ln(L / (2 pi 32)) / (2 ln b)), high = ceil(dim ln(L / 2 pi) / (2 ln b)).
    def bounds(index: int, turns: float) -> tuple[float, float]:
        return (
            2 * math.pi * turns * base ** (2 * index / dim),
            2 * math.pi * turns * base ** (2 * (index + 1) / dim),
        )

    lowest, highest = 1.0, math.inf
    if low > 0:
        lowest, highest = bounds(low, 32.0)
    if high < dim - 1:
        below, above = bounds(high - 1, 1.0)
        lowest, highest = max(lowest, below), min(highest, above)
    notes = []
    if original_hint is not None:
        original = original_hint
    elif lowest < highest:
        original = _round_length(lowest, highest)
        notes.append(
            f"the ramp fixes original_max_position_embeddings only to [{math.ceil(lowest)}, "
            f"{math.floor(highest)}] (beta_fast 32, beta_slow 1 assumed); {original} taken"
        )
    else:
        return []
    scaling["original_max_position_embeddings"] = original
    _with_attention(scaling, factor, attention)
    return [_Candidate("yarn", scaling, notes=notes)]


def _yarn_untruncated(
    drop: Array,
    share: float,
    base: float,
    dim: int,
    attention: float,
    original_hint: int | None,
) -> list[_Candidate]:
    """Return yarn with fractional ramp ends (``truncate: false``, gpt-oss), from the ramp."""
    factor = _nice(1.0 / (1.0 - share), tolerance=1e-4)
    if factor <= 1:
        return []
    ramp = drop / (1.0 - 1.0 / factor)  # 0 kept ... 1 divided by the factor
    band = (ramp > 1e-6) & (ramp < 1 - 1e-6)
    if band.sum() < 2:
        return []
    index = np.flatnonzero(band).astype(np.float64)
    slope, intercept = np.polyfit(index, ramp[band], 1)  # ramp = (i - low) / (high - low)
    if slope <= 0:
        return []
    low, high = -intercept / slope, -intercept / slope + 1.0 / slope
    # low = dim ln(L / (2 pi beta_fast)) / (2 ln b): beta_fast 32 gives L; high gives beta_slow.
    estimate = 2 * math.pi * 32.0 * base ** (2 * low / dim)
    if original_hint is not None:
        lengths = [original_hint]
    else:  # a round length near the estimate first, then the estimate itself
        lengths = list(
            dict.fromkeys([_round_length(estimate * (1 - 1e-3), estimate * (1 + 1e-3)),
                           round(estimate)])
        )  # fmt: skip
    found = []
    for original in lengths:
        beta_slow = _nice(original / (2 * math.pi * base ** (2 * high / dim)), tolerance=1e-3)
        scaling: dict[str, Any] = {
            "rope_type": "yarn",
            "factor": factor,
            "rope_theta": base,
            "original_max_position_embeddings": original,
            "truncate": False,
        }
        if beta_slow != 1.0:
            scaling["beta_slow"] = beta_slow
        _with_attention(scaling, factor, attention)
        found.append(_Candidate("yarn", scaling, notes=["beta_fast 32 assumed"]))
    return found


def _round_length(lowest: float, highest: float) -> int:
    """Return a round length in ``[lowest, highest]``: a power of two, else a multiple of 1024."""
    for step in (None, 1024, 1):
        if step is None:
            power = 2 ** math.ceil(math.log2(max(lowest, 1.0)))
            if power <= highest:
                return int(power)
            continue
        value = math.ceil(lowest / step) * step
        if value <= highest:
            return int(value)
    return math.ceil(lowest)


def _llama3_candidates(
    frequencies: Array, dim: int, original_hint: int | None, tolerance: float = 1e-5
) -> list[_Candidate]:
    """Fit rule ``llama3``: kept above a wavelength, divided below another, a blend between."""
    found = []
    for base in _kept_bases(frequencies, dim, tolerance):
        found += _llama3_with_base(frequencies, base, dim, original_hint)
    return found


def _llama3_with_base(
    frequencies: Array, base: float, dim: int, original_hint: int | None
) -> list[_Candidate]:
    pairs = frequencies.size
    theta = base ** (-2 * np.arange(pairs) / dim)
    ratio = frequencies / theta
    factor = _nice(1.0 / float(ratio.min()), tolerance=1e-4)
    if factor <= 1 + 1e-6:
        return []
    mix = (ratio - 1 / factor) / (1 - 1 / factor)  # mu: 1 kept, 0 divided
    band = (mix > 1e-4) & (mix < 1 - 1e-4)
    found = []
    if band.sum() >= 2:
        slope, intercept = np.polyfit(theta[band], mix[band], 1)
        # mu = L theta / (2 pi (h - l)) - l / (h - l): fixes L / (h - l) and l / (h - l) only.
        if intercept < 0 and slope > 0:
            choices: list[tuple[float, int | None]] = []
            if original_hint is not None:
                span = original_hint / (2 * math.pi * slope)
                choices.append((-intercept * span, original_hint))
            else:
                choices.append((1.0, None))
            for low_freq, original in choices:
                span = -low_freq / intercept
                length = original if original is not None else round(2 * math.pi * slope * span)
                found.append(
                    _Candidate(
                        "llama3",
                        {
                            "rope_type": "llama3",
                            "factor": factor,
                            "low_freq_factor": _nice(low_freq, tolerance=1e-4),
                            "high_freq_factor": _nice(low_freq + span, tolerance=1e-4),
                            "original_max_position_embeddings": int(length),
                            "rope_theta": base,
                        },
                        notes=[]
                        if original is not None
                        else [
                            "the blend fixes only L / (high - low) and low / (high - low); "
                            "low_freq_factor 1 taken"
                        ],
                    )
                )
    kept, scaled = mix >= 1 - 1e-4, mix <= 1e-4
    if not band.any() and kept.any() and scaled.any():
        # A step (high_freq_factor == low_freq_factor, Llama 4): pairs of wavelength up to
        # L / low kept, longer ones divided; low = 1 taken.
        wavelength = 2 * math.pi / theta
        shortest, longest = float(wavelength[kept].max()), float(wavelength[scaled].min())
        length = original_hint or _round_length(shortest, longest)
        found.append(
            _Candidate(
                "llama3",
                {
                    "rope_type": "llama3",
                    "factor": factor,
                    "low_freq_factor": 1.0,
                    "high_freq_factor": 1.0,
                    "original_max_position_embeddings": length,
                    "rope_theta": base,
                },
                notes=[
                    f"a step, no blend: original_max_position_embeddings / low_freq_factor lies "
                    f"in [{math.ceil(shortest)}, {math.floor(longest)}]; low_freq_factor 1 "
                    f"and {length} taken"
                ],
            )
        )
    for low_freq, high_freq, length in ((1.0, 4.0, original_hint or 8192),):
        found.append(
            _Candidate(
                "llama3",
                {
                    "rope_type": "llama3",
                    "factor": factor,
                    "low_freq_factor": low_freq,
                    "high_freq_factor": high_freq,
                    "original_max_position_embeddings": length,
                    "rope_theta": base,
                },
            )
        )
    return found


def _longrope_factors(frequencies: Array, dim: int, base: float) -> list[float]:
    theta = base ** (-2 * np.arange(frequencies.size) / dim)
    return [float(f"{value:.9g}") for value in theta / frequencies]


# --- checking the inputs -------------------------------------------------------------------


def _check_lengths(lengths: Any) -> tuple[int, ...]:
    if lengths is None:
        return DEFAULT_LENGTHS
    if isinstance(lengths, (str, bytes)) or not isinstance(lengths, Sequence):
        raise TypeError(
            f"lengths must be a sequence of integers (sequence lengths to probe); got "
            f"{type(lengths).__name__}"
        )
    checked = []
    for value in lengths:
        if not is_integer(value):
            raise TypeError(f"lengths must hold integers; got {value!r} in {list(lengths)!r}")
        if not 2 <= int(value) <= MAX_LENGTH:
            raise ValueError(
                f"lengths must lie in [2, {MAX_LENGTH}] (2**24: longer positions are not exact "
                f"in float32); got {int(value)}"
            )
        checked.append(int(value))
    if not checked:
        raise ValueError("lengths must hold at least one length; got an empty sequence")
    return tuple(sorted(set(checked)))


def _optional_length(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if not is_integer(value) or int(value) < 1:
        raise TypeError(f"{name} must be a positive integer or None; got {value!r}")
    return int(value)


def _shape_of(value: Any, name: str) -> tuple[tuple[int, ...], bool]:
    """Return the shape of a numpy array or torch tensor and whether it is complex."""
    if _is_array(value):
        shape = tuple(int(size) for size in value.shape)
        if isinstance(value, np.ndarray):
            if value.dtype == np.bool_ or not np.issubdtype(value.dtype, np.number):
                raise TypeError(f"{name} must hold numbers; got an array of {value.dtype}")
            return shape, bool(np.iscomplexobj(value))
        if not (value.is_floating_point() or value.is_complex()):
            raise TypeError(f"{name} must hold real numbers; got a tensor of {value.dtype}")
        return shape, bool(value.is_complex())
    raise TypeError(f"{name} must be a numpy array or a torch tensor; got {type(value).__name__}")


def _read_rows(value: Any, rows: NDArray[np.int64], width: int) -> NDArray[Any]:
    """Read only `rows` of a ``(..., positions, width)`` table, as numpy (complex kept)."""
    count = int(np.prod(value.shape[:-1]))
    flat = value.reshape(count, width)
    if isinstance(value, np.ndarray):
        return np.asarray(flat[rows])
    import torch

    picked = flat.detach()[torch.as_tensor(rows)].to("cpu")
    wide = torch.complex128 if picked.is_complex() else torch.float64
    return np.asarray(picked.to(wide).numpy())


def _first_bad(value: Any, width: int) -> tuple[int, int, int] | None:
    """Scan a table for non-finite values in blocks of rows: (count, first row, its column)."""
    count = int(np.prod(value.shape[:-1]))
    flat = value.reshape(count, width)
    found: tuple[int, int, int] | None = None
    total = 0
    step = max(1, (1 << 20) // max(width, 1))  # at most a million values at a time
    for start in range(0, count, step):
        block = flat[start : start + step]
        if not isinstance(block, np.ndarray):
            block = block.detach().to("cpu").numpy()
        bad = ~np.isfinite(block)
        if bad.any():
            total += int(bad.sum())
            if found is None:
                row, column = (int(i) for i in np.argwhere(bad)[0])
                found = (0, start + row, column)
    return None if found is None else (total, found[1], found[2])


def _cache_tables(
    obj: Any,
) -> tuple[NDArray[np.float64], NDArray[np.float64], str, NDArray[np.int64]]:
    """Return the probed rows of cos and sin, each ``(rows, width)``, and their positions.

    `obj` is a pair (cos, sin) or one complex table. Only the probed rows are
    copied; the whole table is scanned for non-finite values a block at a time.
    """
    if isinstance(obj, (tuple, list)):
        if len(obj) != 2:
            raise ValueError(
                f"a cache must be a pair (cos, sin); got a {type(obj).__name__} of {len(obj)} items"
            )
        tables = list(obj)
        names = ["cos", "sin"]
        shapes = [_shape_of(value, name) for value, name in zip(tables, names, strict=True)]
        if shapes[0][1] or shapes[1][1]:
            raise TypeError("cos and sin must be real; pass one complex table alone (freqs_cis)")
        if shapes[0][0] != shapes[1][0]:
            raise ValueError(
                f"cos and sin must have one shape; got {shapes[0][0]} and {shapes[1][0]}"
            )
        kind = "pair"
    else:
        tables, names = [obj], ["the cache"]
        shape_and_kind = _shape_of(obj, "the cache")
        if not shape_and_kind[1]:
            raise TypeError(
                "a single table must be complex (cos + i sin, Meta's freqs_cis); pass real "
                f"caches as a pair (cos, sin); got a real array of shape {shape_and_kind[0]}"
            )
        shapes = [shape_and_kind]
        kind = "complex"
    shape = shapes[0][0]
    if len(shape) < 2 or any(size != 1 for size in shape[:-2]):
        raise ValueError(
            "a cos/sin cache must have shape (positions, width), with any leading dimensions of "
            f"size 1; got shape {shape}"
        )
    if shape[-2] < 2 or shape[-1] < 1:
        raise ValueError(
            f"a cos/sin cache needs at least 2 positions and 1 column; got shape {shape}"
        )
    for table, name in zip(tables, names, strict=True):
        bad = _first_bad(table, shape[-1])
        if bad is not None:
            raise ValueError(
                f"{name} holds non-finite values ({bad[0]} of them; first at position {bad[1]}, "
                f"column {bad[2]}): an angle overflowed or the table is damaged"
            )
    positions = _positions_for(shape[-2])
    read = [_read_rows(table, positions, shape[-1]) for table in tables]
    if kind == "complex":
        return read[0].real.astype(np.float64), read[0].imag.astype(np.float64), kind, positions
    return read[0].astype(np.float64), read[1].astype(np.float64), kind, positions


# --- the report ----------------------------------------------------------------------------


def _format(value: Any) -> str:
    if isinstance(value, float):
        whole = value.is_integer() and abs(value) < 1e15
        return str(int(value)) if whole else f"{value:.6g}"
    if isinstance(value, list):
        return f"[{len(value)} values]"
    return str(value)


def _rule_phrase(scaling: Mapping[str, Any]) -> str:
    rule = scaling.get("rope_type", "default")
    parts = [f"base {_format(float(scaling['rope_theta']))}"]
    parts += [
        f"{key} {_format(value)}"
        for key, value in scaling.items()
        if key not in ("rope_type", "rope_theta")
    ]
    return f"{rule} ({', '.join(parts)})"


@dataclass
class _Findings:
    """What the analysis has found so far, gathered into the report at the end."""

    call: str
    lines: list[str] = field(default_factory=list)
    bugs: list[str] = field(default_factory=list)
    parameters: dict[str, Any] = field(default_factory=dict)

    def bug(self, name: str, text: str) -> None:
        if name not in self.bugs:
            self.bugs.append(name)
        self.lines.append("Bug: " + text)


def _unrecognised(findings: _Findings, why: str, residual: float) -> RopeIdentification:
    findings.lines.append(f"Not recognised as RoPE: {why}.")
    return RopeIdentification(
        False,
        "unrecognised",
        dict(findings.parameters),
        tuple(findings.lines),
        None,
        float(residual),
        tuple(findings.bugs),
    )


# --- the entry point -------------------------------------------------------------------------


def identify_rope(
    obj: Any,
    *,
    head_dim: int | None = None,
    lengths: Sequence[int] | None = None,
    rotary: Any = None,
    base: float | None = None,
    original_max_position_embeddings: int | None = None,
    expected_layout: str | None = None,
    expected_config: Any = None,
    layer: int | None = None,
    layer_type: str | None = None,
) -> RopeIdentification:
    r"""Name the RoPE an implementation computes, and the bugs in it, by probing it.

    Parameters
    ----------
    obj : callable, torch module, (cos, sin) pair or complex table
        What to identify. It is called in one of four ways, chosen from its
        signature:

        * ``rope(q, k, q_positions=..., k_positions=...)`` (a parameter named
          ``q_positions``: `pe.nn.RotaryEmbedding`);
        * ``apply(q, k, cos, sin)`` (parameters named ``cos`` and ``sin``:
          transformers' ``apply_rotary_pos_emb`` of any model), given the
          cos/sin of `rotary` when passed, else a reference cache laid out as
          transformers lays it out (``cat(freqs, freqs)``, base 10000, at one
          length), so that only the pairs it turns are identified;
        * ``f(q, k, positions) -> (q', k')`` (a second parameter whose name
          starts with ``k``), positions an int64 array or tensor of shape
          ``(seq,)`` (retried as ``(1, seq)`` if that raises);
        * ``rotary(x, position_ids) -> (cos, sin)`` (a parameter named
          ``position_ids``, or two required parameters: a transformers rotary
          module such as ``LlamaRotaryEmbedding(config)``), whose tables are
          read as a cache; one complex table returned instead (DeepSeek-V2's
          and Llama 4's ``freqs_cis``) is read as interleaved pairs, and a
          rotary that takes ``layer_type`` (Gemma 3's) is given `layer_type`;
        * ``f(q, k, positions)`` otherwise.

        Queries and keys are ``(1, head_dim, seq, head_dim)``: one basis
        vector per head. Torch objects (modules, tensors, functions whose code
        reads torch or a torch object) get float32 tensors, others float32
        numpy arrays. A pair ``(cos, sin)`` (numpy or torch, shape
        ``(positions, width)`` with leading dimensions of size 1) is read as
        a cache whose row ``p`` is position ``p``, and one complex table as
        Meta's ``freqs_cis`` (interleaved pairs).
    head_dim : int, optional
        The head width. Required for ``f(q, k, positions)`` and ``apply``
        without `rotary`; else read from the object's ``head_dim`` attribute
        if it has one, else taken as the rotated width (no partial rotary can
        then be seen).
    lengths : sequence of int, optional
        Sequence lengths to probe (default 64, 2048, 8192, 32768, 131072);
        for each, positions ``0, 1, 2, 4, ...`` and ``length - 1`` are turned
        in one call, so a rule that reads the longest position (dynamic NTK,
        LongRoPE) shows its frequencies at that length.
    rotary : callable, optional
        With an ``apply`` function: the rotary module whose cos and sin it
        turns by.
    base : float, optional
        The base to assume where the frequencies do not fix it (LongRoPE's
        per-pair factors absorb any base): default 10000.
    original_max_position_embeddings : int, optional
        The pre-training length, where the frequencies fix it only to a range
        (yarn's ramp; llama3's blend fixes only ratios of its three
        parameters).
    expected_layout : {"interleaved", "concatenated"}, optional
        The layout the checkpoint's weights expect; another one is reported as
        a bug.
    expected_config : dict, optional
        A config to compare with (read by `pe.read_config`), at `layer` or
        `layer_type`: a rule that belongs to other layers is reported as a
        scaling rule on the wrong layers.
    layer, layer_type : optional
        Which layer of `expected_config` `obj` serves. A rotary module that
        takes a ``layer_type`` (Gemma 3's, OLMo 3's) is called with
        `layer_type`.

    Returns
    -------
    RopeIdentification

    Raises
    ------
    TypeError, ValueError
        Naming what was passed: an object that is neither callable nor a
        cache, a cache of the wrong shape or with non-finite values, a
        function that raises or returns the wrong shapes (its error is
        chained), a head too wide to probe, bad keyword values.

    Notes
    -----
    Pair $i$ is measured by turning $e_a$ (its first dimension) at position
    $p$: the result is $\alpha(\cos\phi_i(p)\,e_a + \sin\phi_i(p)\,e_b)$.
    The frequency is fitted on $p = 1, 2, 4, \dots$: at each doubling the
    estimate predicts the angle to well within $\pi$, so the number of whole
    turns is known, and the estimate's error shrinks by half. float32
    rounding bounds the error of the angle by about $2^{-24} p\,\theta_i$,
    which is what each check allows.

    Examples
    --------
    >>> from pe._identify_rope import identify_rope
    >>> from pe.nn import RotaryEmbedding
    >>> llama31 = {"head_dim": 64, "rope_parameters": {"rope_type": "llama3",
    ...     "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
    ...     "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}
    >>> rope = RotaryEmbedding.from_config(llama31)
    >>> found = identify_rope(rope, lengths=(64, 32768))
    >>> found.recognised, found.name, found.parameters["layout"]
    (True, 'llama3', 'concatenated')
    >>> found.config["rope_parameters"]["factor"], found.residual < 1e-5
    (8.0, True)
    """
    if head_dim is not None:
        head_dim = check_d_model(head_dim, name="head_dim")
    probe_lengths = _check_lengths(lengths)
    if base is not None:
        base = float(base) if isinstance(base, (int, float)) and base > 1 else _bad_base(base)
    original = _optional_length(
        original_max_position_embeddings, "original_max_position_embeddings"
    )
    if expected_layout is not None and expected_layout not in ("interleaved", "concatenated"):
        raise ValueError(
            "expected_layout must be 'interleaved' or 'concatenated' (or None); got "
            f"{expected_layout!r}"
        )
    expected = _expected_layer(expected_config, layer, layer_type)

    if isinstance(obj, (tuple, list)) or (not callable(obj) and _is_array(obj)):
        cos, sin, kind, positions = _cache_tables(obj)
        findings = _Findings(_CALLS["cache"] if kind == "pair" else "a complex cos + i sin table")
        measure, form = _measure_cache(cos, sin, positions, int(positions[-1]) + 1)
        if kind == "complex":
            form = "complex"
        return _analyse_cache(
            findings, [measure], form, head_dim, base, original, expected_layout, expected, None
        )
    if not callable(obj):
        raise TypeError(
            "obj must be a function or module that rotates (q, k), a rotary module returning "
            f"(cos, sin), or a (cos, sin) cache; got {type(obj).__name__}"
        )
    shape = _call_shape(obj)
    use_torch = _is_torch_object(obj)
    caller = _Caller(obj, shape, use_torch, _describe(obj))
    _pass_layer_type(caller, layer_type)
    findings = _Findings(_CALLS[shape])
    width = head_dim if head_dim is not None else _attribute_width(obj)
    if shape == "cos_sin":
        if rotary is not None:
            raise TypeError("rotary= goes with an apply(q, k, cos, sin) function; obj is a rotary")
        probe_width = width or 64
        measures = []
        form = ""
        overflow: int | None = None
        for length in probe_lengths:
            positions = _positions_for(length)
            cos, sin = caller.cos_sin(positions, probe_width)
            good = np.isfinite(cos).all(axis=1) & np.isfinite(sin).all(axis=1)
            if not good.all():
                overflow = int(positions[~good].min()) if overflow is None else overflow
                if not bool(np.all(np.asarray(good)[:2])):
                    raise ValueError(
                        f"{caller.description} gave non-finite cos or sin at position "
                        f"{int(positions[~good].min())}"
                    )
                positions, cos, sin = positions[good], cos[good], sin[good]
            measure, form = _measure_cache(cos, sin, positions, length)
            if caller.complex_result:
                form = "complex"
            measures.append(measure)
        caller.cos_sin(np.zeros(1, dtype=np.int64), probe_width)  # leave a dynamic rule reset
        if head_dim is None and width is not None and 2 * measures[0].angles.shape[1] > width:
            width = None  # the width its config suggests is not its head's (Gemma 4's)
        return _analyse_cache(
            findings, measures, form, width, base, original, expected_layout, expected, overflow,
            rope_call=(caller, probe_width),
        )  # fmt: skip
    if shape == "apply":
        if rotary is None and width is None:
            raise ValueError(
                "head_dim= is needed to probe an apply(q, k, cos, sin) function without rotary="
            )
        if rotary is not None and not callable(rotary):
            raise TypeError(f"rotary must be a rotary module or function; got {type(rotary)}")
        source = (
            None
            if rotary is None
            else _Caller(rotary, "cos_sin", _is_torch_object(rotary), _describe(rotary))
        )
        if source is not None:
            _pass_layer_type(source, layer_type)
        return _analyse_turns(
            caller, findings, probe_lengths if source is not None else (2048,), width, source,
            base, original, expected_layout, expected,
        )  # fmt: skip
    if rotary is not None:
        raise TypeError(f"rotary= goes with an apply(q, k, cos, sin) function; obj is called as "
                        f"{_CALLS[shape]}")  # fmt: skip
    if width is None:
        raise ValueError(f"head_dim= is needed to probe {caller.description} ({_CALLS[shape]})")
    return _analyse_turns(
        caller, findings, probe_lengths, width, None, base, original, expected_layout, expected
    )


def _pass_layer_type(caller: _Caller, layer_type: Any) -> None:
    """Give a rotary that takes ``layer_type`` (Gemma 3's, OLMo 3's) the one asked for."""
    torch = sys.modules.get("torch")
    target = caller.obj
    if torch is not None and isinstance(target, torch.nn.Module):
        target = target.forward
    try:
        parameters = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return
    if "layer_type" not in parameters:
        return
    if layer_type is not None:
        if not isinstance(layer_type, str):
            raise TypeError(f"layer_type must be a string; got {layer_type!r}")
        caller.extra["layer_type"] = layer_type
    elif parameters["layer_type"].default is inspect.Parameter.empty:
        kinds = getattr(caller.obj, "layer_types", None)
        raise ValueError(
            f"{caller.description} takes a layer_type (it keeps one RoPE per kind of layer); "
            f"pass layer_type= one of {kinds!r}"
        )


def _bad_base(base: Any) -> float:
    if isinstance(base, bool) or not isinstance(base, (int, float)):
        raise TypeError(f"base must be a real number greater than 1; got {base!r}")
    raise ValueError(f"base must be a finite real number greater than 1; got {base!r}")


def _is_array(obj: Any) -> bool:
    if isinstance(obj, np.ndarray):
        return True
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


def _attribute_width(obj: Any) -> int | None:
    """Return the head width an object states (its ``head_dim``, its config's), or None."""

    def read(holder: Any, name: str) -> Any:
        try:
            return getattr(holder, name, None)
        except Exception:  # a config property that refuses (Gemma 4's per-layer head_dim)
            return None

    config = read(obj, "config")
    values: list[Any] = [read(obj, "head_dim"), read(config, "head_dim")]
    hidden, heads = read(config, "hidden_size"), read(config, "num_attention_heads")
    if is_integer(hidden) and is_integer(heads) and heads > 0:
        values.append(hidden // heads)
    for value in values:
        if is_integer(value) and value > 0 and value % 2 == 0:
            return int(value)
    return None


def _expected_layer(config: Any, layer: Any, layer_type: Any) -> tuple[LayerRope, ModelRope] | None:
    if config is None:
        if layer is not None:
            raise ValueError("layer= names a layer of expected_config; pass expected_config too")
        return None
    model = read_config(config)
    return model.select(layer, layer_type), model


# --- from measurements to a report ----------------------------------------------------------

_Remeasure = Callable[[int], _Measure]


def _reference_cos_sin(
    positions: NDArray[np.int64], width: int
) -> tuple[NDArray[np.float64], NDArray[np.float64], Array]:
    """Return cos and sin laid out as transformers lays them out (``cat(freqs, freqs)``)."""
    theta = 10000.0 ** (-np.arange(0, width, 2) / width)
    angles = np.outer(positions, theta)
    doubled = np.concatenate([angles, angles], axis=1)
    return np.cos(doubled), np.sin(doubled), theta


def _analyse_turns(
    caller: _Caller,
    findings: _Findings,
    lengths: tuple[int, ...],
    width: int | None,
    source: _Caller | None,
    base: float | None,
    original: int | None,
    expected_layout: str | None,
    expected: tuple[LayerRope, ModelRope] | None,
) -> RopeIdentification:
    head_dim = width
    reference: Array | None = None
    guessed: list[str] = []

    def tables(positions: NDArray[np.int64]) -> tuple[Array, Array]:
        nonlocal head_dim, reference
        if source is None:
            assert head_dim is not None
            cos, sin, reference = _reference_cos_sin(positions, head_dim)
            return cos, sin
        cos, sin = source.cos_sin(positions, head_dim or 64)
        if head_dim is None:
            head_dim = cos.shape[1]
            guessed.append(" (not given: the width of cos; a partial rotary cannot be seen)")
        return cos, sin

    def turn(positions: NDArray[np.int64]) -> tuple[NDArray[np.int64], Array, Array]:
        cos_sin = tables(positions) if caller.shape == "apply" else None
        assert head_dim is not None
        q_turns, k_turns = caller.turns(positions, head_dim, cos_sin)
        good = np.isfinite(q_turns).all(axis=(1, 2)) & np.isfinite(k_turns).all(axis=(1, 2))
        if not bool(np.all(np.asarray(good)[:2])):
            raise ValueError(f"{caller.description} gave non-finite values at position 0 or 1")
        return positions[good], q_turns[good], k_turns[good]

    probes = []
    overflow: int | None = None
    for length in lengths:
        positions = _positions_for(length)
        kept, q_turns, k_turns = turn(positions)
        if kept.size < positions.size and overflow is None:
            overflow = int(np.setdiff1d(positions, kept).min())
        probes.append((length, kept, q_turns, k_turns))
    assert head_dim is not None
    shape = _pairing([q for _, _, q, _ in probes], head_dim)
    findings.parameters.update(call=findings.call, head_dim=head_dim)
    findings.lines.append(f"Called as {findings.call}; head_dim {head_dim}{''.join(guessed)}.")
    if not shape.pairs:
        change = max(float(np.abs(q - q[0]).max()) for _, _, q, _ in probes)
        return _unrecognised(findings, "it turns no pair of dimensions", change)
    if shape.leakage > 1e-5:
        return _unrecognised(
            findings,
            "its output mixes dimensions beyond pairs (not a rotation of pairs)",
            shape.leakage,
        )
    if shape.layout is None:
        shown = ", ".join(f"({a}, {b})" for a, b in shape.pairs[:4])
        return _unrecognised(
            findings,
            f"it turns pairs {shown}... over dimensions {shape.rotated[0]}-{shape.rotated[-1]}, "
            "neither interleaved nor concatenated from dimension 0",
            shape.leakage,
        )
    measures = []
    permuted = False
    for length, kept, q_turns, k_turns in probes:
        measure, moved = _measure_turns(q_turns, shape, kept, length)
        measure.k_angles = _measure_turns(k_turns, shape, kept, length)[0].angles
        permuted = permuted or moved
        measures.append(measure)
    if permuted:
        findings.lines.append(
            "Its output is reordered (each pair's two results land on other dimensions, as "
            "DeepSeek-V3's interleaved apply function writes them); scores are unchanged, and "
            "the layout named is the one its input (the checkpoint's weights) must have."
        )

    def remeasure(length: int) -> _Measure:
        turn(np.zeros(1, dtype=np.int64))  # a short call resets a dynamic rule
        kept, q_turns, _ = turn(_positions_for(length))
        return _measure_turns(q_turns, shape, kept, length)[0]

    if source is None and caller.shape == "apply":
        assert reference is not None
        return _analyse_apply(findings, measures, shape, reference, expected_layout)
    return _analyse(
        findings, measures, shape.layout, head_dim, len(shape.rotated), base, original,
        expected_layout, expected, overflow, remeasure, shape.leakage,
    )  # fmt: skip


def _analyse_cache(
    findings: _Findings,
    measures: list[_Measure],
    form: str,
    head_dim: int | None,
    base: float | None,
    original: int | None,
    expected_layout: str | None,
    expected: tuple[LayerRope, ModelRope] | None,
    overflow: int | None,
    rope_call: tuple[_Caller, int] | None = None,
) -> RopeIdentification:
    pairs = measures[0].angles.shape[1]
    rotary_dim = 2 * pairs
    layout = {"halves": "concatenated", "repeated": "interleaved", "complex": "interleaved"}.get(
        form
    )
    described = {
        "halves": "cat(freqs, freqs): each frequency in both halves, the concatenated layout "
        "of transformers' rotate_half",
        "repeated": "each frequency in two neighbouring columns: interleaved pairs",
        "complex": "one complex number per pair: interleaved pairs (Meta's freqs_cis)",
        "pairs": "one column per pair: the layout is the apply function's (not in the cache)",
    }[form]
    if head_dim is None:
        head_dim = rotary_dim
        note = " (not given: the rotated width; a partial rotary cannot be seen)"
    else:
        note = ""
        if rotary_dim > head_dim:
            raise ValueError(
                f"the cache turns {rotary_dim} dimensions, more than head_dim={head_dim}"
            )
    findings.parameters.update(call=findings.call, head_dim=head_dim)
    findings.lines.append(f"Read as {findings.call}; head_dim {head_dim}{note}.")
    findings.lines.append(f"The cache holds {described}.")
    remeasure = None
    if rope_call is not None:
        caller, width = rope_call

        def remeasure(length: int) -> _Measure:
            caller.cos_sin(np.zeros(1, dtype=np.int64), width)  # reset a dynamic rule
            positions = _positions_for(length)
            cos, sin = caller.cos_sin(positions, width)
            good = np.isfinite(cos).all(axis=1) & np.isfinite(sin).all(axis=1)
            return _measure_cache(cos[good], sin[good], positions[good], length)[0]

    return _analyse(
        findings, measures, layout, head_dim, rotary_dim, base, original, expected_layout,
        expected, overflow, remeasure, 0.0,
    )  # fmt: skip


def _analyse_apply(
    findings: _Findings,
    measures: list[_Measure],
    shape: _Shape,
    reference: Array,
    expected_layout: str | None,
) -> RopeIdentification:
    """Report an apply function turned by a reference cache: its pairs, and how it reads it."""
    fit = _fit_frequencies(measures[-1])
    rotary_dim = len(shape.rotated)
    findings.parameters.update(layout=shape.layout, rotary_dim=rotary_dim)
    _layout_line(findings, shape.layout, rotary_dim, shape.head_dim, expected_layout)
    expected = np.abs(reference[: fit.frequencies.size])
    error = _relative(np.abs(fit.frequencies), expected)
    if fit.frequencies.size != reference.size or error > 1e-5:
        findings.lines.append(
            "Its pairs do not turn by the frequencies of the cos/sin it was given, laid out as "
            "transformers lays them out (cat(freqs, freqs)); pass rotary= the module whose cos "
            "and sin it is meant to use."
        )
        return RopeIdentification(
            False, "unrecognised", findings.parameters, tuple(findings.lines), None, error,
            tuple(findings.bugs),
        )  # fmt: skip
    _direction(findings, fit.frequencies)
    findings.lines.append(
        "It turns pair i by column i of the cos and sin it is given (transformers' "
        "cat(freqs, freqs) form); the frequencies are those of that cache: pass rotary= to "
        "identify them."
    )
    findings.lines.insert(0, "A rotation: an apply function, probed with a reference cache.")
    return RopeIdentification(
        True, "rotation", findings.parameters, tuple(findings.lines), None, error,
        tuple(findings.bugs),
    )  # fmt: skip


def _layout_line(
    findings: _Findings,
    layout: str | None,
    rotary_dim: int,
    head_dim: int,
    expected_layout: str | None,
) -> None:
    share = (
        "every dimension"
        if rotary_dim == head_dim
        else f"the first {rotary_dim} of {head_dim} dimensions (partial rotary "
        f"{rotary_dim / head_dim:g}; the rest pass through)"
    )
    if layout == "interleaved":
        findings.lines.append(f"Pairs: interleaved (2i, 2i + 1), over {share}.")
    elif layout == "concatenated":
        findings.lines.append(f"Pairs: concatenated (i, i + {rotary_dim // 2}), over {share}.")
    else:
        findings.lines.append(f"Pairs: {rotary_dim // 2}, over {share}; layout not in the cache.")
        if expected_layout is not None:
            findings.lines.append(
                f"expected_layout={expected_layout!r} not checked: a cache of one column per "
                "pair does not say which dimensions its apply function pairs."
            )
    if expected_layout is not None and layout is not None and layout != expected_layout:
        findings.bug(
            "layout",
            f"the checkpoint expects {expected_layout} pairs, and this turns {layout} pairs: "
            "every pair but the first mixes two unrelated dimensions of the weights (convert "
            "the query and key rows with pe.nn.functional.convert_rotary_layout, or use the "
            f"model's {expected_layout} apply function).",
        )


def _direction(findings: _Findings, frequencies: Array) -> Array:
    """Report a rotation the other way (sin's sign flipped); return positive frequencies."""
    if np.any(frequencies < 0) and not np.any(frequencies > 0):
        findings.bug(
            "direction",
            "it turns every pair the other way (sin's sign flipped: rotate_half's halves "
            "negated the wrong way); scores then depend on -(n - m), which the model was not "
            "trained on.",
        )
        return np.asarray(-frequencies)
    return frequencies


def _changed(first: _Fit, second: _Fit, slack: float = 0.0) -> bool:
    """Tell whether two lengths' frequencies differ by more than rounding."""
    if first.frequencies.size != second.frequencies.size:
        return True
    top = min(first.top, second.top)
    return bool(_frequency_error(second.frequencies, first.frequencies, top, slack).max() > 1)


def _angle_bug(measure: _Measure, fit: _Fit) -> tuple[str, str, bool] | None:
    """Name the low precision that explains angles not proportional to the position.

    Returns the words, the dtype, and whether the frequencies were rounded too.
    """
    positions = measure.positions.astype(np.float64)
    theta, start = fit.frequencies, fit.start
    for dtype in ("bfloat16", "float16"):
        rounding = _LOW[dtype]
        with np.errstate(invalid="ignore", over="ignore"):
            hypotheses = (
                (f"positions rounded to {dtype} before the product", rounding(positions), theta,
                 None, fit.tolerance),
                (f"angles computed in {dtype} (position times frequency)", rounding(positions),
                 rounding(theta), rounding, fit.tolerance + 4 * _LOW_STEP[dtype]),
            )  # fmt: skip
            for text, where, frequencies, product, tolerance in hypotheses:
                angles = np.outer(where, frequencies)
                if product is not None:
                    angles = product(angles)
                errors = _wrap(measure.angles - start - angles)
                if np.all(np.isfinite(errors)) and np.all(np.abs(errors) <= tolerance):
                    return text, dtype, product is not None
    return None


def _represented(frequencies: Array, top: int) -> str | None:
    """Name the low-precision type that holds every well-measured frequency, if one does."""
    precise = np.abs(frequencies) * top > 1
    values = np.abs(frequencies[precise])
    exponent = np.log2(values)
    telling = np.abs(exponent - np.round(exponent)) > 1e-9  # powers of two prove nothing
    if telling.sum() < 3:
        return None
    for dtype in ("bfloat16", "float16"):
        rounded = _LOW[dtype](values)
        if np.all(np.abs(rounded - values) <= 2e-6 * values):
            return dtype
    return None


_ORDER = ("default", "linear", "llama3", "yarn", "dynamic", "longrope")


def _best_fixed(
    fit: _Fit,
    attention: float,
    head_dim: int,
    rotary_dim: int,
    base_hint: float | None,
    original: int | None,
    rounding: Callable[[Any], Array] | None,
    slack: float = 0.0,
) -> tuple[_Candidate, float] | None:
    """Return the simplest rule that gives these frequencies (rounded by `rounding`, if given)."""
    theta = fit.frequencies
    candidates = _plain_candidates(theta, rotary_dim, base_hint)
    tolerance = 1e-5 if rounding is None else 4e-3
    candidates += _llama3_candidates(theta, rotary_dim, original, tolerance)
    candidates += _yarn_candidates(theta, rotary_dim, attention, original, tolerance)
    best: tuple[int, int, float, _Candidate] | None = None
    for order, candidate in enumerate(candidates):
        if rounding is not None:
            candidate.scaling = {
                key: _nice(value, tolerance=4e-3) if isinstance(value, float) else value
                for key, value in candidate.scaling.items()
            }
        result = _frequencies_of(candidate, head_dim, rotary_dim, None)
        if result is None or result[0].size != theta.size:
            continue
        expected, factor = result
        if rounding is not None:
            expected = rounding(expected)
        error = float(_frequency_error(theta, expected, fit.top, slack).max())
        if abs(factor - attention) > 2e-5 * factor + (0 if rounding is None else 4e-3):
            continue
        rank = _ORDER.index(candidate.rule)
        if error <= 1 and (best is None or (rank, order) < best[:2]):
            best = (rank, order, error, candidate)  # the simplest rule, the roundest values
    return None if best is None else (best[3], best[2])


def _analyse(
    findings: _Findings,
    measures: list[_Measure],
    layout: str | None,
    head_dim: int,
    rotary_dim: int,
    base: float | None,
    original: int | None,
    expected_layout: str | None,
    expected: tuple[LayerRope, ModelRope] | None,
    overflow: int | None,
    remeasure: _Remeasure | None,
    leakage: float,
) -> RopeIdentification:
    lengths = [measure.length for measure in measures]
    findings.parameters.update(layout=layout, rotary_dim=rotary_dim, lengths=lengths)
    _layout_line(findings, layout, rotary_dim, head_dim, expected_layout)
    if rotary_dim > head_dim:
        raise ValueError(f"{rotary_dim} dimensions are turned, more than head_dim={head_dim}")
    fits = [_fit_frequencies(measure) for measure in measures]
    if overflow is not None:
        findings.bug(
            "low_precision",
            f"cos and sin are not finite from position {overflow} on: the angles overflow "
            "(float16 holds numbers up to 65504); compute them in float32 or float64.",
        )

    # Queries and keys must be turned alike.
    for measure in measures:
        if measure.k_angles is not None:
            gap = np.abs(_wrap(measure.k_angles - measure.angles))
            if gap.max() > 1e-4:
                shift = _wrap(measure.k_angles[0] - measure.angles[0])
                findings.bug(
                    "q_k_differ",
                    "queries and keys are turned by different angles (largest difference "
                    f"{gap.max():.3g} rad at length {measure.length}; at position 0: "
                    f"{np.abs(shift).max():.3g} rad): scores then depend on more than n - m.",
                )
                break

    # Angles proportional to the position?
    low_precision: str | None = None
    rounding: Callable[[Any], Array] | None = None
    slack = 0.0
    for measure, fit in zip(measures, fits, strict=True):
        excess = np.abs(fit.errors) - fit.tolerance
        if excess.max() <= 0:
            continue
        angle_bug = _angle_bug(measure, fit)
        if angle_bug is None:
            index = np.unravel_index(int(np.argmax(excess)), excess.shape)
            error = float(np.abs(fit.errors[index]))
            return _unrecognised(
                findings,
                f"the angles are not proportional to the position (pair {int(index[1])} is "
                f"{error:.3g} rad off at position {int(measure.positions[index[0]])}, length "
                f"{measure.length})",
                error,
            )
        low_precision = angle_bug[0]
        if angle_bug[2]:
            rounding, slack = _LOW[angle_bug[1]], 8 * _LOW_STEP[angle_bug[1]]
    if low_precision is not None:
        findings.bug(
            "low_precision",
            f"{low_precision}: positions past the type's exact integers (256 in bfloat16, "
            "2048 in float16) turn by the angle of a neighbouring position; compute the angles "
            "in float32 from integer positions (or in float64).",
        )

    # Direction and offset, from the best-measured length.
    fit = max(fits, key=lambda item: item.top)
    signs = np.sign(np.concatenate([item.frequencies for item in fits]))
    if np.any(signs > 0) and np.any(signs < 0):
        return _unrecognised(findings, "its pairs turn in both directions", 1.0)
    still = np.flatnonzero(np.abs(fit.frequencies) * fit.top < 1e-6)
    turning = int(still[0]) if still.size else fit.frequencies.size
    if still.size and not (
        layout == "concatenated"
        and rotary_dim == head_dim
        and turning >= 2
        and still.tolist() == list(range(turning, fit.frequencies.size))
        and all(
            np.all(np.abs(item.frequencies[turning:]) * item.top < 1e-6)
            and np.all(np.abs(item.frequencies[:turning]) * item.top >= 1e-6)
            for item in fits
        )
    ):
        return _unrecognised(
            findings,
            f"{still.size} of its {fit.frequencies.size} pairs do not turn at all (pairs "
            f"{', '.join(map(str, still[:4].tolist()))}{'...' if still.size > 4 else ''}); the "
            "one rule that leaves pairs still (proportional, Gemma 4's global layers) turns the "
            "first pairs (i, i + head_dim/2) of the whole head and leaves the last ones still",
            1.0,
        )
    proportional = bool(still.size)
    if proportional:
        findings.parameters["rotary_dim"] = 2 * turning
        findings.lines.append(
            f"Pairs {turning} to {fit.frequencies.size - 1} do not turn (dimensions "
            f"{turning}-{head_dim // 2 - 1} and {head_dim // 2 + turning}-{head_dim - 1} pass "
            "through): the proportional rule's layout, pairs laid out over the whole head."
        )
    flipped = bool(np.any(signs < 0) and not np.any(signs > 0))
    if flipped:
        _direction(findings, fit.frequencies)
        for item in fits:
            item.frequencies = -item.frequencies
            item.start = -item.start
    offset = 0
    # The slowest pair that still turns measurably: its start angle is not wrapped for any
    # plausible offset, and its frequency is known to a small share.
    measurable = np.flatnonzero(np.abs(fit.frequencies) > 1e-4)
    if measurable.size:
        slow = int(measurable[np.argmin(np.abs(fit.frequencies[measurable]))])
    else:
        slow = int(np.argmax(np.abs(fit.frequencies)))
    if np.abs(fit.start).max() > 1e-5:
        steps = fit.start[slow] / fit.frequencies[slow]
        offset = round(float(steps))
        predicted = _wrap(offset * fit.frequencies)
        if offset == 0 or np.abs(_wrap(fit.start - predicted)).max() > 1e-4:
            return _unrecognised(
                findings,
                "position 0 is turned by angles that match no whole offset of the positions",
                float(np.abs(fit.start).max()),
            )
        findings.bug(
            "offset",
            f"positions are offset by {offset:+d}: position p is turned as p "
            f"{'+' if offset > 0 else '-'} {abs(offset)} "
            "(position 0 is not left unturned); scores between two tokens are unchanged, but "
            "cached keys turned without the offset, or another implementation's, disagree.",
        )
    findings.parameters["offset"] = offset

    attention = [item.amplitude for item in fits]
    spread = max(item.amplitude_spread for item in fits)
    findings.parameters["attention_factor"] = attention[-1]
    if spread > 1e-4 and low_precision is None:
        return _unrecognised(
            findings, "cos and sin do not have one length (not a scaled rotation)", spread
        )
    if attention[-1] != 0 and abs(attention[-1] - 1) > 1e-6:
        findings.lines.append(
            f"Attention factor {attention[-1]:.6g}: cos and sin are scaled by it, so every "
            "score by its square."
        )

    held = _represented(fit.frequencies, fit.top) if rounding is None else None
    if held is not None:
        rounding = _LOW[held]
        findings.bug(
            "low_precision",
            f"the frequencies (inv_freq) are held in {held}: each is off by up to "
            f"{_LOW_STEP[held]:.1g} of itself, so pair i's angle drifts by that share of "
            "p * theta_i; keep inv_freq in float32.",
        )

    segments = [0]
    for later in range(1, len(fits)):
        if _changed(fits[later - 1], fits[later], slack):
            segments.append(later)
    found: tuple[_Candidate, float] | None
    if proportional:
        found = (
            _proportional_fixed(fit, attention[-1], head_dim, turning, rounding, slack)
            if len(segments) == 1
            else None
        )
    elif len(segments) == 1:
        found = _best_fixed(
            fit, attention[-1], head_dim, rotary_dim, base, original, rounding, slack
        )
        if found is None and rounding is None and np.all(fit.frequencies > 0):
            found = _longrope_fixed(fit, attention[-1], head_dim, rotary_dim, base, original)
            if found is not None and rounding is None:
                findings.lines.append(
                    "No rule with a few parameters fits: the frequencies are reproduced by "
                    "longrope's per-pair factors (every factor at least 1), the same at every "
                    "length probed."
                )
    else:
        found = _length_rule(fits, segments, attention, head_dim, rotary_dim, base, remeasure)
    if found is None:
        return _unrecognised(
            findings,
            "no transformers rule gives these frequencies"
            + (" (they change with the length)" if len(segments) > 1 else ""),
            _closest(fit, rotary_dim),
        )
    candidate, _ = found
    config = _config_for(candidate, head_dim, rotary_dim)
    residual = _residual(config, fits, attention, head_dim) + leakage
    findings.parameters.update(
        {key: value for key, value in candidate.scaling.items() if key != "rope_type"}
    )
    findings.parameters["base"] = findings.parameters.pop("rope_theta", None)
    if candidate.max_position_embeddings is not None:
        findings.parameters["max_position_embeddings"] = candidate.max_position_embeddings
    findings.parameters["frequencies"] = [float(f"{value:.9g}") for value in fit.frequencies]
    findings.lines.insert(0, f"Rule {_rule_phrase(candidate.scaling)}.")
    findings.lines.extend(note[0].upper() + note[1:] + "." for note in candidate.notes)
    switch = candidate.scaling.get(
        "original_max_position_embeddings", candidate.max_position_embeddings
    )
    if len(segments) > 1:
        findings.lines.append(
            "Its frequencies change with the sequence length (probed at "
            + ", ".join(str(length) for length in lengths)
            + f"): rule {candidate.rule}, changing past length {switch}."
        )
    if expected is not None:
        _compare_config(findings, expected, fit, attention[-1], rotary_dim)
    return RopeIdentification(
        True, candidate.rule, dict(findings.parameters), tuple(findings.lines), config,
        float(residual), tuple(findings.bugs),
    )  # fmt: skip


def _proportional_fixed(
    fit: _Fit,
    attention: float,
    head_dim: int,
    turning: int,
    rounding: Callable[[Any], Array] | None,
    slack: float,
) -> tuple[_Candidate, float] | None:
    """Fit Gemma 4's proportional rule: ``b**(-2i/head_dim) / s`` for the first `turning` pairs.

    The exponent runs over the whole head (not over the turned width, as partial rotary's
    does); the share is the ``partial_rotary_factor`` whose ``int(share * head_dim // 2)`` is
    `turning`.
    """
    theta = fit.frequencies[:turning]
    if np.any(theta <= 0) or abs(attention - 1) > 2e-5 + (0 if rounding is None else 4e-3):
        return None
    exponents = 2 * np.arange(turning) / head_dim
    slope, intercept = np.polyfit(exponents, np.log(theta), 1)
    share = 2 * turning / head_dim
    nice_share = _nice(share)
    share = nice_share if int(nice_share * head_dim // 2) == turning else share
    while int(share * head_dim // 2) < turning:
        share = math.nextafter(share, 2.0)
    tolerance = 1e-6 if rounding is None else 4e-3
    fitted = float(np.exp(-slope))
    best: tuple[float, _Candidate] | None = None
    for base in dict.fromkeys([_nice(fitted, tolerance=1e-5), _nice(fitted), fitted]):
        factor = _nice(float(np.exp(-intercept)), tolerance=tolerance)
        scaling: dict[str, Any] = {
            "rope_type": "proportional",
            "rope_theta": base,
            "partial_rotary_factor": share,
        }
        if abs(factor - 1) > tolerance:
            scaling["factor"] = factor
        candidate = _Candidate("proportional", scaling)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = rope_frequencies(head_dim, scaling=scaling).frequencies
        except (TypeError, ValueError):
            continue
        if expected.size != fit.frequencies.size:
            continue
        if rounding is not None:
            expected = rounding(expected)
        error = float(_frequency_error(fit.frequencies, expected, fit.top, slack).max())
        if error <= 1 and best is None:
            best = (error, candidate)  # the roundest base that fits
    return None if best is None else (best[1], best[0])


def _share(rotary_dim: int, head_dim: int) -> float:
    """``partial_rotary_factor`` whose ``int(head_dim * share)`` is exactly `rotary_dim`."""
    share = rotary_dim / head_dim
    while int(head_dim * share) < rotary_dim:
        share = math.nextafter(share, 2.0)
    return share


def _closest(fit: _Fit, rotary_dim: int) -> float:
    """How far the frequencies are from the nearest power law (a residual for a non-match)."""
    theta = np.abs(fit.frequencies)
    if theta.size < 2 or np.any(theta <= 0):
        return 1.0
    exponents = 2 * np.arange(theta.size) / rotary_dim
    slope, intercept = np.polyfit(exponents, np.log(theta), 1)
    return _relative(theta, np.exp(intercept + slope * exponents))


def _config_for(candidate: _Candidate, head_dim: int, rotary_dim: int) -> dict[str, Any]:
    config: dict[str, Any] = {"head_dim": head_dim, "rope_parameters": dict(candidate.scaling)}
    if rotary_dim != head_dim:
        config["partial_rotary_factor"] = _share(rotary_dim, head_dim)
    if candidate.max_position_embeddings is not None:
        config["max_position_embeddings"] = candidate.max_position_embeddings
    return config


def _residual(
    config: dict[str, Any], fits: list[_Fit], attention: list[float], head_dim: int
) -> float:
    """Largest disagreement between the measurements and what `config` gives, read by pe.

    Per pair, relative to the frequency, or in radians at the longest position probed for a
    pair that turns less than a radian there; and the attention factor, relative.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kind = read_config(config).of_type(None)
        worst = 0.0
        for fit, factor in zip(fits, attention, strict=True):
            frequencies, expected = frequencies_of(kind, seq_len=fit.length)
            scale = np.maximum(np.abs(frequencies), 1.0 / fit.top)
            worst = max(
                worst,
                float(np.max(np.abs(fit.frequencies - frequencies) / scale)),
                abs(factor - expected) / expected,
            )
    return worst


def _longrope_fixed(
    fit: _Fit,
    attention: float,
    head_dim: int,
    rotary_dim: int,
    base: float | None,
    original: int | None,
) -> tuple[_Candidate, float] | None:
    """Per-pair factors of at least 1 (LongRoPE's form), the same at every length probed."""
    chosen = 10000.0 if base is None else base
    factors = _longrope_factors(fit.frequencies, rotary_dim, chosen)
    if min(factors) < 1 - 1e-6:
        return None
    length = original if original is not None else fit.length
    scaling: dict[str, Any] = {
        "rope_type": "longrope",
        "rope_theta": chosen,
        "short_factor": factors,
        "long_factor": factors,
        "original_max_position_embeddings": length,
        "attention_factor": _nice(attention),
    }
    notes = [] if base is not None else ["base 10000 assumed (per-pair factors absorb any base)"]
    candidate = _Candidate("longrope", scaling, length, notes)
    result = _frequencies_of(candidate, head_dim, rotary_dim, None)
    if result is None:
        return None
    error = float(_frequency_error(fit.frequencies, result[0], fit.top).max())
    return (candidate, error) if error <= 1 else None


def _length_rule(
    fits: list[_Fit],
    segments: list[int],
    attention: list[float],
    head_dim: int,
    rotary_dim: int,
    base: float | None,
    remeasure: _Remeasure | None,
) -> tuple[_Candidate, float] | None:
    """Fit dynamic NTK or LongRoPE: frequencies that change past a length found by bisection."""
    if remeasure is None:
        return None
    last_short = fits[segments[1] - 1]

    def bisect(low: int, high: int) -> int:
        while high - low > 1:
            middle = (low + high) // 2
            if _changed(last_short, _fit_frequencies(remeasure(middle))):
                high = middle
            else:
                low = middle
        return low

    def verified(candidate: _Candidate) -> tuple[_Candidate, float] | None:
        worst = 0.0
        for fit, factor in zip(fits, attention, strict=True):
            result = _frequencies_of(candidate, head_dim, rotary_dim, fit.length)
            if result is None or result[0].size != fit.frequencies.size:
                return None
            if abs(result[1] - factor) > 2e-5 * factor:
                return None
            worst = max(worst, float(_frequency_error(fit.frequencies, result[0], fit.top).max()))
        return (candidate, worst) if worst <= 1 else None

    length = bisect(last_short.length, fits[segments[1]].length)
    bases = []
    for fit in fits:
        plain = _plain_candidates(fit.frequencies, rotary_dim, None)
        if not plain:
            break
        bases.append(float(plain[0].scaling["rope_theta"]))
    if len(bases) == len(fits) and max(abs(a - 1) for a in attention) < 1e-5:
        start = _nice(bases[0])
        growth = (bases[-1] / start) ** ((rotary_dim - 2) / rotary_dim)
        longest = fits[-1].length
        factor = _nice((growth - 1) * length / (longest - length), tolerance=1e-3)
        found = verified(
            _Candidate(
                "dynamic",
                {"rope_type": "dynamic", "factor": factor, "rope_theta": start},
                length,
            )
        )
        if found is not None:
            return found
    if len(segments) == 2:
        chosen = 10000.0 if base is None else base
        short = _longrope_factors(last_short.frequencies, rotary_dim, chosen)
        long = _longrope_factors(fits[-1].frequencies, rotary_dim, chosen)
        factor = attention[-1]
        longest = length
        if factor > 1 + 1e-6:
            longest = round(math.exp((factor * factor - 1) * math.log(length)) * length)
        scaling: dict[str, Any] = {
            "rope_type": "longrope",
            "rope_theta": chosen,
            "short_factor": short,
            "long_factor": long,
            "original_max_position_embeddings": length,
        }
        notes = (
            [] if base is not None else ["base 10000 assumed (per-pair factors absorb any base)"]
        )
        candidate = _Candidate("longrope", scaling, longest, notes)
        result = _frequencies_of(candidate, head_dim, rotary_dim, length)
        if result is not None and abs(result[1] - factor) > 1e-6 * factor:
            scaling["attention_factor"] = _nice(factor)
        return verified(candidate)
    return None


def _compare_config(
    findings: _Findings,
    expected: tuple[LayerRope, ModelRope],
    fit: _Fit,
    attention: float,
    rotary_dim: int,
) -> None:
    """Compare with the layer the caller says this serves, naming a rule on the wrong layers."""
    kind, model = expected
    loose = "low_precision" in findings.bugs
    which = f"{kind.kind} layers {spans(kind.layers)}" if kind.layers else f"{kind.kind} layers"

    def matches(other: LayerRope) -> bool:
        if not other.rotated:
            return False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                frequencies, factor = frequencies_of(other, seq_len=fit.length)
        except (TypeError, ValueError):
            return False
        if frequencies.size != fit.frequencies.size:
            return False
        if loose:
            return _relative(fit.frequencies, frequencies) < 1e-2
        error = _frequency_error(fit.frequencies, frequencies, fit.top).max()
        return bool(error <= 1 and abs(factor - attention) <= 2e-5 * factor)

    if not kind.rotated:
        findings.bug(
            "wrong_layers",
            f"the config leaves the {which} unrotated ({kind.reason}), and this turns them.",
        )
        return
    if matches(kind):
        findings.lines.append(f"Matches the config's {which} (rule {kind.rule}).")
        return
    others = [other for other in model.kinds if other is not kind and matches(other)]
    if others:
        findings.bug(
            "wrong_layers",
            f"this is the RoPE of the config's {others[0].kind} layers (rule "
            f"{others[0].rule}, base {_format(others[0].base)}), not of its {which} (rule "
            f"{kind.rule}, base {_format(kind.base)}): a scaling rule applied to the wrong "
            "layers.",
        )
    else:
        findings.bug(
            "config_mismatch",
            f"it differs from the config's {which} (rule {kind.rule}, base "
            f"{_format(kind.base)}) and "
            "from every other kind of layer there.",
        )
