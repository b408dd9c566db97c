"""pe.nn._cpu_kernel: the C loop that turns concatenated pairs on the CPU in one pass.

Its results are checked against the float64 formula of tests/reference.py and
against torch's three operations (the path it replaces); its build against a
missing compiler, a failing one, a cache that cannot be written and a forked
process; its cache against hostile files (planted, symbolic links, another
user's, writable by others, cut short, another library), each case in a child
process, where a crash or a planted constructor cannot reach the tests. Skipped
where this machine has no C compiler.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from reference import rope_rotation

from pe.nn import RotaryEmbedding, _cpu_kernel, _rotary

needs_compiler = pytest.mark.skipif(
    sys.platform == "win32" or _cpu_kernel.compiler() is None, reason="needs a C compiler"
)
#: Where the CPU fuses multiply and add, the loop and torch's operations round alike (bit for bit).
FUSED = torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cache's file of the loop, compiled once for the session (the tests copy it)."""
    if sys.platform == "win32" or _cpu_kernel.compiler() is None:
        pytest.skip("needs a C compiler")
    root = tmp_path_factory.mktemp("built")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(root))
        patch.delenv("CC", raising=False)
        command = _cpu_kernel.compiler()
        assert command is not None
        _cpu_kernel._image(command)
    (library,) = (root / "pe").glob("rope-*.lib")
    return library


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A loop not yet built or loaded, kept in a cache of this test's own; small chunks."""
    monkeypatch.setattr(_cpu_kernel, "_LOADED", [])
    monkeypatch.setattr(_cpu_kernel, "_FAILED", [])
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("PE_KERNELS", raising=False)
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setattr(_rotary, "_chunk_bytes", lambda: 2048)  # inputs over 4 KiB take it
    return tmp_path / "pe"


@pytest.fixture
def cached(fresh: Path, built: Path) -> Path:
    """As `fresh`, with the session's loop in the cache already, as after an earlier run."""
    fresh.mkdir(mode=0o700)
    shutil.copy(built, fresh / built.name)
    return fresh


def counted(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Record, for each call of `_cpu_kernel.turn`, whether the loop turned the input."""
    calls: list[bool] = []
    turn = _cpu_kernel.turn

    def recording(*args: Any) -> torch.Tensor | None:
        out = turn(*args)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(_cpu_kernel, "turn", recording)
    return calls


@contextlib.contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """Run the block with torch using `count` threads, then as many as before."""
    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def torch_operations(rope: RotaryEmbedding, x: torch.Tensor, offset: int) -> torch.Tensor:
    """The rotation with torch's operations only, as with ``PE_KERNELS=0``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PE_KERNELS", "0")
        return rope.rotate(x, offset=offset)


@needs_compiler
@pytest.mark.parametrize(
    ("shape", "fraction", "dtype"),
    [
        ((2, 5, 40, 16), None, torch.float32),
        ((1, 3, 301, 16), None, torch.float32),  # rows that do not split evenly
        ((3, 70, 24), 0.5, torch.float32),  # partial rotary: the rest passes through
        ((2, 4, 90, 128), 0.25, torch.float32),
        ((2, 4, 90, 16), None, torch.float16),  # turned in float32, returned in float16
        ((2, 4, 90, 16), None, torch.bfloat16),
    ],
)
def test_the_c_loop_turns_as_the_formula_and_as_torchs_operations(
    cached: Path,
    monkeypatch: pytest.MonkeyPatch,
    shape: tuple[int, ...],
    fraction: float | None,
    dtype: torch.dtype,
) -> None:
    calls = counted(monkeypatch)
    rope = RotaryEmbedding(shape[-1], layout="concatenated", partial_rotary_factor=fraction)
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(5)).to(dtype)
    got = rope.rotate(x, offset=7)
    assert calls == [True]
    assert got.dtype == dtype
    assert got.shape == x.shape
    expected = rope_rotation(x, np.arange(7, 7 + shape[-2]), "concatenated", rope.rotary_dim)
    eps = torch.finfo(dtype).eps
    np.testing.assert_allclose(got.double().numpy(), expected, rtol=eps, atol=eps * 4)
    assert torch.equal(got[..., rope.rotary_dim :], x[..., rope.rotary_dim :])
    theirs = torch_operations(rope, x, 7)
    if FUSED:
        # Both fuse the second product into the sum (fmaf; torch's addcmul): the same bits.
        assert torch.equal(got, theirs)
    else:
        torch.testing.assert_close(got, theirs, rtol=2 * eps, atol=2 * eps)
    q, k = rope(x, x[:1], offset=7)  # the module's forward takes it too
    assert torch.equal(q, got)
    assert torch.equal(k, got[:1])


