import numpy as np
import pytest
from reference import float64_table

import pe


def expected_block(offset: int, omega: float) -> np.ndarray:
    c, s = np.cos(offset * omega), np.sin(offset * omega)
    return np.array([[c, s], [-s, c]])


@pytest.mark.parametrize("offset", [0, 1, 7, -13, 1000])
def test_blocks_are_the_rotation_by_k_omega(offset: int) -> None:
    d_model = 16
    omega = np.array([10000.0 ** (-2 * i / d_model) for i in range(d_model // 2)])
    blocks = pe.rotation_blocks(offset, d_model)
    assert blocks.shape == (8, 2, 2)
    for i in range(8):
        np.testing.assert_allclose(blocks[i], expected_block(offset, omega[i]), atol=1e-13)


def test_block_entries_are_entries_of_pe_k() -> None:
    d_model, offset = 12, 37
    row = float64_table(np.array([offset]), d_model)[0]
    blocks = pe.rotation_blocks(offset, d_model)
    for i in range(d_model // 2):
        sin, cos = row[2 * i], row[2 * i + 1]
        np.testing.assert_allclose(blocks[i], [[cos, sin], [-sin, cos]], atol=1e-14)


@pytest.mark.parametrize("d_model", [2, 8, 64])
@pytest.mark.parametrize("offset", [1, 5, 64, -20, 999])
def test_matrix_maps_every_row_k_positions_ahead(d_model: int, offset: int) -> None:
    positions = np.arange(-50, 3000, 7)
    table = float64_table(positions, d_model)
    shifted = float64_table(positions + offset, d_model)
    matrix = pe.rotation_matrix(offset, d_model)
    np.testing.assert_allclose(table @ matrix.T, shifted, atol=1e-11)


def test_matrix_is_block_diagonal() -> None:
    matrix = pe.rotation_matrix(3, 8)
    mask = np.kron(np.eye(4), np.ones((2, 2)))
    assert np.all(matrix[mask == 0] == 0)


def test_group_structure() -> None:
    d_model = 32
    m = {k: pe.rotation_matrix(k, d_model) for k in (-5, 0, 3, 5, 8)}
    np.testing.assert_allclose(m[0], np.eye(d_model), atol=0)
    np.testing.assert_allclose(m[3] @ m[5], m[8], atol=1e-13)
    np.testing.assert_allclose(m[-5], m[5].T, atol=1e-15)
    np.testing.assert_allclose(m[5] @ m[5].T, np.eye(d_model), atol=1e-14)
    assert np.linalg.det(m[5]) == pytest.approx(1.0)


def test_errors() -> None:
    with pytest.raises(TypeError, match=r"offset must be an integer; got 1\.5"):
        pe.rotation_matrix(1.5, 8)  # type: ignore[arg-type]  # wrong on purpose
    with pytest.raises(ValueError, match="d_model"):
        pe.rotation_blocks(1, 9)
    with pytest.raises(ValueError, match="base"):
        pe.rotation_matrix(1, 8, base=0.5)
