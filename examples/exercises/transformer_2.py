"""Exercise: the position of the next token after 9 cached ones, through `offset`."""

import numpy as np
import torch

import pe
from pe.nn import SinusoidalPositionalEncoding

cached = 9  # tokens 0..8 are in the cache, so the new token is at position 9
encode = SinusoidalPositionalEncoding(d_model=8, max_len=64)
row = encode(torch.zeros(1, 1, 8), offset=cached)[0, 0].numpy()
expected = pe.sinusoidal(np.array([cached]), 8)[0]
print("module row:     ", np.round(row, 4))
print("pe.sinusoidal(9):", np.round(expected, 4))
print(f"Answer: position {cached}, largest difference {np.abs(row - expected).max():.1e}")
