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

from pe import analysis as analysis
from pe._alibi import alibi_slopes
from pe._axial import (
    GridRope,
    GridRopePreset,
    axial_rope,
    grid_positions,
    grid_rope_angles,
    grid_rope_presets,
)
from pe._config import POSITION_KEYS, LayerRope, ModelRope, PositionKey, read_config
from pe._conventions import Convention, conventions
from pe._conventions import lookup as _lookup  # noqa: F401 (pe.convention, deprecated)
from pe._deprecation import moved_attribute as _moved_attribute
from pe._explain import explain, explanation
from pe._frequencies import angles, frequencies, wavelengths
from pe._grids import GridLayout, grid_coordinates, grid_sincos
from pe._identify import (
    Identification,
    identify,
    identify_grid,
    identify_rope,
    identify_table,
    identify_timestep,
)
from pe._layout import convert_layout, layout_permutation
from pe._mrope import (
    InterleavedMrope,
    MropePositions,
    mrope,
    mrope_decode_positions,
    mrope_position_ids,
)
from pe._rope import RopeFrequencies, ntk_aware_base, rope_frequencies
from pe._rope_base import rope_critical_dimension, rope_decay_bound, rope_min_base
from pe._rotation import rotation_blocks, rotation_matrix
from pe._table import PrecisionWarning, sinusoidal
from pe._timesteps import (
    TimestepPreset,
    timestep_embedding,
    timestep_frequencies,
    timestep_presets,
)
from pe._validation import MAX_POSITION

__all__ = [
    "Convention",
    "GridLayout",
    "GridRope",
    "GridRopePreset",
    "Identification",
    "InterleavedMrope",
    "LayerRope",
    "MAX_POSITION",
    "ModelRope",
    "MropePositions",
    "POSITION_KEYS",
    "PositionKey",
    "PrecisionWarning",
    "RopeFrequencies",
    "TimestepPreset",
    "alibi_slopes",
    "angles",
    "axial_rope",
    "conventions",
    "convert_layout",
    "explain",
    "explanation",
    "frequencies",
    "grid_coordinates",
    "grid_positions",
    "grid_rope_angles",
    "grid_rope_presets",
    "grid_sincos",
    "identify",
    "identify_grid",
    "identify_rope",
    "identify_table",
    "identify_timestep",
    "layout_permutation",
    "mrope",
    "mrope_decode_positions",
    "mrope_position_ids",
    "ntk_aware_base",
    "read_config",
    "rope_critical_dimension",
    "rope_decay_bound",
    "rope_frequencies",
    "rope_min_base",
    "rotation_blocks",
    "rotation_matrix",
    "sinusoidal",
    "timestep_embedding",
    "timestep_frequencies",
    "timestep_presets",
    "wavelengths",
]

__version__ = "0.1.0"

# Names of 0.1.0 that moved: each still works for one release, with a
# DeprecationWarning naming its replacement (see CHANGELOG.md).
_MOVED = {
    name: (f"pe.analysis.{name}", "pe.analysis", name)
    for name in (
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
    )
} | {
    "convention": ("pe.conventions[name]", "pe", "_lookup"),
    "convert": ("pe.convert_layout (it takes convention names too)", "pe", "convert_layout"),
    "permute_input_weight": ("pe.convert_layout", "pe", "convert_layout"),
}


def __getattr__(name: str) -> object:
    return _moved_attribute(__name__, name, _MOVED)
