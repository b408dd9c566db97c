import re
import warnings

import numpy as np
import pytest
from reference import float64_table, mp_value

import pe
from pe._table import FLOAT32_BOUND


@pytest.mark.parametrize("d_model", [2, 4, 6, 64, 130, 512])
@pytest.mark.parametrize("length", [0, 1, 7, 256, 257, 1000])
def test_float64_table_matches_the_formula(length: int, d_model: int) -> None:
    got = pe.sinusoidal(length, d_model, dtype=np.float64)
    assert got.shape == (length, d_model)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, float64_table(np.arange(length), d_model), rtol=0, atol=1e-12)


@pytest.mark.parametrize("start", [0, 1, 255, 256, 1000, 65_530, 2**20 + 3, 2**24 - 700, -300])
def test_float32_error_is_bounded_at_any_start(start: int) -> None:
    positions = np.arange(start, start + 600)
    got = pe.sinusoidal(positions, 512)
    assert got.dtype == np.float32
    error = np.abs(got.astype(np.float64) - float64_table(positions, 512)).max()
    assert error <= FLOAT32_BOUND


def test_float32_error_near_two_to_the_24_against_mpmath() -> None:
    d_model = 64
    positions = np.array([2**24 - 1, 2**24 - 2, 12_345_678, 9_999_999])
    got = pe.sinusoidal(positions, d_model)
    for row, position in enumerate(positions):
        for column in [0, 1, 2, 3, 10, 11, 40, 63]:
            exact = mp_value(int(position), column, d_model)
            assert abs(float(got[row, column]) - exact) <= FLOAT32_BOUND, (position, column)


