"""Exercise: how many pairs of a 128-wide encoding turn once in fewer than 100 positions?"""

import numpy as np

import pe

wavelengths = pe.wavelengths(128)
count = int(np.sum(wavelengths < 100))
print(f"pair {count - 1}: {wavelengths[count - 1]:.2f}; pair {count}: {wavelengths[count]:.2f}")
print(f"Answer: {count}")
