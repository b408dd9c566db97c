"""RoPE in a few lines: the score of a rotated query and key depends only on their offset.

The RoPE page includes the named section (a whole program, run while the site
is built, its output shown under it); `tests/test_examples.py` runs this file,
and `tests/test_reader.py` runs the section as a reader would, from the page.
"""

# --8<-- [start:scores]
import torch

from pe.nn import RotaryEmbedding

rope = RotaryEmbedding(head_dim=64)  # θ_i = 10000^(-2i/64), the sinusoidal frequencies
generator = torch.Generator().manual_seed(0)
query = torch.randn(1, 64, generator=generator)  # one token's query (seq=1, head_dim)
key = torch.randn(1, 64, generator=generator)  # and one token's key


def score(query_position: int, key_position: int) -> float:
    """The attention score (before scaling) of the query at one position, the key at another."""
    rotated_query = rope.rotate(query, offset=query_position)
    rotated_key = rope.rotate(key, offset=key_position)
    return float(rotated_query @ rotated_key.T)


# Offset 2 at three places in the sequence, then offset 1:
for query_position, key_position in ((2, 0), (100, 98), (5000, 4998), (2, 1)):
    offset = query_position - key_position
    value = score(query_position, key_position)
    print(f"query at {query_position:>4}, key at {key_position:>4}, offset {offset}: {value:.4f}")
# --8<-- [end:scores]

if __name__ == "__main__":
    same = [score(p, p - 2) for p in (2, 100, 5000, 123_456)]
    assert max(same) - min(same) < 1e-3 * max(1.0, abs(same[0]))
    assert abs(score(2, 0) - score(2, 1)) > 1e-2
