"""Property-based tests over the public API: random valid input, random invalid input.

Every public function of the numpy core is called here, the measurements of
`pe.analysis` and each `Convention`'s methods included.

Valid input must give finite, bounded output that matches the float64 reference;
invalid input must raise TypeError or ValueError naming the parameter, never an
AssertionError, IndexError, a broadcasting RuntimeError, NaN or a silently
truncated result.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Callable, Sequence

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from reference import float64_table
from reference import rope_rotation as rope_reference

import pe
import pe.nn
from pe._table import FLOAT32_BOUND

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

d_models = st.integers(1, 96).map(lambda n: 2 * n)
bases = st.floats(1.5, 1e6, allow_nan=False)
starts = st.integers(-(2**24), 2**24)
lengths = st.integers(0, 300)
shapes = st.lists(st.integers(0, 5), min_size=0, max_size=3).map(tuple)


@FAST
@given(start=starts, length=lengths, d_model=d_models, base=bases)
def test_sinusoidal_matches_the_reference_for_any_run(
    start: int, length: int, d_model: int, base: float
) -> None:
    positions = np.arange(start, start + length)
    table = pe.sinusoidal(positions, d_model, base=base)
    assert table.shape == (length, d_model)
    assert np.isfinite(table).all()
    # A product of two rounded unit complex numbers: within one float32 rounding of 1
    # (start=-299, d_model=6, base=862149.0703125 gives -1.0000001).
    assert np.abs(table).max(initial=0) <= 1 + np.finfo(np.float32).eps
    reference = float64_table(positions, d_model, base=base)
    # float32 result: a few roundings; float64 angles themselves: ~|p| * 1e-16.
    assert np.abs(table - reference).max(initial=0) <= FLOAT32_BOUND + 4e-16 * (abs(start) + length)


@FAST
@given(shape=shapes, d_model=d_models, data=st.data())
def test_sinusoidal_any_shape_of_positions(
    shape: tuple[int, ...], d_model: int, data: st.DataObject
) -> None:
    values = data.draw(st.lists(starts, min_size=math.prod(shape), max_size=math.prod(shape)))
    positions = np.array(values, dtype=np.int64).reshape(shape)
    table = pe.sinusoidal(positions, d_model, dtype=np.float64)
    assert table.shape == (*shape, d_model)
    np.testing.assert_allclose(table, float64_table(positions, d_model), atol=1e-8, rtol=0)


@FAST
@given(
    start=starts,
    length=st.integers(1, 200),
    d_model=d_models,
    dtype=st.sampled_from([torch.float16, torch.bfloat16, torch.float32, torch.float64]),
)
def test_torch_table_for_any_dtype(
    start: int, length: int, d_model: int, dtype: torch.dtype
) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pe.PrecisionWarning)
        table = pe.nn.functional.sinusoidal(
            torch.arange(start, start + length), d_model, dtype=dtype
        )
    assert table.dtype == dtype
    assert table.shape == (length, d_model)
    values = table.double().numpy()
    assert np.isfinite(values).all()
    tolerance = {torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}.get(dtype, FLOAT32_BOUND)
    reference = float64_table(np.arange(start, start + length), d_model)
    assert np.abs(values - reference).max() <= tolerance + 4e-16 * (abs(start) + length)


@FAST
@given(
    d_model=d_models,
    length=st.integers(1, 64),
    batch=st.integers(1, 3),
    offset=st.integers(0, 100),
    batch_first=st.booleans(),
    dtype=st.sampled_from([torch.float32, torch.float64, torch.bfloat16]),
)
def test_module_adds_the_reference(
    d_model: int, length: int, batch: int, offset: int, batch_first: bool, dtype: torch.dtype
) -> None:
    module = pe.nn.SinusoidalPositionalEncoding(
        d_model, max_len=offset + length, batch_first=batch_first
    )
    shape = (batch, length, d_model) if batch_first else (length, batch, d_model)
    out = module(torch.zeros(shape, dtype=dtype), offset=offset)
    assert out.dtype == dtype
    reference = torch.from_numpy(float64_table(np.arange(offset, offset + length), d_model))
    if not batch_first:
        out = out.transpose(0, 1)
    tolerance = 2.0**-8 if dtype == torch.bfloat16 else FLOAT32_BOUND
    assert (out.double() - reference).abs().max() <= tolerance


@FAST
@given(p=starts, q=starts, d_model=d_models, measure=st.sampled_from(["dot", "cosine", "distance"]))
def test_similarity_is_finite_and_bounded(
    p: int, q: int, d_model: int, measure: pe.analysis.Measure
) -> None:
    value = float(pe.analysis.similarity(p, q, d_model, measure=measure))
    bound = {"dot": d_model / 2, "cosine": 1.0, "distance": math.sqrt(2 * d_model)}[measure]
    assert math.isfinite(value)
    assert abs(value) <= bound + 1e-9


@FAST
@given(k=st.integers(-(2**20), 2**20), d_model=d_models)
def test_rotation_matrices_are_orthogonal(k: int, d_model: int) -> None:
    matrix = pe.rotation_matrix(k, d_model)
    np.testing.assert_allclose(matrix @ matrix.T, np.eye(d_model), atol=1e-12)


@FAST
@given(heads=st.integers(1, 256))
def test_alibi_slopes_for_any_head_count(heads: int) -> None:
    slopes = pe.alibi_slopes(heads)
    assert slopes.shape == (heads,)
    assert np.all((slopes > 0) & (slopes < 1))
    assert len(set(slopes.tolist())) == heads


@FAST
@given(
    rows=st.integers(1, 4),
    seq=st.integers(1, 12),
    pad=st.integers(0, 3),
    start=st.integers(-5, 5),
    data=st.data(),
)
def test_position_ids_count_real_tokens(
    rows: int, seq: int, pad: int, start: int, data: st.DataObject
) -> None:
    ids = torch.tensor(
        data.draw(
            st.lists(
                st.lists(st.integers(0, 3), min_size=seq, max_size=seq),
                min_size=rows,
                max_size=rows,
            )
        )
    )
    positions = pe.nn.functional.position_ids(ids, pad_id=pad, start=start, pad_value=-1)
    for row, got in zip(ids, positions, strict=True):
        real = row != pad
        assert got[real].tolist() == list(range(start, start + int(real.sum())))


# ---------------------------------------------------------------- invalid input
NOT_AN_INTEGER = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
    st.booleans(),
    st.none(),
    st.complex_numbers(allow_nan=False, max_magnitude=10),
)
BAD_D_MODEL = st.one_of(
    NOT_AN_INTEGER, st.integers(-50, 0), st.integers(0, 100).map(lambda n: 2 * n + 1)
)
BAD_BASE = st.one_of(
    st.floats(max_value=1.0),
    st.just(math.nan),
    st.just(math.inf),
    st.text(max_size=2),
    st.booleans(),
    st.none(),
)


def raises_named(call: Callable[..., object], parameter: str) -> None:
    """The call must raise TypeError or ValueError, and the message must name `parameter`."""
    try:
        call()
    except (TypeError, ValueError) as error:
        assert parameter in str(error), f"{parameter!r} not named in: {error}"
    else:
        pytest.fail(f"no error for a bad {parameter}")


@FAST
@given(d_model=BAD_D_MODEL)
def test_bad_d_model_everywhere(d_model: typing.Any) -> None:
    for call in (
        lambda: pe.sinusoidal(4, d_model),
        lambda: pe.frequencies(d_model),
        lambda: pe.angles(3, d_model),
        lambda: pe.rotation_matrix(1, d_model),
        lambda: pe.analysis.similarity(0, 1, d_model),
        lambda: pe.nn.functional.sinusoidal(4, d_model),
        lambda: pe.nn.SinusoidalPositionalEncoding(d_model),
        lambda: pe.nn.LearnedPositionalEmbedding(8, d_model),
    ):
        raises_named(call, "d_model")


@FAST
@given(base=BAD_BASE)
def test_bad_base_everywhere(base: typing.Any) -> None:
    for call in (
        lambda: pe.sinusoidal(4, 8, base=base),
        lambda: pe.frequencies(8, base),
        lambda: pe.rotation_blocks(1, 8, base=base),
        lambda: pe.nn.functional.sinusoidal(4, 8, base=base),
    ):
        raises_named(call, "base")


@FAST
@given(
    positions=st.one_of(
        st.integers(max_value=-1),
        st.integers(min_value=2**31),
        st.floats(allow_nan=True),
        st.lists(st.floats(allow_nan=True), min_size=1, max_size=4),
        st.text(max_size=3),
        st.booleans(),
    )
)
def test_bad_positions_everywhere(positions: typing.Any) -> None:
    raises_named(lambda: pe.sinusoidal(positions, 8), "positions")
    raises_named(lambda: pe.angles(positions, 8), "positions")


@FAST
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple), d_model=d_models)
def test_module_rejects_wrong_shapes_with_a_message(shape: tuple[int, ...], d_model: int) -> None:
    module = pe.nn.SinusoidalPositionalEncoding(d_model, max_len=16)
    x = torch.zeros(shape)
    try:
        out = module(x)
    except ValueError as error:
        assert "x must have shape" in str(error)
    else:  # accepted: it must then be a proper (.., seq, d_model) input
        assert x.dim() in (2, 3)
        assert x.shape[-1] == d_model
        assert out.shape == x.shape


@FAST
@given(seq=st.integers(1, 40), max_len=st.integers(1, 40), offset=st.integers(0, 40))
def test_table_lengths_are_never_silently_truncated(seq: int, max_len: int, offset: int) -> None:
    for module in (
        pe.nn.SinusoidalPositionalEncoding(8, max_len=max_len),
        pe.nn.LearnedPositionalEmbedding(max_len, 8),
    ):
        x = torch.zeros(1, seq, 8)
        if offset + seq <= max_len:
            assert module(x, offset=offset).shape == x.shape
        else:
            with pytest.raises(ValueError, match="max_len"):
                module(x, offset=offset)


BAD_COUNT = st.one_of(NOT_AN_INTEGER, st.integers(-50, 0))
BAD_LENGTH = st.one_of(NOT_AN_INTEGER, st.integers(-50, -1))
# Every name some parameter accepts: a random string that happens to be one is not bad.
VALID_NAMES = {"interleaved", "concatenated", "half", "t5", "clipped", *pe.conventions}
VALID_NAMES |= set(typing.get_args(pe.analysis.Measure))
BAD_CHOICE = st.one_of(
    st.text(max_size=12).filter(lambda name: name not in VALID_NAMES), st.integers(), st.none()
)


@FAST
@given(count=BAD_COUNT)
def test_bad_counts_everywhere(count: typing.Any) -> None:
    for call, parameter in (
        (lambda: pe.alibi_slopes(count), "num_heads"),
        (lambda: pe.nn.ALiBi(count), "num_heads"),
        (lambda: pe.nn.RelativePositionBias(count), "num_heads"),
        (lambda: pe.nn.RelativePositionBias(2, max_distance=count), "max_distance"),
        (lambda: pe.nn.RelativePositionBias(2, num_buckets=count), "num_buckets"),
        (lambda: pe.nn.LearnedPositionalEmbedding(count, 8), "max_len"),
        (lambda: pe.layout_permutation(count, "interleaved", "concatenated"), "d_model"),
    ):
        raises_named(call, parameter)
    if count is not None:  # None means "no limit" for this module
        raises_named(lambda: pe.nn.SinusoidalPositionalEncoding(8, max_len=count), "max_len")


@FAST
@given(length=BAD_LENGTH)
def test_bad_lengths_when_called(length: typing.Any) -> None:
    for module in (pe.nn.ALiBi(2), pe.nn.RelativePositionBias(2)):
        raises_named(lambda module=module: module(length, 3), "q_len")
        raises_named(lambda module=module: module(3, length), "k_len")
    raises_named(lambda: pe.analysis.uniqueness(length, 8), "length")


@FAST
@given(choice=BAD_CHOICE)
def test_bad_names_and_layouts(choice: typing.Any) -> None:
    table = np.zeros((2, 8))
    for call, parameter in (
        (lambda: pe.convert_layout(table, choice, "fairseq"), "convention"),
        (lambda: pe.convert_layout(table, choice, "interleaved"), "source"),
        (lambda: pe.convert_layout(table, "interleaved", choice), "target"),
        (lambda: pe.convert_layout(table, choice, "concatenated"), "source"),
        (
            lambda: pe.nn.functional.convert_rotary_layout(torch.zeros(4), "concatenated", choice),
            "target",
        ),
        (lambda: pe.nn.RotaryEmbedding(8, layout=choice), "layout"),
        (lambda: pe.nn.RelativePositionBias(2, kind=choice), "kind"),
        (lambda: pe.analysis.similarity(0, 1, 8, measure=choice), "measure"),
    ):
        raises_named(call, parameter)


@FAST
@given(ndim=st.integers(1, 4), axis=st.one_of(st.integers(-10, 10), NOT_AN_INTEGER))
def test_convert_layout_axis_in_range_or_a_clear_error(ndim: int, axis: typing.Any) -> None:
    values = np.arange(4.0**ndim).reshape((4,) * ndim)
    if isinstance(axis, int) and not isinstance(axis, bool) and -ndim <= axis < ndim:
        out = pe.convert_layout(values, "interleaved", "concatenated", axis=axis)
        # An independent statement of the permutation: evens first, then odds.
        expected = np.concatenate(
            [np.take(values, [0, 2], axis=axis), np.take(values, [1, 3], axis=axis)], axis=axis
        )
        np.testing.assert_array_equal(out, expected)
    else:
        raises_named(
            lambda: pe.convert_layout(values, "interleaved", "concatenated", axis=axis), "axis"
        )


@FAST
@given(
    value=st.one_of(
        st.floats(allow_nan=True),
        st.text(max_size=3),
        st.none(),
        st.lists(st.integers(), max_size=3),
    )
)
def test_tensor_arguments_must_be_tensors(value: typing.Any) -> None:
    raises_named(lambda: pe.nn.functional.relative_position_bucket(value), "relative_position")
    raises_named(
        lambda: pe.nn.functional.convert_rotary_layout(value, "concatenated", "interleaved"), "x"
    )
    raises_named(lambda: pe.nn.RotaryEmbedding(8).rotate(value), "x")


@FAST
@given(
    value=st.one_of(
        st.integers(2**31, 2**200), st.integers(-(2**200), -(2**31)), st.complex_numbers()
    ),
    where=st.integers(0, 3),
)
def test_out_of_range_or_non_integer_entries_name_the_problem(
    value: int | complex, where: int
) -> None:
    positions: list[int | complex] = [0, 1, 2, 3]
    positions[where] = value
    with pytest.raises((TypeError, ValueError), match="positions") as caught:
        pe.sinusoidal(positions, 8)
    message = str(caught.value)
    if isinstance(value, int):
        assert isinstance(caught.value, ValueError)
        assert str(value) in message
    else:
        assert "complex" in message or "object" in message


@FAST
@given(
    dtype=st.sampled_from([torch.uint8, torch.int8, torch.int16, torch.int32]),
    pad_id=st.integers(-(2**40), 2**40),
)
def test_position_ids_pad_id_must_fit_the_ids(dtype: torch.dtype, pad_id: int) -> None:
    ids = torch.zeros(2, 4, dtype=dtype)
    info = torch.iinfo(dtype)
    if info.min <= pad_id <= info.max:
        assert pe.nn.functional.position_ids(ids, pad_id=pad_id).shape == (2, 4)
    else:
        with pytest.raises(ValueError, match=rf"pad_id .*got {pad_id}"):
            pe.nn.functional.position_ids(ids, pad_id=pad_id)


@FAST
@given(length=st.integers(0, 2**31 - 1), d_model=st.integers(1, 2**25).map(lambda n: 2 * n))
def test_sizes_are_refused_before_allocating_or_built(length: int, d_model: int) -> None:
    from pe._validation import MAX_ELEMENTS

    if length * (d_model // 2) > MAX_ELEMENTS or d_model > 2**24:
        with pytest.raises(ValueError, match=r"d_model must be at most|would have shape"):
            pe.angles(length, d_model)
    elif length * d_model <= 2**16:
        assert pe.angles(length, d_model).shape == (length, d_model // 2)


# ------------------------------------------- measurements, wavelengths, conventions
small_positions = st.integers(-(2**16), 2**16)


def omega_of(d_model: int, base: float = 10000.0) -> np.ndarray:
    """The frequencies written out here, from the formula: base ** (-2i / d)."""
    return np.array([base ** (-2.0 * i / d_model) for i in range(d_model // 2)])


@FAST
@given(d_model=d_models, base=bases)
def test_wavelengths_are_two_pi_over_the_frequencies(d_model: int, base: float) -> None:
    got = pe.wavelengths(d_model, base)
    np.testing.assert_allclose(got, 2 * np.pi / omega_of(d_model, base), rtol=1e-13, atol=0)
    assert np.all(np.diff(got) > 0)
    assert got[-1] < 2 * np.pi * base


@FAST
@given(offsets=st.lists(small_positions, max_size=6), d_model=d_models, bare=st.booleans())
def test_pair_distance_is_the_chord_between_two_rows(
    offsets: list[int], d_model: int, bare: bool
) -> None:
    given_offsets: typing.Any = offsets[0] if bare and offsets else offsets
    got = pe.analysis.pair_distance(given_offsets, d_model)
    k = np.asarray(given_offsets, dtype=np.int64)
    assert got.shape == (*k.shape, d_model // 2)
    start, shifted = float64_table(np.zeros_like(k), d_model), float64_table(k, d_model)
    chords = np.hypot(shifted[..., 0::2] - start[..., 0::2], shifted[..., 1::2] - start[..., 1::2])
    np.testing.assert_allclose(got, chords, atol=1e-10, rtol=0)
    assert np.all((got >= 0) & (got <= 2))


@FAST
@given(d_model=d_models, data=st.data(), max_offset=st.integers(1, 3000))
def test_closest_return_is_the_smallest_chord(
    d_model: int, data: st.DataObject, max_offset: int
) -> None:
    pair = data.draw(st.integers(0, d_model // 2 - 1))
    offset, gap = pe.analysis.closest_return(pair, d_model, max_offset=max_offset)
    chords = 2 * np.abs(np.sin(np.arange(1, max_offset + 1) * omega_of(d_model)[pair] / 2))
    assert 1 <= offset <= max_offset
    assert abs(gap - chords.min()) <= 1e-12
    assert abs(chords[offset - 1] - chords.min()) <= 1e-12


@FAST
@given(positions=st.lists(small_positions, min_size=1, max_size=40), d_model=d_models)
def test_value_range_and_norms_match_the_reference(positions: list[int], d_model: int) -> None:
    reference = float64_table(np.array(positions), d_model)
    low, high = pe.analysis.value_range(positions, d_model)
    assert -1 <= low <= high <= 1
    assert abs(low - reference.min()) < 1e-10
    assert abs(high - reference.max()) < 1e-10
    assert pe.analysis.norm_deviation(positions, d_model) < 1e-12 * d_model


@FAST
@given(
    starts=st.lists(small_positions, min_size=1, max_size=8),
    offsets=st.one_of(small_positions, st.lists(small_positions, min_size=1, max_size=4)),
    d_model=st.integers(1, 24).map(lambda n: 2 * n),
)
def test_rotation_error_is_rounding_for_any_shift(
    starts: list[int], offsets: int | list[int], d_model: int
) -> None:
    assert pe.analysis.rotation_error(starts, offsets, d_model) < 1e-10


@FAST
@given(
    train=st.integers(1, 60),
    extra=st.integers(1, 60),
    d_model=st.integers(1, 16).map(lambda n: 2 * n),
    window=st.integers(0, 20),
)
def test_extrapolation_matches_a_direct_computation(
    train: int, extra: int, d_model: int, window: int
) -> None:
    result = pe.analysis.extrapolation(train, train + extra, d_model, window=window)
    inside = float64_table(np.arange(train), d_model)
    outside = float64_table(np.arange(train, train + extra), d_model)
    nearest = np.sqrt(((outside[:, None] - inside[None]) ** 2).sum(axis=-1)).min()
    assert abs(result.min_distance_to_training - nearest) < 1e-6
    assert abs(result.max_abs_value - np.abs(outside).max()) < 1e-12
    assert result.profile_deviation < 1e-10


@FAST
@given(
    name=st.sampled_from(sorted(pe.conventions)),
    d_model=st.integers(1, 40),
    length=st.integers(0, 12),
    start=st.integers(0, 50),
)
def test_convention_methods_agree_with_each_other_and_the_formula(
    name: str, d_model: int, length: int, start: int
) -> None:
    convention = pe.conventions[name]
    try:
        columns = convention.columns(d_model)
    except ValueError as error:  # a width this library cannot build: the message says so
        assert "d_model" in str(error)
        for call in (convention.frequencies, lambda d: convention.table(2, d)):
            raises_named(lambda call=call: call(d_model), "d_model")
        return
    frequencies = convention.frequencies(d_model)
    assert {f for kind, f in columns if kind != "zero"} <= set(frequencies.tolist())
    encoded = convention.encode(length, d_model, start=start, emulate=False)
    rows = convention.first_position + start + np.arange(length)
    assert np.array_equal(encoded, convention.table(rows, d_model, emulate=False))
    assert encoded.shape == (length, len(columns))
    for column, (kind, frequency) in enumerate(columns):
        angle = rows * frequency
        expected = {"sin": np.sin(angle), "cos": np.cos(angle), "zero": 0 * angle}[kind]
        if convention.padding_idx is not None:
            expected = np.where(rows == convention.padding_idx, 0.0, expected)
        np.testing.assert_allclose(encoded[:, column], expected, atol=1e-6, rtol=0)


@FAST
@given(d_model=BAD_D_MODEL)
def test_bad_d_model_in_the_measurements(d_model: typing.Any) -> None:
    for call in (
        lambda: pe.wavelengths(d_model),
        lambda: pe.analysis.pair_distance([1, 2], d_model),
        lambda: pe.analysis.closest_return(0, d_model, max_offset=5),
        lambda: pe.analysis.value_range(4, d_model),
        lambda: pe.analysis.norm_deviation(4, d_model),
        lambda: pe.analysis.rotation_error(4, [1], d_model),
        lambda: pe.analysis.extrapolation(4, 8, d_model),
        lambda: pe.analysis.uniqueness(4, d_model),
    ):
        raises_named(call, "d_model")


@FAST
@given(base=st.one_of(BAD_BASE, st.integers(10**309, 10**400)))
def test_bad_base_in_the_measurements(base: typing.Any) -> None:
    for call in (
        lambda: pe.wavelengths(8, base),
        lambda: pe.analysis.pair_distance([1, 2], 8, base=base),
        lambda: pe.analysis.closest_return(0, 8, max_offset=5, base=base),
        lambda: pe.analysis.value_range(4, 8, base=base),
        lambda: pe.analysis.norm_deviation(4, 8, base=base),
        lambda: pe.analysis.rotation_error(4, [1], 8, base=base),
        lambda: pe.analysis.extrapolation(4, 8, 8, base=base),
        lambda: pe.analysis.similarity(0, 1, 8, base=base),
        lambda: pe.sinusoidal(4, 8, base=base),
    ):
        raises_named(call, "base")
    convention = pe.conventions["paper"]
    raises_named(lambda: dataclasses.replace(convention, base=base), "base")


BAD_OFFSETS = st.one_of(
    st.integers(2**31, 2**70),
    st.integers(-(2**70), -(2**31)),
    st.floats(allow_nan=True),
    st.lists(st.floats(allow_nan=True), min_size=1, max_size=3),
    st.text(max_size=3),
    st.booleans(),
    st.none(),
)


@FAST
@given(offsets=BAD_OFFSETS)
def test_bad_offsets_and_positions_in_the_measurements(offsets: typing.Any) -> None:
    raises_named(lambda: pe.analysis.pair_distance(offsets, 8), "offsets")
    raises_named(lambda: pe.analysis.rotation_error([0, 1], offsets, 8), "offset")
    raises_named(lambda: pe.analysis.value_range(offsets, 8), "positions")
    raises_named(lambda: pe.analysis.norm_deviation(offsets, 8), "positions")
    raises_named(lambda: pe.analysis.rotation_error(offsets, [1], 8), "positions")


@FAST
@given(
    value=st.one_of(NOT_AN_INTEGER, st.integers(-(2**40), 0), st.integers(2**31, 2**70)),
    which=st.sampled_from(["pair", "max_offset", "window", "train_length", "test_length"]),
)
def test_bad_counts_in_the_measurements(value: typing.Any, which: str) -> None:
    integer = isinstance(value, int) and not isinstance(value, bool)
    if integer and ((which == "window" and value == 0) or (which == "pair" and 0 <= value < 4)):
        return  # valid: a window of 0 compares offset 0 only; pairs 0 .. 3 exist
    calls = {
        "pair": lambda: pe.analysis.closest_return(value, 8, max_offset=5),
        "max_offset": lambda: pe.analysis.closest_return(0, 8, max_offset=value),
        "window": lambda: pe.analysis.extrapolation(4, 8, 8, window=value),
        "train_length": lambda: pe.analysis.extrapolation(value, 8, 8),
        "test_length": lambda: pe.analysis.extrapolation(4, value, 8),
    }
    raises_named(calls[which], which)


# ------------------------------------------------------------------ timesteps and grids
@FAST
@given(
    timesteps=st.lists(st.floats(-1000, 1000, allow_nan=False), max_size=20),
    dim=st.integers(2, 80),
    flip=st.booleans(),
    shift=st.sampled_from([0.0, 1.0, 0.5, -1.0]),
    scale=st.floats(0.01, 1000),
    period=st.floats(1.5, 1e5),
)
def test_timestep_embedding_matches_the_formula(
    timesteps: list[float], dim: int, flip: bool, shift: float, scale: float, period: float
) -> None:
    half = dim // 2
    if half - shift <= 0:
        with pytest.raises(ValueError, match="downscale_freq_shift must be below"):
            pe.timestep_embedding(timesteps, dim, downscale_freq_shift=shift)
        return
    kwargs: dict[str, typing.Any] = {
        "flip_sin_to_cos": flip,
        "downscale_freq_shift": shift,
        "scale": scale,
    }
    table = pe.timestep_embedding(timesteps, dim, max_period=period, **kwargs)
    assert table.shape == (len(timesteps), dim)
    angles = scale * np.outer(timesteps, period ** (-np.arange(half) / (half - shift)))
    halves = [np.cos(angles), np.sin(angles)] if flip else [np.sin(angles), np.cos(angles)]
    expected = np.concatenate([*halves, np.zeros((len(timesteps), dim % 2))], axis=1)
    assert np.abs(table - expected).max(initial=0) <= 2.0**-24 + 1e-16 * 1000 * scale
    module = pe.nn.SinusoidalTimestepEmbedding(dim, max_period=period, **kwargs)
    assert np.abs(module(torch.tensor(timesteps)).numpy() - expected).max(initial=0) <= (
        2.0**-24 + 1e-16 * 1000 * scale + 2.0**-23 * 1000 * scale  # float32 input timesteps
    )


@FAST
@given(
    name=st.sampled_from(sorted(pe.conventions)),
    length=st.one_of(NOT_AN_INTEGER, st.integers(-50, -1), st.integers(2**31, 2**70)),
    start=st.one_of(NOT_AN_INTEGER, st.integers(2**31, 2**70)),
    width=st.one_of(NOT_AN_INTEGER, st.integers(-50, 0), st.integers(2**24 + 1, 2**70)),
)
def test_bad_arguments_to_a_convention(
    name: str, length: typing.Any, start: typing.Any, width: typing.Any
) -> None:
    convention = pe.conventions[name]
    raises_named(lambda: convention.encode(length, 8), "length")
    raises_named(lambda: convention.encode(3, 8, start=start), "start")
    for call in (
        lambda: convention.encode(3, width),
        lambda: convention.table(3, width),
        lambda: convention.columns(width),
        lambda: convention.frequencies(width),
    ):
        raises_named(call, "d_model")


@FAST
@given(
    height=st.integers(1, 12),
    width=st.integers(1, 12),
    quarter=st.integers(1, 24),
    layout=st.sampled_from(["mae", "timm"]),
    class_token=st.booleans(),
)
def test_grid_table_is_finite_bounded_and_placed(
    height: int, width: int, quarter: int, layout: pe.GridLayout, class_token: bool
) -> None:
    table = pe.grid_sincos((height, width), 4 * quarter, layout=layout, class_token=class_token)
    assert table.shape == (height * width + class_token, 4 * quarter)
    assert np.isfinite(table).all()
    assert np.abs(table).max() <= 1
    if class_token:
        assert not table[0].any()
    rows, columns = pe.grid_coordinates((height, width))
    token = height * width - 1  # the last token: row height - 1, column width - 1
    assert (rows[token], columns[token]) == (height - 1, width - 1)
    sin_y = table[class_token + token, (2 if layout == "mae" else 0) * quarter]
    assert sin_y == pytest.approx(math.sin(height - 1), abs=2.0**-24)


@FAST
@given(dim=st.one_of(st.integers(-8, 3), st.integers(1, 40).filter(lambda d: d % 4), st.floats()))
def test_bad_grid_width_is_named(dim: typing.Any) -> None:
    with pytest.raises((TypeError, ValueError), match="dim must be"):
        pe.grid_sincos(4, dim)


# Integers of every width, as numpy scalars and arrays and as torch tensors.
NUMPY_INTEGERS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
TORCH_INTEGERS: dict[type, torch.dtype] = {
    np.int8: torch.int8,
    np.int16: torch.int16,
    np.int32: torch.int32,
    np.int64: torch.int64,
    np.uint8: torch.uint8,
    np.uint16: torch.uint16,
    np.uint32: torch.uint32,
    np.uint64: torch.uint64,
}


class TimestepShift(typing.TypedDict):
    """Keywords of a timestep embedding: which half comes first, and the exponent's shift."""

    flip_sin_to_cos: bool
    downscale_freq_shift: float