@needs_compiler
@pytest.mark.parametrize(
    "shape",
    [
        (3, 5, 333, 32),  # threads split the sequence: each its own rows of every head
        (3, 40, 8, 32),  # a short sequence: threads split the heads
    ],
)
def test_each_thread_turns_its_own_part(
    cached: Path, monkeypatch: pytest.MonkeyPatch, shape: tuple[int, ...]
) -> None:
    rope = RotaryEmbedding(32, layout="concatenated")
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(6))
    expected = torch_operations(rope, x, 11)
    for count in (1, 3, 7):
        with torch_threads(count):
            calls = counted(monkeypatch)
            got = rope.rotate(x, offset=11)
        assert calls == [True]
        torch.testing.assert_close(got, expected, rtol=1e-6, atol=1e-6)


@needs_compiler
def test_pe_kernels_0_keeps_torchs_operations(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PE_KERNELS", "0")
    calls = counted(monkeypatch)
    RotaryEmbedding(16, layout="concatenated").rotate(torch.randn(2, 4, 90, 16))
    assert calls == []  # not even asked
    assert not fresh.exists()  # nothing compiled


def test_with_no_c_compiler_torchs_operations_turn_it_without_a_warning(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_cpu_kernel, "_compiler", lambda: (None, None))
    calls = counted(monkeypatch)
    rope = RotaryEmbedding(16, layout="concatenated")
    x = torch.randn(2, 4, 90, 16, generator=torch.Generator().manual_seed(7))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = rope.rotate(x, offset=3)
        rope.rotate(x, offset=3)
    assert calls == [False, False]
    assert "no C compiler" in _cpu_kernel._FAILED[0]
    expected = rope_rotation(x, np.arange(3, 93), "concatenated", 16)
    np.testing.assert_allclose(got.double().numpy(), expected, atol=1e-6)


@needs_compiler
def test_a_compiler_that_fails_warns_once_then_gives_way(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CC", "false")  # a command that exits 1: a compiler that fails
    rope = RotaryEmbedding(16, layout="concatenated")
    x = torch.randn(2, 4, 90, 16, generator=torch.Generator().manual_seed(8))
    failed = r"C loop could not be built here .*false .* exited with 1"
    with pytest.warns(RuntimeWarning, match=failed) as caught:
        got, _ = rope(x, x)  # through nn.Module.__call__: the warning still names this line
    assert len([w for w in caught if issubclass(w.category, RuntimeWarning)]) == 1
    assert Path(caught[0].filename).name == Path(__file__).name  # points at the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rope.rotate(x)  # not tried again
    assert not _cpu_kernel._LOADED
    assert "false" in _cpu_kernel._FAILED[0]
    np.testing.assert_allclose(
        got.double().numpy(), rope_rotation(x, np.arange(90), "concatenated", 16), atol=1e-6
    )


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    """Run the block with the process's umask set to `mask`, then as before."""
    before = os.umask(mask)
    try:
        yield
    finally:
        os.umask(before)


def no_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any call of the compiler fail the test."""

    def compiling(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("compiled again")

    monkeypatch.setattr("pe.nn._cpu_kernel.subprocess.run", compiling)


@needs_compiler
def test_the_built_loop_is_kept_private_under_any_umask_and_loaded_again_without_a_compiler(
    fresh: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Under umask 000 too, every folder pe makes is 0700 (as the XDG spec asks), its file 0600."""
    root = tmp_path / "new" / "deeper"  # neither exists yet
    monkeypatch.setenv("XDG_CACHE_HOME", str(root))
    rope = RotaryEmbedding(16, layout="concatenated")
    x = torch.randn(2, 4, 90, 16)
    with umask(0), warnings.catch_warnings():
        warnings.simplefilter("error")
        first = rope.rotate(x)
    made = [tmp_path / "new", root, root / "pe"]
    assert [oct(stat.S_IMODE(folder.stat().st_mode)) for folder in made] == [oct(0o700)] * 3
    (library,) = (root / "pe").iterdir()  # one file, no partial one left behind
    assert library.name.startswith("rope-")
    assert library.suffix == ".lib"
    assert oct(stat.S_IMODE(library.stat().st_mode)) == oct(0o600)
    data = library.read_bytes()
    elf = data[data.index(b"\x7fELF") :] if sys.platform == "linux" else b""
    assert not elf or hashlib.sha256(elf).digest() in data[:80]  # the library under its digest

    monkeypatch.setattr(_cpu_kernel, "_LOADED", [])  # as a new process would start
    no_compiling(monkeypatch)
    calls = counted(monkeypatch)
    assert torch.equal(rope.rotate(x), first)
    assert calls == [True]


@needs_compiler
def test_a_cache_that_cannot_be_written_compiles_privately_and_leaves_nothing_behind(
    fresh: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    temporary = tmp_path / "tmp"  # the temporary folder of these "processes"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    calls = counted(monkeypatch)
    rope = RotaryEmbedding(16, layout="concatenated")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):  # two processes: each compiles, neither leaves a folder behind
            monkeypatch.setattr(_cpu_kernel, "_LOADED", [])
            rope.rotate(torch.randn(2, 4, 90, 16))
    assert calls == [True, True]
    assert list(temporary.iterdir()) == []


@needs_compiler
def test_a_relative_xdg_cache_home_is_ignored(
    fresh: Path, built: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The XDG spec: a relative path there is invalid and ignored (~/.cache is used)."""
    home_cache = tmp_path / "home" / ".cache" / "pe"
    home_cache.mkdir(parents=True, mode=0o700)
    shutil.copy(built, home_cache / built.name)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    no_compiling(monkeypatch)  # found in ~/.cache/pe
    calls = counted(monkeypatch)
    RotaryEmbedding(16, layout="concatenated").rotate(torch.randn(2, 4, 90, 16))
    assert calls == [True]
    assert list(work.iterdir()) == []  # nothing made under the current folder


@needs_compiler
def test_a_cc_that_names_no_program_gives_way_to_cc_gcc_or_clang_with_a_warning(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CC", "no-such-compiler-pe --quiet")
    found = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    assert _cpu_kernel.compiler() == [found]
    rope = RotaryEmbedding(16, layout="concatenated")
    x = torch.randn(2, 4, 90, 16, generator=torch.Generator().manual_seed(11))
    said = rf"\$CC is 'no-such-compiler-pe --quiet', which names no program on PATH; using {found}"
    with pytest.warns(RuntimeWarning, match=said) as caught:
        got = rope.rotate(x)
    assert len(caught) == 1
    assert Path(caught[0].filename).name == Path(__file__).name
    assert _cpu_kernel._LOADED  # compiled with cc, and loaded
    assert len(list(fresh.glob("rope-*.lib"))) == 1
    if FUSED:
        assert torch.equal(got, torch_operations(rope, x, 0))


@needs_compiler
def test_the_cache_file_is_checked_whole_before_anything_is_loaded(built: Path) -> None:
    """Its head holds the library's length and SHA-256: a damaged file is told apart."""
    data = built.read_bytes()
    image, damage = _cpu_kernel._unpack(data)
    assert damage is None
    assert image is not None
    assert len(image) > len(data) // 2
    assert _cpu_kernel._unpack(data[:30])[1] == "it is cut short at 30 bytes"
    cut = len(data) // 2
    assert re.fullmatch(
        rf"it holds \d+ of the library's {len(image)} bytes",
        str(_cpu_kernel._unpack(data[:cut])[1]),
    )
    flipped = data[:-1] + bytes([data[-1] ^ 1])
    assert _cpu_kernel._unpack(flipped) == (None, "its SHA-256 is not the one pe wrote with it")
    assert _cpu_kernel._unpack(image) == (None, "it does not start as the files pe writes do")


def test_the_cache_file_is_flushed_before_its_rename_and_no_partial_file_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written whole to a new name, flushed, renamed, the folder flushed; else removed."""
    cache = tmp_path / "pe"
    cache.mkdir(mode=0o700)
    (cache / "rope-0.lib").mkdir()  # a folder in the way: the rename fails
    steps: list[str] = []
    fsync, replace = os.fsync, os.replace

    def flushing(descriptor: int) -> None:
        steps.append("flush folder" if stat.S_ISDIR(os.fstat(descriptor).st_mode) else "flush file")
        fsync(descriptor)

    def renaming(*args: Any, **kwargs: Any) -> None:
        steps.append("rename")
        replace(*args, **kwargs)

    monkeypatch.setattr(os, "fsync", flushing)
    monkeypatch.setattr(os, "replace", renaming)
    folder = os.open(cache, os.O_RDONLY)
    try:
        assert _cpu_kernel._store(folder, "rope-0.lib", b"a library") is False
        assert _cpu_kernel._store(folder, "rope-1.lib", b"a library") is True
    finally:
        os.close(folder)
    # the first rename fails (a folder in the way); the second file is kept
    assert steps == ["flush file", "rename", "flush file", "rename", "flush folder"]
    assert sorted(path.name for path in cache.iterdir()) == ["rope-0.lib", "rope-1.lib"]
    assert _cpu_kernel._unpack((cache / "rope-1.lib").read_bytes()) == (b"a library", None)


@needs_compiler
def test_without_memory_files_the_checked_bytes_load_from_a_private_file_then_removed(
    cached: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Where the kernel refuses a memory file as code (or has none), a new private file."""

    def refused(image: bytes) -> None:
        raise OSError("no memory files here")

    monkeypatch.setattr(_cpu_kernel, "_open_memory_file", refused)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    calls = counted(monkeypatch)
    rope = RotaryEmbedding(16, layout="concatenated")
    x = torch.randn(2, 4, 90, 16, generator=torch.Generator().manual_seed(13))
    got = rope.rotate(x)
    assert calls == [True]
    assert list(temporary.iterdir()) == []
    if FUSED:
        assert torch.equal(got, torch_operations(rope, x, 0))


#: A library planted at the cache's name: its constructor leaves a mark, its loop does nothing.
PLANTED_C = r"""
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void) {
    int mark = open(PE_MARK, O_WRONLY | O_CREAT, 0600);
    if (mark >= 0) close(mark);
}
void pe_turn_part(void *job, long part) { (void)job; (void)part; }
void pe_turn_in_team(void *job, void *parallel) { (void)job; (void)parallel; }
"""

#: A new process turns one input in each cache named on its command line, twice (as two
#: processes would, one after the other), and prints what happened as one JSON line each.
CHILD = r"""
import json, os, sys, warnings
import torch
from pe.nn import RotaryEmbedding, _cpu_kernel, _rotary

_rotary._chunk_bytes = lambda: 2048  # the input below takes the loop
caches, mark = json.loads(sys.argv[1]), sys.argv[2]
rope = RotaryEmbedding(16, layout="concatenated")
x = torch.randn(2, 4, 90, 16, generator=torch.Generator().manual_seed(12))
os.environ["PE_KERNELS"] = "0"
expected = rope.rotate(x)
del os.environ["PE_KERNELS"]
compiled = []
compile_now = _cpu_kernel._compile
_cpu_kernel._compile = lambda *args: compiled.append(1) or compile_now(*args)


def attempt():
    _cpu_kernel._LOADED.clear()
    _cpu_kernel._FAILED.clear()
    compiled.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = rope.rotate(x)
    return {
        "warnings": [str(w.message) for w in caught if str(w.message).startswith("pe:")],
        "loaded": bool(_cpu_kernel._LOADED),
        "compiled": len(compiled),
        "equal": torch.equal(got, expected),
        "close": torch.allclose(got, expected, rtol=1e-6, atol=1e-6),
        "marked": os.path.exists(mark),
    }


for case, cache in caches.items():
    os.environ["XDG_CACHE_HOME"] = cache
    print(json.dumps({"case": case, "first": attempt(), "again": attempt()}), flush=True)
"""


def hostile_caches(root: Path, built: Path, planted: Path) -> dict[str, tuple[Path, str]]:
    """Make one cache per hostile case under `root`; return each folder and its warning."""
    name = built.name
    ours = built.read_bytes()
    library = planted.read_bytes()
    forged = _cpu_kernel._pack(library)  # the planted library under its own, true digest
    start = len(_cpu_kernel._MAGIC)
    # The planted library under the digest of pe's: what a damaged or swapped file looks like.
    swapped = forged[:start] + ours[start : start + 32] + forged[start + 32 :]
    caches: dict[str, tuple[Path, str]] = {}

    def cache(case: str, warning: str, mode: int = 0o700) -> Path:
        folder = root / case.replace(" ", "-") / "pe"
        folder.mkdir(parents=True)
        folder.chmod(mode)
        caches[case] = (folder.parent, warning)
        return folder

    def put(path: Path, data: bytes, mode: int = 0o600) -> Path:
        path.write_bytes(data)
        path.chmod(mode)
        return path

    if os.geteuid() == 0:  # only root can give a file to another user
        shared = cache("planted in a shared folder", r"cache folder .* belongs to user id 65534")
        shared.parent.chmod(0o777)
        shared.chmod(0o777)
        os.chown(put(shared / name, library, 0o666), 65534, 65534)
        os.chown(shared, 65534, 65534)
        another = cache("another user's file", rf"{name} belongs to user id 65534")
        os.chown(put(another / name, forged, 0o644), 65534, 65534)
    put(
        cache("a folder others can write", r"can be written by others \(mode 777\)", 0o777) / name,
        forged,
    )
    put(
        cache("a file others can write", r"can be written by others \(mode 666\)") / name,
        forged,
        0o666,
    )
    put(root / "elsewhere.lib", forged)
    (cache("a symbolic link", rf"{name} is a symbolic link") / name).symlink_to(
        root / "elsewhere.lib"
    )
    private = root / "a private folder"  # of this user, 0700, holding a file of this user's
    private.mkdir(mode=0o700)
    put(private / name, forged)
    linked = cache("a linked folder", r"cache folder .* is a symbolic link")
    linked.rmdir()
    linked.symlink_to(private)
    (cache("a folder at the name", rf"{name} is not a regular file") / name).mkdir()
    damaged = r"the cached loop .*{} was damaged \({}\); compiled it again and replaced it"
    cut = rf"it holds \d+ of the library's {len(ours) - start - 40} bytes"
    put(cache("cut short", damaged.format(name, cut)) / name, ours[: len(ours) // 2])
    mismatch = r"its SHA-256 is not the one pe wrote with it"
    put(cache("another library", damaged.format(name, mismatch)) / name, swapped)
    return caches


@needs_compiler
@pytest.mark.skipif(sys.platform != "linux", reason="the planted library is built for Linux")
def test_a_hostile_cache_is_never_loaded_and_never_crashes_the_process(
    built: Path, tmp_path: Path
) -> None:
    """Planted, linked, another user's, writable by others, cut short, another library.

    Each cache is tried in a new process (two tries each: a second process after the
    first), so that a planted constructor, a do-nothing loop or a crash shows there.
    What is not pe's is refused with one warning and torch's operations turn the
    input; what is damaged is compiled again, replaced once, and loaded after.
    """
    mark = tmp_path / "the planted constructor ran"
    planted = tmp_path / "planted.so"
    command = _cpu_kernel.compiler()
    assert command is not None
    source = tmp_path / "planted.c"
    source.write_text(PLANTED_C)
    subprocess.run(
        [*command, "-shared", "-fPIC", f'-DPE_MARK="{mark}"', "-o", str(planted), str(source)],
        check=True,
    )
    caches = hostile_caches(tmp_path / "caches", built, planted)
    before = {
        path: path.read_bytes()
        for path in (tmp_path / "caches").rglob("*.lib")
        if path.is_file() and not path.is_symlink()
    }
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    environment = {**os.environ, "TMPDIR": str(temporary)}
    for name in ("PE_KERNELS", "CC"):
        environment.pop(name, None)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            json.dumps({case: str(folder) for case, (folder, _) in caches.items()}),
            str(mark),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=environment,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]  # no crash (a SIGBUS would be -7)
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    assert [report["case"] for report in reports] == list(caches)
    for report in reports:
        case, first, again = report["case"], report["first"], report["again"]
        warning = caches[case][1]
        for attempt in (first, again):
            assert not attempt["marked"], case  # no constructor of the planted library ran
            assert attempt["equal"] if FUSED else attempt["close"], case
        assert len(first["warnings"]) == 1, (case, first)
        assert re.search(warning, first["warnings"][0]), (case, first["warnings"])
        if "damaged" in warning:  # compiled once, replaced, then loaded without a word
            assert (first["loaded"], first["compiled"]) == (True, 1), case
            assert again == {**again, "loaded": True, "compiled": 0, "warnings": []}, case
        else:  # refused, the same way each time, and nothing compiled or loaded
            assert "Turning with torch's operations" in first["warnings"][0]
            assert (first["loaded"], first["compiled"]) == (False, 0), case
            assert again["warnings"] == first["warnings"], case
            assert (again["loaded"], again["compiled"]) == (False, 0), case
    after = {path: path.read_bytes() for path in before}
    for path, data in before.items():
        repaired = "cut-short" in str(path) or "another-library" in str(path)
        assert (after[path] != data) == repaired, path  # what is refused is left as it was
        if repaired:
            assert _cpu_kernel._unpack(after[path])[1] is None
    assert not mark.exists()
    assert list((tmp_path / "caches").rglob("*.partial")) == []
    assert list(temporary.iterdir()) == []  # no folder of a compiler's run left behind


def _rotate_in_child(queue: Any, rope: RotaryEmbedding, x: torch.Tensor) -> None:
    queue.put(rope.rotate(x).numpy())  # rows cached by the parent: the loop alone


def _team_here() -> bool:
    """Tell whether this process finds torch's OpenMP runtime (Linux, torch built with it)."""
    return _cpu_kernel._find_team() is not None


@needs_compiler
@pytest.mark.skipif(sys.platform != "linux", reason="fork is Linux's default start method")
@pytest.mark.parametrize("parent", ["Python's threads", "torch's OpenMP team"])
def test_a_forked_process_turns_with_threads_of_its_own(
    cached: Path, monkeypatch: pytest.MonkeyPatch, parent: str
) -> None:
    """Neither Python's threads nor OpenMP's survive a fork: the child starts Python's.

    (torch's own parallel operations can hang in a child forked after using
    them, so the child here only runs the loop, on rows the parent cached.)
    """
    if parent == "torch's OpenMP team" and not _team_here():
        pytest.skip("torch's OpenMP runtime is not found here")
    team = [] if parent == "torch's OpenMP team" else [(os.getpid(), None)]
    monkeypatch.setattr(_cpu_kernel, "_TEAM", team)
    monkeypatch.setattr(_cpu_kernel, "_POOL", [])
    rope = RotaryEmbedding(16, layout="concatenated")
    x = torch.randn(4, 4, 200, 16, generator=torch.Generator().manual_seed(9))
    with torch_threads(2):
        here = rope.rotate(x)
        # What the parent ran on is alive when it forks.
        assert bool(_cpu_kernel._POOL) == (parent == "Python's threads")
        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        child = context.Process(target=_rotate_in_child, args=(queue, rope, x), daemon=True)
        child.start()
        try:
            there = queue.get(timeout=60)
            child.join(timeout=60)
        finally:
            if child.is_alive():
                child.kill()
    assert child.exitcode == 0
    np.testing.assert_array_equal(there, here.numpy())


@needs_compiler
@pytest.mark.skipif(not _team_here(), reason="torch's OpenMP runtime is not found here")
def test_the_parts_run_on_torchs_own_openmp_threads(
    cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where torch runs on OpenMP, the loop's parts take its threads, not new ones."""
    monkeypatch.setattr(_cpu_kernel, "_TEAM", [])
    monkeypatch.setattr(_cpu_kernel, "_POOL", [])
    rope = RotaryEmbedding(32, layout="concatenated")
    x = torch.randn(2, 6, 500, 32, generator=torch.Generator().manual_seed(10))
    with torch_threads(3):
        on_team = rope.rotate(x, offset=2)
        assert not _cpu_kernel._POOL  # no thread of Python's started
        monkeypatch.setattr(_cpu_kernel, "_TEAM", [(os.getpid(), None)])
        on_pool = rope.rotate(x, offset=2)
        assert _cpu_kernel._POOL
    assert torch.equal(on_team, on_pool)
    expected = rope_rotation(x, np.arange(2, 502), "concatenated", 32)
    np.testing.assert_allclose(on_team.double().numpy(), expected, rtol=1e-6, atol=1e-6)


@needs_compiler
def test_a_dispatch_mode_sees_torchs_operations(
    cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mode that watches every operation (a FLOP counter, say) is not bypassed."""
    from torch.utils._python_dispatch import TorchDispatchMode

    seen: list[str] = []

    class Watching(TorchDispatchMode):  # type: ignore[no-untyped-call]
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    calls = counted(monkeypatch)
    rope = RotaryEmbedding(16, layout="concatenated")
    x = torch.randn(2, 4, 90, 16)
    with Watching():  # type: ignore[no-untyped-call]
        rope.rotate(x)
    assert calls == [False]
    assert any("addcmul" in name for name in seen)
