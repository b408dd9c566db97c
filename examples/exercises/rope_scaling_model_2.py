"""Exercise: what YaRN's and llama3's bounds, set in turns, do to a model trained at 64."""

import math

import pe

HEAD_DIM, BASE, TRAINED, FACTOR = 16, 10000.0, 64, 8.0
RULES = {
    "yarn": {"rope_type": "yarn", "factor": FACTOR, "original_max_position_embeddings": TRAINED},
    "llama3": {
        "rope_type": "llama3",
        "factor": FACTOR,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": TRAINED,
    },
}

trained = pe.rope_frequencies(HEAD_DIM, base=BASE).frequencies
turns = trained * TRAINED / (2 * math.pi)  # turns of each pair within the trained length
print("turns in 64 positions:", " ".join(f"{t:.2f}" for t in turns))
answer = []
for name, scaling in RULES.items():
    slower = trained / pe.rope_frequencies(HEAD_DIM, base=BASE, scaling=scaling).frequencies
    kept = int((abs(slower - 1) < 1e-9).sum())
    full = int((abs(slower - FACTOR) < 1e-9).sum())
    factors = " ".join(f"{s:.3f}" for s in slower)
    print(f"{name:6s} slower by: {factors} (kept {kept}, full {full})")
    answer += [kept, full]
print("Answer:", " ".join(str(count) for count in answer))
