"""Torch modules over the numpy core: the only part of `pe` that imports torch.

>>> import torch
>>> from pe.nn import SinusoidalPositionalEncoding
>>> SinusoidalPositionalEncoding(d_model=16)(torch.zeros(1, 4, 16)).shape
torch.Size([1, 4, 16])
"""

from __future__ import annotations

from pe.nn._sinusoidal import SinusoidalPositionalEncoding, sinusoidal

__all__ = ["SinusoidalPositionalEncoding", "sinusoidal"]
