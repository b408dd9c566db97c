"""Self-attention without positions cannot tell word order; with them it can.

The "Why position matters" page includes the named sections and runs `main`;
`tests/test_examples.py` runs this file, so the assertions below hold.
"""

# --8<-- [start:attention]
import numpy as np


def self_attention(x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, w_v: np.ndarray) -> np.ndarray:
    """One head of scaled dot-product self-attention over the rows of x (seq, d)."""
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(k.shape[1])
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)  # softmax over each row
    return weights @ v


# --8<-- [end:attention]


# --8<-- [start:shuffle]
def shuffle_check(x: np.ndarray, weights: tuple[np.ndarray, ...], encoding: np.ndarray) -> float:
    """Largest gap between attention of shuffled tokens and shuffled attention output.

    The encoding belongs to the slots (position 0, 1, ...), not to the tokens, so it
    is added after the shuffle. Pass zeros for "no positional encoding".
    """
    order = np.random.default_rng(1).permutation(len(x))
    outputs_then_shuffled = self_attention(x + encoding, *weights)[order]
    shuffled_then_outputs = self_attention(x[order] + encoding, *weights)
    return float(np.abs(outputs_then_shuffled - shuffled_then_outputs).max())


# --8<-- [end:shuffle]


# --8<-- [start:word-order]
import pe


def random_weights(d_model: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Query, key and value matrices with entries of variance 1/d_model."""
    rng = np.random.default_rng(seed)
    return tuple(rng.normal(0, d_model**-0.5, (d_model, d_model)) for _ in range(3))


def word_order_gap(d_model: int = 16, with_positions: bool = False) -> float:
    """How differently 'dog' comes out of 'dog bites man' and 'man bites dog'."""
    rng = np.random.default_rng(2)
    vocabulary = {word: rng.normal(0, 1, d_model) for word in ("dog", "bites", "man")}
    first = np.stack([vocabulary[w] for w in ("dog", "bites", "man")])
    second = np.stack([vocabulary[w] for w in ("man", "bites", "dog")])
    if with_positions:
        first = first + pe.sinusoidal(3, d_model, dtype=np.float64)
        second = second + pe.sinusoidal(3, d_model, dtype=np.float64)
    weights = random_weights(d_model)
    dog_in_first = self_attention(first, *weights)[0]  # 'dog' is token 0 here
    dog_in_second = self_attention(second, *weights)[2]  # and token 2 here
    return float(np.abs(dog_in_first - dog_in_second).max())


# --8<-- [end:word-order]


# --8<-- [start:causal]
def causal_self_attention(
    x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, w_v: np.ndarray
) -> np.ndarray:
    """Self-attention in which row t sees only rows 0..t, as in a decoder (a causal mask)."""
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ k.T / np.sqrt(k.shape[1])
    earlier_or_same = np.tri(len(x), dtype=bool)  # row t: True for columns 0..t
    scores = np.where(earlier_or_same, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ v


def causal_word_order_gap(d_model: int = 16) -> float:
    """'dog' in 'dog bites man' and 'man bites dog' under a causal mask, with no positions."""
    rng = np.random.default_rng(2)  # the same vocabulary and weights as word_order_gap
    vocabulary = {word: rng.normal(0, 1, d_model) for word in ("dog", "bites", "man")}
    first = np.stack([vocabulary[w] for w in ("dog", "bites", "man")])
    second = np.stack([vocabulary[w] for w in ("man", "bites", "dog")])
    weights = random_weights(d_model)
    dog_in_first = causal_self_attention(first, *weights)[0]  # sees only itself
    dog_in_second = causal_self_attention(second, *weights)[2]  # sees all three words
    return float(np.abs(dog_in_first - dog_in_second).max())


# --8<-- [end:causal]


def main() -> dict[str, float]:
    d_model = 16
    x = np.random.default_rng(3).normal(0, 1, (6, d_model))
    weights = random_weights(d_model)
    results = {
        "shuffle, no positions": shuffle_check(x, weights, np.zeros_like(x)),
        "shuffle, with positions": shuffle_check(
            x, weights, pe.sinusoidal(6, d_model, dtype=np.float64)
        ),
        "word order, no positions": word_order_gap(d_model, with_positions=False),
        "word order, with positions": word_order_gap(d_model, with_positions=True),
        "word order, causal mask, no positions": causal_word_order_gap(d_model),
    }
    # Without positions attention is permutation-equivariant: the gaps are rounding.
    assert results["shuffle, no positions"] < 1e-12
    assert results["word order, no positions"] < 1e-12
    # With positions the order matters.
    assert results["shuffle, with positions"] > 1e-3
    assert results["word order, with positions"] > 1e-3
    # A causal mask alone breaks the symmetry: what a token sees depends on where it is.
    assert results["word order, causal mask, no positions"] > 1e-3
    return results


if __name__ == "__main__":
    for name, gap in main().items():
        print(f"{name:38s} {gap:.3g}")
