"""pe.nn._cpu_kernel: the C loop that turns concatenated pairs on the CPU in one pass.

Its results are checked against the float64 formula of tests/reference.py and
against torch's three operations (the path it replaces); its build against a
missing compiler, a failing one, a cache that cannot be written and a forked
process. Skipped where this machine has no C compiler.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
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


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A loop not yet built or loaded, kept in a cache of this test's own; small chunks."""
    monkeypatch.setattr(_cpu_kernel, "_LOADED", [])
    monkeypatch.setattr(_cpu_kernel, "_FAILED", [])
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("PE_KERNELS", raising=False)
    monkeypatch.setattr(_rotary, "_chunk_bytes", lambda: 2048)  # inputs over 4 KiB take it
    return tmp_path / "pe"


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
    fresh: Path,
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
    if torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512"):
        # Both fuse the second product into the sum (fmaf; torch's addcmul): the same bits.
        assert torch.equal(got, theirs)
    else:
        torch.testing.assert_close(got, theirs, rtol=2 * eps, atol=2 * eps)
    q, k = rope(x, x[:1], offset=7)  # the module's forward takes it too
    assert torch.equal(q, got)
    assert torch.equal(k, got[:1])
    assert len(list(fresh.glob("rope-*.so"))) == 1  # built once, into the cache


@needs_compiler
@pytest.mark.parametrize(
    "shape",
    [
        (3, 5, 333, 32),  # threads split the sequence: each its own rows of every head
        (3, 40, 8, 32),  # a short sequence: threads split the heads
    ],
)
def test_each_thread_turns_its_own_part(
    fresh: Path, monkeypatch: pytest.MonkeyPatch, shape: tuple[int, ...]
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
    monkeypatch.setattr(_cpu_kernel, "compiler", lambda: None)
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


@needs_compiler
def test_the_built_loop_is_kept_and_loaded_again_without_a_compiler(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rope = RotaryEmbedding(16, layout="concatenated")
    x = torch.randn(2, 4, 90, 16)
    first = rope.rotate(x)
    (library,) = fresh.glob("rope-*.so")
    monkeypatch.setattr(_cpu_kernel, "_LOADED", [])  # as a new process would start

    def no_compiling(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("compiled again")

    monkeypatch.setattr("pe.nn._cpu_kernel.subprocess.run", no_compiling)
    calls = counted(monkeypatch)
    assert torch.equal(rope.rotate(x), first)
    assert calls == [True]
    assert list(fresh.glob("*")) == [library]  # no partial file left behind


@needs_compiler
def test_a_cache_that_cannot_be_written_builds_in_a_folder_of_its_own(
    fresh: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    calls = counted(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        RotaryEmbedding(16, layout="concatenated").rotate(torch.randn(2, 4, 90, 16))
    assert calls == [True]


def _rotate_in_child(queue: Any, rope: RotaryEmbedding, x: torch.Tensor) -> None:
    queue.put(rope.rotate(x).numpy())  # rows cached by the parent: the loop alone


def _team_here() -> bool:
    """Tell whether this process finds torch's OpenMP runtime (Linux, torch built with it)."""
    return _cpu_kernel._find_team() is not None


@needs_compiler
@pytest.mark.skipif(sys.platform != "linux", reason="fork is Linux's default start method")
@pytest.mark.parametrize("parent", ["Python's threads", "torch's OpenMP team"])
def test_a_forked_process_turns_with_threads_of_its_own(
    fresh: Path, monkeypatch: pytest.MonkeyPatch, parent: str
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
    fresh: Path, monkeypatch: pytest.MonkeyPatch
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
    fresh: Path, monkeypatch: pytest.MonkeyPatch
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
