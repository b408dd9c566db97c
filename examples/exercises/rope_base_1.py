"""Exercise: pairs that turn fully, critical dimension and slowest wavelength (d 128, base 1e6)."""

import numpy as np

import pe

head_dim, base, context = 128, 1_000_000.0, 32_768
wavelengths = pe.wavelengths(head_dim, base)  # 2π·base^(2i/d), positions per full turn
full_turns = int(np.count_nonzero(wavelengths <= context))
critical = pe.rope_critical_dimension(head_dim, context, base)
print(f"pairs whose wavelength fits in {context:,} positions: {full_turns} of {head_dim // 2}")
print(f"critical dimension 2·ceil((d/2)·log_b(T/2π)) = {critical}")
print(f"slowest wavelength 2π·b^((d-2)/d) = {wavelengths[-1]:,.0f} positions")
print(f"Answer: {full_turns} {critical} {wavelengths[-1]:.1f}")
