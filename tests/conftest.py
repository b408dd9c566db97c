"""Shared fixtures: one strict build of the site per session, a local server, Chromium.

The build starts in the background as soon as the tests are collected, and
the every-page screen check (`tools.screen_checks`) as soon as the build is done.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import tools.local_site
import tools.offline
from tools import screen_checks

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Route

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class SiteBuild:
    """A strict build made twice with a fresh figure cache: cold, then warm.

    The two builds run in separate processes and write separate directories,
    so the tests can also compare them file by file.
    """

    directory: Path
    second_directory: Path
    cache: Path
    cold_log: str
    warm_log: str
    offline: str


def count_checks(
    monkeypatch: pytest.MonkeyPatch, modules: tuple[Any, ...], names: tuple[str, ...]
) -> list[str]:
    """Wrap each of `names` that a module of `modules` imported; return the list they log to.

    Used to show that an argument is validated once on its way down: every call
    of a wrapped check appends its name.
    """
    calls: list[str] = []
    for module in modules:
        for name in names:
            if not hasattr(module, name):
                continue
            original = getattr(module, name)

            def counted(
                *args: Any, _original: Any = original, _name: str = name, **kwargs: Any
            ) -> Any:
                calls.append(_name)
                return _original(*args, **kwargs)

            monkeypatch.setattr(module, name, counted)
    return calls


def _mkdocs_command(
    destination: Path,
    cache: Path,
    *,
    check_links: bool = False,
    config: Path | None = None,
    offline: bool = False,
) -> tuple[list[str], dict[str, str]]:
    """The command and environment of one ``mkdocs build --strict``."""
    env = dict(os.environ, PE_CACHE=str(cache), NO_MKDOCS_2_WARNING="1")
    env["PE_CHECK_LINKS"] = "true" if check_links else "false"
    env.pop("SITE_URL", None)
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(destination)]
    if offline:
        command, env = tools.offline.offline(command, env)
    if config is not None:
        command += ["--config-file", str(config)]
    return command, env


def _run(command: list[str], env: dict[str, str]) -> tuple[int, str]:
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    return result.returncode, result.stdout + result.stderr


def mkdocs_build(
    destination: Path,
    cache: Path,
    *,
    check_links: bool = False,
    config: Path | None = None,
    offline: bool = False,
    should_fail: bool = False,
) -> str:
    """Run ``mkdocs build --strict`` and return its log; fail the test if it fails.

    With `offline`, the build runs with no network (see `tools.offline`).
    With `should_fail`, it is the other way round: the test fails if it builds.
    """
    code, log = _run(
        *_mkdocs_command(
            destination, cache, check_links=check_links, config=config, offline=offline
        )
    )
    if should_fail and code == 0:
        pytest.fail(f"mkdocs build --strict should have failed:\n{log[-4000:]}")
    if not should_fail and code != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{log[-4000:]}")
    return log


# The slow builds run in the background, one after another, from the moment the
# tests are collected: the MkDocs site (cold, then warm), the Zensical site, and
# a second run of every figure script. The tests that need none of them run
# first (see pytest_collection_modifyitems), so on two cores the two overlap.
# Beside them, once the MkDocs site is built, every page is checked on every
# screen (`screen_check`, two browsers): it runs while the other tests of the built
# site do, which use one browser at a time, and the test that reads it runs last.
# A job runs only if a selected test needs its fixture.
_BACKGROUND_FIXTURES = (
    "site",
    "zensical_site",
    "figure_reruns",
    "serve_site",
    "lint",
    "screen_check",
)
#: Background jobs whose tests run last: the others run while these do.
_LAST = ("serve_site", "lint", "screen_check")
_jobs: dict[str, Future[Any]] = {}
#: Rules not run on a page by the every-page check, each with its reason: none,
#: every rule runs everywhere.
SKIP_AXE: dict[str, set[str]] = {}


@dataclass(frozen=True)
class ScreensRun:
    """The every-page check of the built site: what it found, on which pages, how long."""

    result: screen_checks.Result
    paths: list[str]
    seconds: float
    base: str  # the address the site was served at


def _build_site(root: Path) -> SiteBuild | str:
    """The cold build (links checked, no network), then the warm one; a log if one fails."""
    cache, directory, second = root / "figure-cache", root / "site", root / "site-again"
    logs = []
    for destination, options in ((directory, {"check_links": True, "offline": True}), (second, {})):
        code, log = _run(*_mkdocs_command(destination, cache, **options))  # type: ignore[arg-type]
        if code != 0:
            return f"mkdocs build --strict failed:\n{log[-4000:]}"
        logs.append(log)
    return SiteBuild(directory, second, cache, logs[0], logs[1], tools.offline.isolation()[1])


def _build_zensical(root: Path) -> Path | str | None:
    """``zensical build --strict`` sharing the MkDocs build's cache; None without Zensical.

    Not with ``--clean``: Zensical's cache is ``.cache/`` of the project, and
    ``--clean`` empties all of it, the figure cache of `sitegen.cache` included.
    Zensical keeps its output inside the project: a scratch folder under .cache/.
    """
    if importlib.util.find_spec("zensical") is None:
        return None
    built = _jobs["site"].result()
    if isinstance(built, str):
        return built
    (ROOT / ".cache").mkdir(exist_ok=True)
    directory = Path(tempfile.mkdtemp(prefix="site-zensical-", dir=ROOT / ".cache"))
    env = dict(os.environ, PE_CACHE=str(built.cache), PE_SITE_DIR=str(directory))
    env.pop("SITE_URL", None)
    code, log = _run([sys.executable, "-m", "zensical", "build", "--strict"], env)
    if code != 0 or not (directory / "index.html").is_file():
        shutil.rmtree(directory, ignore_errors=True)
        return f"zensical build --strict failed:\n{log[-4000:]}"
    return directory


@dataclass(frozen=True)
class Reruns:
    """Every figure script run again, each in a new process."""

    files: dict[str, Path]  # what they drew, by file name
    legends: dict[str, dict[str, list[str]]]  # by script: what each light drawing's legends cover


def _rerun_figures(root: Path) -> Reruns | str:
    """Every figure script run again, forked from a waiting process of its own, legends checked.

    A second `sitegen.fork_runner.Runner`, started for this run, as the build
    starts one (each script's child starts from a process that has only
    imported what the scripts import); where forking is not supported, each
    script runs as a process of its own. ``PE_LEGEND_REPORT`` makes the
    shared style write what the legends of the light drawings cover
    (``scripts/_legends.py``), outside the figure's folder.
    """
    from sitegen import figures, fork_runner

    legends = root / "legends"
    legends.mkdir()
    env = dict(figures.script_environment(), PE_LEGEND_REPORT=str(legends))
    runner = None
    if fork_runner.supported():
        try:
            runner = fork_runner.Runner.for_figures(ROOT, figures.SCRIPTS, env)
        except OSError:
            runner = None  # each script runs as a process of its own, as the build then does

    def rerun(script: Path) -> tuple[Path, int, str]:
        out = root / script.stem
        out.mkdir()
        if runner is not None:
            log = root / f".{script.stem}"
            try:
                status = runner.run(script, [str(out)], log)
            except OSError:
                pass  # the waiting process is gone: this script runs on its own
            else:
                err = Path(f"{log}.err").read_text(encoding="utf-8", errors="replace")
                return out, status, err
        result = subprocess.run(
            [sys.executable, str(script), str(out)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        return out, result.returncode, result.stderr

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            runs = list(pool.map(rerun, figures.figure_scripts()))
    finally:
        if runner is not None:
            runner.close()
    failed = [f"{out.name}: {stderr[-2000:]}" for out, code, stderr in runs if code != 0]
    if failed:
        return "a figure script failed on its second run:\n" + "\n".join(failed)
    return Reruns(
        {path.name: path for out, _, _ in runs for path in out.iterdir()},
        {
            report.stem: json.loads(report.read_text(encoding="utf-8"))
            for report in legends.iterdir()
        },
    )


#: Imported first by every interpreter of the build (PYTHONPATH), figure scripts included:
#: the optional libraries cannot be found, as on a clone that only ran ``make serve``.
HIDE_OPTIONAL = """
import importlib.machinery
import sys

