"""Exercise: T5's buckets for a few offsets (bidirectional, 32 buckets, max distance 128)."""

import torch

from pe.nn.functional import relative_position_bucket

offsets = torch.tensor([-1, 1, 7, 8, 20, 127, 128, 1000])  # key position - query position
buckets = relative_position_bucket(offsets, bidirectional=True, num_buckets=32, max_distance=128)
for offset, bucket in zip(offsets.tolist(), buckets.tolist(), strict=True):
    print(f"offset {offset:5d} -> bucket {bucket}")
print("Answer:", *buckets.tolist())
