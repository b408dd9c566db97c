"""The reader's path: copy a block from the built site, paste it into a file, run it.

Each test starts from the built HTML, as a reader does. It takes exactly what
each copy button copies (`sitegen.reader.copied_blocks` follows Material:
``code.innerText``, or a ``data-copy`` attribute; nothing from a ``no-copy``
block), writes each Python block to its own file and runs it in a fresh virtual
environment that has only the wheel the site serves, plus numpy and torch. A
block that imports one of `EXTRAS` (transformers, for the page that puts pe's
RoPE into a transformers model and says to install it) runs in a second
environment that has that library too, and only for such blocks. The
checkout is never on ``sys.path``: each script runs from a temporary folder, in
isolated mode (``-I``), with no ``PYTHONPATH``. What it prints must be exactly
the output the page shows under it.

The environment takes numpy and torch (and what torch needs) from this
interpreter's installation, linked rather than copied, so it is made in a few
seconds; pip installs the wheel itself, with ``--no-deps --no-index``.

Each block runs in a process of its own, forked (on Linux) from one that the
environment's own ``python -I`` started and that has imported only numpy and
torch (`sitegen.fork_runner`, run as a file, so that nothing of the checkout is
importable): the block sees what ``python -I snippet.py`` would see in its
folder (``test_a_forked_block_starts_as_python_would_start_it``) but does not
pay torch's second of import each time. (One difference: ``python -I``
ignores ``PYTHONHASHSEED``, so a new process hashes strings with a new random
seed, while the forked blocks of one environment share their parent's.)
Elsewhere each block is a new ``python -I`` process.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from conftest import ROOT, SiteBuild
from packaging.requirements import Requirement

from sitegen import fork_runner, reader, results

pytestmark = pytest.mark.site

RESULTS = results.path("reader")
WORKERS = 2
# The libraries the pages' programs may import besides pe.
LIBRARIES = ("numpy", "torch")
# Libraries a block may import on top of those, if its page says to install them.
EXTRAS = ("transformers",)


def needs(code: str) -> tuple[str, ...]:
    """The libraries of `EXTRAS` that `code` imports, sorted.

    >>> needs("import torch\\nfrom transformers import LlamaConfig")
    ('transformers',)
    """
    tree = ast.parse(code)
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
    }
    return tuple(sorted(imported & set(EXTRAS)))


def _closure(names: tuple[str, ...]) -> list[metadata.Distribution]:
    """The installed distributions `names` need, with their dependencies (no extras)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen[name] = dist
        for line in dist.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return list(seen.values())


def fresh_environment(
    where: Path, wheel: Path | None = None, libraries: tuple[str, ...] = LIBRARIES
) -> Path:
    """Make a virtual environment with `libraries` (and `wheel`); return its python.

    The libraries (numpy and torch unless told) and their dependencies are
    linked in from this interpreter's installation; nothing else of it (and
    nothing of the checkout) is visible.
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    purelib = subprocess.run(
        [python, "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    site_packages = Path(purelib)
    for dist in _closure(libraries):
        tops = {Path(str(file)).parts[0] for file in dist.files or []}
        for top in sorted(tops - {".."}):
            source = Path(str(dist.locate_file(top)))
            target = site_packages / top
            if source.exists() and not target.exists():
                target.symlink_to(source)
    if wheel is not None:
        install(python, str(wheel))
    return python


def install(python: Path, what: str) -> None:
    """Install `what` (a wheel file or its URL) into the environment, nothing else."""
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check"]
    subprocess.run(
        [*pip, "install", "--quiet", "--no-deps", "--no-index", what],
        check=True,
        capture_output=True,
        text=True,
    )


def reader_env() -> dict[str, str]:
    """The environment a reader's shell has: no PYTHONPATH, no pe settings."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env["PYTHONHASHSEED"] = "0"
    env["OMP_NUM_THREADS"] = "1"  # two scripts at a time on two cores
    return env


