"""Exercise: a T5 encoder trained on 512 tokens reads 4,096. Which offsets can it tell apart?"""

import torch

from pe.nn.functional import relative_position_bucket

offsets = torch.arange(1, 4096)  # keys after the query, as far as the longer input reaches
buckets = relative_position_bucket(offsets, bidirectional=True, num_buckets=32, max_distance=128)
last = int(buckets.max())
first_in_last = int(offsets[buckets == last].min())
sharing = int((buckets == last).sum())
print(f"distinct buckets for offsets 1..4095: {len(set(buckets.tolist()))}")
print(f"the last bucket ({last}) starts at offset {first_in_last} and holds {sharing} offsets")
print(f"Answer: {first_in_last} {sharing}")
