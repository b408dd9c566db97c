"""Every public entry point rejects bad input with a clear TypeError or ValueError.

Each message must name the parameter and show the offending value.
"""

import math

import numpy as np
import pytest

import pe

BAD_D_MODEL = [
    (3, ValueError, "3"),
    (0, ValueError, "0"),
    (-4, ValueError, "-4"),
    (8.0, TypeError, "8.0"),
    ("8", TypeError, "'8'"),
    (True, TypeError, "True"),
    (None, TypeError, "None"),
]
BAD_BASE = [
    (1.0, ValueError, "1.0"),
    (0.5, ValueError, "0.5"),
    (-10000.0, ValueError, "-10000.0"),
    (math.nan, ValueError, "nan"),
    (math.inf, ValueError, "inf"),
    ("10000", TypeError, "'10000'"),
    (True, TypeError, "True"),
    (1 + 2j, TypeError, "(1+2j)"),
]
BAD_POSITIONS = [
    (-1, ValueError, "-1"),
    (2.5, TypeError, "2.5"),
    (math.nan, TypeError, "nan"),
    (True, TypeError, "True"),
    (None, TypeError, "None"),
    ("12", TypeError, "'12'"),
    (np.array([0.0, 1.0]), TypeError, "floating-point"),
    ([1, math.nan], TypeError, "floating-point"),
    (np.array([True, False]), TypeError, "bool"),
    (2**31, ValueError, str(2**31)),
    (np.array([0, -(2**40)]), ValueError, str(-(2**40))),
    ([[1, 2], [3]], TypeError, "could not read"),
]

FUNCTIONS_OF_D_MODEL = {
    "frequencies": lambda d_model=8, base=10000.0: pe.frequencies(d_model, base),
    "wavelengths": lambda d_model=8, base=10000.0: pe.wavelengths(d_model, base),
    "angles": lambda d_model=8, base=10000.0, positions=4: pe.angles(positions, d_model, base),
    "sinusoidal": lambda d_model=8, base=10000.0, positions=4: pe.sinusoidal(
        positions, d_model, base=base
    ),
}


@pytest.mark.parametrize("function", FUNCTIONS_OF_D_MODEL)
@pytest.mark.parametrize(("value", "error", "shown"), BAD_D_MODEL)
def test_bad_d_model(function, value, error, shown):
    with pytest.raises(error, match="d_model") as caught:
        FUNCTIONS_OF_D_MODEL[function](d_model=value)
    assert shown in str(caught.value)


@pytest.mark.parametrize("function", FUNCTIONS_OF_D_MODEL)
@pytest.mark.parametrize(("value", "error", "shown"), BAD_BASE)
def test_bad_base(function, value, error, shown):
    with pytest.raises(error, match="base") as caught:
        FUNCTIONS_OF_D_MODEL[function](base=value)
    assert shown in str(caught.value)
    assert "greater than 1" in str(caught.value)


@pytest.mark.parametrize("function", ["angles", "sinusoidal"])
@pytest.mark.parametrize(("value", "error", "shown"), BAD_POSITIONS)
def test_bad_positions(function, value, error, shown):
    with pytest.raises(error, match="positions") as caught:
        FUNCTIONS_OF_D_MODEL[function](positions=value)
    assert shown in str(caught.value)


@pytest.mark.parametrize("dtype", [np.int32, np.complex64, "float128", "bogus", object])
def test_bad_dtype(dtype):
    with pytest.raises(TypeError, match="dtype must be numpy float16, float32 or float64"):
        pe.sinusoidal(4, 8, dtype=dtype)


def test_messages_say_what_is_accepted():
    with pytest.raises(ValueError, match="positive even integer") as caught:
        pe.sinusoidal(4, 7)
    assert "got 7" in str(caught.value)
    with pytest.raises(ValueError, match="non-negative integer; got -3"):
        pe.sinusoidal(-3, 8)


def test_largest_position_is_accepted():
    table = pe.sinusoidal(np.array([pe.MAX_POSITION, -pe.MAX_POSITION]), 4)
    assert np.isfinite(table).all()