@dataclass(frozen=True)
class Run:
    page: str
    number: int
    code: str
    shown: str
    returncode: int
    stdout: str
    stderr: str

    @property
    def matched(self) -> bool:
        return self.returncode == 0 and self.stdout.rstrip("\n") == self.shown.rstrip("\n")


TIMEOUT_S = 300  # for one block, or one page's script and notebook

_forks: dict[Path, fork_runner.Runner | None] = {}
_forks_lock = threading.Lock()


def _fork(python: Path) -> fork_runner.Runner | None:
    """The waiting process of `python`'s environment (started on first use); None off Linux."""
    with _forks_lock:
        if python not in _forks:
            runner = None
            if fork_runner.supported():
                command = [python, "-I", ROOT / "sitegen" / "fork_runner.py", *LIBRARIES]
                try:
                    runner = fork_runner.Runner(
                        list(map(str, command)), python.parent, reader_env()
                    )
                except OSError:
                    runner = None
            _forks[python] = runner
        return _forks[python]


@pytest.fixture(scope="module", autouse=True)
def _close_forks() -> Iterator[None]:
    yield
    with _forks_lock:
        for runner in _forks.values():
            if runner is not None:
                runner.close()
        _forks.clear()


def run_file(
    python: Path, folder: Path, name: str, arguments: tuple[str, ...] = (), *, fork: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run ``folder/name`` with `arguments` in `folder`, as ``python -I name`` would.

    Forked from the environment's waiting process where there is one (and
    `fork`), else a new process.
    """
    runner = _fork(python) if fork else None
    command = [str(python), "-I", name, *arguments]
    if runner is not None:
        log = folder / f".{name}.log"
        try:
            status = runner.run(Path(name), arguments, log, cwd=folder, alarm=TIMEOUT_S)
        except OSError:
            pass  # the waiting process is gone: a new process below
        else:
            out, err = (Path(f"{log}{suffix}").read_text() for suffix in (".out", ".err"))
            return subprocess.CompletedProcess(command, status, out, err)
    return subprocess.run(
        command,
        cwd=folder,
        env=reader_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def run_script(
    python: Path,
    folder: Path,
    name: str,
    code: str,
    arguments: tuple[str, ...] = (),
    *,
    fork: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Write `code` to ``folder/name`` and run it there with `arguments`, as a reader would."""
    (folder / name).write_text(code + "\n")
    return run_file(python, folder, name, arguments, fork=fork)


@pytest.fixture(scope="module")
def pages(site: SiteBuild) -> dict[str, list[reader.Block]]:
    found = {}
    for path in sorted(site.directory.rglob("*.html")):
        blocks = reader.copied_blocks(path.read_text())
        if blocks:
            found[path.relative_to(site.directory).as_posix()] = blocks
    return found


@pytest.fixture(scope="module")
def served_wheel(site: SiteBuild) -> Path:
    wheel = site.directory / "dist" / reader.wheel_name()
    assert wheel.is_file(), f"the site does not serve {wheel.name}"
    return wheel


