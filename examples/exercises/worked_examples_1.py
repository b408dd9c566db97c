"""Exercise: for d = 6, is PE(3) closer (by dot product) to PE(4) or to PE(10)?"""

import numpy as np

import pe

table = pe.sinusoidal(11, 6, dtype=np.float64)
near, far = float(table[3] @ table[4]), float(table[3] @ table[10])
print(f"PE(3).PE(4) = {near:.4f}, PE(3).PE(10) = {far:.4f}")
print("closer:", "PE(10)" if far > near else "PE(4)")
print(f"Answer: {near:.4f} {far:.4f}")
