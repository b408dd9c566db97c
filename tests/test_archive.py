"""The single-file download: the site zipped, unzipped elsewhere, served by http.server.

The archive is read the way its instructions say: unzipped into a fresh folder
and served by ``python -m http.server``; Chromium, with every request to
another host blocked, must find math, search, figures and the playground
working.
"""

from __future__ import annotations

import html
import re
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest
from conftest import SiteBuild, wait_for_math, watched_page

import pe
from tools.archive import TOP, make_archive
from tools.local_site import open_page

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def archive(site: SiteBuild, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("download") / "pe-site.zip"
    make_archive(site.directory, path)
    return path


def test_the_archive_holds_the_whole_site_and_is_reproducible(
    site: SiteBuild, archive: Path, tmp_path: Path
) -> None:
    again = tmp_path / "again.zip"
    make_archive(site.directory, again)
    assert again.read_bytes() == archive.read_bytes()
    files = sorted(
        p.relative_to(site.directory).as_posix() for p in site.directory.rglob("*") if p.is_file()
    )
    with zipfile.ZipFile(archive) as bundle:
        assert bundle.testzip() is None
        names = sorted(name.removeprefix(f"{TOP}/") for name in bundle.namelist())
        assert names == files
        assert bundle.read(f"{TOP}/index.html") == (site.directory / "index.html").read_bytes()


def test_making_an_archive_without_a_site_says_so(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="make build"):
        make_archive(tmp_path / "missing", tmp_path / "out.zip")


@pytest.fixture(scope="module")
def http_server(archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Unzip the archive and serve it with ``python -m http.server``, as a reader would."""
    where = tmp_path_factory.mktemp("unzipped")
    with zipfile.ZipFile(archive) as bundle:
        bundle.extractall(where)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    server = subprocess.Popen(
        [*command, "--directory", str(where / TOP)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(base, timeout=2):
                break
        except OSError:
            if time.monotonic() > deadline:
                server.kill()
                pytest.fail("python -m http.server did not start")
            time.sleep(0.1)
    yield base
    server.terminate()
    server.wait(timeout=10)


def test_the_unzipped_site_works_offline(browser: Browser, http_server: str) -> None:
    with watched_page(browser, http_server, search=True) as (page, outside, errors):
        # Math, typeset by KaTeX when the site was built, in the fonts the zip holds.
        open_page(page, http_server + "formula/")
        wait_for_math(page)
        assert page.locator(".arithmatex .katex").count() > 10
        # A figure.
        image = page.locator("article img[src*='#only-light']").first
        image.scroll_into_view_if_needed()
        page.wait_for_function(
            "() => { const i = document.querySelector(\"article img[src*='#only-light']\");"
            " return i.complete && i.naturalWidth > 0; }"
        )
        # Search.
        search = page.locator("input.md-search__input")
        search.click()
        search.press_sequentially("wavelength", delay=20)
        page.wait_for_selector(".md-search-result__item", timeout=15_000)
        # The playground: the encoding of one cell, against pe.
        open_page(page, http_server + "playground/")
        widget = page.locator('[data-pe-widget="playground"]')
        page.wait_for_function(
            "document.querySelector('[data-pe-widget=\"playground\"]').dataset.mounted"
        )
        canvas = widget.locator('[data-role="heatmap"]')
        canvas.focus()
        canvas.press("Home")  # cell (0, 0), then 5 positions down and 3 dimensions across
        for key in ["ArrowDown"] * 5 + ["ArrowRight"] * 3:
            canvas.press(key)
        readout = widget.locator('[data-role="cell-readout"]')
        cell = {
            name: float(readout.locator(f'[data-field="{name}"]').first.inner_text())
            for name in ("position", "dimension", "value")
        }
        assert (cell["position"], cell["dimension"]) == (5, 3)
        d_model = int(widget.locator('[data-control="d"]').input_value())
        exact = pe.sinusoidal(np.array([5]), d_model, dtype=np.float64)[0, 3]
        shown = cell["value"]
        assert abs(shown - exact) <= 0.5e-6 + 1e-12
    assert outside == []
    assert errors == []


def test_the_install_page_command_installs_the_served_wheel(
    http_server: str, tmp_path: Path
) -> None:
    """Run the Install page's command against the unzipped site, in a fresh environment."""
    from test_reader import fresh_environment, reader_env

    page_url = http_server + "install/"
    install_page = urllib.request.urlopen(page_url, timeout=10).read().decode()
    text = re.sub(r"<[^>]+>", "", install_page)
    commands = re.findall(r"pip install (\S+\.whl)", html.unescape(text))
    assert len(commands) == 1, commands
    (wheel,) = commands
    # No host is named (the archive is served on a port of its own here): the page
    # links the wheel relative to itself, and the command installs the downloaded file.
    assert "://" not in wheel
    (href,) = set(re.findall(rf'href="([^"]*{re.escape(wheel)})"', install_page))
    downloaded = tmp_path / "downloads" / wheel
    downloaded.parent.mkdir()
    url = urllib.parse.urljoin(page_url, href)
    downloaded.write_bytes(urllib.request.urlopen(url, timeout=10).read())
    python = fresh_environment(tmp_path / "venv")  # numpy and torch only
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", wheel],
        cwd=downloaded.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    check = subprocess.run(
        [python, "-I", "-c", "import pe; print(pe.__version__, pe.sinusoidal(3, 4).shape)"],
        cwd=tmp_path,
        env=reader_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert check.stdout.split() == [pe.__version__, "(3,", "4)"]


def test_no_page_names_a_host_the_archive_is_not_served_from(http_server: str) -> None:
    """Canonical links, the sitemap and the Install page hold no address baked in at build time."""
    sitemap = urllib.request.urlopen(http_server + "sitemap.xml", timeout=10).read().decode()
    locations = re.findall(r"<loc>([^<]*)</loc>", sitemap)
    assert "/" in locations
    assert all(location.startswith("/") for location in locations), locations[:3]
    for path in ("", "install/", "beyond/rope/"):
        page = urllib.request.urlopen(http_server + path, timeout=10).read().decode()
        assert 'rel="canonical"' not in page
        assert "127.0.0.1:8000" not in page
