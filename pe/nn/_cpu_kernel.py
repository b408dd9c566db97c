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

Loading native code from a cache trusts whoever can write the cache, so the
cache trusts only this user: its folder is made 0700 (under any umask) and
refused where it is a symbolic link, another user's, or writable by others; a
file is opened without following links and refused unless it is a regular file
of this user's that no one else can write; its head holds the library's length
and SHA-256, checked on the bytes read, and only those bytes are loaded (from a
sealed memory file, `_open_in_memory`), so nothing changed or cut short after
the check can reach the process. A damaged file is compiled again and replaced
(written to a new name, flushed, renamed). The Install page (``docs/install.md``,
"Kernels that pe compiles") says why the compiler stays at run time.

Where there is no C compiler (or on Windows), `pe.nn.RotaryEmbedding` keeps to
torch's operations, as it does with ``PE_KERNELS=0`` in the environment (which
`pe.nn._rotary` reads); a compiler that fails, or a cache that is refused, gives
one `RuntimeWarning`. Only `pe.nn._rotary` imports this module, once a large
input needs it.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import os
import platform
import re
import secrets
import shlex
import shutil
import stat
import struct
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
    """Return the compiled loop, built or loaded on the first call; None where it cannot be.

    At most one `RuntimeWarning` per process says what went wrong (or what was
    repaired); without a C compiler there is none, unless ``$CC`` named one.
    """
    if _LOADED:
        return _LOADED[0]
    with _LOCK:
        if not _LOADED and not _FAILED:
            notes: list[str] = []  # what the user should hear even where the loop loads
            try:
                library = _load(notes)
            except _NoCompilerError as reason:
                _FAILED.append(str(reason))
                if notes:
                    _warn(f"pe: {'; '.join(notes)}, and {reason}; turning with torch's operations")
            except _RefusedError as refusal:
                _FAILED.append(str(refusal))
                _warn(
                    f"pe: RoPE's C loop was not loaded: {refusal}. Turning with torch's "
                    f"operations; {refusal.fix}, or set PE_KERNELS=0 to skip the loop"
                    + "".join(f" ({note})" for note in notes)
                )
            except Exception as error:  # a compiler that fails, a library that will not load
                _FAILED.append(f"{type(error).__name__}: {error}")
                _warn(
                    f"pe: RoPE's C loop could not be built here ({_FAILED[0][:400]}); turning "
                    "with torch's operations (set PE_KERNELS=0 to skip the attempt)"
                    + "".join(f" ({note})" for note in notes)
                )
            else:
                _LOADED.append(library)
                if notes:
                    _warn(f"pe: {'; '.join(notes)}")
    return _LOADED[0] if _LOADED else None


def _warn(message: str) -> None:
    warnings.warn(message, RuntimeWarning, stacklevel=outside_stacklevel())


def _load(notes: list[str]) -> ctypes.CDLL:
    """Return the loop loaded from bytes pe compiled or checked; add to `notes` what to say."""
    if sys.platform == "win32":
        raise _NoCompilerError("pe does not build its C loop on Windows")
    command, note = _compiler()
    if note:
        notes.append(note)
    if command is None:
        raise _NoCompilerError("no C compiler (cc, gcc or clang) on PATH")
    image, note = _image(command)
    if note:
        notes.append(note)
    library = _open_in_memory(image)
    library.pe_turn_part.argtypes = [ctypes.POINTER(_Job), ctypes.c_long]
    library.pe_turn_part.restype = None
    library.pe_turn_in_team.argtypes = [ctypes.POINTER(_Job), ctypes.c_void_p]
    library.pe_turn_in_team.restype = None
    return library


class _NoCompilerError(Exception):
    """No C compiler here (or a platform the loop is not built on): not worth a warning."""


class _RefusedError(Exception):
    """Something in the cache is not as pe leaves it: nothing of it is loaded.

    The message says what was found; `fix` what the user can do about it.
    """

    def __init__(self, found: str, fix: str) -> None:
        super().__init__(found)
        self.fix = fix


