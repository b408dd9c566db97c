"""A layer the configuration leaves unrotated: from_config gives a module that turns nothing.

The page "Configuration files, read as the model reads them" includes the named
section (run while the site is built, its output shown under it);
`tests/test_examples.py` runs this file, and `tests/test_reader.py` runs the
section as a reader would, from the page.
"""

# --8<-- [start:nope]
import torch

from pe.nn import RotaryEmbedding

smollm3 = {
    "model_type": "smollm3",
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "num_hidden_layers": 8,
    "rope_theta": 5000000.0,
    "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0],  # 1: rotated, 0: not (NoPE)
}
for layer in (2, 3):
    rope = RotaryEmbedding.from_config(smollm3, layer=layer)
    print(f"layer {layer}: {type(rope).__name__}, {rope.rotary_dim} dimensions turned")
print(rope.reason)

q = k = torch.randn(1, 16, 5, 128)  # (batch, heads, seq, head_dim)
q_out, k_out = rope(q, k)
print("layer 3 leaves q and k as they are:", torch.equal(q_out, q) and torch.equal(k_out, k))
# --8<-- [end:nope]

if __name__ == "__main__":
    turned, _ = RotaryEmbedding.from_config(smollm3, layer=2)(q, k)
    assert not torch.equal(turned, q)
