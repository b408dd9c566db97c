"""Exercise: which pairs of the page's model sweep arcs at 512 that 64 positions never showed."""

import math

import pe

HEAD_DIM, BASE, TRAINED, SERVED, FACTOR = 16, 10000.0, 64, 512, 8.0
RULES = {  # each rule: (base, scaling)
    "none": (BASE, None),
    "linear": (BASE, {"rope_type": "linear", "factor": FACTOR}),
    "ntk": (pe.ntk_aware_base(BASE, FACTOR, HEAD_DIM), None),
    "yarn": (
        BASE,
        {"rope_type": "yarn", "factor": FACTOR, "original_max_position_embeddings": TRAINED},
    ),
    "llama3": (
        BASE,
        {
            "rope_type": "llama3",
            "factor": FACTOR,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": TRAINED,
        },
    ),
}

trained = pe.rope_frequencies(HEAD_DIM, base=BASE).frequencies
arc = trained * TRAINED  # radians each pair sweeps over the trained length
counts = []
for name, (base, scaling) in RULES.items():
    served = pe.rope_frequencies(HEAD_DIM, base=base, scaling=scaling).frequencies
    # past an arc that never closed (the margin ignores rounding in the last bit)
    new = (served * SERVED > arc * (1 + 1e-12)) & (arc < 2 * math.pi)
    counts.append(int(new.sum()))
    print(f"{name:7s} pairs past their trained arc: {[int(i) for i in new.nonzero()[0]]}")
print("Answer:", " ".join(str(count) for count in counts))
