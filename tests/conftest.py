"""Shared fixtures: one strict build of the site per session, a local server, Chromium."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import tools.local_site
import tools.offline

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
    env = dict(os.environ, PE_CACHE=str(cache), NO_MKDOCS_2_WARNING="1")
    env["PE_CHECK_LINKS"] = "true" if check_links else "false"
    env.pop("SITE_URL", None)
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(destination)]
    if offline:
        command, env = tools.offline.offline(command, env)
    if config is not None:
        command += ["--config-file", str(config)]
    result = subprocess.run(
        command,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    log = result.stdout + result.stderr
    if should_fail and result.returncode == 0:
        pytest.fail(f"mkdocs build --strict should have failed:\n{log[-4000:]}")
    if not should_fail and result.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed:\n{log[-4000:]}")
    return log


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> SiteBuild:
    cache = tmp_path_factory.mktemp("figure-cache")
    directory = tmp_path_factory.mktemp("site")
    second = tmp_path_factory.mktemp("site-again")
    # The cold build checks links and has no network; the warm one is a plain build.
    cold = mkdocs_build(directory, cache, check_links=True, offline=True)
    warm = mkdocs_build(second, cache)
    return SiteBuild(directory, second, cache, cold, warm, tools.offline.isolation()[1])


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
    browser: Browser, base: str, **options: Any
) -> Iterator[tuple[Page, list[str], list[str]]]:
    """A fresh page that blocks every request not to `base`, and records console errors.

    Yields ``(page, outside, errors)``: the blocked URLs and the error messages.
    `options` go to ``browser.new_context`` (the viewport is 1280 x 900 unless set).
    """
    options.setdefault("viewport", {"width": 1280, "height": 900})
    context = browser.new_context(**options)
    page = context.new_page()
    outside: list[str] = []
    errors: list[str] = []

    def route(route: Route) -> None:
        url = route.request.url
        if url.startswith((base, "data:", "blob:")):
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
    page.wait_for_function(
        "() => document.querySelectorAll("
        "'.arithmatex > .katex, .arithmatex > .katex-display').length"
        " >= document.querySelectorAll('.arithmatex').length"
        " && [...document.fonts].every(f => f.status !== 'loading')",
        timeout=15_000,
    )
