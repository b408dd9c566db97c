"""Exercise: the wavelength of pair 3 of a 16-wide encoding."""

import math

import pe

wavelength = 2 * math.pi * 10000 ** (2 * 3 / 16)
print(f"by hand: {wavelength:.4f}; pe.wavelengths: {pe.wavelengths(16)[3]:.4f}")
print(f"Answer: {wavelength:.4f}")
