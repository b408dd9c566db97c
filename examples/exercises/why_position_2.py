"""Exercise: p / L gives position 3 of 10 and position 6 of 20 the same feature; PE does not."""

import numpy as np

import pe

for position, length in ((3, 10), (6, 20)):
    fraction = position / length
    column_0 = pe.sinusoidal(np.array([position]), 4, dtype=np.float64)[0, 0]
    print(f"position {position} of {length}: p/L = {fraction}, PE column 0 = {column_0:.4f}")
first = pe.sinusoidal(np.array([3]), 4, dtype=np.float64)[0, 0]
second = pe.sinusoidal(np.array([6]), 4, dtype=np.float64)[0, 0]
print(f"Answer: {3 / 10} {6 / 20} {first:.4f} {second:.4f}")
