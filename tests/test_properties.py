from typing import Any

import numpy as np
import pytest
from conftest import count_checks
from reference import float64_table

import pe


def test_value_range_is_within_minus_one_and_one() -> None:
    low, high = pe.analysis.value_range(np.arange(-100_000, 100_000, 13), 64)
    assert -1.0 <= low < -0.999
    assert 0.999 < high <= 1.0


def test_norm_deviation_is_rounding() -> None:
    assert pe.analysis.norm_deviation(50_000, 256) < 1e-11
    assert pe.analysis.norm_deviation([], 8) == 0.0


def test_rotation_error_is_rounding_and_detects_a_wrong_offset() -> None:
    assert pe.analysis.rotation_error(np.arange(0, 5000, 3), [1, 2, 50, -7], 32) < 1e-11
    # The check is not vacuous: the true next rows are far from the rows two ahead.
    table = float64_table(np.arange(0, 100), 32)
    wrong = np.abs(table[:-1] @ pe.rotation_matrix(2, 32).T - table[1:]).max()
    assert wrong > 0.5


@pytest.mark.parametrize(("length", "d_model"), [(300, 4), (200, 2), (150, 16)])
def test_uniqueness_matches_all_pairs(length: int, d_model: int) -> None:
    table = float64_table(np.arange(length), d_model)
    distances = np.linalg.norm(table[:, None, :] - table[None, :, :], axis=-1)
    distances[np.arange(length), np.arange(length)] = np.inf
    p, q = np.unravel_index(np.argmin(distances), distances.shape)
    result = pe.analysis.uniqueness(length, d_model)
    assert result.min_distance == pytest.approx(distances[p, q], abs=1e-12)
    assert result.offset == abs(int(q) - int(p))


def test_uniqueness_needs_two_positions() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        pe.analysis.uniqueness(1, 8)


def test_extrapolation_against_brute_force() -> None:
    train, test, d_model = 64, 200, 8
    result = pe.analysis.extrapolation(train, test, d_model, window=10)
    inside = float64_table(np.arange(train), d_model)
    outside = float64_table(np.arange(train, test), d_model)
    nearest = np.linalg.norm(outside[:, None, :] - inside[None, :, :], axis=-1).min()
    assert result.min_distance_to_training == pytest.approx(nearest, abs=1e-9)
    assert result.profile_deviation < 1e-12
    assert result.max_abs_value <= 1.0


def test_extrapolation_errors() -> None:
    with pytest.raises(ValueError, match="train_length=100, test_length=100"):
        pe.analysis.extrapolation(100, 100, 8)
    with pytest.raises(TypeError, match="test_length"):
        pe.analysis.extrapolation(10, 20.0, 8)  # type: ignore[arg-type]  # wrong on purpose


def test_each_argument_is_checked_once_on_its_way_down(monkeypatch: pytest.MonkeyPatch) -> None:
    # The analysis helpers check d_model and base at their edge and call the unchecked
    # cores of the table, the rotation and the frequencies: count the checks in every
    # module on the way down.
    import pe._conventions
    import pe._frequencies
    import pe._properties
    import pe._rotation
    import pe._similarity
    import pe._table

    modules = (pe._properties, pe._rotation, pe._similarity, pe._table, pe._frequencies)
    calls = count_checks(monkeypatch, modules, ("check_d_model", "check_base"))
    for call in (
        lambda: pe.analysis.value_range(10, 8),
        lambda: pe.analysis.norm_deviation(np.arange(3, 9), 8),
        lambda: pe.analysis.rotation_error(10, [1, -2, 5], 8),
        lambda: pe.analysis.extrapolation(10, 30, 8),
        lambda: pe.analysis.uniqueness(10, 8),
        lambda: pe.analysis.similarity(0, [1, 2], 8),
        lambda: pe.analysis.pair_distance([1, 2], 8),
        lambda: pe.analysis.closest_return(1, 8, max_offset=20),
        lambda: pe.rotation_blocks(3, 8),
        lambda: pe.rotation_matrix(3, 8),
    ):
        calls.clear()
        call()
        assert sorted(calls) == ["check_base", "check_d_model"]
    widths: list[int] = []
    fairseq = pe.conventions["fairseq"]
    original_width = type(fairseq)._check_width

    def width(self: Any, d_model: int) -> None:
        widths.append(d_model)
        original_width(self, d_model)

    monkeypatch.setattr(type(fairseq), "_check_width", width)
    fairseq.columns(8)
    assert widths == [8]


