"""Exercise: the angle of pair 10 of Flux's axial RoPE for the image token at (0, 5, 9)."""

import numpy as np

import pe

flux = pe.grid_rope_presets["flux"]
rope = flux.rope()
axis_of_pair = np.repeat(np.arange(len(rope.sections)), rope.sections)
angles = pe.grid_rope_angles([[0, 5, 9]], rope)[0]
print(f"sections (pairs per axis): {rope.sections}")
print(f"pair 10 follows axis {axis_of_pair[10]} (0 index, 1 row, 2 column)")
print(f"its frequency: {rope.frequencies[10]:.6f}")
print(f"Answer: {angles[10]:.6f}")
