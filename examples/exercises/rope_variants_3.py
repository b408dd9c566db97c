"""Exercise: Llama 4's NoPE-layer temperature at a million tokens, and what it buys."""

import math

# transformers' Llama4TextConfig defaults (Llama 4 Scout): floor_scale and attn_scale.
floor_scale, attn_scale = 8192, 0.1
position = 999_999  # the last query of a 1,000,000-token context
keys = position + 1

# modeling_llama4.py: log1p(floor((position + 1) / floor_scale)) * attn_scale + 1
scale = 1 + attn_scale * math.log1p(math.floor((position + 1) / floor_scale))
# One key leading keys - 1 equal others by a lead Δ has weight 1 / (1 + (n-1) e^(-Δ·scale)).
# Half the weight: (n - 1) e^(-Δ·scale) = 1.
lead_unscaled = math.log(keys - 1)
lead_scaled = lead_unscaled / scale
print(f"query scale at position {position:,}: {scale:.4f}")
print(f"lead for half the attention: {lead_unscaled:.4f} unscaled, {lead_scaled:.4f} scaled")
print(f"Answer: {scale:.4f} {lead_unscaled:.4f} {lead_scaled:.4f}")