def compiler() -> list[str] | None:
    """Return the C compiler's command: ``$CC`` (split as a shell would), else cc, gcc or clang."""
    return _compiler()[0]


def _compiler() -> tuple[list[str] | None, str | None]:
    """Return the C compiler's command, and a note where ``$CC`` is set but names no program.

    A ``$CC`` that names no program is passed over for cc, gcc or clang (as make
    would fail on it, pe says so instead of failing).
    """
    given = os.environ.get("CC", "").strip()
    note = None
    if given:
        try:
            command = shlex.split(given)
        except ValueError:  # an unclosed quote
            command = []
        if command and shutil.which(command[0]):
            return command, None
        note = f"$CC is {given!r}, which names no program on PATH"
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return [found], note and f"{note}; using {found} instead"
    return None, note


def _cpu() -> str:
    """Return what names this CPU's instructions: a library built for one may not run on another."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            wanted = ("model name", "flags", "features", "cpu part", "isa")
            return "".join(sorted({line for line in info if line.lower().startswith(wanted)}))
    except OSError:
        return f"{platform.processor()} {platform.machine()}"


def _cache_dir() -> Path | None:
    """Where compiled libraries are kept: ``$XDG_CACHE_HOME/pe``, else ``~/.cache/pe``.

    A relative ``$XDG_CACHE_HOME`` is ignored, as the XDG base directory
    specification says; None where no absolute folder is known (no home).
    """
    root = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(root):
        root = os.path.join(os.path.expanduser("~"), ".cache")
        if not os.path.isabs(root):
            return None
    return Path(root) / "pe"


def _image(command: list[str]) -> tuple[bytes, str | None]:
    """Return the bytes of the compiled loop for this CPU, and a note on a repaired cache.

    From the cache where its file is there and checks out, else compiled now (and
    kept, where the cache can be written). A cache or file that is not private
    to this user raises `_RefusedError`; a damaged file is compiled again and
    replaced, with a note saying so.
    """
    source = SOURCE.read_bytes()
    folder = _cache_dir()
    cache = _open_cache(folder) if folder is not None else None
    errors = []
    try:
        for flags in FLAGS:
            parts = (_FORMAT, *command, *flags, sys.platform, platform.machine(), _cpu())
            key = hashlib.sha256(b"\0".join(part.encode() for part in parts) + b"\0" + source)
            name = f"rope-{key.hexdigest()[:24]}.lib"
            damage = None
            if cache is not None and folder is not None:
                image, damage = _read_entry(cache, name, folder / name)
                if image is not None:
                    return image, None
            try:
                image = _compile(command, flags)
            except _CompileError as error:
                errors.append(str(error))
                continue  # the same flags fail anywhere: try the next flags
            kept = cache is not None and _store(cache, name, image)
            if damage is None or folder is None:
                return image, None
            done = "compiled it again and replaced it" if kept else "compiled it again"
            return image, f"the cached loop {folder / name} was damaged ({damage}); {done}"
    finally:
        if cache is not None:
            os.close(cache)
    raise RuntimeError("; ".join(errors))


class _CompileError(RuntimeError):
    """The compiler exited with an error for these flags."""


def _compile(command: list[str], flags: tuple[str, ...]) -> bytes:
    """Compile ``_turn.c`` in a folder private to this process; return the library's bytes.

    The folder (`tempfile.TemporaryDirectory`, mode 0700) is removed however
    the compiler ends, so nothing is left in the temporary folder.
    """
    with tempfile.TemporaryDirectory(prefix="pe-") as folder:
        library = os.path.join(folder, "rope.so")
        done = subprocess.run(
            [*command, *flags, "-o", library, str(SOURCE)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if done.returncode != 0:
            said = done.stderr.strip()[-300:] or "nothing on stderr"
            raise _CompileError(
                f"{shlex.join([*command, *flags])} exited with {done.returncode}: {said}"
            )
        with open(library, "rb") as built:
            return built.read()


def _open_cache(folder: Path) -> int | None:
    """Open the cache folder, made private (0700) where it is missing; None where it cannot be.

    Returns a descriptor of the folder itself: every later step names its files
    relative to it (``dir_fd``), so a path swapped afterwards changes nothing.
    Raises `_RefusedError` where the folder is a symbolic link, is not this
    user's, or can be written by others: whoever owns or can write it decides
    what would run in this process.
    """
    try:
        _make_private(folder)
        found = os.lstat(folder)
    except OSError:
        return None  # no folder can be made there (a file in the way, a read-only disk)
    if stat.S_ISLNK(found.st_mode):
        raise _RefusedError(
            f"the cache folder {folder} is a symbolic link",
            "make it a folder of your own (or delete it: pe makes one, private to you)",
        )
    if not stat.S_ISDIR(found.st_mode):
        return None
    try:
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        _check_private(os.fstat(descriptor), f"the cache folder {folder}")
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _make_private(folder: Path) -> None:
    """Make `folder` and any missing folders above it, each private to this user (0700).

    The XDG base directory specification asks for 0700 where it creates a
    folder; ``os.makedirs`` would give the folders above the last the umask's mode.
    """
    missing = []
    path = folder
    while not os.path.lexists(path) and path.parent != path:
        missing.append(path)
        path = path.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile: checked as any other
            os.mkdir(path, 0o700)  # under any umask: 0700 at most


def _check_private(found: os.stat_result, what: str) -> None:
    """Refuse what is not this user's, or can be written by its group or by others."""
    if found.st_uid != os.geteuid():
        raise _RefusedError(
            f"{what} belongs to user id {found.st_uid}, not to this process's ({os.geteuid()})",
            "delete it, or set $XDG_CACHE_HOME to a folder of your own",
        )
    if found.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise _RefusedError(
            f"{what} can be written by others (mode {stat.S_IMODE(found.st_mode):o})",
            "make it private (chmod go-w) or delete it",
        )


