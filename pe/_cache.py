"""A least-recently-used cache bounded by the bytes it holds, not by its entry count.

``functools.lru_cache(maxsize=16)`` keeps sixteen entries whatever their size:
sixteen step tables of a very wide encoding can hold gigabytes. This cache
counts the bytes of each value (and of its key's ``bytes`` parts), drops the
oldest entries past its budget, and never stores a value larger than the budget.
An optional entry limit also bounds how many values it keeps: a cache keyed by
the request (a run's start) would otherwise fill its budget with thousands of
small entries, each its own allocation, when every call asks for another start.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, ParamSpec, TypeVar

__all__ = ["BytesCache", "bytes_cache"]

P = ParamSpec("P")
R = TypeVar("R")


def _size(value: Any) -> int:
    """Bytes held by a numpy array, a torch tensor, a ``bytes`` key, or a tuple of them."""
    if isinstance(value, (bytes, bytearray)):
        return len(value)
    if isinstance(value, tuple):
        return sum(_size(item) for item in value)
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int):
        return nbytes
    numel = getattr(value, "numel", None)
    if callable(numel):
        return int(numel()) * int(value.element_size())
    return 0


class BytesCache(Generic[P, R]):
    """Wrap `function` with a cache of at most `max_bytes` (see the module docstring)."""

    def __init__(
        self, function: Callable[P, R], max_bytes: int, max_entries: int | None = None
    ) -> None:
        self._function = function
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, tuple[R, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0
        functools.update_wrapper(self, function)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        key = (args, tuple(sorted(kwargs.items())))
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key][0]
        value = self._function(*args, **kwargs)
        size = _size(value) + _size(args)
        if size > self.max_bytes:
            return value  # too large to keep: computed again next time
        with self._lock:
            if key not in self._entries:
                self._entries[key] = (value, size)
                self.bytes += size
                while self.bytes > self.max_bytes or (
                    self.max_entries is not None and len(self._entries) > self.max_entries
                ):
                    _, (_, dropped) = self._entries.popitem(last=False)
                    self.bytes -= dropped
        return value

    def cache_clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()
            self.bytes = 0


def bytes_cache(
    max_bytes: int, max_entries: int | None = None
) -> Callable[[Callable[P, R]], BytesCache[P, R]]:
    """Decorate a function with a `BytesCache` of `max_bytes` (and at most `max_entries`)."""

    def wrap(function: Callable[P, R]) -> BytesCache[P, R]:
        return BytesCache(function, max_bytes, max_entries)

    return wrap
