"""Exercise: the longest wavelength of a 512-wide encoding, right and with i in place of 2i."""

import math

d_model, base = 512, 10000.0
last = d_model // 2 - 1
right = 2 * math.pi * base ** (2 * last / d_model)
wrong = 2 * math.pi * base ** (last / d_model)
print(f"paper: {right:,.1f} positions; with i for 2i: {wrong:,.1f} positions")
print(f"Answer: {right:.1f} {wrong:.1f}")
