"""Exercise: how many of Flux's 128 pairs turn less than once as sigma goes from 0 to 1."""

import numpy as np

import pe

flux = pe.timestep_presets["flux"]  # dim 256, shift 0: omega_i = 10000 ** (-i / 128)
omega = pe.timestep_frequencies(flux.dim, downscale_freq_shift=flux.downscale_freq_shift)
largest_angle = 1000.0 * omega  # Flux feeds t = 1000 * sigma, sigma in [0, 1]
slow = int(np.sum(largest_angle < 2 * np.pi))
print(f"pairs: {omega.size}, first pair under one turn: {omega.size - slow}")
print(f"Answer: {slow}")