def test_small_table_against_mpmath() -> None:
    # A float64 frequency is itself rounded, so the angle p * omega carries an
    # error of about p * omega * eps; allow a few of those.
    eps = np.finfo(np.float64).eps
    got = pe.sinusoidal(np.array([0, 1, 2, 50, 999]), 8, dtype=np.float64)
    for row, position in enumerate([0, 1, 2, 50, 999]):
        for column in range(8):
            angle = position * 10000.0 ** (-2 * (column // 2) / 8)
            tolerance = 4 * eps * (1 + angle)
            assert abs(got[row, column] - mp_value(position, column, 8)) <= tolerance


def test_known_values() -> None:
    table = pe.sinusoidal(2, 4, dtype=np.float64)
    np.testing.assert_array_equal(table[0], [0.0, 1.0, 0.0, 1.0])
    assert table[1, 0] == pytest.approx(np.sin(1.0), abs=1e-16)
    assert table[1, 1] == pytest.approx(np.cos(1.0), abs=1e-16)
    assert table[1, 2] == pytest.approx(np.sin(0.01), abs=1e-16)


def test_rows_do_not_depend_on_the_request() -> None:
    full = pe.sinusoidal(5000, 96)
    np.testing.assert_array_equal(pe.sinusoidal(np.arange(1000, 1016), 96), full[1000:1016])
    scattered = np.array([4999, 3, 3, 700, 0, 256, 255])
    np.testing.assert_array_equal(pe.sinusoidal(scattered, 96), full[scattered])


def test_scattered_positions_of_any_shape() -> None:
    positions = np.array([[5, 1, 70000], [-9, 0, 4]])
    got = pe.sinusoidal(positions, 10, dtype=np.float64)
    assert got.shape == (2, 3, 10)
    np.testing.assert_allclose(got, float64_table(positions, 10), rtol=0, atol=1e-11)


def test_many_scattered_positions_use_chunks() -> None:
    rng = np.random.default_rng(0)
    positions = rng.integers(-(2**22), 2**22, size=10_000)
    got = pe.sinusoidal(positions, 32)
    assert np.abs(got - float64_table(positions, 32)).max() <= FLOAT32_BOUND


def test_positions_accept_lists_and_unsigned_integers() -> None:
    np.testing.assert_array_equal(pe.sinusoidal([0, 1, 2], 4), pe.sinusoidal(3, 4))
    unsigned = np.arange(3, dtype=np.uint16)
    np.testing.assert_array_equal(pe.sinusoidal(unsigned, 4), pe.sinusoidal(3, 4))
    assert pe.sinusoidal([], 4).shape == (0, 4)


def test_base_changes_the_frequencies() -> None:
    got = pe.sinusoidal(10, 4, base=100.0, dtype=np.float64)
    np.testing.assert_allclose(got, float64_table(np.arange(10), 4, base=100.0), atol=1e-15)


def test_values_are_bounded_and_pairs_have_unit_norm() -> None:
    table = pe.sinusoidal(np.arange(-5000, 5000, 7), 64, dtype=np.float64)
    assert np.abs(table).max() <= 1.0
    pair_norms = table[:, 0::2] ** 2 + table[:, 1::2] ** 2
    np.testing.assert_allclose(pair_norms, 1.0, atol=1e-15)


def test_float16_output_is_rounded_once_from_float32() -> None:
    got = pe.sinusoidal(3000, 64, dtype=np.float16)
    assert got.dtype == np.float16
    reference = float64_table(np.arange(3000), 64)
    # Rounding to float16 costs at most half its spacing (2**-12 near 1) plus the
    # float32 error of the computation.
    assert np.abs(got.astype(np.float64) - reference).max() <= 2.0**-12 + FLOAT32_BOUND


def test_float16_warns_when_positions_collide() -> None:
    # d_model = 2 keeps one pair; positions 2 and 712 differ by 710, which is
    # 113 turns of 2*pi plus 6e-5, below float16's resolution near these values.
    rounded = float64_table(np.arange(1000), 2).astype(np.float16)
    assert len({row.tobytes() for row in rounded}) < 1000  # a collision exists
    with pytest.warns(pe.PrecisionWarning, match=r"positions \d+ and \d+ get identical"):
        pe.sinusoidal(1000, 2, dtype=np.float16)


def test_float16_warning_names_a_real_collision() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = pe.sinusoidal(1000, 2, dtype=np.float16)
    match = re.search(r"positions (\d+) and (\d+) get identical", str(caught[0].message))
    assert match is not None
    first, second = int(match.group(1)), int(match.group(2))
    assert first != second
    np.testing.assert_array_equal(table[first], table[second])


def test_float16_without_collisions_is_silent() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pe.sinusoidal(4096, 64, dtype=np.float16)


def test_no_temporary_larger_than_the_output() -> None:
    import tracemalloc

    length, d_model = 16_384, 512
    output = length * d_model * 4
    tracemalloc.start()
    table = pe.sinusoidal(length, d_model)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert table.nbytes == output
    assert peak - output < 0.1 * output


def test_cached_factors_serve_every_configuration() -> None:
    configurations = [(64, 10000.0), (32, 10000.0), (64, 500.0), (64, 10000.0), (8, 2.0)]
    for d_model, base in configurations * 2:
        got = pe.sinusoidal(np.arange(300, 900), d_model, base=base)
        expected = float64_table(np.arange(300, 900), d_model, base=base)
        assert np.abs(got - expected).max() <= FLOAT32_BOUND


def test_results_are_independent_arrays() -> None:
    first = pe.sinusoidal(600, 16)
    first[:] = 7.0
    second = pe.sinusoidal(600, 16)
    assert np.abs(second).max() <= 1.0


def test_factor_caches_are_bounded_by_bytes() -> None:
    from pe import _frequencies, _table

    for cache in (_table._step_table, _table._block_phasors, _frequencies.cached_frequencies):
        cache.cache_clear()
    pe.sinusoidal(4, 2**18)  # step table alone: 256 x 2**17 complex64 = 256 MiB
    held = _table._step_table.bytes + _table._block_phasors.bytes
    assert held + _frequencies.cached_frequencies.bytes <= 2 * _table.CACHE_BYTES + 16 * 2**20
    assert _table._step_table.bytes == 0  # too large to keep at all
    # small tables are still cached: the same read-only factors come back
    omega = _frequencies.cached_frequencies(64, 10000.0)
    assert _table.step_factors(256, omega) is not None
    assert _table._step_table(omega.tobytes(), "<c8") is _table._step_table(omega.tobytes(), "<c8")
    for width in range(2048, 2048 + 2 * 40, 2):  # 40 tables of 2 MiB: the oldest go
        _table.step_factors(1, _frequencies.cached_frequencies(width, 10000.0))
    assert _table._step_table.bytes <= _table.CACHE_BYTES


def test_docstrings_state_the_bound_that_is_checked() -> None:
    # The module's and the function's docstrings state the float32 bound in words;
    # FLOAT32_BOUND is the value every test checks: they must agree.
    import pe._table

    stated = re.compile(r"(?:within|below) (\d(?:\.\d+)?e-\d+)")
    for doc in (pe._table.__doc__, pe._table.sinusoidal.__doc__):
        values = stated.findall(doc or "")
        assert values, "the bound is no longer stated"
        assert {float(value) for value in values} == {FLOAT32_BOUND}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_negative_positions_mirror_the_positive_ones_bit_for_bit(dtype: type) -> None:
    # sin is odd and cos even: PE(-p) is PE(p) with its sine columns negated, exactly.
    positions = np.arange(1, 700)
    ahead = pe.sinusoidal(positions, 10, dtype=dtype)
    behind = pe.sinusoidal(-positions, 10, dtype=dtype)
    assert (behind[:, 1::2] == ahead[:, 1::2]).all()
    assert (behind[:, 0::2] == -ahead[:, 0::2]).all()
    # A run that crosses zero gives the same rows as the two halves asked apart.
    across = pe.sinusoidal(np.arange(-299, 300), 10, dtype=dtype)
    assert (across[:299] == behind[298::-1][:299]).all()
    assert (across[299:] == pe.sinusoidal(300, 10, dtype=dtype)).all()


def test_float64_error_at_small_negative_positions_matches_the_positive_side() -> None:
    # Splitting -3 as -16384 + 16381 cancelled two large angles: 9e-14 off in float64.
    positions = np.arange(-600, 601)
    got = pe.sinusoidal(positions, 64, dtype=np.float64)
    # The reference is odd and even too (np.sin(-x) == -np.sin(x)), so the error
    # profile must be symmetric; it was about 10 times larger on the negative side.
    error = np.abs(got - float64_table(positions, 64)).max(axis=1)
    assert (error[:600] == error[:600:-1]).all()
    exact = [mp_value(p, column, 64) for p in (-3, -1) for column in (2, 3, 20, 21)]
    ours = got[[597, 597, 597, 597, 599, 599, 599, 599], [2, 3, 20, 21] * 2]
    assert np.abs(ours - np.array(exact)).max() < 4e-16


def test_one_row_of_a_very_wide_table_costs_about_one_row() -> None:
    # The factor tables hold BLOCK offsets and 64 block phasors per pair: for one
    # row of width 2**18 they were 256 + 128 times the output (15 s and 8 GiB at
    # 2**22). Only the factors a request uses are computed now.
    import tracemalloc

    tracemalloc.start()
    row = pe.sinusoidal(np.array([1000]), 2**18)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 16 * row.nbytes  # a few float64 and complex128 rows of factors
    columns = [0, 1, 2**17 - 2, 2**17 - 1, 2**18 - 2, 2**18 - 1]
    exact = [mp_value(1000, column, 2**18) for column in columns]
    assert np.abs(row[0, columns] - np.array(exact)).max() <= FLOAT32_BOUND
    # and scattered rows are the bits that runs (from other starts) of the same width give
    scattered = pe.sinusoidal(np.array([300, 5, 300]), 2**18)
    assert (scattered[[0, 2]] == pe.sinusoidal(np.arange(299, 301), 2**18)[1]).all()
    assert (scattered[1] == pe.sinusoidal(np.arange(5, 7), 2**18)[0]).all()


def test_wide_factors_are_the_cached_bits_for_every_run_and_scatter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A table too wide for the factor cache computes only the factors it uses
    # (slices of rows for a run, a gather of distinct multiples for a scatter).
    # With the cache forced off, every request must still give the bits of the
    # cached tables: every run of offsets, every shape of scattered positions.
    from pe import _frequencies, _table

    positions = np.concatenate([np.arange(-40, 1300), [70_000, 5, 5, 2**20 + 17, -257]])
    runs = [(0, 1), (15, 17), (16, 32), (3, 256), (255, 256), (5, 301), (0, 1300), (-40, 600)]
    cached = {run: pe.sinusoidal(np.arange(*run), 64) for run in runs}
    scattered = pe.sinusoidal(positions, 64, dtype=np.float64)
    omega = _frequencies.cached_frequencies(64, 10000.0)
    table = _table._step_table(omega.tobytes(), "<c16")
    monkeypatch.setattr(_table, "CACHE_BYTES", 0)
    for start in range(0, 256, 5):
        for stop in range(start + 1, 257, 7):
            assert (_table.step_rows(range(start, stop), omega) == table[start:stop]).all()
    for run in runs:
        assert (pe.sinusoidal(np.arange(*run), 64) == cached[run]).all(), run
    assert (pe.sinusoidal(positions, 64, dtype=np.float64) == scattered).all()


def test_caches_keyed_by_a_run_keep_few_entries() -> None:
    from pe import _table

    _table._run_heads.cache_clear()
    for offset in range(0, 200 * 256, 256):  # a decoder: a new start every call
        pe.sinusoidal(np.arange(offset, offset + 3), 64)
    assert len(_table._run_heads._entries) <= _table.RUN_CACHE_ENTRIES
