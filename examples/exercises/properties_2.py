"""Exercise: the two closest distinct positions among the first 1,000, for d = 4."""

import numpy as np

import pe

table = pe.sinusoidal(1000, 4, dtype=np.float64)
squared = np.sum(table**2, axis=1)
distances = np.sqrt(np.maximum(squared[:, None] + squared[None, :] - 2 * table @ table.T, 0))
np.fill_diagonal(distances, np.inf)
p, q = np.unravel_index(np.argmin(distances), distances.shape)
print(f"closest: positions {min(p, q)} and {max(p, q)}, distance {distances[p, q]:.4f}")
print(f"Answer: {abs(int(q) - int(p))} {distances[p, q]:.4f}")