def grid_reference(height: int, width: int, dim: int, layout: str) -> np.ndarray:
    """The 2-D sin-cos table token by token: math's sin and cos of index times 10000**(-i/q)."""
    quarter = dim // 4
    omega = [10000.0 ** (-i / quarter) for i in range(quarter)]
    rows = []
    for y in range(height):
        for x in range(width):
            sx, cx = [math.sin(x * w) for w in omega], [math.cos(x * w) for w in omega]
            sy, cy = [math.sin(y * w) for w in omega], [math.cos(y * w) for w in omega]
            rows.append(sx + cx + sy + cy if layout == "mae" else sy + sx + cy + cx)
    return np.array(rows)


@FAST
@given(
    integer=st.sampled_from(NUMPY_INTEGERS),
    height=st.integers(1, 9),
    width=st.integers(1, 9),
    quarter=st.integers(1, 24),
    layout=st.sampled_from(["mae", "timm"]),
)
def test_grid_functions_read_integers_of_every_width(
    integer: type, height: int, width: int, quarter: int, layout: pe.GridLayout
) -> None:
    grid, dim = (integer(height), integer(width)), integer(4 * quarter)
    table = pe.grid_sincos(grid, dim, layout=layout, dtype=np.float64)
    np.testing.assert_allclose(
        table, grid_reference(height, width, 4 * quarter, layout), rtol=0, atol=1e-14
    )
    assert np.array_equal(
        pe.nn.functional.grid_sincos(grid, dim, layout=layout).numpy(),
        pe.grid_sincos(grid, dim, layout=layout),
    )
    module = pe.nn.GridSinCosEmbedding(grid, dim, layout=layout)
    assert module.grid == (height, width)
    assert type(module.grid[0]) is int
    rows, columns = pe.grid_coordinates(grid)
    cells = [(y, x) for y in range(height) for x in range(width)]
    assert list(zip(rows.tolist(), columns.tolist(), strict=True)) == cells
    # An integer array is read as a sequence of int; the annotation names only the sequence.
    shape = typing.cast("Sequence[int]", np.array(grid, dtype=integer))
    assert pe.grid_positions(shape).tolist() == [list(c) for c in cells]
    assert pe.axial_rope((2 * grid[0], 2 * grid[1])).sections == (height, width)


