"""Plain torch functions of `pe.nn`, where torch users look for them.

`pe.nn` holds the modules (as `torch.nn` does); this namespace holds the
functions they are built from (as `torch.nn.functional` does). Each returns a
tensor on the device and dtype it is asked for:

* `sinusoidal`: the sinusoidal table as a tensor (`pe.sinusoidal` is the
  numpy version, same numbers);
* `position_ids`: positions that skip padding, for left- and right-padded
  batches;
* `relative_position_bucket`: T5's bucket of each relative distance, which
  `RelativePositionBias` looks up;
* `timestep_embedding`: a diffusion model's sinusoidal embedding of its
  timesteps (`pe.timestep_embedding` is the numpy version);
* `grid_sincos`: the 2-D sin-cos table of a grid of image patches, and
  `resample_grid_embedding`: resize a grid's table as timm does;
* `grid_position_ids`: the coordinates of every cell of a grid (Flux's
  image ids);
* `mrope_position_ids` and `mrope_decode_position_ids`: M-RoPE's
  (temporal, height, width) ids of a prompt with images and videos, and of
  the tokens generated after it;
* `convert_rotary_layout`: reorder queries and keys between the
  ``"interleaved"`` and ``"concatenated"`` rotary layouts.

>>> import torch
>>> import pe.nn.functional as F
>>> F.sinusoidal(3, d_model=2).dtype
torch.float32
>>> F.position_ids(torch.tensor([[0, 0, 5, 6]]), pad_id=0)
tensor([[0, 0, 0, 1]])
"""

from __future__ import annotations

from pe.nn._grid_rotary import grid_position_ids, mrope_decode_position_ids, mrope_position_ids
from pe.nn._grids import grid_sincos, resample_grid_embedding
from pe.nn._position_ids import position_ids
from pe.nn._relative import relative_position_bucket
from pe.nn._rotary import convert_rotary_layout
from pe.nn._sinusoidal import sinusoidal
from pe.nn._timesteps import timestep_embedding

__all__ = [
    "convert_rotary_layout",
    "grid_position_ids",
    "grid_sincos",
    "mrope_decode_position_ids",
    "mrope_position_ids",
    "position_ids",
    "relative_position_bucket",
    "resample_grid_embedding",
    "sinusoidal",
    "timestep_embedding",
]
