"""Run a call with little memory to spare: a check made after a large allocation fails.

`headroom` lowers the process's address-space limit (``RLIMIT_AS``) to what it
maps now plus a few hundred MiB, for the duration of a ``with`` block. numpy
then answers an array of gigabytes with a `MemoryError` and torch with a
`RuntimeError` ("can't allocate memory"), without touching the memory: a
function that sizes its result before allocating raises its own `ValueError`
instead, and the test sees which came first. Linux only (``/proc/self/statm``).
"""

from __future__ import annotations

import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

#: Address space a call under `headroom` may add: far below the gigabytes the
#: calls it guards would ask for, far above what refusing them takes.
HEADROOM = 768 * 2**20


def mapped_bytes() -> int:
    """Return the address space this process maps now, in bytes."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[0])
    return pages * os.sysconf("SC_PAGE_SIZE")


@contextmanager
def headroom(extra: int = HEADROOM) -> Iterator[None]:
    """Let the process map at most `extra` more bytes inside the block."""
    if not os.path.exists("/proc/self/statm"):
        pytest.skip("the address-space limit is read from /proc (Linux)")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = mapped_bytes() + extra
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
