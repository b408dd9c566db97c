"""Exercise: the attention weights a 64-wide concatenated encoding adds to a 512-wide model."""

D_MODEL, EXTRA, LAYERS = 512, 64, 6


def attention_weights(width: int) -> int:
    """Q, K, V and output projections: four width x width matrices."""
    return 4 * width * width


added = LAYERS * attention_weights(D_MODEL)
concatenated = LAYERS * attention_weights(D_MODEL + EXTRA)
print(f"added: {added:,} weights; concatenated: {concatenated:,} weights")
print(f"Answer: {concatenated - added} extra weights")
