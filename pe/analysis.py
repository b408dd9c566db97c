r"""Measuring the encoding: the quantities the guide's pages and the tests check.

The top of `pe` builds encodings; this namespace measures them. Each function
computes one quantity from explicit float64 encodings, so it can be compared
with its closed form:

* `similarity`, `pair_distance` and `closest_return`: how alike two positions'
  encodings are, which depends only on their offset;
* `value_range` and `norm_deviation`: every value lies in $[-1, 1]$ and every
  encoding has norm $\sqrt{d/2}$;
* `rotation_error`: a shift by $k$ is the rotation $M_k$;
* `uniqueness` (`Uniqueness`) and `extrapolation` (`Extrapolation`): no two
  positions share an encoding, and positions past a training length look like
  those inside it.

>>> import pe.analysis
>>> round(float(pe.analysis.similarity(0, 1, d_model=4)), 3)  # cosine of neighbours
0.77
>>> pe.analysis.norm_deviation(1000, d_model=64) < 1e-12  # every norm is sqrt(32)
True
"""

from __future__ import annotations

from pe._properties import (
    Extrapolation,
    Uniqueness,
    extrapolation,
    norm_deviation,
    rotation_error,
    uniqueness,
    value_range,
)
from pe._similarity import Measure, closest_return, pair_distance, similarity

__all__ = [
    "Extrapolation",
    "Measure",
    "Uniqueness",
    "closest_return",
    "extrapolation",
    "norm_deviation",
    "pair_distance",
    "rotation_error",
    "similarity",
    "uniqueness",
    "value_range",
]
