"""Exercise: choosing seq_len for a dynamic-NTK model served up to 2,048 positions."""

import math

from pe.nn import RotaryEmbedding

config = {
    "head_dim": 64,
    "num_attention_heads": 4,
    "max_position_embeddings": 512,
    "rope_theta": 10000.0,
    "rope_scaling": {"type": "dynamic", "factor": 4.0},
}
plain = RotaryEmbedding.from_config({**config, "rope_scaling": None}).frequencies
answer = []
for seq_len in (512, 2048):
    rope = RotaryEmbedding.from_config(config, seq_len=seq_len)
    slowdown = float(plain[-1] / rope.frequencies[-1])
    # Turns of the slowest pair over 2,048 positions, against those seen in training.
    turns = 2048 * float(rope.frequencies[-1]) / (2 * math.pi)
    trained = 512 * float(plain[-1]) / (2 * math.pi)
    print(
        f"seq_len {seq_len}: slowest pair {slowdown:.4f} times slower, "
        f"{turns:.5f} turns over 2,048 positions (training saw {trained:.5f})"
    )
    answer.append(round(slowdown, 4))
print("Answer:", *answer)
