"""Run scripts in processes forked from one that has imported what they all import.

Every figure script starts by importing numpy, matplotlib's pyplot, `pe` and the
shared style, about a second of each script's two to five. `Runner` starts one
process that imports them once and waits; each script then runs in a child
forked from it, a new process as ``python scripts/fig_<name>.py OUT`` would
be, with the imports already done: ``sys.argv``, ``sys.path[0]`` (the script's
folder) and ``__main__`` are the script's, and its standard output and error
go to files. The waiting process never runs a script itself, so every child
starts from the same state.

The test of the reader's path (``tests/test_reader.py``) starts one the same
way in each fresh environment it makes, as ``python -I fork_runner.py numpy
torch`` from that environment: a copied block then runs as ``python -I
snippet.py`` would run it there (isolated: nothing on ``sys.path`` but the
environment's own), in its own folder, without importing torch again.

Only on Linux, where forking a process that has imported these libraries is
safe (before any of them has started a thread); elsewhere each script runs as
its own process. The test suite runs every figure script again, forked from
a waiting process of its own (``tests/conftest.py``), and checks that both
runs draw the same bytes.

``python -m sitegen.fork_runner [--path FOLDER] MODULE...`` is the waiting process:
it imports each module (with FOLDER on ``sys.path`` while it does). It reads one
request per line on its standard input, ``<id> <script> <folder> <log stem>
<alarm> <argument>...`` separated by tabs (an empty folder: stay where it is;
an alarm of 0: none), forks, and writes ``<id> <exit status>`` on its standard
output when that child ends; end of input makes it wait for its children and exit.
So does a minute with no request and no child (a build that failed before
`sitegen.figures.finish` leaves none behind); `Runner.run` then raises
`OSError`, and the caller runs the script as a process of its own.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path

#: What every figure script imports first (the shared style is ``scripts/_figstyle.py``).
#: Not torch, which three of them import: with it preloaded, the suite's second run of
#: the figures once failed as a whole, unexplained; without it, no failure is known.
PRELOAD = ("numpy", "matplotlib", "matplotlib.pyplot", "pe", "_figstyle")
READY = "ready"
IDLE_S = 60.0  # the waiting process ends after this long with nothing to do


def supported() -> bool:
    """Tell whether scripts can run forked here (Linux only)."""
    return sys.platform == "linux" and hasattr(os, "fork")


class Runner:
    """One waiting process and the scripts forked from it; thread-safe."""

    def __init__(self, command: Sequence[str], cwd: Path, env: dict[str, str]) -> None:
        """Start the waiting process: `command` (which runs `serve`) in `cwd`, with `env`."""
        self._process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        assert self._process.stdin is not None
        assert self._process.stdout is not None
        self._stdin, self._stdout = self._process.stdin, self._process.stdout
        if self._stdout.readline().strip() != READY:
            self._process.kill()
            self._process.communicate()  # and close its pipes
            raise OSError("the waiting process did not start")
        self._lock = threading.Lock()
        self._pending: dict[int, Future[int]] = {}
        self._next = 0
        self._ended = False
        self._reader = threading.Thread(target=self._read, name="fork-replies", daemon=True)
        self._reader.start()

    @classmethod
    def for_figures(cls, root: Path, scripts: Path, env: dict[str, str]) -> Runner:
        """Start the figure scripts' waiting process, in `root`, with `PRELOAD` from `scripts`."""
        command = [sys.executable, "-m", "sitegen.fork_runner", "--path", str(scripts), *PRELOAD]
        return cls(command, root, env)

    def _read(self) -> None:
        for line in self._stdout:
            number, status = line.split()
            with self._lock:
                future = self._pending.pop(int(number))
            future.set_result(int(status))
        with self._lock:  # the waiting process is gone: no answer will come
            self._ended = True
            for future in self._pending.values():
                future.set_exception(OSError("the waiting process ended"))
            self._pending.clear()

    def run(
        self,
        script: Path,
        arguments: Sequence[str],
        log: Path,
        *,
        cwd: Path | None = None,
        alarm: int = 0,
    ) -> int:
        """Run `script` with `arguments`, in `cwd` if given; its exit status.

        Its standard output and error are written to ``<log>.out`` and ``<log>.err``.
        With `alarm`, the child is ended by SIGALRM after that many seconds
        (its status is then ``-14``).
        """
        fields = [str(script), str(cwd or ""), str(log), str(alarm), *map(str, arguments)]
        if any("\t" in field or "\n" in field for field in fields):
            raise ValueError(f"a tab or a line break in a request: {fields}")
        future: Future[int] = Future()
        with self._lock:
            if self._ended:
                raise OSError("the waiting process has ended")
            number, self._next = self._next, self._next + 1
            self._pending[number] = future
            self._stdin.write("\t".join([str(number), *fields]) + "\n")
            self._stdin.flush()
        return future.result()

    def close(self) -> None:
        """End the waiting process once its scripts have ended."""
        self._stdin.close()
        self._process.wait()
        self._reader.join()
        self._stdout.close()


