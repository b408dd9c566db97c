"""Exercise: the coordinates and the first sin-y entry of token 100 of a 14 x 14 grid."""

import pe

rows, columns = pe.grid_coordinates(14)  # token k: row k // 14, column k % 14
table = pe.grid_sincos(14, 768)  # MAE layout: [sin x | cos x | sin y | cos y], 192 each
token = 100
print(f"row {rows[token]:g}, column {columns[token]:g}")
print(f"entry 384 = sin(row * 1) = {table[token, 384]:.6f}")
print(f"Answer: {columns[token]:g} {rows[token]:g} {table[token, 384]:.6f}")
