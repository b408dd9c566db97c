"""The quick start shown on the home page; `tests/test_examples.py` runs it.

Sections between ``--8<-- [start:NAME]`` and ``--8<-- [end:NAME]`` are what the
pages include, so the code on the site is exactly the code that was run.
"""

import numpy as np

# --8<-- [start:numpy]
import pe

table = pe.sinusoidal(128, d_model=64)  # positions 0..127, float32
assert table.shape == (128, 64)

# Any start position, e.g. the tokens after a 1000-token prompt:
later = pe.sinusoidal(np.arange(1000, 1016), d_model=64)
assert np.array_equal(later[0], pe.sinusoidal(1001, d_model=64)[1000])
# --8<-- [end:numpy]

# --8<-- [start:torch]
import torch

from pe.nn import SinusoidalPositionalEncoding

encode = SinusoidalPositionalEncoding(d_model=64, max_len=2048, dropout=0.1)
tokens = torch.randn(8, 100, 64)  # (batch, seq, d_model)
out = encode(tokens)  # tokens + PE[0:100], then dropout
assert out.shape == tokens.shape
# --8<-- [end:torch]
