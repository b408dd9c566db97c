"""A complete, tiny causal Transformer (a decoder) that takes any position method of `pe.nn`.

It shows where each method enters: absolute encodings are added to the scaled
token embeddings before the first layer; rotary embeddings rotate the queries
and keys inside attention; relative biases and ALiBi are added to the attention
scores. The pages include the named sections; `tests/test_examples.py` runs this
file. `benchmarks/trained.py` trains a larger sibling built the same way (two
layers, heads 64 wide, a passkey task) for the comparison page's measurements.
"""

from __future__ import annotations

# --8<-- [start:embed]
import math

import torch
from torch import nn

from pe.nn import LearnedPositionalEmbedding, SinusoidalPositionalEncoding


class Embed(nn.Module):
    """Token embeddings scaled by sqrt(d_model), plus an absolute encoding if any."""

    def __init__(self, vocab: int, d_model: int, method: str, max_len: int) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, d_model)
        nn.init.normal_(self.tokens.weight, std=d_model**-0.5)
        self.scale = math.sqrt(d_model)  # unit-variance components, like the encoding's
        self.position: nn.Module | None = None
        if method == "sinusoidal":
            self.position = SinusoidalPositionalEncoding(d_model, max_len=None)
        elif method == "learned":
            self.position = LearnedPositionalEmbedding(max_len, d_model)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.tokens(ids) * self.scale  # (batch, seq, d_model)
        return x if self.position is None else self.position(x)  # absolute: added here


# --8<-- [end:embed]


# --8<-- [start:attention]
import math

import torch
from torch import nn

from pe.nn import ALiBi, RelativePositionBias, RotaryEmbedding


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention; rotary, T5 bias or ALiBi act in here."""

    def __init__(self, d_model: int, heads: int, method: str) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, d_model // heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.rotary = RotaryEmbedding(self.head_dim) if method == "rope" else None
        self.bias: nn.Module | None = None
        if method == "t5":
            self.bias = RelativePositionBias(heads, bidirectional=False)
        elif method == "alibi":
            self.bias = ALiBi(heads)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, d_model = x.shape
        q, k, v = self.qkv(x).view(batch, seq, 3, self.heads, self.head_dim).unbind(dim=2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (batch, heads, seq, head_dim)
        if self.rotary is not None:
            q, k = self.rotary(q, k)  # rotary: queries and keys turned by their positions
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        if self.bias is not None:
            scores = scores + self.bias(seq, seq)  # relative bias or ALiBi: on the scores
        future = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1)
        weights = scores.masked_fill(future, float("-inf")).softmax(dim=-1)
        mixed = (weights @ v).transpose(1, 2).reshape(batch, seq, d_model)
        return self.out(mixed)


# --8<-- [end:attention]


# --8<-- [start:model]
METHODS = ("none", "sinusoidal", "learned", "t5", "rope", "alibi")


class TinyTransformer(nn.Module):
    """Embedding, one pre-norm layer (attention and MLP), and a next-token head."""

    def __init__(
        self, vocab: int, method: str, d_model: int = 32, heads: int = 2, max_len: int = 512
    ) -> None:
        super().__init__()
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}; got {method!r}")
        self.embed = Embed(vocab, d_model, method, max_len)
        self.attention_norm = nn.LayerNorm(d_model)
        self.attention = CausalSelfAttention(d_model, heads, method)
        self.mlp_norm = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(
            nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model)
        )
        self.final_norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embed(ids)
        x = x + self.attention(self.attention_norm(x))
        x = x + self.mlp(self.mlp_norm(x))
        return self.head(self.final_norm(x))  # (batch, seq, vocab) logits


# --8<-- [end:model]


def check_model(method: str) -> None:
    """Shapes, causality, and the length each method can run at."""
    torch.manual_seed(0)
    model = TinyTransformer(vocab=11, method=method, max_len=64).eval()
    ids = torch.randint(0, 11, (3, 20))
    logits = model(ids)
    assert logits.shape == (3, 20, 11)
    changed = ids.clone()
    changed[:, 15:] = (changed[:, 15:] + 1) % 11
    # causal: changing later tokens leaves the earlier predictions alone
    torch.testing.assert_close(model(changed)[:, :15], logits[:, :15])
    if method == "learned":  # a learned table ends at max_len
        try:
            model(torch.randint(0, 11, (1, 65)))
        except ValueError:
            pass
        else:
            raise AssertionError("a learned table must refuse positions beyond max_len")
    else:
        assert model(torch.randint(0, 11, (1, 200))).shape == (1, 200, 11)


if __name__ == "__main__":
    # --8<-- [start:demo]
    for method in METHODS:
        model = TinyTransformer(vocab=11, method=method)
        print(f"{method:10s} logits of shape", tuple(model(torch.randint(0, 11, (3, 20))).shape))
    # --8<-- [end:demo]
    for name in METHODS:
        check_model(name)
    print("every method runs, and every model is causal")
