"""Exercise: rotate pair 0 of PE(5) by the offset 2 and land on PE(7)."""

import math

import numpy as np

import pe

k = 2
rotation = np.array([[math.cos(k), math.sin(k)], [-math.sin(k), math.cos(k)]])
pair_0 = pe.sinusoidal(np.array([5]), 4, dtype=np.float64)[0, :2]  # (sin 5, cos 5)
moved = rotation @ pair_0
target = pe.sinusoidal(np.array([7]), 4, dtype=np.float64)[0, :2]
print(f"M_2 PE(5)[:2] = ({moved[0]:.6f}, {moved[1]:.6f})")
print(f"PE(7)[:2]      = ({target[0]:.6f}, {target[1]:.6f})")
print(f"Answer: {moved[0]:.6f} {moved[1]:.6f}")
