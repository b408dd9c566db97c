"""Exercise: load an interleaved-RoPE head into concatenated-RoPE code; what must move?"""

import math

import torch

from pe.nn import RotaryEmbedding
from pe.nn.functional import convert_rotary_layout

head_dim, length = 8, 6
generator = torch.Generator().manual_seed(0)
x = torch.randn(length, 16, generator=generator, dtype=torch.float64)
w_q, w_k, w_v = (
    torch.randn(16, head_dim, generator=generator, dtype=torch.float64) for _ in range(3)
)


def attend(w_q: torch.Tensor, w_k: torch.Tensor, w_v: torch.Tensor, layout: str) -> torch.Tensor:
    rope = RotaryEmbedding(head_dim, layout=layout)
    q, k = rope.rotate(x @ w_q), rope.rotate(x @ w_k)
    weights = torch.softmax(q @ k.T / math.sqrt(head_dim), dim=-1)
    return weights @ (x @ w_v)


trained = attend(w_q, w_k, w_v, "interleaved")
# Reorder the output columns of W_Q and W_K (the rows of a torch Linear weight); W_V stays.
moved_q = convert_rotary_layout(w_q, "interleaved", "concatenated")
moved_k = convert_rotary_layout(w_k, "interleaved", "concatenated")
converted = attend(moved_q, moved_k, w_v, "concatenated")
unconverted = attend(w_q, w_k, w_v, "concatenated")
order = convert_rotary_layout(torch.arange(head_dim), "interleaved", "concatenated")
print(f"new order of W_Q's and W_K's columns: {order.tolist()}")
print(f"largest output change, W_Q and W_K reordered: {(converted - trained).abs().max():.1e}")
print(f"largest output change, nothing reordered:     {(unconverted - trained).abs().max():.4f}")
change = (converted - trained).abs().max().item()
print("Answer: " + " ".join(str(j) for j in order.tolist()) + f" {change:.1e}")