def _child(script: str, cwd: str, log: str, alarm: int, arguments: list[str]) -> int:
    """In the forked child: run `script` as its own program would be run."""
    for fd, suffix in ((1, ".out"), (2, ".err")):
        stream = os.open(log + suffix, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(stream, fd)
        os.close(stream)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
    if cwd:
        os.chdir(cwd)
    if alarm:
        signal.alarm(alarm)
    sys.argv = [script, *arguments]  # as given; __main__.__file__ is absolute, as Python makes it
    path = os.path.abspath(script)
    if not sys.flags.isolated:  # python -I puts no script folder on sys.path
        sys.path[0] = os.path.dirname(path)
    try:
        _run_main(path)
        status = 0
    except SystemExit as stop:  # sys.exit(): as the interpreter reads its argument
        if stop.code is None or isinstance(stop.code, int):
            status = stop.code or 0
        else:
            print(stop.code, file=sys.stderr)
            status = 1
    except BaseException as error:
        trace = error.__traceback__  # from the script's own frames, as Python prints it
        while trace is not None and trace.tb_frame.f_code.co_filename != path:
            trace = trace.tb_next
        traceback.print_exception(type(error), error, trace)
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return status


def _run_main(path: str) -> None:
    """Run the file `path` as the ``__main__`` module, as ``python path`` does."""
    import builtins
    import importlib.machinery
    import types

    main = types.ModuleType("__main__")
    main.__dict__.update(
        __file__=path,
        __cached__=None,
        __builtins__=builtins,
        __loader__=importlib.machinery.SourceFileLoader("__main__", path),
        __spec__=None,
        __package__=None,
    )
    sys.modules["__main__"] = main
    with open(path, "rb") as source:
        code = compile(source.read(), path, "exec", dont_inherit=True)
    exec(code, main.__dict__)


def serve(preload: Sequence[str], path: str | None = None) -> None:
    """Import `preload`, then fork one child per request line (the waiting process).

    `path`, if given, is on ``sys.path`` while the modules are imported (the
    figure scripts' folder, where their shared style is).
    """
    import contextlib
    import importlib

    if path is not None:
        sys.path.insert(0, path)
    for name in preload:
        with contextlib.suppress(ImportError):  # the script that needs it will say so
            importlib.import_module(name)
    if path is not None:
        sys.path.remove(path)
    print(READY, flush=True)
    children: dict[int, str] = {}
    buffer, done = b"", False
    idle_since = time.monotonic()
    while not done or children:
        if children:
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since > IDLE_S:
            break
        if not done:
            ready, _, _ = select.select([0], [], [], 0.02)
            if ready:
                data = os.read(0, 65536)
                done = not data
                buffer += data
                *lines, rest = buffer.split(b"\n")
                buffer = rest
                for line in lines:
                    number, script, cwd, log, alarm, *arguments = line.decode().split("\t")
                    pid = os.fork()
                    if pid == 0:  # the child never returns to this loop
                        status = 70
                        try:
                            status = _child(script, cwd, log, int(alarm), arguments)
                        finally:
                            os._exit(status)
                    children[pid] = number
        elif children:
            select.select([], [], [], 0.02)
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            print(children.pop(pid), os.waitstatus_to_exitcode(status), flush=True)


def main(arguments: Sequence[str]) -> None:
    """``[--path FOLDER] MODULE...``: `serve` with those modules preloaded."""
    arguments = list(arguments)
    path = None
    if arguments[:1] == ["--path"]:
        path, arguments = arguments[1], arguments[2:]
    serve(arguments, path)


if __name__ == "__main__":
    main(sys.argv[1:])