def _read_entry(cache: int, name: str, shown: Path) -> tuple[bytes | None, str | None]:
    """Return the library a file of the cache holds, else None and what damaged it (if anything).

    The file is opened without following a symbolic link, checked on the
    descriptor (a regular file, this user's, written by no one else), read
    whole, and its length and SHA-256 compared with those pe wrote at its head.
    Only those bytes, already read, are ever loaded: a file changed or cut short
    afterwards cannot reach the process.
    """
    try:
        found = os.stat(name, dir_fd=cache, follow_symlinks=False)
    except FileNotFoundError:
        return None, None
    if stat.S_ISLNK(found.st_mode):
        raise _RefusedError(f"{shown} is a symbolic link", "delete it (pe writes a new one)")
    if not stat.S_ISREG(found.st_mode):
        raise _RefusedError(f"{shown} is not a regular file", "delete it (pe writes a new one)")
    try:
        descriptor = os.open(
            name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=cache
        )
    except OSError as error:
        if error.errno == errno.ELOOP:  # made a symbolic link since
            refusal = _RefusedError(
                f"{shown} is a symbolic link", "delete it (pe writes a new one)"
            )
            raise refusal from error
        return None, f"it cannot be read ({error.strerror})"
    try:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode):
            raise _RefusedError(f"{shown} is not a regular file", "delete it (pe writes a new one)")
        _check_private(found, str(shown))
        if found.st_size > _MOST_BYTES:
            return None, f"{found.st_size} bytes, more than any library of the loop"
        data = b""
        while len(data) <= found.st_size:  # to the end, however long the file is by now
            part = os.read(descriptor, found.st_size + 1 - len(data))
            if not part:
                break
            data += part
    finally:
        os.close(descriptor)
    return _unpack(data)


#: Names the layout of the cache's files (and is part of their key): change it with the layout.
_FORMAT = "pe compiled loop 1"
#: What a file of the cache starts with: the format, then the library's SHA-256 and length.
_MAGIC = _FORMAT.encode() + b"\n"
_HEAD = struct.Struct(">32sQ")
#: The most bytes a library of the loop may have (it has some tens of kilobytes).
_MOST_BYTES = 1 << 24


