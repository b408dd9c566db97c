import math

import mpmath
import numpy as np
import pytest

import pe


@pytest.mark.parametrize("d_model", [2, 4, 8, 64, 512, 1024])
@pytest.mark.parametrize("base", [10000.0, 500000.0, 2.0])
def test_frequencies_match_the_definition(d_model: int, base: float) -> None:
    expected = np.array([base ** (-2 * i / d_model) for i in range(d_model // 2)])
    got = pe.frequencies(d_model, base)
    assert got.dtype == np.float64
    assert got.shape == (d_model // 2,)
    np.testing.assert_allclose(got, expected, rtol=4e-16, atol=0)


def test_frequencies_against_mpmath() -> None:
    d_model = 768
    got = pe.frequencies(d_model)
    with mpmath.workdps(40):
        for i in [0, 1, 17, 200, 383]:
            exact = mpmath.power(10000, -mpmath.mpf(2 * i) / d_model)
            assert abs(got[i] - float(exact)) <= 2 * np.spacing(float(exact))


def test_frequencies_fall_by_a_constant_ratio() -> None:
    omega = pe.frequencies(256)
    ratios = omega[1:] / omega[:-1]
    np.testing.assert_allclose(ratios, 10000.0 ** (-2 / 256), rtol=1e-14)
    assert omega[0] == 1.0


@pytest.mark.parametrize("d_model", [2, 16, 512])
def test_wavelength_range_is_two_pi_to_two_pi_base_power(d_model: int) -> None:
    wavelength = pe.wavelengths(d_model)
    assert wavelength[0] == pytest.approx(2 * math.pi, rel=1e-15)
    longest = 2 * math.pi * 10000.0 ** ((d_model - 2) / d_model)
    assert wavelength[-1] == pytest.approx(longest, rel=1e-14)
    assert wavelength[-1] < 2 * math.pi * 10000.0
    assert np.all(np.diff(wavelength) > 0)


def test_angles_are_position_times_frequency() -> None:
    positions = np.array([[0, 3], [1000, -7]])
    got = pe.angles(positions, 6, base=100.0)
    assert got.shape == (2, 2, 3)
    omega = np.array([1.0, 100.0 ** (-2 / 6), 100.0 ** (-4 / 6)])
    np.testing.assert_allclose(got, positions[..., None] * omega, rtol=1e-15)


def test_angles_of_a_length_start_at_zero() -> None:
    got = pe.angles(5, 4)
    np.testing.assert_array_equal(got[:, 0], np.arange(5.0))
    assert got.dtype == np.float64
