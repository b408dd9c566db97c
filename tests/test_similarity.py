from typing import Any

import numpy as np
import pytest
from reference import float64_table

import pe


def explicit(p: int, q: int, d_model: int) -> tuple[float, float, float]:
    a, b = float64_table(np.array([p, q]), d_model)
    return (
        float(a @ b),
        float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))),
        float(np.linalg.norm(a - b)),
    )


@pytest.mark.parametrize(("p", "q"), [(0, 0), (0, 1), (5, 3), (100, 4000), (-7, 12), (10, 10_010)])
@pytest.mark.parametrize("d_model", [2, 16, 128])
def test_measures_match_explicit_vectors(p: int, q: int, d_model: int) -> None:
    dot, cosine, distance = explicit(p, q, d_model)
    assert pe.analysis.similarity(p, q, d_model, measure="dot") == pytest.approx(dot, abs=1e-11)
    assert pe.analysis.similarity(p, q, d_model) == pytest.approx(cosine, abs=1e-12)
    assert pe.analysis.similarity(p, q, d_model, measure="distance") == pytest.approx(
        distance, abs=1e-9
    )


def test_distance_is_accurate_for_close_positions() -> None:
    # sqrt(d - 2 dot) would cancel catastrophically; the sine form does not.
    d_model = 512
    got = pe.analysis.similarity(0, 1, d_model, measure="distance")
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    expected = 2 * np.sqrt(np.sum(np.sin(omega / 2) ** 2))
    assert got == pytest.approx(expected, rel=1e-14)


def test_broadcasting_gives_matrices() -> None:
    positions = np.arange(20)
    matrix = pe.analysis.similarity(positions[:, None], positions[None, :], 32)
    assert matrix.shape == (20, 20)
    np.testing.assert_allclose(np.diag(matrix), 1.0)
    np.testing.assert_allclose(matrix, matrix.T)
    table = float64_table(positions, 32)
    np.testing.assert_allclose(matrix, table @ table.T / 16, atol=1e-12)


def test_similarity_errors() -> None:
    with pytest.raises(ValueError, match="measure must be"):
        pe.analysis.similarity(0, 1, 8, measure="euclid")  # type: ignore[arg-type]  # wrong on purpose
    with pytest.raises(ValueError, match=r"broadcast together; got shapes \(2,\) and \(3,\)"):
        pe.analysis.similarity([0, 1], [0, 1, 2], 8)
    with pytest.raises(TypeError, match="q must hold integers"):
        pe.analysis.similarity(0, [0.5], 8)
    with pytest.raises(TypeError, match="p must"):
        pe.analysis.similarity(True, 1, 8)


def test_pair_distance_is_the_chord_of_each_pair() -> None:
    d_model, offset = 10, 44
    rows = float64_table(np.array([0, offset]), d_model)
    chords = np.hypot(rows[1, 0::2] - rows[0, 0::2], rows[1, 1::2] - rows[0, 1::2])
    np.testing.assert_allclose(pe.analysis.pair_distance(offset, d_model), chords, atol=1e-14)
    assert pe.analysis.pair_distance([[1, 2]], d_model).shape == (1, 2, 5)


def test_closest_return_matches_brute_force() -> None:
    table = float64_table(np.arange(0, 1001), 4)
    chord = np.hypot(table[1:, 0] - table[0, 0], table[1:, 1] - table[0, 1])
    for limit in (10, 100, 1000):
        offset, gap = pe.analysis.closest_return(0, 4, max_offset=limit)
        assert offset == 1 + int(np.argmin(chord[:limit]))
        assert gap == pytest.approx(chord[offset - 1], abs=1e-12)


def test_closest_return_errors() -> None:
    with pytest.raises(ValueError, match=r"pair must lie in \[0, 3\] for d_model=8; got 4"):
        pe.analysis.closest_return(4, 8, max_offset=10)
    with pytest.raises(
        ValueError, match="max_offset must be an integer from 1 to 2147483647; got 0"
    ):
        pe.analysis.closest_return(0, 8, max_offset=0)
    with pytest.raises(TypeError, match="pair must be an integer"):
        pe.analysis.closest_return(0.0, 8, max_offset=10)  # type: ignore[arg-type]  # wrong on purpose


def test_closest_return_in_pieces_matches_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    from pe import _similarity

    whole = pe.analysis.closest_return(0, 8, max_offset=5000)
    monkeypatch.setattr(_similarity, "_PIECE", 37)
    assert pe.analysis.closest_return(0, 8, max_offset=5000) == whole
    offsets = np.arange(1, 5001)
    gaps = 2 * np.abs(np.sin(offsets / 2.0))  # pair 0 turns at omega = 1
    assert whole[0] == int(offsets[np.argmin(gaps)])
    assert abs(whole[1] - gaps.min()) < 1e-15
    with pytest.raises(ValueError, match="max_offset must be an integer from 1 to 2147483647"):
        pe.analysis.closest_return(0, 8, max_offset=2**40)  # was a MemoryError


@pytest.mark.parametrize(
    "call",
    [
        lambda: pe.analysis.similarity(np.arange(2**16)[:, None], np.arange(2**16), 8),
        lambda: pe.analysis.pair_distance(np.arange(2**20), 2**13),
    ],
)
def test_huge_broadcasts_are_refused_before_allocating(call: Any) -> None:
    with pytest.raises(ValueError, match="would have shape"):
        call()


def test_rotation_matrix_size_is_checked() -> None:
    with pytest.raises(ValueError, match="the rotation matrix would have shape"):
        pe.rotation_matrix(1, 2**24)


@pytest.mark.parametrize("measure", ["dot", "cosine", "distance"])
def test_long_offset_arrays_are_measured_in_pieces_with_the_same_sums(
    measure: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pieces of 7 offsets (3 pairs each) for a (5, 9) grid: the sums of one whole pass."""
    import pe._similarity

    monkeypatch.setattr(pe._similarity, "_ANGLES_PER_PIECE", 21)
    p = np.arange(5)[:, None] * 37
    q = np.arange(9)[None, :] * 1001
    got = pe.analysis.similarity(p, q, 6, measure=measure)
    omega = 10000.0 ** (-np.arange(3) / 3)  # 1 / 10000^(2i/d), d = 6
    angles = (q - p).astype(np.float64)[..., None] * omega
    if measure == "distance":
        expected = 2 * np.sqrt((np.sin(angles / 2) ** 2).sum(axis=-1))
    else:
        expected = np.cos(angles).sum(axis=-1) / (3 if measure == "cosine" else 1)
    assert got.shape == (5, 9)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13)
