"""A script forked by `sitegen.fork_runner` sees what it would see as its own process.

The reference is Python itself: the same probe script run as
``python probe.py OUT`` in a new process. The figures it draws in the build
are compared with a second run of every script in new processes by
``tests/test_site.py::test_figure_scripts_are_reproducible``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitegen import figures, fork_runner

pytestmark = pytest.mark.skipif(not fork_runner.supported(), reason="forking is Linux only")

# What a script can see of how it was started, and state it changes: a second
# child must not see the first one's change.
PROBE = """
import json, sys
import matplotlib
import matplotlib.pyplot as plt
import _figstyle
seen = {
    "argv": sys.argv[1:],
    "path0": sys.path[0],
    "name": __name__,
    "main_file": sys.modules["__main__"].__file__,
    "linewidth": matplotlib.rcParams["lines.linewidth"],
    "marked": getattr(_figstyle, "MARKED", False),
    "figures": len(plt.get_fignums()),
    "hash": hash("pe"),
    "backend": matplotlib.get_backend(),
}
matplotlib.rcParams["lines.linewidth"] = 9.0
_figstyle.MARKED = True
plt.figure()
print(json.dumps(seen))
print("to standard error", file=sys.stderr)
"""


@pytest.fixture
def scripts(tmp_path: Path) -> Path:
    folder = tmp_path / "scripts"
    folder.mkdir()
    (folder / "_figstyle.py").write_text("MARKED = False\n")
    (folder / "probe.py").write_text(PROBE)
    (folder / "exits.py").write_text("import sys\nsys.exit(int(sys.argv[1]))\n")
    (folder / "says.py").write_text("import sys\nsys.exit('no data: ' + sys.argv[1])\n")
    (folder / "raises.py").write_text("import sys\nraise RuntimeError('broken: ' + sys.argv[1])\n")
    return folder


@pytest.fixture
def runner(scripts: Path) -> Iterator[fork_runner.Runner]:
    started = fork_runner.Runner.for_figures(figures.ROOT, scripts, figures.script_environment())
    yield started
    started.close()


def test_a_forked_script_sees_its_own_start_and_a_fresh_state(
    scripts: Path, runner: fork_runner.Runner, tmp_path: Path
) -> None:
    own = subprocess.run(
        [sys.executable, str(scripts / "probe.py"), "OUT"],
        cwd=figures.ROOT,
        env=figures.script_environment(),
        capture_output=True,
        text=True,
        check=True,
    )
    expected = json.loads(own.stdout)
    for turn in range(2):  # the second child starts as the first did
        log = tmp_path / f"probe-{turn}"
        assert runner.run(scripts / "probe.py", ["OUT"], log) == 0
        assert json.loads(Path(f"{log}.out").read_text()) == expected
        assert Path(f"{log}.err").read_text() == "to standard error\n"
    assert expected["linewidth"] != 9.0
    assert not expected["marked"]
    assert expected["figures"] == 0
    assert expected["name"] == "__main__"
    assert expected["path0"] == str(scripts)


def test_exit_statuses_and_errors_are_as_python_gives_them(
    scripts: Path, runner: fork_runner.Runner, tmp_path: Path
) -> None:
    for script, argument in (("exits", "0"), ("exits", "3"), ("says", "x"), ("raises", "y")):
        own = subprocess.run(
            [sys.executable, str(scripts / f"{script}.py"), argument],
            env=figures.script_environment(),
            capture_output=True,
            text=True,
            check=False,
        )
        log = tmp_path / script
        assert runner.run(scripts / f"{script}.py", [argument], log) == own.returncode
        errors = Path(f"{log}.err").read_text()
        assert errors.strip().splitlines()[-1:] == own.stderr.strip().splitlines()[-1:]


def test_requests_after_the_process_ended_raise_and_figures_run_on_their_own(
    scripts: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = fork_runner.Runner.for_figures(figures.ROOT, scripts, figures.script_environment())
    started._process.kill()
    started._process.wait()
    started._reader.join(timeout=10)
    with pytest.raises(OSError, match="ended"):
        started.run(scripts / "exits.py", ["0"], tmp_path / "late")
    # sitegen.figures falls back to a process of its own for that script.
    monkeypatch.setattr(figures, "_runner", started)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    assert figures._execute(scripts / "exits.py", Path("4")) == (4, "")
    status, printed = figures._execute(scripts / "raises.py", scratch)
    assert status == 1
    assert f"broken: {scratch}" in printed
    started.close()


def test_an_alarm_ends_a_child_that_runs_too_long(
    scripts: Path, runner: fork_runner.Runner, tmp_path: Path
) -> None:
    (scripts / "sleeps.py").write_text("import time\ntime.sleep(30)\n")
    assert runner.run(scripts / "sleeps.py", [], tmp_path / "sleeps", alarm=1) == -14  # SIGALRM
    assert runner.run(scripts / "exits.py", ["5"], tmp_path / "after", cwd=tmp_path) == 5
    with pytest.raises(ValueError, match="a tab or a line break"):
        runner.run(scripts / "exits.py", ["a\tb"], tmp_path / "tab")
