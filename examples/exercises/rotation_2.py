"""Exercise: PE(p) . PE(p + 3) for d = 4, at several p."""

import numpy as np

import pe

table = pe.sinusoidal(200, 4, dtype=np.float64)
dots = [float(table[p] @ table[p + 3]) for p in (0, 17, 150)]
print("PE(p) . PE(p + 3) at p = 0, 17, 150:", [round(v, 6) for v in dots])
print(f"Answer: {dots[0]:.6f}")