@FAST
@given(
    integer=st.sampled_from(NUMPY_INTEGERS),
    dim=st.integers(2, 40),
    flip=st.booleans(),
    data=st.data(),
)
def test_timesteps_of_every_integer_width(
    integer: type, dim: int, flip: bool, data: st.DataObject
) -> None:
    info = np.iinfo(integer)
    low, high = max(int(info.min), -(2**31)), min(int(info.max), 2**31)
    values = data.draw(st.lists(st.integers(low, high), max_size=6))
    half = dim // 2
    angles = np.outer(np.array(values, dtype=np.float64), 10000.0 ** (-np.arange(half) / half))
    halves = [np.cos(angles), np.sin(angles)] if flip else [np.sin(angles), np.cos(angles)]
    expected = np.concatenate([*halves, np.zeros((len(values), dim % 2))], axis=1)
    # float32 rounding, and an ulp of float64 angles of up to 2**31
    bound = 2.0**-24 + 2.0**-50 * max((abs(v) for v in values), default=0)
    # downscale_freq_shift=0: Stable Diffusion's exponent
    shifted: TimestepShift = {"flip_sin_to_cos": flip, "downscale_freq_shift": 0}
    numpy_values: NDArray[np.integer[typing.Any]] = np.array(values, dtype=integer)
    torch_values = torch.tensor(values, dtype=TORCH_INTEGERS[integer])
    for got in (
        pe.timestep_embedding(numpy_values, np.int16(dim), **shifted),
        pe.nn.functional.timestep_embedding(torch_values, dim, **shifted).numpy(),
        pe.nn.SinusoidalTimestepEmbedding(integer(dim), **shifted)(torch_values).numpy(),
    ):
        assert got.shape == (len(values), dim)
        assert np.abs(got - expected).max(initial=0) <= bound
    if info.max > 2**31:  # a wide type holds timesteps past the limit: named, not wrapped
        wide = data.draw(st.integers(2**31 + 1, int(info.max)))
        array: NDArray[np.integer[typing.Any]] = np.array([wide], integer)
        raises_named(lambda: pe.timestep_embedding(array, dim, **shifted), "timesteps")
        tensor = torch.tensor([wide], dtype=TORCH_INTEGERS[integer])
        raises_named(
            lambda: pe.nn.functional.timestep_embedding(tensor, dim, **shifted), "timesteps"
        )


