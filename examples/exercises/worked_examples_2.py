"""Exercise: the Euclidean distance between PE(0) and PE(44) for d = 16."""

import numpy as np

import pe

table = pe.sinusoidal(45, 16, dtype=np.float64)
distance = float(np.linalg.norm(table[44] - table[0]))
print(f"||PE(44) - PE(0)|| = {distance:.4f}")
print(f"pe.analysis.similarity: {float(pe.analysis.similarity(0, 44, 16, measure='distance')):.4f}")
print(f"Answer: {distance:.4f}")
