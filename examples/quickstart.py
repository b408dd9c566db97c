"""The quick start shown on the home page; `tests/test_examples.py` runs it.

Sections between ``--8<-- [start:NAME]`` and ``--8<-- [end:NAME]`` are what the
pages include, so the code on the site is exactly the code that was run. Each
section is a whole program (its own imports), and the page shows what it prints,
captured while the site was built.
"""

# --8<-- [start:numpy]
import numpy as np

import pe

table = pe.sinusoidal(128, d_model=64)  # positions 0..127, float32
print(table.shape, table.dtype)

# Any start position, e.g. the tokens after a 1000-token prompt:
later = pe.sinusoidal(np.arange(1000, 1016), d_model=64)
print(np.array_equal(later[0], pe.sinusoidal(1001, d_model=64)[1000]))
# --8<-- [end:numpy]

# --8<-- [start:torch]
import torch

from pe.nn import SinusoidalPositionalEncoding

encode = SinusoidalPositionalEncoding(d_model=64, max_len=2048, dropout=0.1)
tokens = torch.randn(8, 100, 64)  # (batch, seq, d_model)
out = encode(tokens)  # tokens + PE[0:100], then dropout
print(out.shape)
# --8<-- [end:torch]