@FAST
@given(
    integer=st.sampled_from([np.int32, np.int64, np.uint32, np.uint64]),
    side=st.integers(2**12, 2**17),
    other=st.integers(2**12, 2**17),
    quarter=st.integers(1, 64),
    dim=st.integers(4, 512),
)
def test_huge_grids_and_batches_are_refused_before_allocating(
    integer: type, side: int, other: int, quarter: int, dim: int
) -> None:
    """Sizes past 2**31 values, given as integers of any width, checked without building them."""
    from allocation import headroom

    from pe._validation import MAX_ELEMENTS

    cells = side * other
    grid = (integer(side), integer(other))
    count = integer(cells) if cells <= np.iinfo(integer).max else np.int64(cells)
    checks: list[tuple[Callable[[], object], str, bool]] = [
        (lambda: pe.grid_sincos(grid, 4 * quarter), "grid", cells * 4 * quarter > MAX_ELEMENTS),
        (lambda: pe.grid_coordinates(grid), "grid", 2 * cells > MAX_ELEMENTS),
        (lambda: pe.grid_positions(grid), "shape", 2 * cells > MAX_ELEMENTS),
        (
            lambda: pe.nn.functional.resample_grid_embedding(torch.zeros(5, 4), grid),
            "new_size",
            (1 + cells) * 4 > MAX_ELEMENTS,
        ),
        (
            lambda: pe.timestep_embedding(np.broadcast_to(integer(7), (cells,)), dim),
            "timesteps",
            cells * dim > MAX_ELEMENTS,
        ),
        (
            lambda: pe.nn.functional.timestep_embedding(
                torch.zeros(1, dtype=TORCH_INTEGERS[integer]).expand(cells), dim
            ),
            "timesteps",
            cells * dim > MAX_ELEMENTS,
        ),
        (
            lambda: pe.rope_decay_bound(count, 2 * quarter),
            "distances",
            cells * quarter > 2**28,
        ),
    ]
    for call, parameter, too_large in checks:
        if too_large:
            with headroom():
                raises_named(call, parameter)


