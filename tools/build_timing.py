"""Measure how fast the site is to work on (``make timing``).

Works in a scratch copy of the repository (the tracked files and any new,
not yet ignored ones), with an empty cache, so it never touches your tree or
your ``.cache/``. Prints four figures and checks each against its target:

1. cold build: ``mkdocs build --strict`` with no cache (every figure drawn);
2. warm build: the same again, nothing changed;
3. serve: ``make serve``'s command running; one Markdown page is edited, and
   the time until the server returns the edited page is measured, with no
   figure script run;
4. one figure script edited: the next build runs that script and no other.

Exits with status 1 if a target is missed.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WARM_TARGET = 5.0
SERVE_TARGET = 3.0
PAGE = "docs/properties.md"
SCRIPT = "scripts/fig_wavelengths.py"


def copy_tree(destination: Path) -> None:
    """Copy the files git would commit (tracked and new, not ignored)."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listing.split("\0")):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def environment(cache: Path) -> dict[str, str]:
    """Run MkDocs as ``make`` does, with the scratch cache."""
    env = dict(os.environ, PE_CACHE=str(cache), NO_MKDOCS_2_WARNING="1")
    env.pop("SITE_URL", None)
    return env


def build(tree: Path, cache: Path) -> tuple[float, str]:
    """Time one strict build of `tree`; return the seconds and the log."""
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tree / "site")],
        cwd=tree,
        env=environment(cache),
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"build failed:\n{result.stderr[-3000:]}")
    return seconds, result.stderr


def figures_line(log: str) -> str:
    """Return the hooks' one-line report of which figure scripts ran."""
    match = re.search(r"figures: ran .*", log)
    return match.group(0) if match else "no figure report in the log"


def free_port() -> int:
    """Ask the system for a port nobody listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def fetch(url: str) -> str:
    """Return the body at `url`, or an empty string while the server is not answering."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return str(response.read().decode())
    except OSError:
        return ""


def serve_edit(tree: Path, cache: Path) -> tuple[float, str]:
    """Start the server as ``make serve`` does, edit a page, time until it is served."""
    port = free_port()
    makefile = (tree / "Makefile").read_text()
    dirty = "--dirty" in makefile.split("\nserve:", 1)[1].split("\n\n", 1)[0]
    command = [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"]
    command += ["--dirty"] if dirty else []
    log_path = tree / "serve.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            command, cwd=tree, env=environment(cache), stdout=log, stderr=subprocess.STDOUT
        )
    try:
        url = f"http://127.0.0.1:{port}/{Path(PAGE).relative_to('docs').with_suffix('')}/"
        deadline = time.monotonic() + 120
        while "Properties" not in fetch(url):
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit(f"mkdocs serve did not start:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.2)
        time.sleep(1.0)  # let the watcher settle after the first build
        before = log_path.read_text().count("figures: ran")
        marker = f"Edited at {time.time_ns()}"
        page = tree / PAGE
        start = time.perf_counter()
        page.write_text(page.read_text() + f"\n{marker}\n")
        while marker not in fetch(url):
            if time.perf_counter() - start > 60:
                raise SystemExit("the edited page was not served within 60 s")
            time.sleep(0.05)
        seconds = time.perf_counter() - start
        reports = re.findall(r"figures: ran .*", log_path.read_text())[before:]
        return seconds, reports[-1] if reports else "no figure report in the log"
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> int:
    """Run the four measurements and print them; return 1 if a target is missed."""
    missed = []
    with tempfile.TemporaryDirectory(prefix="pe-timing-") as scratch:
        tree, cache = Path(scratch) / "tree", Path(scratch) / "cache"
        copy_tree(tree)

        cold, log = build(tree, cache)
        print(f"cold build (no cache):          {cold:5.1f} s   {figures_line(log)}")

        warm, log = build(tree, cache)
        ok = warm < WARM_TARGET and "ran 0 script" in log
        missed += [] if ok else ["warm build"]
        print(
            f"warm build:                     {warm:5.1f} s   target < {WARM_TARGET:.0f} s "
            f"{'ok' if ok else 'MISSED'}; {figures_line(log)}"
        )

        seconds, report = serve_edit(tree, cache)
        ok = seconds < SERVE_TARGET and "ran 0 script" in report
        missed += [] if ok else ["serve"]
        print(
            f"serve, edited page shown after: {seconds:5.1f} s   target < {SERVE_TARGET:.0f} s "
            f"{'ok' if ok else 'MISSED'}; {report}"
        )

        script = tree / SCRIPT
        script.write_text(script.read_text() + "\n# edited by tools/build_timing.py\n")
        seconds, log = build(tree, cache)
        line = figures_line(log)
        ok = f"ran 1 script(s) ({Path(SCRIPT).name})" in line
        missed += [] if ok else ["one figure"]
        print(
            f"one figure script edited:       {seconds:5.1f} s   "
            f"{'ok' if ok else 'MISSED'}, only it re-ran; {line}"
        )
    if missed:
        print(f"missed: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