HIDDEN = {hidden!r}


class HideOptional(importlib.machinery.PathFinder):
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname.partition(".")[0] in HIDDEN:
            return None
        return super().find_spec(fullname, path, target)

    @classmethod
    def find_distributions(cls, *args, **kwargs):
        # Nor are they installed packages: importlib.metadata does not find them.
        for found in super().find_distributions(*args, **kwargs):
            name = (found.metadata["Name"] or "").lower().replace("-", "_")
            if name not in HIDDEN:
                yield found


sys.meta_path = [
    HideOptional if finder is importlib.machinery.PathFinder else finder
    for finder in sys.meta_path
]
"""

#: What ``make serve`` runs, as one build instead of a server (tools/serve.py's builder).
SERVE_BUILD = """
import sys
from mkdocs.config import load_config
from tools import serve
config = load_config("mkdocs.yml", site_dir=sys.argv[1])
serve.Builder()(config, serve_url=None, dirty=False)
"""


def _build_as_serve(root: Path) -> Path | str:
    """The site built as ``make serve`` builds it on a fresh clone: no torch, no compared libraries.

    Every interpreter of the build imports `HIDE_OPTIONAL` first, so the
    optional libraries cannot be found. The figure cache starts with only the
    figures such a clone can draw, copied from the session's build; every
    table is computed afresh. Returns the site's folder, or a log on failure.
    """
    from sitegen import exec_format

    built = _jobs["site"].result()
    if isinstance(built, str):
        return built
    hidden = sorted(exec_format.OPTIONAL)
    (root / "hide").mkdir()
    (root / "hide" / "sitecustomize.py").write_text(HIDE_OPTIONAL.format(hidden=hidden))
    cache = root / "cache"
    for script in sorted((ROOT / "scripts").glob("fig_*.py")):
        source = script.read_text(encoding="utf-8")
        if re.search(rf"^(?:import|from) ({'|'.join(hidden)})\b", source, flags=re.MULTILINE):
            continue  # a fresh clone cannot draw it
        drawn = built.cache / "figures" / script.stem
        if drawn.is_dir():
            shutil.copytree(drawn, cache / "figures" / script.stem)
    env = dict(os.environ, PE_SERVE="1", PE_CACHE=str(cache), NO_MKDOCS_2_WARNING="1")
    env["PYTHONPATH"] = os.pathsep.join([str(root / "hide"), str(ROOT)])
    env.pop("SITE_URL", None)
    code, log = _run([sys.executable, "-c", "import torch"], env)
    if code == 0:
        return "torch should be hidden from the build, and was imported"
    code, log = _run([sys.executable, "-c", SERVE_BUILD, str(root / "site")], env)
    if code != 0:
        return f"the build as make serve runs it failed:\n{log[-4000:]}"
    return root / "site"


#: What ``make lint`` runs (the Makefile's lint recipe; tests/test_lint.py checks the two agree).
LINT_COMMANDS = (
    ("ruff", "check", "."),
    ("ruff", "format", "--check", "."),
    ("mypy",),
)


def _lint(root: Path) -> tuple[str, ...] | str:
    """Run ruff and mypy as ``make lint`` does; their names, or their log if one fails.

    A background job, last in its thread: mypy's cold run (about 17 s of one
    core) then overlaps the tests that keep only one core busy at the end.
    """
    env = dict(os.environ)
    done = []
    for command in LINT_COMMANDS:
        code, log = _run([sys.executable, "-m", *command], env)
        if code != 0:
            return f"python -m {' '.join(command)} failed:\n{log[-6000:]}"
        done.append(" ".join(command))
    return tuple(done)


def _check_screens(root: Path) -> ScreensRun | str | None:
    """Every page of the built site on every screen; None without Chromium, a log if it fails."""
    built = _jobs["site"].result()
    if isinstance(built, str):
        return built
    if tools.local_site.chromium() is None:
        return None
    try:
        paths = screen_checks.site_pages(built.directory)
        with tools.local_site.served(built.directory) as base:
            start = time.perf_counter()
            result = screen_checks.check_side_by_side(
                tools.local_site.launch, base, paths, skip_axe=SKIP_AXE, search=False
            )
        return ScreensRun(result, paths, time.perf_counter() - start, base)
    except Exception:  # reported by the test that reads the result
        return "the every-page screen check failed:\n" + traceback.format_exc()


def _needs(item: pytest.Item, fixture: str) -> bool:
    return fixture in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests that need no background job first, in their usual order, then the rest.

    The tests that read the lint run and the every-page check (`_LAST`) come
    last, the every-page check's at the very end: the others run while they do.
    """
    items.sort(
        key=lambda item: (
            any(_needs(item, name) for name in _BACKGROUND_FIXTURES),
            any(_needs(item, name) for name in _LAST),
            _needs(item, "screen_check"),
        )
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the background jobs that the selected tests need, in one worker thread."""
    wanted = [
        name for name in _BACKGROUND_FIXTURES if any(_needs(item, name) for item in session.items)
    ]
    if not wanted:
        return
    if "site" not in wanted and {"zensical_site", "serve_site", "screen_check"} & set(wanted):
        wanted.insert(0, "site")
    factory = session.config._tmp_path_factory  # type: ignore[attr-defined]
    jobs = {
        "site": _build_site,
        "zensical_site": _build_zensical,
        "figure_reruns": _rerun_figures,
        "serve_site": _build_as_serve,
        "lint": _lint,
    }
    worker = ThreadPoolExecutor(max_workers=1)
    for name in wanted:
        if name in jobs:
            _jobs[name] = worker.submit(jobs[name], factory.mktemp(name))
    worker.shutdown(wait=False)
    if "screen_check" in wanted:  # its own thread: it waits for the site, not for the others
        checker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="screen-check")
        _jobs["screen_check"] = checker.submit(_check_screens, factory.mktemp("screen-check"))
        checker.shutdown(wait=False)


def _background(name: str) -> Any:
    """The result of a background job; the test fails with the job's log if it failed."""
    assert name in _jobs, f"the background job {name} starts when a test that needs it is selected"
    result = _jobs[name].result()
    if isinstance(result, str):
        pytest.fail(result)
    return result


@pytest.fixture(scope="session")
def site() -> SiteBuild:
    built: SiteBuild = _background("site")
    return built


@pytest.fixture(scope="session")
def zensical_site() -> Iterator[Path]:
    """The site built by ``zensical build --strict`` (skipped if Zensical is not installed)."""
    directory: Path | None = _background("zensical_site")
    if directory is None:
        pytest.skip("zensical is not installed")
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="session")
def serve_site() -> Path:
    """The site as ``make serve`` builds it on a fresh clone (`_build_as_serve`)."""
    directory: Path = _background("serve_site")
    return directory


