"""Torch modules over the numpy core: the only part of `pe` that imports torch.

Absolute encodings add a vector to each token (`SinusoidalPositionalEncoding`,
`LearnedPositionalEmbedding`); the others act on attention instead: a bias on
the scores (`RelativePositionBias`, `ALiBi`) or a rotation of queries and keys
(`RotaryEmbedding`).

>>> import torch
>>> from pe.nn import SinusoidalPositionalEncoding
>>> SinusoidalPositionalEncoding(d_model=16)(torch.zeros(1, 4, 16)).shape
torch.Size([1, 4, 16])
"""

from __future__ import annotations

from pe.nn._alibi import ALiBi
from pe.nn._learned import LearnedPositionalEmbedding
from pe.nn._position_ids import position_ids
from pe.nn._relative import RelativePositionBias, relative_position_bucket
from pe.nn._rotary import RotaryEmbedding, convert_rotary_layout
from pe.nn._sinusoidal import SinusoidalPositionalEncoding, sinusoidal

__all__ = [
    "ALiBi",
    "LearnedPositionalEmbedding",
    "RelativePositionBias",
    "RotaryEmbedding",
    "SinusoidalPositionalEncoding",
    "convert_rotary_layout",
    "position_ids",
    "relative_position_bucket",
    "sinusoidal",
]
