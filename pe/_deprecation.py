"""Old names that keep working for one release, with a warning naming the new one.

A package ``__init__`` lists its moved names in a dict and hands lookups of them
to `moved_attribute` from its module ``__getattr__`` (PEP 562), so the old
names stay out of ``dir()``, ``__all__`` and the API reference while old code
still runs. The warning is a `DeprecationWarning`: the readers of `pe` are
programmers, and Python shows that category in their own code (``__main__``,
pytest) while hiding it in code they did not write, which is what a rename of
a library name calls for (`FutureWarning` is for the users of an application).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Mapping
from typing import Any

from pe._stack import outside_stacklevel

__all__ = ["deprecated", "moved_attribute"]

#: The release after which the deprecated names are removed.
REMOVED_IN = "0.3.0"


def deprecated(old: str, new: str) -> None:
    """Warn that `old` is deprecated in favour of `new`, pointing at the user's line.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     deprecated("pe.old", "pe.new")
    >>> print(caught[0].message)
    pe.old is deprecated and will be removed in pe 0.3.0; use pe.new instead
    """
    warnings.warn(
        f"{old} is deprecated and will be removed in pe {REMOVED_IN}; use {new} instead",
        DeprecationWarning,
        stacklevel=outside_stacklevel(),
    )


def moved_attribute(module: str, name: str, moved: Mapping[str, tuple[str, str, str]]) -> Any:
    """Return the object behind a moved name of `module`, warning first.

    `moved` maps an old name to ``(replacement, home, attribute)``: what the
    warning tells the reader to use instead (``"pe.analysis.similarity"``), and
    the module and attribute that hold the object returned (the same object, or
    one that does the old call's work through the new name).

    Raises
    ------
    AttributeError
        If `name` is neither a current nor a moved name of `module`.
    """
    if name not in moved:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    replacement, home, attribute = moved[name]
    deprecated(f"{module}.{name}", replacement)
    return getattr(importlib.import_module(home), attribute)
