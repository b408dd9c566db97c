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

from pe._frequencies import angles, frequencies, wavelengths
from pe._table import PrecisionWarning, sinusoidal
from pe._validation import MAX_POSITION

__all__ = [
    "MAX_POSITION",
    "PrecisionWarning",
    "angles",
    "frequencies",
    "sinusoidal",
    "wavelengths",
]

__version__ = "0.1.0"
