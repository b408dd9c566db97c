"""Exercise: left padding without position ids, under RoPE and under an added sinusoid."""

import torch

import pe
from pe.nn import RotaryEmbedding
from pe.nn.functional import position_ids

torch.manual_seed(0)
ids = torch.tensor([[0, 0, 0, 11, 12, 13, 14]])  # three pads on the left
right = position_ids(ids, pad_id=0)[0]  # 0 0 0 0 1 2 3
by_column = torch.arange(ids.shape[1])  # 0 1 2 3 4 5 6: the mistake
real = slice(3, None)
shift = int(by_column[3] - right[3])

# RoPE: rotate queries and keys of the real tokens at either set of positions.
rope = RotaryEmbedding(16)
q, k = torch.randn(7, 16, dtype=torch.float64), torch.randn(7, 16, dtype=torch.float64)


def rope_scores(positions: torch.Tensor) -> torch.Tensor:
    return (
        rope.rotate(q[real], positions=positions[real])
        @ rope.rotate(k[real], positions=positions[real]).T
    )


rope_gap = (rope_scores(by_column) - rope_scores(right)).abs().max().item()

# An added sinusoid: x + PE(position), then plain dot products.
x = torch.randn(7, 16, dtype=torch.float64)


def added_scores(positions: torch.Tensor) -> torch.Tensor:
    table = torch.from_numpy(pe.sinusoidal(positions[real].numpy(), d_model=16, dtype="float64"))
    h = x[real] + table
    return h @ h.T


added_gap = (added_scores(by_column) - added_scores(right)).abs().max().item()
print(f"first real token moved by {shift} positions")
print(f"RoPE: largest score change {rope_gap:.1e}")
print(f"added sinusoid: largest score change {added_gap:.3f}")
print(f"Answer: {shift} {rope_gap:.1e} {added_gap:.3f}")
