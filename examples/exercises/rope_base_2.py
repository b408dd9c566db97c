"""Exercise: choose a base to fine-tune a d = 128, base 1e4, 4,096-position model to 65,536."""

import numpy as np

import pe

head_dim, old_base, trained, target = 128, 10_000.0, 4_096, 65_536


def first_failure(base: float, context: int) -> int | None:
    """First distance m < context where sum_i cos(m·θ_i) < 0 (Men et al.), or None."""
    theta = pe.frequencies(head_dim, base)
    m = np.arange(context, dtype=np.float64)
    sums = np.cos(np.multiply.outer(m, theta)).sum(axis=-1)
    negative = np.flatnonzero(sums < 0)
    return int(negative[0]) if negative.size else None


ntk = pe.ntk_aware_base(old_base, target / trained, head_dim)  # b·s^(d/(d-2))
smallest = pe.rope_min_base(target, head_dim)
for name, base in (("old base", old_base), ("NTK-aware", ntk), ("smallest passing", smallest)):
    failure = first_failure(base, target)
    verdict = "passes" if failure is None else f"fails at distance {failure:,}"
    slowest = pe.wavelengths(head_dim, base)[-1]
    print(f"{name:>16}: base {base:11,.0f}, slowest wavelength {slowest:13,.0f}, {verdict}")
print("Choose a base of at least the smallest passing one, then fine-tune at 65,536.")
print(f"Answer: {smallest:.4g}")
