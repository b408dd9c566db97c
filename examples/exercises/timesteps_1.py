"""Exercise: the first entry and the first sine of Stable Diffusion's embedding of t = 500."""

import math

import pe

sd = pe.timestep_presets["stable-diffusion-1"]  # dim 320, cosines first, shift 0
row = sd.embedding(500.0)
half = sd.dim // 2  # 160: columns 0..159 are cosines, 160..319 sines
# Pair 0 turns at frequency 1, so its angle is t itself.
print(f"row[0]   = {row[0]:.6f}   cos(500) = {math.cos(500):.6f}")
print(f"row[160] = {row[half]:.6f}   sin(500) = {math.sin(500):.6f}")
print(f"Answer: {row[0]:.6f} {row[half]:.6f}")