@FAST
@given(
    value=st.one_of(
        st.lists(st.sampled_from(["mae", "timm", "t5", "bilinear", "yes"]), max_size=3).map(
            np.array
        ),
        st.lists(st.booleans(), min_size=1, max_size=3).map(np.array),
        st.lists(st.booleans(), max_size=2),
        st.sampled_from(["no", "False", 0, 1, None]),
    )
)
def test_choices_and_flags_given_as_arrays_are_named_type_errors(value: typing.Any) -> None:
    """numpy's 'truth value is ambiguous', or an array compared element by element, before."""
    table = torch.zeros(17, 8)
    calls: dict[str, Callable[[], object]] = {
        "layout": lambda: pe.grid_sincos(4, 8, layout=value),
        "mode": lambda: pe.nn.functional.resample_grid_embedding(table, 3, mode=value),
        "kind": lambda: pe.nn.RelativePositionBias(2, kind=value),
        "antialias": lambda: pe.nn.functional.resample_grid_embedding(table, 3, antialias=value),
        "class_token": lambda: pe.nn.GridSinCosEmbedding(4, 8, class_token=value),
        "flip_sin_to_cos": lambda: pe.timestep_embedding([1.0], 8, flip_sin_to_cos=value),
        "bidirectional": lambda: pe.nn.RelativePositionBias(2, bidirectional=value),
        "batch_first": lambda: pe.nn.SinusoidalPositionalEncoding(8, batch_first=value),
    }
    for parameter, call in calls.items():
        unknown_name = isinstance(value, str) and parameter in ("layout", "mode", "kind")
        with pytest.raises(ValueError if unknown_name else TypeError, match=rf"^{parameter} must"):
            call()


