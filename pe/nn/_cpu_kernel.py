"""RoPE's rotation of concatenated pairs on the CPU in one pass: a C loop, compiled here.

No stock torch operation reads both members of a concatenated pair (half a head
apart) and writes the turned pair, so torch's operations turn the Llama layout
in three passes over memory: a product and two half-row corrections (see
`pe.nn._rotary._turn_concatenated_in_chunks`). The loop in ``_turn.c`` reads each
row once and writes it once, with torch's rounding (see the file). The first
large float32 input compiles it with the system's C compiler (``$CC``, else
``cc``, ``gcc`` or ``clang``; well under a second) for this CPU, and the
library is kept in ``$XDG_CACHE_HOME/pe`` (``~/.cache/pe``) for later runs, keyed
by the source, the compiler, its flags and the CPU. `turn` runs it on
`torch.get_num_threads` threads, each on its own rows: the threads of torch's
own OpenMP team where that runtime is found, else threads of Python's (ctypes
lets go of the GIL during the call).

Where there is no C compiler (or on Windows), `pe.nn.RotaryEmbedding` keeps to
torch's operations, as it does with ``PE_KERNELS=0`` in the environment (which
`pe.nn._rotary` reads); a compiler that fails gives one `RuntimeWarning`. Only
`pe.nn._rotary` imports this module, once a large input needs it.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from pe._stack import outside_stacklevel

#: The C source of the loop, shipped inside the package.
SOURCE = Path(__file__).with_name("_turn.c")
#: Flags tried in order: for this CPU's vector instructions, then for any CPU of its kind.
#: ``-ffp-contract=off``: products are rounded where the source rounds them, as torch's.
FLAGS = (
    ("-O3", "-march=native", "-ffp-contract=off", "-fPIC", "-shared"),
    ("-O3", "-ffp-contract=off", "-fPIC", "-shared"),
)
#: Fewest sequence rows a thread is given: smaller parts cost more to hand out than they save.
_ROWS_PER_THREAD = 16


class _Job(ctypes.Structure):
    """``struct pe_rope_job`` of ``_turn.c``: the arrays, their shape, and how to split them."""

    _fields_ = [
        ("x", ctypes.c_void_p),
        ("out", ctypes.c_void_p),
        ("cos", ctypes.c_void_p),
        ("minus_sin", ctypes.c_void_p),
        ("sin", ctypes.c_void_p),
        ("lead", ctypes.c_long),
        ("seq", ctypes.c_long),
        ("width", ctypes.c_long),
        ("half", ctypes.c_long),
        ("cos_row", ctypes.c_long),
        ("sin_row", ctypes.c_long),
        ("parts", ctypes.c_long),
        ("by_position", ctypes.c_long),
        ("thread_num", ctypes.c_void_p),
        ("num_threads", ctypes.c_void_p),
    ]


_LOCK = threading.Lock()
_LOADED: list[ctypes.CDLL] = []  # the loaded library, once compiled
_FAILED: list[str] = []  # why it cannot be used here, once that is known
_POOL: list[tuple[int, ThreadPoolExecutor]] = []  # (process id, threads): new after a fork
_TEAM: list[tuple[int, tuple[int, int, int] | None]] = []  # (process id, OpenMP entry points)


def turn(values: Tensor, cos: Tensor, minus_sin: Tensor, sin: Tensor, half: int) -> Tensor | None:
    """Turn concatenated pairs in one pass; None where the loop does not apply or cannot run.

    Takes what `pe.nn._rotary._turn_concatenated_in_chunks` takes: `values` a
    contiguous float32 CPU tensor ``(..., seq, width)``, `cos` ``(seq, width)``
    (``[cos, cos, 1]``), `minus_sin` and `sin` ``(seq, half)``, each with
    contiguous rows. Returns a new tensor of the shape of `values`.
    """
    if values.dim() < 2 or type(values) is not Tensor:  # no subclass (FakeTensor, say)
        return None
    seq, width = values.shape[-2:]
    if not (
        not _FAILED
        and values.dtype == cos.dtype == minus_sin.dtype == sin.dtype == torch.float32
        and values.device.type == cos.device.type == sin.device.type == "cpu"
        and minus_sin.device.type == "cpu"
        and values.is_contiguous()
        and values.numel() > 0
        and 0 < 2 * half <= width
        and cos.shape == (seq, width)
        and minus_sin.shape == sin.shape == (seq, half)
        and cos.stride(1) == minus_sin.stride(1) == sin.stride(1) == 1
        and minus_sin.stride(0) == sin.stride(0)
        and torch._C._len_torch_dispatch_stack() == 0  # a dispatch mode sees every operation
    ):
        return None
    library = _library()
    if library is None:
        return None
    out = torch.empty_like(values)
    lead = values.numel() // (seq * width)  # rows of everything before the sequence
    # One part per thread: its own sequence rows of every head (it reads only those rows
    # of the tables), or, where the sequence is short, its own heads.
    threads = torch.get_num_threads()
    by_position = seq >= threads * _ROWS_PER_THREAD or lead < threads
    parts = max(1, min(threads, seq // _ROWS_PER_THREAD if by_position else lead))
    team = _team()
    job = _Job(
        values.data_ptr(),
        out.data_ptr(),
        cos.data_ptr(),
        minus_sin.data_ptr(),
        sin.data_ptr(),
        lead,
        seq,
        width,
        half,
        cos.stride(0),
        sin.stride(0),
        parts,
        by_position,
        team[1] if team else None,
        team[2] if team else None,
    )
    if parts > 1 and team is not None:  # on torch's own threads
        library.pe_turn_in_team(ctypes.byref(job), team[0])
    else:
        others: list[Future[None]] = [
            _pool().submit(library.pe_turn_part, ctypes.byref(job), part)
            for part in range(1, parts)
        ]
        library.pe_turn_part(ctypes.byref(job), 0)  # the calling thread takes the first part
        for other in others:
            other.result()
    return out


def _team() -> tuple[int, int, int] | None:
    """Return the entry points of torch's OpenMP runtime; None where it is not found.

    ``GOMP_parallel``, ``omp_get_thread_num`` and ``omp_get_num_threads`` of the
    runtime torch loaded: its threads are torch's own, so the loop's parts do not
    compete with them (just after one of torch's operations they wait for work,
    spinning). Looked up once, in the process that first asks: a process forked
    from it gets None (OpenMP's threads do not survive a fork) and Python's threads.
    """
    with _LOCK:
        if not _TEAM:
            _TEAM.append((os.getpid(), _find_team()))
        pid, team = _TEAM[0]
    return team if pid == os.getpid() else None


def _find_team() -> tuple[int, int, int] | None:
    if sys.platform != "linux" or "OpenMP" not in torch.__config__.parallel_info():
        return None
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            loaded = {
                line.split(maxsplit=5)[-1].strip()
                for line in maps
                if re.search(r"/lib(?:gomp|iomp5|omp)\b[^/]*\.so", line)
            }
    except OSError:
        return None
    ours = [path for path in loaded if path.startswith(os.path.dirname(torch.__file__))]
    runtimes = ours or (sorted(loaded) if len(loaded) == 1 else [])
    for path in runtimes:
        try:
            runtime = ctypes.CDLL(path)  # loaded already: the same copy
            return (
                _address(runtime.GOMP_parallel),
                _address(runtime.omp_get_thread_num),
                _address(runtime.omp_get_num_threads),
            )
        except (OSError, AttributeError):
            continue
    return None


def _address(function: Any) -> int:
    address = ctypes.cast(function, ctypes.c_void_p).value
    if not address:
        raise AttributeError("no address")
    return address


def _pool() -> ThreadPoolExecutor:
    """Return the threads that run the other parts (a forked child starts its own)."""
    with _LOCK:
        if not _POOL or _POOL[0][0] != os.getpid():
            _POOL[:] = [(os.getpid(), ThreadPoolExecutor(thread_name_prefix="pe-rope"))]
        return _POOL[0][1]


def _library() -> ctypes.CDLL | None:
    """Return the compiled loop, built or loaded on the first call; None where it cannot be."""
    if _LOADED:
        return _LOADED[0]
    with _LOCK:
        if not _LOADED and not _FAILED:
            try:
                library = ctypes.CDLL(str(_build()))
                library.pe_turn_part.argtypes = [ctypes.POINTER(_Job), ctypes.c_long]
                library.pe_turn_part.restype = None
                library.pe_turn_in_team.argtypes = [ctypes.POINTER(_Job), ctypes.c_void_p]
                library.pe_turn_in_team.restype = None
            except _NoCompilerError as reason:
                _FAILED.append(str(reason))
            except Exception as error:  # a compiler that fails, a library that will not load
                _FAILED.append(f"{type(error).__name__}: {error}")
                warnings.warn(
                    f"pe: RoPE's C loop could not be built here ({_FAILED[0][:400]}); turning "
                    "with torch's operations (set PE_KERNELS=0 to skip the attempt)",
                    RuntimeWarning,
                    stacklevel=outside_stacklevel(),
                )
            else:
                _LOADED.append(library)
    return _LOADED[0] if _LOADED else None


class _NoCompilerError(Exception):
    """No C compiler here (or a platform the loop is not built on): not worth a warning."""


def compiler() -> list[str] | None:
    """Return the C compiler's command: ``$CC`` (split as a shell would), else cc, gcc or clang."""
    given = os.environ.get("CC", "").strip()
    if given:
        command = shlex.split(given)
        return command if shutil.which(command[0]) else None
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return [found]
    return None


def _cpu() -> str:
    """Return what names this CPU's instructions: a library built for one may not run on another."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            wanted = ("model name", "flags", "features", "cpu part", "isa")
            return "".join(sorted({line for line in info if line.lower().startswith(wanted)}))
    except OSError:
        return f"{platform.processor()} {platform.machine()}"


def _cache_dir() -> Path:
    """Where compiled libraries are kept: ``$XDG_CACHE_HOME/pe``, else ``~/.cache/pe``."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "pe"


def _build() -> Path:
    """Return the compiled loop for this CPU: from the cache, else compiled now."""
    if sys.platform == "win32":
        raise _NoCompilerError("pe does not build its C loop on Windows")
    command = compiler()
    if command is None:
        raise _NoCompilerError("no C compiler (cc, gcc or clang) on PATH, and no $CC")
    source = SOURCE.read_bytes()
    errors = []
    for flags in FLAGS:
        key = hashlib.sha256(
            b"\0".join(
                part.encode()
                for part in (*command, *flags, sys.platform, platform.machine(), _cpu())
            )
            + b"\0"
            + source
        ).hexdigest()[:24]
        name = f"rope-{key}.so"
        for folder in (_cache_dir(), None):  # the cache, else a folder of this run's own
            try:
                if folder is None:
                    folder = Path(tempfile.mkdtemp(prefix="pe-"))
                else:
                    folder.mkdir(parents=True, exist_ok=True)
                library = folder / name
                if not library.is_file() and not os.access(folder, os.W_OK):
                    continue
                if library.is_file():
                    return library
                partial = folder / f"{name}.{os.getpid()}.{threading.get_ident()}.partial"
            except OSError:
                continue  # the cache cannot be written: try a folder of this run's own
            done = subprocess.run(
                [*command, *flags, "-o", str(partial), str(SOURCE)],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            if done.returncode != 0:
                said = done.stderr.strip()[-300:] or "nothing on stderr"
                errors.append(
                    f"{shlex.join([*command, *flags])} exited with {done.returncode}: {said}"
                )
                partial.unlink(missing_ok=True)
                break  # the same flags fail anywhere: try the next flags
            os.replace(partial, library)  # whole or absent, for another process reading it
            return library
    raise RuntimeError("; ".join(errors) or "no folder to compile into")
