"""Exercise: for d = 6, which offset from 1 to 20 gives the largest PE(p) . PE(p + k)?"""

import math

import pe

dots = {k: float(pe.analysis.similarity(0, k, 6, measure="dot")) for k in range(1, 21)}
best = max(dots, key=dots.__getitem__)
print(f"offset 1: {dots[1]:.4f}; offset {best}: {dots[best]:.4f}")
print(
    f"at offset {best} pair 0 has made {best / (2 * math.pi):.3f} turns: nearly back at its start"
)
print(f"Answer: {best} {dots[best]:.4f}")
