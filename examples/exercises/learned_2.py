"""Exercise: a BERT-style model (512 learned positions) asked for 4,096 tokens."""

import torch

from pe.nn import LearnedPositionalEmbedding

table = LearnedPositionalEmbedding(max_len=512, d_model=768)
try:
    table(torch.zeros(1, 4096, 768))
    refused = 0
except ValueError as error:
    refused = 1
    print("ValueError:", error)
new_rows = 4096 - table.max_len
print(f"rows with no trained vector: {new_rows}, {new_rows * table.d_model:,} new parameters")
print(f"Answer: {refused} {new_rows} {new_rows * table.d_model}")
