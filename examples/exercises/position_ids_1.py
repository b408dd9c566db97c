"""Exercise: position ids of a left-padded and a right-padded row."""

import torch

from pe.nn.functional import position_ids

ids = torch.tensor([[0, 0, 0, 11, 12, 13], [21, 22, 23, 0, 0, 0]])  # pad id 0
positions = position_ids(ids, pad_id=0)
print(positions)
real = ids != 0
print(
    "positions of the real tokens:", positions[0][real[0]].tolist(), positions[1][real[1]].tolist()
)
print("Answer:", *positions[0].tolist(), *positions[1].tolist())
