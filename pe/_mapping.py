"""The read-only mapping behind `pe.conventions`, `pe.timestep_presets` and `pe.grid_rope_presets`.

Each holds frozen records by name. A missing name raises `KeyError` listing
the names; nothing can be added or replaced. Copying it (``copy.copy``,
``copy.deepcopy``) gives the mapping itself, as copying any other constant
does, and pickling stores where it lives, so a configuration that holds one
can be copied and sent to another process.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

__all__ = ["NamedMapping"]

Record = TypeVar("Record")


def _named_mapping(module: str, attribute: str) -> Any:
    """Return the mapping that pickling refers to: ``module.attribute``."""
    return getattr(importlib.import_module(module), attribute)


class NamedMapping(Mapping[str, Record]):
    """A read-only mapping of `records` by name; `home` is ``(module, attribute)``.

    Examples
    --------
    >>> import copy, pickle
    >>> import pe
    >>> copy.deepcopy(pe.timestep_presets) is pe.timestep_presets
    True
    >>> pickle.loads(pickle.dumps(pe.conventions)) is pe.conventions
    True
    >>> pe.timestep_presets["sd"]
    Traceback (most recent call last):
    ...
    KeyError: "no timestep preset named 'sd'; the names are ddpm, flux, sdxl, sdxl-size, \
stable-diffusion-1, stable-diffusion-2, wan"
    """

    def __init__(self, records: dict[str, Record], *, what: str, home: tuple[str, str]) -> None:
        self._records = dict(records)
        self._what = what
        self._home = home

    def __getitem__(self, name: str) -> Record:
        try:
            return self._records[name]
        except (KeyError, TypeError):  # TypeError: an unhashable key, such as a list
            raise KeyError(
                f"no {self._what} named {name!r}; the names are {', '.join(sorted(self._records))}"
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def __repr__(self) -> str:
        return f"<pe.{self._home[1]}: {', '.join(self._records)}>"

    def __copy__(self) -> NamedMapping[Record]:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> NamedMapping[Record]:
        return self

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return _named_mapping, self._home
