"""Exercise: the memory of a float32 table of 8,192 positions by 1,024 dimensions."""

import pe

table = pe.sinusoidal(8192, 1024)
mebibytes = table.nbytes / 2**20
print(f"dtype {table.dtype}, shape {table.shape}: {table.nbytes:,} bytes = {mebibytes:g} MiB")
print(f"Answer: {table.nbytes}")
