"""Torch modules over the numpy core: the only part of `pe` that imports torch.

Absolute encodings add a vector to each token (`SinusoidalPositionalEncoding`,
`LearnedPositionalEmbedding`); the others act on attention instead: a bias on
the scores (`RelativePositionBias`, `ALiBi`) or a rotation of queries and keys
(`RotaryEmbedding`; on grids of images and video, `AxialRotaryEmbedding`
and `MultimodalRotaryEmbedding`). The plain functions they are built from are
in `pe.nn.functional`, as torch's are in `torch.nn.functional`.

>>> import torch
>>> from pe.nn import SinusoidalPositionalEncoding
>>> SinusoidalPositionalEncoding(d_model=16)(torch.zeros(1, 4, 16)).shape
torch.Size([1, 4, 16])
"""

from __future__ import annotations

from pe._deprecation import moved_attribute as _moved_attribute
from pe.nn import functional as functional
from pe.nn._alibi import ALiBi
from pe.nn._grid_rotary import AxialRotaryEmbedding, MultimodalRotaryEmbedding
from pe.nn._grids import GridSinCosEmbedding
from pe.nn._learned import LearnedPositionalEmbedding
from pe.nn._relative import RelativePositionBias
from pe.nn._rotary import RotaryEmbedding
from pe.nn._sinusoidal import SinusoidalPositionalEncoding
from pe.nn._timesteps import SinusoidalTimestepEmbedding
from pe.nn._unrotated import NoRotation

__all__ = [
    "ALiBi",
    "AxialRotaryEmbedding",
    "GridSinCosEmbedding",
    "LearnedPositionalEmbedding",
    "MultimodalRotaryEmbedding",
    "NoRotation",
    "RelativePositionBias",
    "RotaryEmbedding",
    "SinusoidalPositionalEncoding",
    "SinusoidalTimestepEmbedding",
]

# The plain functions of 0.1.0 moved to pe.nn.functional; the old names work
# for one release, with a DeprecationWarning (see CHANGELOG.md).
_MOVED = {
    name: (f"pe.nn.functional.{name}", "pe.nn.functional", name)
    for name in ("convert_rotary_layout", "position_ids", "relative_position_bucket", "sinusoidal")
}


def __getattr__(name: str) -> object:
    return _moved_attribute(__name__, name, _MOVED)
