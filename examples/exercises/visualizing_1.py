"""Exercise: in a 10-row heatmap of a 64-wide encoding, how many columns change by more than 0.1?"""

import numpy as np

import pe

table = pe.sinusoidal(10, 64, dtype=np.float64)
spread = table.max(axis=0) - table.min(axis=0)
busy = int(np.sum(spread > 0.1))
print("value range of each column:", np.round(spread[:24], 2), "...")
print(f"Answer: {busy}")
