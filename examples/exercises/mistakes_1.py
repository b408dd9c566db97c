"""Exercise: the per-dimension exponent bug reproduces a notebook's PE(3).PE(4) at d = 6."""

import numpy as np

d_model = 6
columns = np.arange(d_model)


def buggy(position: int) -> np.ndarray:
    angles = position / 10000.0 ** (columns / d_model)  # the bug: j/d, not 2*(j//2)/d
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


print(f"Answer: {buggy(3) @ buggy(4):.4f} {buggy(3) @ buggy(10):.4f}")
