"""Exercise: the score of q = k = (1, 1, 1, 1) at positions 10 and 7, and its closed form."""

import math

import torch

from pe.nn import RotaryEmbedding

rope = RotaryEmbedding(4)  # base 10,000, interleaved pairs
q = torch.ones(1, 4, dtype=torch.float64)
m, n = 10, 7
score = rope.rotate(q, offset=m)[0] @ rope.rotate(q, offset=n)[0]
# Each pair has squared length 2 and meets its copy at the angle (m - n)·θ_i.
theta = rope.frequencies
closed = sum(2 * math.cos((m - n) * float(t)) for t in theta)
print(f"(R_m q)·(R_n q) = {score.item():.6f}")
print(f"closed form     = {closed:.6f}")
print(f"Answer: {score.item():.6f}")