# --- RotaryEmbedding: table and rotate -------------------------------------------------

rotary_layouts = st.sampled_from(["interleaved", "concatenated"])
integer_dtypes = st.sampled_from(
    [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.int64]
)


@FAST
@given(
    pairs=st.integers(1, 24),
    rotated=st.integers(1, 24),
    layout=rotary_layouts,
    base=bases,
    batch=st.integers(1, 3),
    seq=st.integers(0, 12),
    offset=st.one_of(st.integers(-5000, 5000), st.integers(-(2**31) + 100, 2**31 - 100)),
    dtype=integer_dtypes,
    use_positions=st.booleans(),
)
def test_rotary_matches_the_float64_formula(
    pairs: int,
    rotated: int,
    layout: str,
    base: float,
    batch: int,
    seq: int,
    offset: int,
    dtype: torch.dtype,
    use_positions: bool,
) -> None:
    head_dim = 2 * pairs
    rotary_dim = 2 * min(rotated, pairs)
    rope = pe.nn.RotaryEmbedding(
        head_dim, base=base, layout=layout, partial_rotary_factor=rotary_dim / head_dim
    )
    assert rope.rotary_dim == rotary_dim
    x = torch.randn(batch, seq, head_dim, generator=torch.Generator().manual_seed(seq))
    positions = np.arange(offset, offset + seq)
    if use_positions:
        info = torch.iinfo(dtype)
        positions = np.clip(positions, info.min, info.max)
        got = rope.rotate(x, positions=torch.from_numpy(positions).to(dtype))
    else:
        got = rope.rotate(x, offset=offset)
    # transformers' width: int(head_dim * factor), which float rounding can make odd
    # (int(46 * (26 / 46)) == 25); it then turns 13 pairs with exponents 2i / 25.
    product = int(head_dim * (rotary_dim / head_dim))
    expected = rope_reference(x.numpy(), positions, layout, rotary_dim, base, product)
    # float32 cos, sin and products; then float64 angles p * theta whose theta may differ
    # from the reference's by an ulp or two: an error that grows with |p|.
    farthest = int(np.abs(positions).max(initial=0))
    np.testing.assert_allclose(
        got.double().numpy(), expected, atol=1e-5 + farthest * 2.0**-48, rtol=0
    )
    assert torch.equal(got[..., rotary_dim:], x[..., rotary_dim:])
    assert all(table.shape[0] <= max(256, 8 * seq) for table in rope._tables.values())


