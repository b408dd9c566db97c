"""The formula written out directly in float64, as a textbook would.

The formula page includes the ``textbook`` section; `tests/test_examples.py`
runs this file, and the assertion at the end checks it against `pe`.
"""

# --8<-- [start:textbook]
import numpy as np


def textbook_encoding(length: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """PE[p, 2i] = sin(p / base**(2i/d)), PE[p, 2i+1] = cos(p / base**(2i/d))."""
    positions = np.arange(length, dtype=np.float64)[:, None]  # (L, 1)
    pair_index = np.arange(d_model // 2, dtype=np.float64)[None, :]  # (1, d/2)
    divisor = base ** (2 * pair_index / d_model)  # one divisor per pair
    angles = positions / divisor  # (L, d/2)
    table = np.empty((length, d_model))
    table[:, 0::2] = np.sin(angles)  # even columns: sin
    table[:, 1::2] = np.cos(angles)  # odd columns: cos, same angle
    return table


# --8<-- [end:textbook]

if __name__ == "__main__":
    import pe

    for length, d_model in [(1, 2), (50, 16), (2048, 512)]:
        expected = textbook_encoding(length, d_model)
        got = pe.sinusoidal(length, d_model, dtype=np.float64)
        assert np.allclose(got, expected, rtol=0, atol=1e-12), (length, d_model)
    print("textbook_encoding agrees with pe.sinusoidal")