@pytest.fixture(scope="session")
def lint() -> tuple[str, ...]:
    """The lint run (ruff and mypy over the repository), done in the background."""
    commands: tuple[str, ...] = _background("lint")
    return commands


@pytest.fixture(scope="session")
def figure_reruns() -> Reruns:
    """A second run of every figure script: its files by name, and its legends checked."""
    reruns: Reruns = _background("figure_reruns")
    return reruns


@pytest.fixture(scope="session")
def screen_check() -> ScreensRun:
    """The every-page check of the built site (`tools.screen_checks.check_side_by_side`)."""
    run: ScreensRun | None = _background("screen_check")
    if run is None:
        message = "Chromium is not installed (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message + "; CI must install it")
        pytest.skip(message)
    return run


@pytest.fixture(scope="session")
def server(site: SiteBuild) -> Iterator[str]:
    """Serve the built site on a free loopback port; yield its base URL."""
    with tools.local_site.served(site.directory) as base:
        yield base


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Debian's Chromium driven by Playwright; skipped locally without it, fatal in CI."""
    if tools.local_site.chromium() is None:
        message = "Chromium is not installed (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(message + "; CI must install it")
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = tools.local_site.launch(playwright)
        yield chromium
        chromium.close()


@contextlib.contextmanager
def watched_page(
    browser: Browser, base: str, *, search: bool = False, **options: Any
) -> Iterator[tuple[Page, list[str], list[str]]]:
    """A fresh page that blocks every request not to `base`, and records console errors.

    Yields ``(page, outside, errors)``: the blocked URLs and the error messages.
    `options` go to ``browser.new_context`` (the viewport is 1280 x 900 unless set).
    Unless `search`, the theme's search worker is served idle
    (`tools.local_site.IDLE_WORKER`): a test that does not search does not pay
    for the search index being built on every page it loads.
    """
    options.setdefault("viewport", {"width": 1280, "height": 900})
    context = browser.new_context(**options)
    page = context.new_page()
    outside: list[str] = []
    errors: list[str] = []

    def route(route: Route) -> None:
        url = route.request.url
        if not search and tools.local_site.is_search_worker(url):
            route.fulfill(body=tools.local_site.IDLE_WORKER, content_type="text/javascript")
        elif url.startswith((base, "data:", "blob:")):
            route.continue_()
        else:
            outside.append(url)
            route.abort()

    page.route("**/*", route)
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield page, outside, errors
    finally:
        context.close()


def wait_for_math(page: Page) -> None:
    """Wait for KaTeX's fonts (the formulas are typeset at build time)."""
    page.wait_for_function(screen_checks.MATH_READY, timeout=15_000)
