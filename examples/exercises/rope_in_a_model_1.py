"""Exercise: the base dynamic NTK uses when each call recomputes it from its own length."""

from pe.nn import RotaryEmbedding

config = {
    "head_dim": 64,
    "num_attention_heads": 4,
    "max_position_embeddings": 512,
    "rope_theta": 10000.0,
    "rope_scaling": {"type": "dynamic", "factor": 4.0},
}
plain = RotaryEmbedding.from_config({**config, "rope_scaling": None}).frequencies
slowdowns = []
for length in (1000, 1024):  # the prompt's call, then the call that reaches position 1023
    rope = RotaryEmbedding.from_config(config, seq_len=length)
    slowdown = float(plain[-1] / rope.frequencies[-1])
    slowdowns.append(slowdown)
    print(f"call of {length} positions: slowest pair {slowdown:.4f} times slower")
print(f"Answer: {slowdowns[0]:.4f} {slowdowns[1]:.4f}")
