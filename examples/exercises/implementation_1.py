"""Exercise: the row the module adds to the first token when offset=4."""

import numpy as np
import torch

from pe.nn import SinusoidalPositionalEncoding

encode = SinusoidalPositionalEncoding(d_model=8)
out = encode(torch.zeros(2, 3, 8), offset=4)
row = out[0, 0].numpy()
print("first token of the first sequence:", np.round(row, 6))
print("Answer:", " ".join(f"{v:.6f}" for v in row))
