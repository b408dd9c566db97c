"""Exercise: a streaming cache drops 100 tokens and renumbers positions; re-rotate the keys?"""

import torch

from pe.nn import RotaryEmbedding

rope = RotaryEmbedding(head_dim=8)  # base 10,000
query = torch.ones(1, 8, dtype=torch.float64)
key = torch.ones(1, 8, dtype=torch.float64)

cached = rope.rotate(key, offset=120)  # the cache holds keys already turned to their positions
before = float(rope.rotate(query, offset=150) @ cached.T)  # query at 150, key at 120

# The first 100 tokens are evicted and positions restart: the query is now at 50.
query_only = float(rope.rotate(query, offset=50) @ cached.T)  # cached key left at 120
# A turned key can be turned again: by -100 it sits at 20, without the unturned key.
moved = rope.rotate(cached, offset=-100)
both = float(rope.rotate(query, offset=50) @ moved.T)

print(f"before eviction: {before:.6f}")
print(f"query renumbered, key not: {query_only:.6f}")
print(f"both renumbered (key turned by -100): {both:.6f}")
print(f"Answer: {before:.6f} {query_only:.6f} {both:.6f}")
