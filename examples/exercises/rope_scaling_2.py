"""Exercise: YaRN's attention factor at s = 8, as a temperature and on one softmax."""

import math

import pe

frequencies, factor = pe.rope_frequencies(
    128,
    base=10000.0,
    scaling={"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 4096},
)
logit_scale = factor**2  # cos and sin scale both the query and the key
temperature = 1 / logit_scale


def weight_on_distinct_key(scale: float, keys: int = 4096, gap: float = 2.0) -> float:
    """Softmax weight on the one key whose logit is `gap` above the others."""
    top = math.exp(scale * gap)
    return top / (top + keys - 1)


before, after = weight_on_distinct_key(1.0), weight_on_distinct_key(logit_scale)
print(f"factor on cos and sin: {factor:.6f}")
print(f"logits times {logit_scale:.6f}, i.e. temperature {temperature:.6f}")
print(f"weight on the distinct key: {before:.6f} -> {after:.6f} ({after / before:.4f} times)")
print(f"Answer: {logit_scale:.6f} {temperature:.6f} {after / before:.4f}")
