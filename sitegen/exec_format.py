"""markdown-exec's Python formatter, each block started as a fresh interpreter would.

markdown-exec runs every block of every page in the build's one process, so a
block that calls ``np.set_printoptions`` would change how every later block
prints, while a reader who copies a later block runs it alone and sees numpy's
defaults. This wrapper restores the default print options of numpy (and of
torch, once a block has imported it) before each block. ``mkdocs.yml`` names
it as the ``format`` of the ``python`` fence.
"""

from __future__ import annotations

import sys
from typing import Any

import markdown_exec
import numpy as np

_NUMPY_DEFAULTS = np.get_printoptions()


def formatter(*args: Any, **kwargs: Any) -> Any:
    """Reset print options, then format the block with markdown-exec."""
    np.set_printoptions(**_NUMPY_DEFAULTS)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_printoptions(profile="default")
    return markdown_exec.formatter(*args, **kwargs)
