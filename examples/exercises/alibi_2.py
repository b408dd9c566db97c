"""Exercise: can an ALiBi model trained on 2,048 tokens find a fact 8,192 tokens back?"""

import math

import pe

slopes = pe.alibi_slopes(8)
gentlest = float(slopes.min())  # the head that looks farthest
distance = 8192
bias = -gentlest * distance
# Against a key at distance 0 with the same content score, the far key's weight is
# smaller by e^bias: its content score must win back |bias| logits to be seen.
print(f"gentlest slope {gentlest}, bias at distance {distance}: {bias:g}")
print(f"weight ratio far/near at equal content: {math.exp(bias):.3e}")
print(f"Answer: {bias:g} {math.exp(bias):.3e}")