@FAST
@given(
    length=st.integers(0, 3000),
    pairs=st.integers(1, 32),
    layout=rotary_layouts,
    dtype=st.sampled_from([torch.float32, torch.float64, torch.bfloat16, torch.float16]),
)
def test_rotary_table_is_the_formula_for_any_length(
    length: int, pairs: int, layout: str, dtype: torch.dtype
) -> None:
    rope = pe.nn.RotaryEmbedding(2 * pairs, layout=layout)
    cos, sin = rope.table(length, dtype=dtype)
    assert cos.shape == sin.shape == (length, pairs)
    assert cos.dtype == sin.dtype == dtype
    angles = np.arange(length)[:, None] * rope.frequencies
    bound = {torch.float32: 2**-24, torch.float64: 2**-51}.get(dtype, 2**-7)
    np.testing.assert_allclose(cos.double().numpy(), np.cos(angles), atol=bound, rtol=0)
    np.testing.assert_allclose(sin.double().numpy(), np.sin(angles), atol=bound, rtol=0)


junk = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True),
    st.integers(-(2**70), -1),
    st.text(max_size=5),
    st.just(torch.int32),
    st.just(torch.zeros(2)),
    st.just([1, 2]),
)


# Lengths that would build a table are kept small; larger ones must be refused by size.
junk_lengths = st.one_of(junk, st.integers(-(2**70), 3000), st.integers(2**31 - 1, 2**70))


@FAST
@given(length=junk_lengths, dtype=junk, device=junk)
def test_rotary_table_refuses_junk_clearly(
    length: typing.Any, dtype: typing.Any, device: typing.Any
) -> None:
    rope = pe.nn.RotaryEmbedding(8)
    try:
        cos, _ = rope.table(length, dtype=dtype, device=device)
    except (TypeError, ValueError) as error:
        assert str(error)
        return
    # Accepted only when every argument was valid.
    assert isinstance(length, int)
    assert not isinstance(length, bool)
    assert 0 <= length < 2**31
    assert cos.shape == (length, 4)


@FAST
@given(
    offset=junk,
    positions=st.one_of(
        st.none(),
        st.just(torch.tensor([1.5, 2.0])),
        st.just(torch.tensor([True, False])),
        st.just(torch.arange(3)),
        st.just(torch.arange(2)[None].expand(5, 2)),
        st.just(torch.tensor([2**40, 0])),
        st.just(torch.tensor([0, 1], dtype=torch.uint8)),
        st.just(torch.arange(2, device="meta")),
        st.just(np.arange(2)),
    ),
    shape=st.sampled_from([(2, 8), (3, 2, 8), (1, 4, 2, 8), (2, 6), (8,)]),
)
def test_rotary_rotate_refuses_junk_clearly(
    offset: typing.Any, positions: typing.Any, shape: typing.Any
) -> None:
    rope = pe.nn.RotaryEmbedding(8)
    x = torch.zeros(shape)
    try:
        out = rope.rotate(x, offset=offset, positions=positions)
    except (TypeError, ValueError) as error:
        assert str(error)
        return
    assert out.shape == x.shape
    assert bool(torch.isfinite(out).all())


# ------------------------------------ RoPE configurations (rope_frequencies, from_config)
ROPE_BASES = st.floats(2.0, 1e7)
FACTORS = st.floats(1.0, 100.0)


