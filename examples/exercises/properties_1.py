"""Exercise: the norm of PE(12345) for d = 100."""

import numpy as np

import pe

row = pe.sinusoidal(np.array([12345]), 100, dtype=np.float64)[0]
print(f"||PE(12345)|| = {np.linalg.norm(row):.6f}; sqrt(d/2) = {np.sqrt(50):.6f}")
print(f"Answer: {np.linalg.norm(row):.6f}")
