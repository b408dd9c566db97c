"""Exercise: PE(5, 2) and PE(5, 3) for d = 8, by hand and with pe."""

import math

import numpy as np

import pe

divisor = 10000 ** (2 * 1 / 8)  # columns 2 and 3 are pair i = 1
angle = 5 / divisor
by_hand = (math.sin(angle), math.cos(angle))
table = pe.sinusoidal(np.array([5]), 8, dtype=np.float64)[0]
print(f"divisor {divisor:g}, angle {angle:g}")
print(f"by hand: {by_hand[0]:.6f} {by_hand[1]:.6f}; pe: {table[2]:.6f} {table[3]:.6f}")
print(f"Answer: {table[2]:.6f} {table[3]:.6f}")