@st.composite
def rope_configs(draw: st.DrawFn) -> tuple[int, dict[str, typing.Any], int]:
    """A valid (head_dim, RoPE dict, max_position_embeddings), any rule."""
    head_dim = draw(st.sampled_from([8, 16, 32, 64, 80, 96, 128, 256]))
    rule = draw(st.sampled_from(sorted(pe._rope.ROPE_RULES)))
    parameters: dict[str, typing.Any] = {"rope_type": rule, "rope_theta": draw(ROPE_BASES)}
    longest = draw(st.integers(16, 2**20))
    original = draw(st.integers(2, 2**16))
    if rule in ("linear", "dynamic", "yarn", "llama3"):
        parameters["factor"] = draw(FACTORS)
    if rule in ("yarn", "longrope", "llama3"):
        parameters["original_max_position_embeddings"] = original
    if rule == "yarn":
        slow = draw(st.floats(0.01, 8.0))
        parameters["beta_slow"], parameters["beta_fast"] = slow, slow + draw(st.floats(0, 64))
        parameters["truncate"] = draw(st.booleans())
    if rule == "longrope":
        pairs = st.lists(st.floats(0.01, 1e3), min_size=head_dim // 2, max_size=head_dim // 2)
        parameters["short_factor"], parameters["long_factor"] = draw(pairs), draw(pairs)
    if rule == "llama3":
        low = draw(st.floats(0.01, 8.0))
        parameters["low_freq_factor"] = low
        parameters["high_freq_factor"] = low + draw(st.floats(0.01, 16.0))
    if rule == "proportional":
        parameters["partial_rotary_factor"] = draw(st.floats(0.0, 1.0))
    return head_dim, parameters, longest


@FAST
@given(config=rope_configs(), seq_len=st.one_of(st.none(), st.integers(0, 2**22)))
def test_rope_frequencies_for_any_valid_config(
    config: tuple[int, dict[str, typing.Any], int], seq_len: int | None
) -> None:
    head_dim, parameters, longest = config
    result = pe.rope_frequencies(
        head_dim, scaling=parameters, max_position_embeddings=longest, seq_len=seq_len
    )
    assert result.frequencies.shape == (head_dim // 2,)
    assert np.isfinite(result.frequencies).all()
    assert (result.frequencies >= 0).all()
    assert math.isfinite(result.attention_factor)
    assert result.attention_factor > 0
    if parameters["rope_type"] not in ("longrope", "proportional"):
        # Every other rule turns the slower pairs no faster: the order of the pairs stays.
        assert (np.diff(result.frequencies) <= 0).all()
    # The module reads the same settings from a config dict and gives the same numbers.
    if seq_len and parameters["rope_type"] != "proportional":
        module = pe.nn.RotaryEmbedding.from_config(
            {
                "head_dim": head_dim,
                "max_position_embeddings": longest,
                "rope_parameters": parameters,
            },
            seq_len=seq_len,
        )
        np.testing.assert_array_equal(module.frequencies, result.frequencies)
        assert module.attention_factor == result.attention_factor


BAD_SETTING = st.one_of(
    st.text(max_size=3),
    st.booleans(),
    st.complex_numbers(allow_nan=False, max_magnitude=10),
    st.just(math.nan),
    st.just(math.inf),
    st.floats(max_value=0.0),
    st.just(10**400),
    st.lists(st.integers(), max_size=2),
)
ROPE_KEYS = {
    "linear": ["factor", "rope_theta"],
    "dynamic": ["factor", "rope_theta"],
    "yarn": [
        "factor",
        "beta_fast",
        "beta_slow",
        "attention_factor",
        "original_max_position_embeddings",
    ],
    "longrope": [
        "short_factor",
        "long_factor",
        "original_max_position_embeddings",
        "attention_factor",
    ],
    "llama3": ["factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"],
}
VALID_ROPE: dict[str, dict[str, typing.Any]] = {
    "linear": {"factor": 2.0},
    "dynamic": {"factor": 2.0},
    "yarn": {"factor": 4.0, "original_max_position_embeddings": 256},
    "longrope": {
        "short_factor": [1.0] * 4,
        "long_factor": [2.0] * 4,
        "original_max_position_embeddings": 256,
    },
    "llama3": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 256,
    },
}


@FAST
@given(rule=st.sampled_from(sorted(ROPE_KEYS)), data=st.data(), value=BAD_SETTING)
def test_bad_rope_settings_name_the_key(rule: str, data: st.DataObject, value: typing.Any) -> None:
    key = data.draw(st.sampled_from(ROPE_KEYS[rule]))
    scaling = {"rope_type": rule, **VALID_ROPE[rule], key: value}
    raises_named(
        lambda: pe.rope_frequencies(8, scaling=scaling, max_position_embeddings=1024, seq_len=2048),
        key,
    )
    config = {"head_dim": 8, "max_position_embeddings": 1024, "rope_parameters": scaling}
    raises_named(lambda: pe.nn.RotaryEmbedding.from_config(config, seq_len=2048), key)


@FAST
@given(base=BAD_BASE.filter(lambda base: base is not None) | st.just(10**400))
def test_bad_rope_base_is_named(base: typing.Any) -> None:
    raises_named(lambda: pe.rope_frequencies(8, base=base), "base")
    raises_named(lambda: pe.nn.RotaryEmbedding(8, base=base), "base")
    raises_named(lambda: pe.rope_frequencies(8, scaling={"rope_theta": base}), "rope_theta")
    raises_named(
        lambda: pe.nn.RotaryEmbedding.from_config({"head_dim": 8, "rope_theta": base}),
        "rope_theta",
    )


@FAST
@given(
    scaling=st.dictionaries(
        st.one_of(st.text(max_size=8), st.sampled_from(["rope_type", "type", "factor"])),
        st.one_of(
            st.none(),
            st.integers(-5, 5),
            st.floats(),
            st.text(max_size=6),
            st.lists(st.floats(), max_size=3),
        ),
        max_size=4,
    ),
    layer_type=st.one_of(st.none(), st.text(max_size=4)),
)
def test_any_rope_dict_gives_a_result_or_a_clear_error(
    scaling: dict[str, typing.Any], layer_type: str | None
) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # unknown keys are named in a warning
        try:
            result = pe.rope_frequencies(
                16, scaling=scaling, max_position_embeddings=64, layer_type=layer_type
            )
        except (TypeError, ValueError) as error:
            assert str(error)
        else:
            assert np.isfinite(result.frequencies).all()
            assert math.isfinite(result.attention_factor)


@FAST
@given(
    key=st.sampled_from(["hidden_size", "num_attention_heads", "head_dim", "rotary_dim"]),
    value=st.one_of(NOT_AN_INTEGER, st.integers(-4, 0), st.just("64")),
)
def test_bad_head_settings_in_a_config_are_named(key: str, value: typing.Any) -> None:
    config: dict[str, typing.Any] = {"hidden_size": 64, "num_attention_heads": 4, key: value}
    if value is None:
        return  # a key set to None counts as absent, as in transformers
    raises_named(lambda: pe.nn.RotaryEmbedding.from_config(config), key)
