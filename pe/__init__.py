"""pe: sinusoidal positional encoding, derived, tested and exact.

The numpy core lives here and never imports torch; the torch modules are in
`pe.nn`.

>>> import pe
>>> pe.sinusoidal(3, d_model=2).round(3)
array([[ 0.   ,  1.   ],
       [ 0.841,  0.54 ],
       [ 0.909, -0.416]], dtype=float32)
"""

from __future__ import annotations

from pe._alibi import alibi_slopes
from pe._conventions import Convention, convention, conventions
from pe._frequencies import angles, frequencies, wavelengths
from pe._layout import convert, convert_layout, layout_permutation, permute_input_weight
from pe._properties import (
    Extrapolation,
    Uniqueness,
    extrapolation,
    norm_deviation,
    rotation_error,
    uniqueness,
    value_range,
)
from pe._rope import RopeFrequencies, rope_frequencies
from pe._rotation import rotation_blocks, rotation_matrix
from pe._similarity import Measure, closest_return, pair_distance, similarity
from pe._table import PrecisionWarning, sinusoidal
from pe._validation import MAX_POSITION

__all__ = [
    "Convention",
    "Extrapolation",
    "MAX_POSITION",
    "Measure",
    "PrecisionWarning",
    "RopeFrequencies",
    "Uniqueness",
    "alibi_slopes",
    "angles",
    "closest_return",
    "convention",
    "conventions",
    "convert",
    "convert_layout",
    "extrapolation",
    "frequencies",
    "layout_permutation",
    "norm_deviation",
    "pair_distance",
    "permute_input_weight",
    "rope_frequencies",
    "rotation_blocks",
    "rotation_error",
    "rotation_matrix",
    "similarity",
    "sinusoidal",
    "uniqueness",
    "value_range",
    "wavelengths",
]

__version__ = "0.1.0"
