r"""How well-known libraries compute "the" sinusoidal encoding, reproduced exactly.

Libraries differ in five ways: the **layout** (sin and cos interleaved, or all
sines then all cosines), the **frequency exponent** (the paper's $2i/d$, or
$i/(d/2 - 1)$ as in tensor2tensor and fairseq), the **position of the first
token** and a zeroed **padding row**, what they do with an **odd** width, and the
**dtype** they compute in. Each `Convention` records those choices, cites the
file and function it was read from, and rebuilds the library's table; by default
it also replays the library's arithmetic (float32 or float64) step by step, so
each entry lies within one float32 rounding of the angle of the library's own
(most are bit-equal; the conventions page counts them).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from pe._mapping import NamedMapping
from pe._validation import (
    MAX_D_MODEL,
    MAX_POSITION,
    check_base,
    check_flag,
    check_length,
    check_positions,
    check_size,
    is_integer,
)

__all__ = ["Convention", "Layout", "conventions", "lookup"]

Layout = Literal["interleaved", "concatenated", "concatenated, cosines first"]
_F32 = np.float32


def _f32(values: Any) -> NDArray[np.float32]:
    """Round to float32, as a float32 library stores an intermediate result."""
    return np.asarray(values, dtype=np.float64).astype(_F32)


@dataclass(frozen=True)
class _Columns:
    """Which function and which frequency each output column uses."""

    kind: NDArray[np.int8]  # 0 sin, 1 cos, 2 zero
    rate: NDArray[np.int64]  # index into the rate vector (ignored for zeros)


def _interleaved(d_model: int) -> _Columns:
    columns = np.arange(d_model)
    return _Columns((columns % 2).astype(np.int8), columns // 2)


def _concatenated(
    sines: int, cosines: int, zeros: int = 0, *, cosines_first: bool = False
) -> _Columns:
    first, second = (cosines, sines) if cosines_first else (sines, cosines)
    kinds = (1, 0) if cosines_first else (0, 1)
    kind = np.concatenate([np.full(first, kinds[0]), np.full(second, kinds[1]), np.full(zeros, 2)])
    rate = np.concatenate([np.arange(first), np.arange(second), np.zeros(zeros, np.int64)])
    return _Columns(kind.astype(np.int8), rate.astype(np.int64))


@dataclass(frozen=True)
class Convention:
    r"""One library's sinusoidal encoding: its choices, its source, and its table.

    Attributes
    ----------
    name : str
        Key in `pe.conventions`.
    title : str
        The libraries or models that use it.
    layout : {"interleaved", "concatenated", "concatenated, cosines first"}
        ``interleaved``: sin in even columns, cos in odd ones (the paper).
        ``concatenated``: all sines first, then all cosines (MusicGen puts
        the cosines first).
    exponent : str
        How frequency $i$ is formed, e.g. ``"2i/d"`` ($\omega_i = b^{-2i/d}$) or
        ``"i/(d/2-1)"`` ($\omega_i = b^{-i/(d/2-1)}$).
    base : float
        The base $b$ (called ``max_timescale`` or ``max_wavelength`` elsewhere).
        The recipe reads it: ``dataclasses.replace(convention, base=500.0)``
        builds the same library's table with another base. A finite real
        number greater than 1, checked when the convention is made (a base
        of 1 turns every pair at the same speed; NaN fills the table with NaN).
    first_position : int
        The position the library gives to the first token of a sequence.
    padding : str
        What happens to padding positions.
    odd : str
        What an odd width does.
    compute : str
        The dtype the library computes angles and sines in.
    source : str
        Project, file and function the convention was read from.
    url : str
        Where that file can be read.
    verified_with : str or None
        The PyPI package whose own output the test suite compares with, or None
        where the library cannot be installed and run here (the reason is in
        `note` and in the test's skip message).
    note : str
        Other quirks worth knowing.
    padding_idx : int or None
        The row the library zeroes for padding tokens, if any.
    models : tuple of str
        Other models whose code builds the same table (each checked against
        transformers' own code in the test suite).

    Examples
    --------
    >>> import pe
    >>> fairseq = pe.conventions["fairseq"]
    >>> fairseq.layout, fairseq.exponent, fairseq.first_position
    ('concatenated', 'i/(d/2-1)', 2)
    >>> fairseq.table(4, d_model=4).round(3)  # rows 0..3; row 1 is the padding row
    array([[ 0.   ,  0.   ,  1.   ,  1.   ],
           [ 0.   ,  0.   ,  0.   ,  0.   ],
           [ 0.909,  0.   , -0.416,  1.   ],
           [ 0.141,  0.   , -0.99 ,  1.   ]], dtype=float32)
    """

    name: str
    title: str
    layout: Layout
    exponent: str
    base: float
    first_position: int
    padding: str
    odd: str
    compute: str
    source: str
    url: str
    verified_with: str | None
    note: str
    _columns: Callable[[int], _Columns] = field(repr=False, compare=False)
    # The recipes receive this convention's own fields (its base, its name), so
    # changing a field changes the numbers and the messages, not only the page.
    _rates: Callable[[int, bool, float], NDArray[Any]] = field(repr=False, compare=False)
    _angle: Callable[[NDArray[np.int64], NDArray[Any], bool], NDArray[Any]] = field(
        repr=False, compare=False
    )
    _check: Callable[[int, str], None] = field(repr=False, compare=False)
    padding_idx: int | None = None
    models: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "base", check_base(self.base))
        if not is_integer(self.first_position):
            raise TypeError(f"first_position must be an integer; got {self.first_position!r}")
        if self.padding_idx is not None and not is_integer(self.padding_idx):
            raise TypeError(f"padding_idx must be an integer or None; got {self.padding_idx!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        # The recipes are closures, which pickle cannot store: store the named
        # convention they come from and the fields, and rebuild with replace.
        for origin in _ALL:
            if (origin._columns, origin._rates, origin._angle, origin._check) == (
                self._columns,
                self._rates,
                self._angle,
                self._check,
            ):
                data = {f.name: getattr(self, f.name) for f in fields(self) if f.name[0] != "_"}
                return (_restore, (origin.name, data))
        raise TypeError(f"cannot pickle convention {self.name!r}: its recipes are not pe's")

    def frequencies(self, d_model: int) -> NDArray[np.float64]:
        r"""Return the angular frequency of each sine (and cosine) group, in float64.

        Examples
        --------
        >>> import pe
        >>> pe.conventions["whisper"].frequencies(8).round(4).tolist()
        [1.0, 0.0464, 0.0022, 0.0001]
        """
        self._check_width(d_model)
        return self._frequencies(d_model)

    def _frequencies(self, d_model: int) -> NDArray[np.float64]:
        """`frequencies` for a checked width."""
        # The angle at position 1 is the frequency, whether the library multiplies
        # by a rate or divides by a divisor.
        one = np.ones(1, dtype=np.int64)
        raw = self._rates(d_model, False, self.base)
        if raw.size == 0:
            return np.zeros(0)
        rates: NDArray[np.float64] = np.asarray(self._angle(one, raw, False)[0], dtype=np.float64)
        return rates

    def table(self, positions: Any, d_model: int, *, emulate: bool = True) -> NDArray[np.float32]:
        r"""Build the library's table for `positions`, as float32.

        Rows are numbered as the library numbers them: row $p$ holds the sines
        and cosines of $p\,\omega$ (so with a padding row, row ``padding_idx`` is
        zero, and a library whose first token is at position 2 reads rows 2, 3, ...).

        Parameters
        ----------
        positions : int or array_like of int
            A length ``L`` for rows ``0 .. L-1``, or integer positions.
        d_model : int
            The width; what the library accepts (see `odd`).
        emulate : bool, default True
            Replay the library's arithmetic in its own dtype (float32 angles where
            it uses them): each entry is then within one float32 rounding of the
            angle of the library's own, and most are bit-equal. False
            computes the same formula in float64 and rounds once: the values the
            library means, without its rounding error.

        Returns
        -------
        numpy.ndarray
            float32 array of shape ``positions.shape + (width,)``; the width is
            ``d_model`` except where the library itself returns another.

        Raises
        ------
        TypeError, ValueError
            For invalid positions or a width the library cannot build.
        """
        self._check_width(d_model)
        emulate = check_flag(emulate, name="emulate")
        if is_integer(positions):
            check_size((check_length(positions, name="positions (a length)"), int(d_model)))
        rows = check_positions(positions, row=int(d_model))
        columns = self._columns(d_model)
        rates = self._rates(d_model, emulate, self.base)
        if rates.size == 0:  # a width with no sine pair (d_model = 1): zero columns only
            rates = np.zeros(1)
        flat = rows.reshape(-1)
        angles = self._angle(flat, rates[columns.rate], emulate)
        # Sines of the (float32 or float64) angles, evaluated in float64 and rounded
        # once on assignment: what a float32 library's sin returns, to an ulp.
        angles = angles.astype(np.float64)
        table = np.zeros(angles.shape, dtype=np.float32)
        sines, cosines = columns.kind == 0, columns.kind == 1
        table[:, sines] = np.sin(angles[:, sines])
        table[:, cosines] = np.cos(angles[:, cosines])
        if self.padding_idx is not None:
            table[flat == self.padding_idx] = 0.0
        result: NDArray[np.float32] = table.reshape((*rows.shape, int(angles.shape[1])))
        return result

    def encode(
        self, length: int, d_model: int, *, start: int = 0, emulate: bool = True
    ) -> NDArray[np.float32]:
        """Return the encodings the library adds to tokens ``start .. start + length - 1``.

        That is `table` at ``first_position + start + k``: the offset the library
        applies to an unpadded sequence.

        Parameters
        ----------
        length : int
            Number of tokens, a non-negative integer.
        d_model : int
            The width, as for `table`.
        start : int, default 0
            Index of the first token (an integer; the row read is
            ``first_position + start``, which must not be negative).
        emulate : bool, default True
            As for `table`.

        Raises
        ------
        TypeError, ValueError
            For a negative or non-integer `length`, a non-integer `start`, or
            what `table` refuses.

        Examples
        --------
        >>> import pe
        >>> m2m = pe.conventions["m2m100"]
        >>> bool((m2m.encode(3, 8) == m2m.table([2, 3, 4], 8)).all())
        True
        """
        length = check_length(length)
        self._check_width(d_model)
        if not is_integer(start):
            raise TypeError(f"start must be an integer; got {start!r:.60}")
        check_size((length, int(d_model)))  # before the positions are built
        first = self.first_position + int(start)
        if first < 0:
            raise ValueError(
                f"start must be >= {-self.first_position} for the {self.name} convention (its "
                f"first token is at position {self.first_position}, and the row read, "
                f"first_position + start, cannot be negative); got {int(start)}"
            )
        last = first + length - 1
        if length and last > MAX_POSITION:
            raise ValueError(
                f"start + length must keep the last row read, first_position + start + "
                f"length - 1, at most {MAX_POSITION}; got {last}"
            )
        return self.table(np.arange(first, first + length), d_model, emulate=emulate)

    def columns(self, d_model: int) -> list[tuple[str, float]]:
        """List what each output column holds: ``("sin" | "cos" | "zero", frequency)``.

        Parameters
        ----------
        d_model : int
            The width: a positive integer the library accepts (see `odd`; some
            need an even width, or at least 4).

        Raises
        ------
        TypeError, ValueError
            For a width that is not a positive integer, or one the library
            cannot build; the message says which.

        Examples
        --------
        >>> import pe
        >>> [kind for kind, _ in pe.conventions["marian"].columns(5)]
        ['sin', 'sin', 'sin', 'cos', 'cos']
        """
        self._check_width(d_model)
        layout = self._columns(d_model)
        rates = self._frequencies(d_model) if layout.kind.min(initial=2) < 2 else np.zeros(1)
        names = ("sin", "cos", "zero")
        return [
            (names[kind], 0.0 if kind == 2 else float(rates[index]))
            for kind, index in zip(layout.kind, layout.rate, strict=True)
        ]

    def _check_width(self, d_model: int) -> None:
        if not is_integer(d_model) or isinstance(d_model, bool):
            raise TypeError(f"d_model must be a positive integer; got {d_model!r:.60}")
        if int(d_model) <= 0:
            raise ValueError(f"d_model must be a positive integer; got {d_model}")
        if int(d_model) > MAX_D_MODEL:
            raise ValueError(f"d_model must be at most {MAX_D_MODEL:,} (2**24); got {d_model:,}")
        self._check(int(d_model), self.name)


# -- frequency recipes, each replaying one library's arithmetic -----------------


_Step = Callable[[int, float], float]  # (d_model, base) -> the exponent's step


def _exp_log_rates(
    step: _Step, *, float32_step: _Step | None = None, float64: bool = False
) -> Callable[[int, bool, float], NDArray[Any]]:
    """``exp(arange(n) * -step)`` in float32, as tensor2tensor, fairseq and Whisper write it.

    `float32_step` replaces `step` when emulating a library that forms the step
    itself in float32 (tensor2tensor divides a float32 log by a float32 count);
    `float64` marks a library that computes in float64 numpy throughout (the
    Flax examples), whose table is rounded once on assignment.
    """

    def rates(d_model: int, emulate: bool, base: float) -> NDArray[Any]:
        count = d_model // 2
        if count == 0:
            return np.zeros(0)
        if float64 or not emulate:
            return np.asarray(np.exp(np.arange(count) * -step(d_model, base)))
        increment = _F32((float32_step or step)(d_model, base))
        return _f32(np.exp(_f32(np.arange(count) * -increment).astype(np.float64)))

    return rates


def _t2t_step(d_model: int, base: float) -> float:
    """tensor2tensor's step, ``log(b) / max(d/2 - 1, 1)``: d_model = 2 and 3 work."""
    return math.log(base) / max(d_model // 2 - 1, 1)


def _t2t_float32_step(d_model: int, base: float) -> float:
    """tensor2tensor's step: ``log(b) / max(n - 1, 1)`` with both operands float32 (TF)."""
    divisor = _F32(max(d_model // 2 - 1, 1))
    return float(np.divide(_F32(math.log(base)), divisor, dtype=_F32))


def _fairseq_step(d_model: int, base: float) -> float:
    """Return fairseq's step, ``log(b) / (d/2 - 1)`` (undefined at d_model = 2 and 3)."""
    return math.log(base) / (d_model // 2 - 1)


def _tf_docs_rates(d_model: int, emulate: bool, base: float) -> NDArray[Any]:
    """``1 / b ** (2 (j // 2) / float32(d))`` in float64 numpy, one per sine pair."""
    del emulate
    return 1.0 / np.power(base, 2 * np.arange((d_model + 1) // 2) / float(_F32(d_model)))


def _paper_rates(d_model: int, emulate: bool, base: float) -> NDArray[Any]:
    """``exp(arange(0, d, 2) * (-log(b) / d))``, the PyTorch tutorial's divisor, float32."""
    scale = -math.log(base) / d_model
    two_i = np.arange(0, d_model, 2)
    if not emulate:
        return np.asarray(np.exp(two_i * scale))
    return _f32(np.exp(_f32(two_i.astype(_F32) * _F32(scale)).astype(np.float64)))


def _power_divisors(d_model: int, emulate: bool, base: float) -> NDArray[Any]:
    """``b ** (2 * (j // 2) / d)`` per sine pair, in float64 (a divisor)."""
    del emulate  # these libraries compute in float64 anyway
    return np.power(base, 2 * np.arange((d_model + 1) // 2) / d_model)


def _tf_tutorial_rates(d_model: int, emulate: bool, base: float) -> NDArray[Any]:
    """``1 / b ** (arange(d/2) / (d/2))`` in float64; ``d/2`` may be a half integer."""
    del emulate
    half = d_model / 2
    return 1.0 / base ** (np.arange(half) / half)


def _keras_rates(d_model: int, emulate: bool, base: float) -> NDArray[Any]:
    """``pow(1 / max_wavelength, 2 * (j // 2) / d)``, every step in float32."""
    pairs = (d_model + 1) // 2
    if not emulate:
        return np.power(1.0 / base, 2.0 * np.arange(pairs) / d_model)
    exponent = _f32(_f32(2 * np.arange(pairs)).astype(np.float64) / float(_F32(d_model)))
    return _f32(np.power(float(_F32(1.0 / base)), exponent.astype(np.float64)))


def _positional_encodings_rates(d_model: int, emulate: bool, base: float) -> NDArray[Any]:
    """``1 / b ** (arange(0, c, 2) / c)`` in float32, with ``c`` = d rounded up to even."""
    channels = 2 * math.ceil(d_model / 2)
    two_i = np.arange(0, channels, 2)
    if not emulate:
        return 1.0 / base ** (two_i / channels)
    exponent = _f32(_f32(two_i).astype(np.float64) / channels)
    power = _f32(base ** exponent.astype(np.float64))
    return _f32(1.0 / power.astype(np.float64))


def _multiply32(positions: NDArray[np.int64], rates: NDArray[Any], emulate: bool) -> NDArray[Any]:
    """Angle = float32(position) * float32 rate, rounded to float32 (a float32 library)."""
    if not emulate:
        return np.asarray(positions.astype(np.float64)[:, None] * rates[None, :])
    return _f32(_f32(positions).astype(np.float64)[:, None] * rates.astype(np.float64)[None, :])


def _multiply64(
    positions: NDArray[np.int64], rates: NDArray[Any], emulate: bool
) -> NDArray[np.float64]:
    del emulate
    return np.asarray(positions.astype(np.float64)[:, None] * rates[None, :], dtype=np.float64)


def _divide64(
    positions: NDArray[np.int64], divisors: NDArray[Any], emulate: bool
) -> NDArray[np.float64]:
    """Angle = position / divisor in float64, as the numpy code of XLM and Marian."""
    del emulate
    return np.asarray(positions.astype(np.float64)[:, None] / divisors[None, :], dtype=np.float64)


# -- width rules ---------------------------------------------------------------


def _even(smallest: int = 2) -> Callable[[int, str], None]:
    def check(d_model: int, name: str) -> None:
        if d_model % 2 or d_model < smallest:
            raise ValueError(
                f"d_model must be an even integer >= {smallest} for the {name} convention "
                f"(the library cannot build an odd or smaller width); got {d_model}"
            )

    return check


def _not_two_or_three(d_model: int, name: str) -> None:
    if d_model in (2, 3):
        raise ValueError(
            f"d_model must be 1 or at least 4 for the {name} convention (its exponent "
            f"divides by d/2 - 1, which is 0 for d_model = {d_model}: the library "
            "raises ZeroDivisionError or returns NaN); got " + str(d_model)
        )


def _paper_width(d_model: int, name: str) -> None:
    if d_model % 2 and d_model != 1:
        raise ValueError(
            f"d_model must be 1 or an even integer >= 2 for the {name} convention (for another "
            "odd width the cosine assignment has one slot too few, an error in the tutorial's "
            f"code; at d_model = 1 that slot count is 0 and broadcasting fills it); got {d_model}"
        )


def _any_width(d_model: int, name: str) -> None:
    del d_model, name


def _fairseq_columns(d_model: int) -> _Columns:
    return _concatenated(d_model // 2, d_model // 2, d_model % 2)


def _tf_tutorial_columns(d_model: int) -> _Columns:
    pairs = len(np.arange(d_model / 2))
    return _concatenated(pairs, pairs)


def _cosines_first_columns(d_model: int) -> _Columns:
    return _concatenated(d_model // 2, d_model // 2, d_model % 2, cosines_first=True)


def _marian_columns(d_model: int) -> _Columns:
    return _concatenated((d_model + 1) // 2, d_model // 2)


_ALL = (
    Convention(
        name="paper",
        title="Vaswani et al. (2017); the PyTorch tutorial",
        layout="interleaved",
        exponent="2i/d",
        base=10000.0,
        first_position=0,
        padding="none",
        odd="error, except d_model = 1 (one sine column): the cosine slice has one slot too "
        "few, and at width 1 it has none, which broadcasting accepts",
        compute="float32",
        source="pytorch/tutorials: beginner_source/transformer_tutorial.py, PositionalEncoding",
        url="https://github.com/pytorch/tutorials/blob/main/beginner_source/transformer_tutorial.py",
        verified_with=None,
        note="Tutorial code, not a package: checked against the formula, not run. The table "
        "is built sequence-first, shape (max_len, 1, d_model).",
        _columns=_interleaved,
        _rates=_paper_rates,
        _angle=_multiply32,
        _check=_paper_width,
    ),
    Convention(
        name="tensor2tensor",
        title="tensor2tensor (the original Transformer code)",
        layout="concatenated",
        exponent="i/(d/2-1)",
        base=10000.0,
        first_position=0,
        padding="none",
        odd="a zero column is appended (d_model = 1 gives one zero column)",
        compute="float32 (the step log(b) / max(d/2 - 1, 1) too: float32 divided by float32)",
        source="tensorflow/tensor2tensor: tensor2tensor/layers/common_attention.py, "
        "get_timing_signal_1d",
        url="https://github.com/tensorflow/tensor2tensor/blob/master/tensor2tensor/layers/"
        "common_attention.py",
        verified_with=None,
        note="tensor2tensor needs TensorFlow 1 and does not install on current Python; the "
        "divisor is max(d/2 - 1, 1), so d_model = 2 and 3 work. The first position is "
        "start_index (0 by default). Hugging Face's Pegasus-X computes the same table on the "
        "fly (its step is a float64 division, rounded to float32 once), and is tested.",
        _columns=_fairseq_columns,
        _rates=_exp_log_rates(_t2t_step, float32_step=_t2t_float32_step),
        _angle=_multiply32,
        _check=_any_width,
        models=("Pegasus-X",),
    ),
    Convention(
        name="fairseq",
        title="fairseq",
        layout="concatenated",
        exponent="i/(d/2-1)",
        base=10000.0,
        first_position=2,
        padding="row padding_idx (1) is zeros; tokens count from padding_idx + 1",
        odd="a zero column is appended (d_model = 1 gives one zero column)",
        compute="float32",
        source="facebookresearch/fairseq: fairseq/modules/sinusoidal_positional_embedding.py, "
        "SinusoidalPositionalEmbedding.get_embedding (positions from utils.make_positions)",
        url="https://github.com/facebookresearch/fairseq/blob/main/fairseq/modules/"
        "sinusoidal_positional_embedding.py",
        verified_with=None,
        note="fairseq 0.12.2, the newest release on PyPI, installs but fails to import on "
        "Python 3.11 (a dataclass error in fairseq.dataclass.configs). Hugging Face's M2M100 "
        "and Speech2Text carry the same get_embedding and are tested instead, as is FSMT's "
        "copy. d_model = 2 and 3 raise ZeroDivisionError (the exponent divides by d/2 - 1); "
        "d_model = 1 gives a zero column.",
        _columns=_fairseq_columns,
        _rates=_exp_log_rates(_fairseq_step),
        _angle=_multiply32,
        _check=_not_two_or_three,
        padding_idx=1,
        models=("FSMT",),
    ),
    Convention(
        name="m2m100",
        title="Hugging Face M2M100 and Speech2Text",
        layout="concatenated",
        exponent="i/(d/2-1)",
        base=10000.0,
        first_position=2,
        padding="row padding_idx (pad_token_id, 1) is zeros; tokens count from padding_idx + 1",
        odd="a zero column is appended (d_model = 1 gives one zero column)",
        compute="float32",
        source="huggingface/transformers: src/transformers/models/m2m_100/modeling_m2m_100.py, "
        "M2M100SinusoidalPositionalEmbedding.get_embedding (and the same code in "
        "speech_to_text/modeling_speech_to_text.py)",
        url="https://github.com/huggingface/transformers/blob/main/src/transformers/models/"
        "m2m_100/modeling_m2m_100.py",
        verified_with="transformers",
        note="A port of fairseq's module; the table keeps offset = 2 extra rows. "
        "d_model = 2 and 3 raise ZeroDivisionError; d_model = 1 gives a zero column. XGLM, "
        "SpeechT5, Kosmos-2 and TrOCR carry the same get_embedding.",
        _columns=_fairseq_columns,
        _rates=_exp_log_rates(_fairseq_step),
        _angle=_multiply32,
        _check=_not_two_or_three,
        padding_idx=1,
        models=("XGLM", "SpeechT5", "Kosmos-2", "TrOCR"),
    ),
    Convention(
        name="marian",
        title="Hugging Face Marian",
        layout="concatenated",
        exponent="2i/d",
        base=10000.0,
        first_position=0,
        padding="none",
        odd="the sine block gets one column more than the cosine block",
        compute="float64",
        source="huggingface/transformers: src/transformers/models/marian/modeling_marian.py, "
        "MarianSinusoidalPositionalEmbedding.create_weight",
        url="https://github.com/huggingface/transformers/blob/main/src/transformers/models/"
        "marian/modeling_marian.py",
        verified_with="transformers",
        note="The same angles as XLM/DistilBERT, with the cosines moved to the second half. "
        "Pegasus and RoFormer carry the same create_weight.",
        _columns=_marian_columns,
        _rates=_power_divisors,
        _angle=_divide64,
        _check=_any_width,
        models=("Pegasus", "RoFormer"),
    ),
    Convention(
        name="distilbert",
        title="Hugging Face DistilBERT and XLM",
        layout="interleaved",
        exponent="2i/d",
        base=10000.0,
        first_position=0,
        padding="none",
        odd="the last column is a sine",
        compute="float64",
        source="huggingface/transformers: src/transformers/models/distilbert/"
        "modeling_distilbert.py, create_sinusoidal_embeddings (the same function in "
        "xlm/modeling_xlm.py)",
        url="https://github.com/huggingface/transformers/blob/main/src/transformers/models/"
        "distilbert/modeling_distilbert.py",
        verified_with="transformers",
        note="Used only when config.sinusoidal_pos_embds is true; the released checkpoints "
        "learn their position embeddings.",
        _columns=_interleaved,
        _rates=_power_divisors,
        _angle=_divide64,
        _check=_any_width,
    ),
    Convention(
        name="whisper",
        title="OpenAI Whisper (audio encoder)",
        layout="concatenated",
        exponent="i/(d/2-1)",
        base=10000.0,
        first_position=0,
        padding="none",
        odd="error (channels must be even)",
        compute="float32",
        source="openai/whisper: whisper/model.py, sinusoids (the same function in "
        "transformers' models/whisper/modeling_whisper.py)",
        url="https://github.com/openai/whisper/blob/main/whisper/model.py",
        verified_with="transformers",
        note="Tested through transformers' copy of sinusoids. The decoder's position "
        "embeddings are learned; only the encoder uses this table.",
        _columns=_fairseq_columns,
        _rates=_exp_log_rates(_fairseq_step),
        _angle=_multiply32,
        _check=_even(smallest=4),
    ),
    Convention(
        name="keras_hub",
        title="keras-hub SinePositionEncoding",
        layout="interleaved",
        exponent="2i/d",
        base=10000.0,
        first_position=0,
        padding="none",
        odd="the last column is a sine",
        compute="float32 (the layer's compute dtype)",
        source="keras-team/keras-hub: keras_hub/src/layers/modeling/sine_position_encoding.py, "
        "SinePositionEncoding.call",
        url="https://github.com/keras-team/keras-hub/blob/master/keras_hub/src/layers/"
        "modeling/sine_position_encoding.py",
        verified_with="keras-hub",
        note="Frequencies are pow(1/max_wavelength, 2(j//2)/d) in float32; start_index shifts "
        "the positions.",
        _columns=_interleaved,
        _rates=_keras_rates,
        _angle=_multiply32,
        _check=_any_width,
    ),
    Convention(
        name="tf_tutorial",
        title="TensorFlow Transformer tutorial, current version (tensorflow/text)",
        layout="concatenated",
        exponent="i/(d/2)",
        base=10000.0,
        first_position=0,
        padding="none",
        odd="returns d_model + 1 columns (arange(d/2) rounds the pair count up)",
        compute="float64, cast to float32",
        source="tensorflow/text: docs/tutorials/transformer.ipynb, positional_encoding",
        url="https://github.com/tensorflow/text/blob/master/docs/tutorials/transformer.ipynb",
        verified_with=None,
        note="Tutorial code, not a package: checked against the formula, not run. For even d "
        "its frequencies equal the paper's; only the layout differs. The older version of the "
        "tutorial (tensorflow/docs), still widely copied, interleaves: see tf_docs_tutorial.",
        _columns=_tf_tutorial_columns,
        _rates=_tf_tutorial_rates,
        _angle=_multiply64,
        _check=_any_width,
    ),
    Convention(
        name="positional_encodings",
        title="positional-encodings (PositionalEncoding1D)",
        layout="interleaved",
        exponent="2i/c, c = d rounded up to even",
        base=10000.0,
        first_position=0,
        padding="none",
        odd="computed for d + 1 columns, the last cosine dropped",
        compute="float32",
        source="tatp22/multidim-positional-encoding: positional_encodings/torch_encodings.py, "
        "PositionalEncoding1D",
        url="https://github.com/tatp22/multidim-positional-encoding/blob/master/"
        "positional_encodings/torch_encodings.py",
        verified_with="positional-encodings",
        note="The module caches its last output and returns it again for an input of the same "
        "shape.",
        _columns=_interleaved,
        _rates=_positional_encodings_rates,
        _angle=_multiply32,
        _check=_any_width,
    ),
    Convention(
        name="tf_docs_tutorial",
        title="TensorFlow Transformer tutorial, older version (tensorflow/docs)",
        layout="interleaved",
        exponent="2i/d",
        base=10000.0,
        first_position=0,
        padding="none",
        odd="the last column is a sine",
        compute="float64 (numpy), cast to float32",
        source="tensorflow/docs: site/en/tutorials/text/transformer.ipynb, get_angles and "
        "positional_encoding (sines written into the even columns, cosines into the odd ones)",
        url="https://github.com/tensorflow/docs/blob/master/site/en/tutorials/text/"
        "transformer.ipynb",
        verified_with=None,
        note="Tutorial code, not a package: checked against the formula, not run. The same "
        "table as distilbert (the rates are multiplied here, divided there); the tutorial "
        "later moved to tensorflow/text and to the concatenated layout of tf_tutorial.",
        _columns=_interleaved,
        _rates=_tf_docs_rates,
        _angle=_multiply64,
        _check=_any_width,
    ),
    Convention(
        name="musicgen",
        title="Hugging Face MusicGen (and MusicGen Melody)",
        layout="concatenated, cosines first",
        exponent="i/(d/2-1)",
        base=10000.0,
        first_position=0,
        padding="none",
        odd="a zero column is appended (d_model = 1 gives one zero column)",
        compute="float32",
        source="huggingface/transformers: src/transformers/models/musicgen/modeling_musicgen.py, "
        "MusicgenSinusoidalPositionalEmbedding.get_embedding",
        url="https://github.com/huggingface/transformers/blob/main/src/transformers/models/"
        "musicgen/modeling_musicgen.py",
        verified_with="transformers",
        note="fairseq's frequencies with the halves swapped: cosines in the first half. "
        "d_model = 2 and 3 raise ZeroDivisionError.",
        _columns=_cosines_first_columns,
        _rates=_exp_log_rates(_fairseq_step),
        _angle=_multiply32,
        _check=_not_two_or_three,
    ),
    Convention(
        name="flax",
        title="Flax examples (lm1b, wmt): sinusoidal_init",
        layout="concatenated",
        exponent="i/(d/2-1)",
        base=10000.0,
        first_position=0,
        padding="none",
        odd="the last column stays zero (d_model = 1 gives one zero column)",
        compute="float64 (numpy), stored as float32",
        source="google/flax: examples/lm1b/models.py (and examples/wmt/models.py), sinusoidal_init",
        url="https://github.com/google/flax/blob/main/examples/lm1b/models.py",
        verified_with=None,
        note="Example code, not part of the flax package: checked against the formula, not "
        "run. The frequencies of tensor2tensor and fairseq, computed in float64. d_model = 2 "
        "and 3 give NaN (0 * inf in the exponent). In decoding, the position is the cache "
        "index; packed examples pass their own positions.",
        _columns=_fairseq_columns,
        _rates=_exp_log_rates(_fairseq_step, float64=True),
        _angle=_multiply64,
        _check=_not_two_or_three,
    ),
)


def _restore(origin: str, data: dict[str, Any]) -> Convention:
    """Rebuild a pickled `Convention`: the named one's recipes with the stored fields."""
    return replace(conventions[origin], **data)


#: Every named convention, by name: a read-only mapping, the one way to reach
#: them (``pe.conventions["fairseq"]``, ``for name in pe.conventions``,
#: ``pe.conventions.values()``). A missing name raises `KeyError` listing the
#: names; copying or pickling it gives it back. Use ``dataclasses.replace`` to
#: derive a convention with another base.
conventions: Mapping[str, Convention] = NamedMapping(
    {c.name: c for c in _ALL}, what="convention", home=("pe._conventions", "conventions")
)


def lookup(name: str | Convention) -> Convention:
    """Return the convention `name` names, or `name` itself if it is a `Convention`.

    The internal form of ``pe.conventions[name]`` for functions that accept
    either; it raises `ValueError` (bad input) where the mapping raises
    `KeyError` (a missing key). Public until 0.2.0 as ``pe.convention``.

    Raises
    ------
    ValueError
        If `name` is not one of ``pe.conventions``; the message lists them.

    Examples
    --------
    >>> from pe._conventions import lookup
    >>> lookup("marian").layout
    'concatenated'
    """
    if isinstance(name, Convention):
        return name
    if not isinstance(name, str) or name not in conventions:
        raise ValueError(
            f"convention must be one of {', '.join(sorted(conventions))}; got {name!r}"
        )
    return conventions[name]
