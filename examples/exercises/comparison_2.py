"""Exercise: served at twice the training length, what does each method meet that is new?"""

import math

import torch

import pe
from pe.nn.functional import relative_position_bucket

trained, served, head_dim = 512, 1024, 64

# Learned: rows that do not exist.
missing_rows = served - trained

# RoPE: pairs whose angle over the served length passes the arc training showed.
theta = pe.rope_frequencies(head_dim).frequencies
past_arc = sum(
    min(served * t, 2 * math.pi) > min(trained * t, 2 * math.pi) + 1e-9 for t in theta.tolist()
)

# T5 bias: buckets the new offsets land in that no trained offset used.
trained_buckets = set(relative_position_bucket(torch.arange(-trained + 1, trained)).tolist())
served_buckets = set(relative_position_bucket(torch.arange(-served + 1, served)).tolist())
new_buckets = len(served_buckets - trained_buckets)

# ALiBi: the gentlest head's bias reaches values training never produced.
gentlest = float(pe.alibi_slopes(8).min())
lowest_trained, lowest_served = -gentlest * (trained - 1), -gentlest * (served - 1)

print(f"learned: {missing_rows} positions with no vector")
print(f"RoPE: {past_arc} of {head_dim // 2} pairs past their trained arc")
print(f"T5 bias: {new_buckets} buckets never used in training")
print(f"ALiBi: gentlest bias down to {lowest_served:g} (training: {lowest_trained:g})")
print(f"Answer: {missing_rows} {past_arc} {new_buckets} {lowest_served:g}")
