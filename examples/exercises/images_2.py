"""Exercise: the coordinate and the first entry of the last column of a resized grid."""

import pe

old, new = 14, 24
rows, columns = pe.grid_coordinates(new, scale=old / new)  # the range of the old grid kept
table = pe.grid_sincos(new, 64, scale=old / new)
last = new - 1  # token 23: row 0, the last column
print(f"column coordinate {columns[last]:.4f} (old grid ends at {old - 1})")
print(f"sin x of pair 0: {table[last, 0]:.6f}")
print(f"Answer: {columns[last]:.6f} {table[last, 0]:.6f}")
