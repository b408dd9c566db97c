"""Exercise: shuffle five tokens and compare Attention(PX) with P Attention(X)."""

import numpy as np

rng = np.random.default_rng(0)
d_model = 8
tokens = rng.normal(size=(5, d_model))
w_q, w_k, w_v = (rng.normal(size=(d_model, d_model)) for _ in range(3))


def attention(x: np.ndarray) -> np.ndarray:
    scores = (x @ w_q) @ (x @ w_k).T / np.sqrt(d_model)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ (x @ w_v)


order = np.array([2, 0, 4, 1, 3])  # row r of PX is row order[r] of X
equivariance_gap = np.abs(attention(tokens[order]) - attention(tokens)[order]).max()
invariance_gap = np.abs(attention(tokens[order]) - attention(tokens)).max()
# The first gap is float64 round-off: its exact size depends on the machine's
# arithmetic, so print whether it is below a bound rather than its digits.
print(f"|Attention(PX) - P Attention(X)|  < 1e-12: {equivariance_gap < 1e-12}")
print(f"|Attention(PX) - Attention(X)|    = {invariance_gap:.3f}")
print("invariance would make the second number 0; the first is 0: attention is equivariant")
print(f"Answer: {int(equivariance_gap < 1e-12)} {invariance_gap:.3f}")
