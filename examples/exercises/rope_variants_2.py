"""Exercise: one rotary key per head in MLA, or one shared by all heads?"""

import torch

from pe.nn import RotaryEmbedding

# DeepSeek-V3's shapes (config.json): the cache per token and layer.
heads, latent, rope_dim = 128, 512, 64
shared = latent + rope_dim  # c_KV and one rotary key for all heads
per_head = latent + heads * rope_dim  # c_KV and a rotary key for every head
print(f"cache per token and layer: shared {shared}, per head {per_head}")
print(f"a rotary key per head costs {per_head / shared:.2f} times the cache")

# With one shared rotary key, do the heads still score differently? Four heads,
# each with its own rotary query projection, against the same cached keys.
generator = torch.Generator().manual_seed(0)
rope = RotaryEmbedding(rope_dim)
query_latent = torch.randn(1, 16, generator=generator, dtype=torch.float64)
w_qr = torch.randn(4, 16, rope_dim, generator=generator, dtype=torch.float64) / 4
key_source = torch.randn(10, rope_dim, generator=generator, dtype=torch.float64)
keys = rope.rotate(key_source)  # the shared rotary keys of 10 tokens, cached turned
queries = [rope.rotate(query_latent @ w_qr[h], offset=9) for h in range(4)]
scores = torch.stack([(q @ keys.T)[0] for q in queries])  # (heads, tokens)
spread = float((scores - scores[0]).abs().max())
print(f"largest difference between two heads' rotary scores: {spread:.4f}")
print(f"Answer: {shared} {per_head} {per_head / shared:.4f} {spread:.4f}")
