"""Exercise: which of two identical keys does a RoPE query score higher, 1 or 1,000 back?"""

import torch

from pe.nn import RotaryEmbedding

rope = RotaryEmbedding(head_dim=64)  # base 10,000
vector = torch.ones(1, 64, dtype=torch.float64)  # the query and both keys hold the same content


def score(query_position: int, key_position: int) -> float:
    return float(
        rope.rotate(vector, offset=query_position) @ rope.rotate(vector, offset=key_position).T
    )


near = score(1000, 999)  # the copy one position back
far = score(1000, 0)  # the copy 1,000 positions back
print(f"offset 1: {near:.4f}, offset 1000: {far:.4f}, no rotation: {float(vector @ vector.T):.0f}")
print(f"Answer: {near:.4f} {far:.4f}")