def _pack(image: bytes) -> bytes:
    """Return a file of the cache: the library's bytes after their SHA-256 and length.

    Examples
    --------
    >>> _unpack(_pack(b"a library"))
    (b'a library', None)
    >>> _unpack(_pack(b"a library")[:-2])
    (None, "it holds 7 of the library's 9 bytes")
    """
    return _MAGIC + _HEAD.pack(hashlib.sha256(image).digest(), len(image)) + image


def _unpack(data: bytes) -> tuple[bytes | None, str | None]:
    """Return the library a file of the cache holds, or None and why the file is damaged."""
    if not data.startswith(_MAGIC):
        return None, "it does not start as the files pe writes do"
    if len(data) < len(_MAGIC) + _HEAD.size:
        return None, f"it is cut short at {len(data)} bytes"
    digest, length = _HEAD.unpack_from(data, len(_MAGIC))
    image = data[len(_MAGIC) + _HEAD.size :]
    if len(image) != length:
        return None, f"it holds {len(image)} of the library's {length} bytes"
    if hashlib.sha256(image).digest() != digest:
        return None, "its SHA-256 is not the one pe wrote with it"
    return image, None


def _store(cache: int, name: str, image: bytes) -> bool:
    """Keep `image` in the cache as `name`, whole or not at all; tell whether it was kept.

    Written to a new private file (0600, never an existing one), flushed to disk
    (``fsync``), then renamed over `name` in one step, and the folder flushed so
    the rename lasts too: another process sees the old file or the whole new one.
    The new file is removed where any step fails (a folder in the way, a full disk).
    """
    partial = f".{name}.{os.getpid()}.{secrets.token_hex(4)}.partial"
    try:
        descriptor = os.open(
            partial,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o600,
            dir_fd=cache,
        )
    except OSError:
        return False
    try:
        try:
            os.fchmod(descriptor, 0o600)  # readable by this user under any umask
            _write_all(descriptor, _pack(image))
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(partial, name, src_dir_fd=cache, dst_dir_fd=cache)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(partial, dir_fd=cache)
        return False
    with contextlib.suppress(OSError):
        os.fsync(cache)
    return True


_MEMORY: list[int] = []  # descriptors of the loaded libraries' memory files: kept open


def _open_in_memory(image: bytes) -> ctypes.CDLL:
    """Load `image` from a copy no other process can change between its check and its load.

    On Linux the bytes go into an anonymous memory file (``memfd_create``),
    sealed against any later write, and are loaded through its descriptor; it
    stays open for the life of the process (the dynamic loader knows a library
    by its path, so the number may not name another library later). Elsewhere,
    or where the kernel refuses to map a memory file as code, they go into a
    new file in a new private folder, removed once loaded.
    """
    if hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd"):
        try:
            return _open_memory_file(image)
        except OSError:
            pass  # no memory files here, or none mapped as code: a private file instead
    with tempfile.TemporaryDirectory(prefix="pe-") as folder:
        path = os.path.join(folder, "rope.so")
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o700)
        try:
            _write_all(descriptor, image)
        finally:
            os.close(descriptor)
        return ctypes.CDLL(path)


def _open_memory_file(image: bytes) -> ctypes.CDLL:
    """Load `image` from a sealed memory file (Linux); raise OSError where that cannot be done."""
    import fcntl

    descriptor = os.memfd_create("pe-rope", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        _write_all(descriptor, image)
        seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
        fcntl.fcntl(descriptor, fcntl.F_ADD_SEALS, seals)
        library = ctypes.CDLL(f"/proc/self/fd/{descriptor}")
    except BaseException:
        os.close(descriptor)
        raise
    _MEMORY.append(descriptor)
    return library


def _write_all(descriptor: int, data: bytes) -> None:
    """Write all of `data` (``os.write`` may write part of it)."""
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]
