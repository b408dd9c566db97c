"""Exercise: the embedding std that balances sqrt(d) * embedding with PE at d = 256."""

import math

import numpy as np
import torch

import pe

d_model = 256
# ||sqrt(d) * e|| ~ sqrt(d) * std * sqrt(d) = std * d; ||PE(p)|| = sqrt(d / 2).
std = math.sqrt(d_model / 2) / d_model
torch.manual_seed(0)
embedding = torch.nn.Embedding(4096, d_model)
torch.nn.init.normal_(embedding.weight, mean=0.0, std=std)
scaled = embedding.weight.detach().numpy() * math.sqrt(d_model)
print(f"mean scaled row norm {np.linalg.norm(scaled, axis=1).mean():.3f}")
print(f"encoding norm        {np.linalg.norm(pe.sinusoidal(1, d_model)[0]):.3f}")
print(f"Answer: std = {std:.6f}")
