"""Shapes in practice: broadcasting over the batch, the two layouts, sqrt(d) scaling.

The "Implementation" page shows the named sections, each a whole program, with
what it printed while the site was built; `tests/test_examples.py` runs this
file, so the assertions below hold.
"""

# --8<-- [start:broadcast]
import torch

from pe.nn.functional import sinusoidal

batch, seq_len, d_model = 8, 100, 64
x = torch.randn(batch, seq_len, d_model)  # (batch, seq, d_model)
table = sinusoidal(seq_len, d_model)  # (seq, d_model): one row per position
y = x + table  # broadcasting repeats the table over the batch
print(y.shape)
print(torch.allclose(y[3] - x[3], table, atol=1e-6))  # each sequence gets the same rows
# --8<-- [end:broadcast]
assert y.shape == (batch, seq_len, d_model)

# --8<-- [start:layouts]
import torch

from pe.nn import SinusoidalPositionalEncoding

d_model = 64
batch_first = SinusoidalPositionalEncoding(d_model, max_len=512)  # x: (batch, seq, d)
seq_first = SinusoidalPositionalEncoding(d_model, max_len=512, batch_first=False)  # (seq, batch, d)

x = torch.randn(8, 100, d_model)  # (batch, seq, d_model)
x_seq_first = x.transpose(0, 1)  # (seq, batch, d_model), as nn.Transformer's default
print(torch.equal(batch_first(x), seq_first(x_seq_first).transpose(0, 1)))
# --8<-- [end:layouts]
assert torch.equal(batch_first(x), seq_first(x_seq_first).transpose(0, 1))


# --8<-- [start:scaling]
import math

import torch

from pe.nn import SinusoidalPositionalEncoding


class EmbedAndEncode(torch.nn.Module):
    """Token embedding scaled by sqrt(d_model), plus the positional encoding."""

    def __init__(self, vocab_size: int, d_model: int, max_len: int = 4096) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(vocab_size, d_model)
        torch.nn.init.normal_(self.embed.weight, std=d_model**-0.5)  # as with tied weights
        self.encode = SinusoidalPositionalEncoding(d_model, max_len=max_len)
        self.scale = math.sqrt(d_model)

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        return self.encode(self.embed(token_ids) * self.scale)  # (batch, seq, d_model)


model = EmbedAndEncode(vocab_size=1000, d_model=64)
print(model(torch.randint(0, 1000, (2, 7))).shape)  # (batch, seq, d_model)
# --8<-- [end:scaling]
assert model(torch.randint(0, 1000, (2, 7))).shape == (2, 7, 64)
