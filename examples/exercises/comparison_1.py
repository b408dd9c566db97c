"""Exercise: learned position parameters of a BERT-base-sized layer, method by method."""

import pe.nn

d_model, heads, max_len = 768, 12, 512
modules = {
    "sinusoidal": pe.nn.SinusoidalPositionalEncoding(d_model, max_len=max_len),
    "learned": pe.nn.LearnedPositionalEmbedding(max_len, d_model),
    "T5 relative bias": pe.nn.RelativePositionBias(heads),
    "RoPE": pe.nn.RotaryEmbedding(d_model // heads),
    "ALiBi": pe.nn.ALiBi(heads),
}
counts = []
for name, module in modules.items():
    count = sum(parameter.numel() for parameter in module.parameters())
    counts.append(count)
    print(f"{name:17s} {count:,} learned parameters")
print("Answer:", *counts)
