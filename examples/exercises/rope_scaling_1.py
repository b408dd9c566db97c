"""Exercise: which rule takes a 4k Llama-2-style head to 32k with no fine-tuning?"""

import math

import numpy as np

import pe

head_dim, base, trained, factor = 128, 10000.0, 4096, 8.0
target = int(factor * trained)
plain = pe.rope_frequencies(head_dim, base=base).frequencies
rules = {
    "linear": pe.rope_frequencies(
        head_dim, base=base, scaling={"rope_type": "linear", "factor": factor}
    ).frequencies,
    "ntk-aware": pe.rope_frequencies(
        head_dim, base=pe.ntk_aware_base(base, factor, head_dim)
    ).frequencies,
    "llama3": pe.rope_frequencies(
        head_dim,
        base=base,
        scaling={
            "rope_type": "llama3",
            "factor": factor,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": trained,
        },
    ).frequencies,
}


def pairs_past_arc(frequencies: np.ndarray) -> int:
    """Pairs whose angle over the target context passes the arc seen in training."""
    count = 0
    for new, old in zip(frequencies, plain, strict=True):
        seen = min(trained * old, 2 * math.pi)
        reached = min(target * new, 2 * math.pi)
        count += reached > seen + 1e-9
    return int(count)


answer = []
for name, frequencies in rules.items():
    past, fastest = pairs_past_arc(frequencies), float(frequencies[0])
    print(f"{name:10s} pairs past their arc: {past:2d}   pair 0: {fastest:.4f} rad per token")
    answer += [past, round(fastest, 4)]
print("Answer:", *answer)
