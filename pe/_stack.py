"""Where a warning should point: the user's line, the first frame outside pe and torch.

A fixed ``stacklevel`` fits one way of reaching the code that warns and not
another: ``module(x)`` passes through ``nn.Module.__call__``,
``RotaryEmbedding.from_config`` through a classmethod, a moved name through a
module ``__getattr__``. Python shows a `DeprecationWarning` only where it points
into the user's own script, so pointing into pe or torch would also hide it.
"""

from __future__ import annotations

import os
import sys

__all__ = ["outside_stacklevel"]

_PE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def outside_stacklevel() -> int:
    """Return the `warnings.warn` stacklevel of the first frame outside pe and torch.

    Call it in the call of `warnings.warn` itself: level 1 is the function
    that warns. torch's folder counts only where torch is imported already
    (pe's core never imports it).

    Examples
    --------
    >>> def warner():  # a function of the user's (a doctest's): it is level 1
    ...     return outside_stacklevel()
    >>> warner()
    1
    """
    inside = [_PE]
    torch_file = getattr(sys.modules.get("torch"), "__file__", None)
    if isinstance(torch_file, str):
        inside.append(os.path.dirname(os.path.abspath(torch_file)) + os.sep)
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(tuple(inside)):
        frame = frame.f_back
        level += 1
    return level
