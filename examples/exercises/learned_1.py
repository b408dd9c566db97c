"""Exercise: the size of GPT-2's position table (1,024 positions, width 768)."""

from pe.nn import LearnedPositionalEmbedding

table = LearnedPositionalEmbedding(max_len=1024, d_model=768)
parameters = sum(p.numel() for p in table.parameters())
print(f"{parameters:,} parameters, {4 * parameters:,} bytes in float32")
print(f"Answer: {parameters} {4 * parameters}")
