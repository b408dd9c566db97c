"""Precomputed table versus on-the-fly encoding in `pe.nn`: time per forward and memory.

Run with ``make bench`` (or ``python benchmarks/modes.py``); writes
``benchmarks/results/modes.json``, which the Implementation page reads.
"""

from __future__ import annotations

import torch
from _common import best_of, environment, write

from pe.nn import SinusoidalPositionalEncoding

THREADS = 2
D_MODEL = 512
BATCH = 8
MAX_LEN = 8192
LENGTHS = (128, 512, 2048, 8192)
REPEATS = 15


def main() -> None:
    torch.set_num_threads(THREADS)
    precomputed = SinusoidalPositionalEncoding(D_MODEL, max_len=MAX_LEN).eval()
    on_the_fly = SinusoidalPositionalEncoding(D_MODEL, max_len=None).eval()
    rows = []
    with torch.inference_mode():
        for length in LENGTHS:
            x = torch.randn(BATCH, length, D_MODEL)
            table_s = best_of(lambda x=x: precomputed(x), REPEATS)
            fly_s = best_of(lambda x=x: on_the_fly(x), REPEATS)
            add_s = best_of(lambda x=x: x + x[0], REPEATS)  # the addition alone, for scale
            rows.append(
                {
                    "seq_len": length,
                    "precomputed_ms": table_s * 1e3,
                    "on_the_fly_ms": fly_s * 1e3,
                    "addition_only_ms": add_s * 1e3,
                    "on_the_fly_extra_bytes": length * D_MODEL * 4,
                }
            )
            print(
                f"seq {length:5d}: table {table_s * 1e3:7.3f} ms   "
                f"on the fly {fly_s * 1e3:7.3f} ms   addition alone {add_s * 1e3:7.3f} ms"
            )
    payload = {
        "d_model": D_MODEL,
        "batch": BATCH,
        "max_len": MAX_LEN,
        "repeats": REPEATS,
        "table_bytes": MAX_LEN * D_MODEL * 4,
        "rows": rows,
        **environment(THREADS),
    }
    print(f"wrote {write('modes', payload).name}")


if __name__ == "__main__":
    main()