@pytest.fixture(scope="module")
def environment(served_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_environment(tmp_path_factory.mktemp("reader-venv") / "venv", served_wheel)


class Environments:
    """The base environment, and one per set of `EXTRAS`, made when first asked for."""

    def __init__(self, base: Path, wheel: Path, factory: pytest.TempPathFactory) -> None:
        self.made: dict[tuple[str, ...], Path] = {(): base}
        self.wheel, self.factory = wheel, factory

    def __call__(self, extras: tuple[str, ...]) -> Path:
        if extras not in self.made:
            where = self.factory.mktemp("reader-venv-" + "-".join(extras)) / "venv"
            self.made[extras] = fresh_environment(where, self.wheel, (*LIBRARIES, *extras))
        return self.made[extras]


@pytest.fixture(scope="module")
def environments(
    environment: Path, served_wheel: Path, tmp_path_factory: pytest.TempPathFactory
) -> Environments:
    return Environments(environment, served_wheel, tmp_path_factory)


@pytest.fixture(scope="module")
def runs(
    pages: dict[str, list[reader.Block]],
    environments: Environments,
    tmp_path_factory: pytest.TempPathFactory,
) -> list[Run]:
    jobs = [
        (page, number, block)
        for page, blocks in pages.items()
        for number, block in enumerate(reader.runnable(blocks), start=1)
    ]
    for _, _, block in jobs:  # made here, before the threads start
        environments(needs(block.copied or ""))

    def one(job: tuple[str, int, reader.Block]) -> Run:
        page, number, block = job
        assert block.copied is not None
        folder = tmp_path_factory.mktemp("paste")
        python = environments(needs(block.copied))
        result = run_script(python, folder, "snippet.py", block.copied)
        return Run(page, number, block.copied, block.output, *_outcome(result))

    with ThreadPoolExecutor(WORKERS) as pool:
        return list(pool.map(one, jobs))


def _outcome(result: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    return result.returncode, result.stdout, result.stderr


def test_the_environment_has_only_the_wheel_numpy_and_torch(
    environment: Path, tmp_path: Path
) -> None:
    probe = (
        "import importlib.util, sys, pe\n"
        "print(pe.__file__)\n"
        "print([m for m in ('sitegen', 'pytest', 'mkdocs', 'matplotlib')"
        " if importlib.util.find_spec(m)])\n"
    )
    result = run_script(environment, tmp_path, "probe.py", probe)
    assert result.returncode == 0, result.stderr
    where, missing = result.stdout.splitlines()
    assert "site-packages" in where
    assert not where.startswith(str(ROOT / "pe")), where
    assert missing == "[]"


# What a program can see of how it was started: the forked child must see what
# python -I gives a new process, in the same folder with the same environment.
START_PROBE = """
import json, os, sys
import numpy
print(json.dumps({
    "argv": sys.argv, "path": sys.path, "cwd": os.getcwd(), "name": __name__,
    "file": __file__, "main_file": sys.modules["__main__"].__file__,
    "flags": [sys.flags.isolated, sys.flags.no_user_site, sys.flags.ignore_environment],
    "environ": dict(os.environ), "stdin": sys.stdin.read(), "loader": type(__loader__).__name__,
    "spec": __spec__, "package": __package__, "doc": __doc__,
    "numpy": numpy.__file__, "checkout": [m for m in ("sitegen", "tests", "conftest")
                                          if m in sys.modules],
}, sort_keys=True))
print("to standard error", file=sys.stderr)
sys.exit(3)
"""


@pytest.mark.skipif(not fork_runner.supported(), reason="forking is Linux only")
def test_a_forked_block_starts_as_python_would_start_it(environment: Path, tmp_path: Path) -> None:
    own = run_script(environment, tmp_path, "probe.py", START_PROBE, fork=False)
    forked = run_script(environment, tmp_path, "probe.py", START_PROBE)
    assert _fork(environment) is not None
    assert (
        (forked.returncode, forked.stderr)
        == (own.returncode, own.stderr)
        == (
            3,
            "to standard error\n",
        )
    )
    assert json.loads(forked.stdout) == json.loads(own.stdout)
    seen = json.loads(own.stdout)
    assert seen["path"][0] != str(tmp_path)  # isolated: no script folder on sys.path
    assert seen["checkout"] == []
    # A block that fails: the same status and the same traceback, from the block's own lines.
    failing = "import numpy\n\ndef f():\n    raise ValueError('d_model must be even')\n\nf()\n"
    own = run_script(environment, tmp_path, "fails.py", failing, fork=False)
    forked = run_script(environment, tmp_path, "fails.py", failing)
    assert (forked.returncode, forked.stderr) == (own.returncode, own.stderr)
    assert own.returncode == 1
    assert own.stderr.count("fails.py") == 2


def test_every_copied_python_block_runs_and_prints_what_the_page_shows(
    pages: dict[str, list[reader.Block]], runs: list[Run]
) -> None:
    no_copy = sum(
        1
        for blocks in pages.values()
        for block in blocks
        if block.language in {"python", "pycon"} and block.copied is None
    )
    matched = [run for run in runs if run.matched]
    with_output = [run for run in runs if run.shown]
    counts = {
        "blocks run": len(runs),
        "outputs matched": len(matched),
        "blocks with output shown": len(with_output),
        "blocks marked no-copy": no_copy,
        "pages": len({run.page for run in runs}),
    }
    print(f"\nreader's path: {json.dumps(counts)}")
    failures = [
        f"{run.page} block {run.number} (exit {run.returncode}):\n{run.code}\n"
        f"--- page shows:\n{run.shown}\n--- printed:\n{run.stdout}{run.stderr[-2000:]}"
        for run in runs
        if not run.matched
    ]
    assert not failures, f"{len(failures)} of {len(runs)} copied blocks fail:\n\n" + "\n\n".join(
        failures
    )
    assert len(runs) >= 30
    assert len(with_output) >= 20
    recorded = json.dumps(counts, indent=2) + "\n"
    if not RESULTS.is_file() or RESULTS.read_text() != recorded:
        # README.md shows the recorded counts: the new ones are written, and the
        # test fails until they and the README (make readme) are committed.
        RESULTS.write_text(recorded)
        pytest.fail(
            f"{RESULTS.name} held other counts and is rewritten with these: "
            "run make readme, and commit both"
        )


def test_a_block_that_needs_more_than_torch_is_on_a_page_that_says_to_install_it(
    site: SiteBuild,
    pages: dict[str, list[reader.Block]],
    environments: Environments,
    tmp_path: Path,
) -> None:
    found = 0
    for page, blocks in pages.items():
        text = (site.directory / page).read_text()
        for block in reader.runnable(blocks):
            for library in needs(block.copied or ""):
                found += 1
                assert re.search(rf"pip install[^<]*\b{library}\b", text), (
                    f"{page} has a block that imports {library} but no 'pip install {library}'"
                )
    if found:  # the extra environment really has the library, and still not the checkout
        probe = "import transformers, pe\nprint(pe.__file__)\n"
        result = run_script(environments(EXTRAS), tmp_path, "probe_extra.py", probe)
        assert result.returncode == 0, result.stderr
        assert "site-packages" in result.stdout


def test_no_python_block_is_copyable_that_is_not_a_program(
    pages: dict[str, list[reader.Block]],
) -> None:
    """Console sessions and signatures are not programs: the page marks them no-copy."""
    for page, blocks in pages.items():
        for block in blocks:
            if block.language in {"pycon", "py"}:
                assert block.copied is None, f"{page}: a console session is copyable"


def test_copied_text_follows_material() -> None:
    html = (
        '<div class="language-python highlight"><pre><span></span><code>'
        '<a id="__codelineno-0-1" href="#__codelineno-0-1"></a><span class="n">x</span>'
        ' <span class="o">=</span> <span class="s2">&quot;a &lt; b&quot;</span>\n'
        '<a id="__codelineno-0-2"></a><span class="nb">print</span>(x)\n\n</code></pre></div>\n'
        '<div class="language-text highlight"><pre><span></span><code>a &lt; b\n</code></pre></div>'
        '<div class="language-python no-copy highlight"><pre><code>return 1</code></pre></div>'
        '<div class="language-python highlight" data-copy="print(2)"><pre><code>&gt;&gt;&gt; 2'
        "</code></pre></div>"
    )
    first, second, third = reader.copied_blocks(html)
    assert first == reader.Block("python", 'x = "a < b"\nprint(x)', "a < b")
    assert second.copied is None
    assert third.copied == "print(2)"


# Runs a page's script top to bottom, then its notebook's code cells in order in
# one namespace, as "Run all" does, checking that each cell prints the output
# stored with it. One process for both, so torch is imported once per page.
PAGE_RUNNER = """
import contextlib, io, json, runpy, sys
script, notebook = sys.argv[1:]
with contextlib.redirect_stdout(io.StringIO()):
    runpy.run_path(script, run_name="__main__")
cells = json.load(open(notebook, encoding="utf-8"))["cells"]
namespace = {"__name__": "__main__"}
for number, cell in enumerate(cells):
    if cell["cell_type"] != "code":
        continue
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile("".join(cell["source"]), f"cell {number}", "exec"), namespace)
    stored = "".join("".join(o.get("text", "")) for o in cell["outputs"])
    if printed.getvalue().rstrip("\\n") != stored.rstrip("\\n"):
        sys.exit(f"cell {number} printed {printed.getvalue()!r}, stored {stored!r}")
"""


def test_each_page_with_code_offers_a_notebook_and_a_script_that_run(
    site: SiteBuild,
    pages: dict[str, list[reader.Block]],
    environments: Environments,
    tmp_path: Path,
) -> None:
    jobs = []
    for page, blocks in pages.items():
        code = reader.runnable(blocks)
        html = (site.directory / page).read_text()
        stem = f"pe-{Path(page).parent.name or 'index'}"  # formula/index.html: pe-formula
        folder = (site.directory / page).parent
        if not code:
            assert 'class="pe-downloads"' not in html, page
            continue
        assert f'href="{stem}.ipynb"' in html, page
        assert f'href="{stem}.py"' in html, page
        notebook = json.loads((folder / f"{stem}.ipynb").read_text())
        assert notebook["nbformat"] == 4
        cells = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
        assert ["".join(cell["source"]) for cell in cells] == [block.copied for block in code]
        script = (folder / f"{stem}.py").read_text()
        assert all(block.copied in script for block in code if block.copied)
        extras = tuple(sorted({name for block in code for name in needs(block.copied or "")}))
        environments(extras)  # made here, before the threads start
        jobs.append((page, folder / f"{stem}.py", folder / f"{stem}.ipynb", extras))
    assert len(jobs) >= 8

    def one(job: tuple[str, Path, Path, tuple[str, ...]]) -> list[str]:
        page, script, notebook, extras = job
        folder = tmp_path / script.stem
        folder.mkdir()
        result = run_script(
            environments(extras), folder, "run_page.py", PAGE_RUNNER, (str(script), str(notebook))
        )
        if result.returncode != 0:
            return [f"{page}: {script.name} or {notebook.name} fails:\n{result.stderr[-2000:]}"]
        return []

    with ThreadPoolExecutor(WORKERS) as pool:
        problems = [problem for found in pool.map(one, jobs) for problem in found]
    assert not problems, "\n\n".join(problems)


def test_pe_explain_reads_every_published_config_with_only_the_wheel(
    environment: Path, tmp_path: Path
) -> None:
    """``python -m pe explain`` on every file of configs/, in the reader's environment.

    The environment holds the served wheel, numpy and torch, and no transformers: the
    command reads the raw files alone, and prints what the page shows (the page runs
    `pe.explain` in the build).
    """
    import warnings

    import pe

    files = sorted((ROOT / "configs").glob("*/*.json"))
    assert len(files) >= 40
    # python -I -m pe explain FILE...: runpy runs pe.__main__ as -m does, with these arguments.
    command = "import runpy\nrunpy.run_module('pe', run_name='__main__', alter_sys=True)"
    result = run_script(environment, tmp_path, "explain.py", command, ("explain", *map(str, files)))
    assert result.returncode == 0, result.stderr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the two files of remote code warn: checked elsewhere
        expected = [f"{path}\n{pe.explain(json.loads(path.read_text()))}" for path in files]
    assert result.stdout == "\n\n".join(expected) + "\n"
    probe = "import importlib.util; print(importlib.util.find_spec('transformers'))"
    check = subprocess.run(
        [str(environment), "-I", "-c", probe], capture_output=True, text=True, check=True
    )
    assert check.stdout.strip() == "None"
