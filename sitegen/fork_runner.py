"""Run figure scripts in processes forked from one that has imported what they all import.

Every figure script starts by importing numpy, matplotlib's pyplot, `pe` and the
shared style, about a second of each script's two to five. `Runner` starts one
process that imports them once and waits; each script then runs in a child
forked from it, a new process as ``python scripts/fig_<name>.py OUT`` would
be, with the imports already done: ``sys.argv``, ``sys.path[0]`` (the script's
folder) and ``__main__`` are the script's, and its standard output and error
go to files. The waiting process never runs a script itself, so every child
starts from the same state.

Only on Linux, where forking a process that has imported these libraries is
safe; elsewhere `sitegen.figures` runs each script as its own process. The
test suite runs every script again that way (``tests/conftest.py``) and checks
that both draw the same bytes.

``python -m sitegen.fork_runner SCRIPTS`` is the waiting process. It reads one request
per line on its standard input, ``<id> <script> <output folder> <log stem>``
separated by tabs, forks, and writes ``<id> <exit status>`` on its standard
output when that child ends; end of input makes it wait for its children and exit.
So does a minute with no request and no child (a build that failed before
`sitegen.figures.finish` leaves none behind); `Runner.run` then raises
`OSError`, and `sitegen.figures` runs the script as a process of its own.
"""

from __future__ import annotations

import os
import runpy
import select
import subprocess
import sys
import threading
import time
import traceback
from concurrent.futures import Future
from pathlib import Path

#: What every figure script imports first (the shared style is ``scripts/_figstyle.py``).
PRELOAD = ("numpy", "matplotlib", "matplotlib.pyplot", "pe", "_figstyle")
READY = "ready"
IDLE_S = 60.0  # the waiting process ends after this long with nothing to do


def supported() -> bool:
    """Tell whether scripts can run forked here (Linux only)."""
    return sys.platform == "linux" and hasattr(os, "fork")


class Runner:
    """One waiting process and the figure scripts forked from it; thread-safe."""

    def __init__(self, root: Path, scripts: Path, env: dict[str, str]) -> None:
        """Start the waiting process in `root`, with `env`; it preloads `scripts`' shared style."""
        self._process = subprocess.Popen(
            [sys.executable, "-m", "sitegen.fork_runner", str(scripts)],
            cwd=root,
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
            raise OSError("the figure process did not start")
        self._lock = threading.Lock()
        self._pending: dict[int, Future[int]] = {}
        self._next = 0
        self._ended = False
        self._reader = threading.Thread(target=self._read, name="figure-replies", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self._stdout:
            number, status = line.split()
            with self._lock:
                future = self._pending.pop(int(number))
            future.set_result(int(status))
        with self._lock:  # the waiting process is gone: no answer will come
            self._ended = True
            for future in self._pending.values():
                future.set_exception(OSError("the figure process ended"))
            self._pending.clear()

    def run(self, script: Path, output: Path, log: Path) -> int:
        """Run `script` with `output` as its argument; its exit status.

        Its standard output and error are written to ``<log>.out`` and ``<log>.err``.
        """
        future: Future[int] = Future()
        with self._lock:
            if self._ended:
                raise OSError("the figure process has ended")
            number, self._next = self._next, self._next + 1
            self._pending[number] = future
            self._stdin.write(f"{number}\t{script}\t{output}\t{log}\n")
            self._stdin.flush()
        return future.result()

    def close(self) -> None:
        """End the waiting process once its scripts have ended."""
        self._stdin.close()
        self._process.wait()
        self._reader.join()
        self._stdout.close()


def _child(script: str, output: str, log: str) -> int:
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
    sys.argv = [script, output]
    sys.path[0] = str(Path(script).parent)
    try:
        runpy.run_path(script, run_name="__main__")
        status = 0
    except SystemExit as stop:  # sys.exit(): as the interpreter reads its argument
        if stop.code is None or isinstance(stop.code, int):
            status = stop.code or 0
        else:
            print(stop.code, file=sys.stderr)
            status = 1
    except BaseException:
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return status


def serve(scripts: str) -> None:
    """Preload, then fork one child per request line (the waiting process).

    `scripts` is the scripts' folder, where the shared style is found.
    """
    import contextlib
    import importlib

    sys.path.insert(0, scripts)
    for name in PRELOAD:
        with contextlib.suppress(ImportError):  # the script that needs it will say so
            importlib.import_module(name)
    del sys.path[0]
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
                    number, script, output, log = line.decode().split("\t")
                    pid = os.fork()
                    if pid == 0:  # the child never returns to this loop
                        status = 70
                        try:
                            status = _child(script, output, log)
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


if __name__ == "__main__":
    serve(sys.argv[1])