def test_rotation_error_reads_a_bare_integer_as_one_offset() -> None:
    # Its siblings (similarity, pair_distance) read a bare integer as one position:
    # rotation_error(0, 10**7, 2) read 10**7 as a count of offsets and ran for minutes.
    single = pe.analysis.rotation_error(np.arange(100), 10**7, 8)
    assert single == pe.analysis.rotation_error(np.arange(100), [10**7], 8)
    assert single < 1e-8  # angles near 1e7: float64 rounding of 1e7 * omega


def test_rotation_error_checks_every_shift_before_working() -> None:
    with pytest.raises(ValueError, match=r"p \+ offset must lie in .*2147483648"):
        pe.analysis.rotation_error([0, 1], [5, 2**31 - 1], 8)
    with pytest.raises(ValueError, match="the shifted encodings would have shape"):
        pe.analysis.rotation_error(2**20, np.arange(2**10), 8)
    with pytest.raises(ValueError, match="the rotation matrix would have shape"):
        pe.analysis.rotation_error(1, 1, 2**16)


@pytest.mark.parametrize("positions", [0, [], np.zeros((3, 0), dtype=np.int64)])
def test_value_range_of_no_positions_is_a_named_error(positions: Any) -> None:
    # numpy's message was "zero-size array to reduction operation minimum".
    with pytest.raises(ValueError, match="positions must hold at least one position"):
        pe.analysis.value_range(positions, 8)
    assert pe.analysis.norm_deviation(positions, 8) == 0.0


def test_measurements_walk_through_long_tables_in_bounded_memory() -> None:
    # extrapolation at 2**18 positions peaked at 4 GiB: its 1,024 new rows at a time
    # each met every training row in four full-size temporaries. Bound: the two
    # float64 tables it keeps (training rows and one piece of new ones) plus a few
    # pieces of 2**20 values, whatever the lengths.
    import tracemalloc

    train, test, d_model = 2**13, 2**14, 16
    tracemalloc.start()
    result = pe.analysis.extrapolation(train, test, d_model, window=8)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < train * d_model * 8 + 6 * 2**20 * 8
    assert result.max_abs_value <= 1.0
    assert result.min_distance_to_training > 0
    tracemalloc.start()
    low, high = pe.analysis.value_range(2**20, 16)  # a 128 MiB float64 table, never built
    deviation = pe.analysis.norm_deviation(2**20, 16)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 4 * 2**20 * 8
    assert -1 <= low < -0.999
    assert 0.999 < high <= 1
    assert deviation < 1e-12


def test_extrapolation_matches_a_direct_computation() -> None:
    # Independent float64 reference: every new row against every training row.
    train, test, d_model = 700, 1500, 8
    inside = float64_table(np.arange(train), d_model)
    outside = float64_table(np.arange(train, test), d_model)
    distances = np.sqrt(((outside[:, None, :] - inside[None, :, :]) ** 2).sum(axis=-1))
    result = pe.analysis.extrapolation(train, test, d_model, window=5)
    assert abs(result.min_distance_to_training - distances.min()) < 1e-6
    assert abs(result.max_abs_value - np.abs(outside).max()) < 1e-12


def test_extrapolation_window_is_checked() -> None:
    with pytest.raises(ValueError, match=r"window must keep train_length \+ window within"):
        pe.analysis.extrapolation(10, 20, 8, window=2**31 - 5)
    with pytest.raises(ValueError, match=r"the similarity profile .* would have shape"):
        pe.analysis.extrapolation(10, 20, 2**10, window=2**30)


def test_uniqueness_in_pieces_matches_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    from pe import _properties

    whole = pe.analysis.uniqueness(3000, 2)
    monkeypatch.setattr(_properties, "_PIECE", 64)  # 32 offsets a piece at d_model 2
    assert pe.analysis.uniqueness(3000, 2) == whole
    reference = float64_table(np.arange(3000), 2)
    gaps = np.sqrt(((reference[1:] - reference[0]) ** 2).sum(axis=1))
    assert whole.offset == int(np.argmin(gaps)) + 1
    with pytest.raises(ValueError, match=r"the distances .* would have shape"):
        pe.analysis.uniqueness(2**31 - 1, 8)
