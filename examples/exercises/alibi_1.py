"""Exercise: how far away must a key be before each ALiBi head cuts its weight by e^10?"""

import pe

slopes = pe.alibi_slopes(8)  # the geometric slopes of an 8-head model
# The bias is -m·distance; it reaches -10 at distance 10 / m.
distances = [10 / float(m) for m in slopes]
for head, (slope, distance) in enumerate(zip(slopes, distances, strict=True)):
    print(f"head {head}: slope {float(slope):.8f}, bias -10 at distance {distance:g}")
print(f"Answer: {distances[0]:g} {distances[-1]:g}")
