"""Measure how fast the site is to work on (``make timing``).

Works in a scratch copy of the repository (the tracked files and any new,
not yet ignored ones), with an empty cache, so it never touches your tree or
your ``.cache/``. Prints these figures and checks each against its target:

1. cold build: ``mkdocs build --strict`` with no cache (every figure drawn),
   no network, and every internal link, anchor and image checked;
2. warm build: the same again, nothing changed (with the network and without
   the link check, as ``make build``), compared file by file with the first;
3. serve: ``make serve``'s command running; one Markdown page is edited, and
   the time until the server returns the edited page is measured, with no
   figure script run;
4. one figure script edited: the next build runs that script and no other;
5. ``make test`` in the copy (lint, types, every test), with this environment;
6. Zensical: ``zensical build --strict`` of the same copy, cold (empty caches)
   and warm (``--zensical`` measures only this and keeps the other figures).
7. a fresh clone served, as a newcomer meets it: ``git clone`` of this
   repository's committed HEAD into a scratch folder, ``make serve`` in it (it
   creates its own ``.venv`` with only what serving needs, then builds with an
   empty figure cache), timed until the home page answers 200 with the whole
   page; then until it shows every figure (the pages are served while the
   figures are drawn: `tools.serve`). pip's download cache is the user's own:
   the record says whether it was warm (whether the install added to it).

``--only serve-edit,fresh-clone`` measures only those (either or both) and
updates them in the record.

Writes the figures to ``benchmarks/results/timing.json`` (the README's
Development section is generated from it) and exits with status 1 if a
target is missed. Takes about ten minutes on two cores.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchmarks._common import environment as machine_record
from benchmarks._common import write
from tools.offline import isolation, offline

ROOT = Path(__file__).resolve().parents[1]

WARM_TARGET = 5.0
SERVE_TARGET = 1.5
FRESH_CLONE_TARGET = 45.0  # issue 23
TEST_TARGET = 240.0  # issue 23
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


def build(tree: Path, cache: Path, *, cold: bool = False) -> tuple[float, str]:
    """Time one strict build of `tree` into ``site/``; return the seconds and the log.

    A `cold` build also has no network and checks links (into ``site-cold/``).
    """
    command = [sys.executable, "-m", "mkdocs", "build", "--strict"]
    command += ["--site-dir", str(tree / ("site-cold" if cold else "site"))]
    env = environment(cache)
    if cold:
        command, env = offline(command, {**env, "PE_CHECK_LINKS": "true"})
    start = time.perf_counter()
    result = subprocess.run(
        command,
        cwd=tree,
        env=env,
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
    command = [sys.executable, "-m", "tools.serve", "--dev-addr", f"127.0.0.1:{port}"]
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


def disk_usage(path: Path) -> int:
    """Bytes that `path` takes on disk (``du -sb``)."""
    du = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True)
    return int(du.stdout.split()[0])


def pip_cache_bytes() -> int:
    """Bytes in pip's download and wheel cache (0 where there is none)."""
    found = subprocess.run(
        [sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return disk_usage(Path(found)) if found and Path(found).is_dir() else 0


def uv_cache_dir() -> Path:
    """Find uv's cache folder as uv does on Linux and macOS (``uv cache dir``).

    Found without uv, which is not installed before ``make serve`` runs.
    """
    if os.environ.get("UV_CACHE_DIR"):
        return Path(os.environ["UV_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "uv"


def uv_cache_bytes() -> int:
    """Bytes in uv's cache (0 where there is none)."""
    found = uv_cache_dir()
    return disk_usage(found) if found.is_dir() else 0


#: The line the Makefile prints when uv could not install and pip installs instead.
PIP_FALLBACK = "uv could not install make serve's environment; pip installs it instead"


def installer(log: str) -> str:
    """Which tool installed ``make serve``'s environment, from its log: uv, or pip after it.

    The line printed, not the recipe that make echoes before running it.
    """
    return "pip" if PIP_FALLBACK in log.splitlines() else "uv"


def fresh_clone_serve(scratch: Path) -> tuple[float, dict[str, object]]:
    """Clone HEAD, run ``make serve`` in the clone, time until its first page answers.

    The first page is the home page answering 200 with the whole page (its
    closing ``</html>``); the figures are drawn after (`tools.serve`), and the
    time until the home page shows them is recorded too.
    """
    clone = scratch / "clone"
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"PE_CACHE", "VIRTUAL_ENV", "MAKEFLAGS"}}
    log_path = scratch / "fresh-serve.log"
    caches_before = {"pip": pip_cache_bytes(), "uv": uv_cache_bytes()}
    load_before = os.getloadavg()
    start = time.perf_counter()
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    with log_path.open("w") as log:
        server = subprocess.Popen(
            ["make", "serve", f"SERVE_ADDR=127.0.0.1:{port}"],
            cwd=clone,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # make, and the server it starts, stopped together
        )
    try:
        installed = 0.0
        home = ""
        while "</html>" not in home:
            home = fetch(f"http://127.0.0.1:{port}/")
            if not installed and (clone / ".venv" / ".installed-serve").is_file():
                installed = time.perf_counter() - start
            if time.perf_counter() - start > 900 or server.poll() is not None:
                raise SystemExit(f"make serve did not serve:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.2)
        seconds = time.perf_counter() - start
        placeholders = home.count("pe-figure-drawing")
        while "pe-figure-drawing" in home:  # the figures drawn, the pages rebuilt
            if time.perf_counter() - start > 900 or server.poll() is not None:
                raise SystemExit(f"make serve drew no figures:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.5)
            home = fetch(f"http://127.0.0.1:{port}/") or home
        figures_seconds = time.perf_counter() - start
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    torch = list(Path(sys.prefix).glob("lib/python*/site-packages/torch"))
    tool = installer(log_path.read_text(errors="replace"))
    # Both caches: pip's gets the uv wheel (and every package where pip installed).
    added = {
        "pip": pip_cache_bytes() - caches_before["pip"],
        "uv": uv_cache_bytes() - caches_before["uv"],
    }
    detail: dict[str, object] = {
        "install_seconds": installed,
        "first_page": "the home page, answering 200 with the whole page",
        "home_placeholders_at_first": placeholders,
        "figures_shown_seconds": figures_seconds,
        "load_average": {"before": list(load_before), "after": list(os.getloadavg())},
        "env_bytes": disk_usage(clone / ".venv"),
        # This environment, as make test installs it, for comparison.
        "full_env_bytes": disk_usage(Path(sys.prefix)),
        "full_env_torch_bytes": disk_usage(torch[0]) if torch else 0,
        # What each installer's cache held before, and what the install added to it.
        "install_cache": {
            "installer": tool,
            "bytes_before": caches_before,
            "bytes_added": added,
            # Warm: nothing was downloaded (a download lands in a cache): every package
            # came from the caches (or, for pip, from local wheels: its find-links).
            "warm": sum(added.values()) < 2**20,
            "find_links": os.environ.get("PIP_FIND_LINKS", ""),
        },
        "torch_installed": any((clone / ".venv").glob("lib/python*/site-packages/torch")),
    }
    return seconds, detail


def make_test(tree: Path) -> tuple[float, str]:
    """Time ``make test`` in `tree`, with the virtual environment running this script."""
    venv = Path(sys.executable).resolve().parents[1]
    if not (venv / ".installed").is_file():
        venv = ROOT / ".venv"
    # The copy's README must match the copy's results, whatever state yours is in.
    subprocess.run([sys.executable, "-m", "tools.readme"], check=True, cwd=tree)
    start = time.perf_counter()
    result = subprocess.run(
        # -o: take the environment as set up; never reinstall it from the copy.
        ["make", "-C", str(tree), "test", f"VENV={venv}", "-o", f"{venv}/.installed"],
        env={k: v for k, v in os.environ.items() if k != "PE_CACHE"},
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    summary = re.findall(r"=+ (.* in [\d.]+s.*) =+", result.stdout)
    if result.returncode != 0:
        raise SystemExit(f"make test failed:\n{result.stdout[-3000:]}{result.stderr[-2000:]}")
    return seconds, summary[-1] if summary else "no pytest summary"


_LINK = re.compile(r'<(?:a|img)\b[^>]*?\b(?:href|src)="([^"]+)"')


def internal_references(site: Path) -> tuple[int, int]:
    """Count the pages and the internal links, anchors and images they hold."""
    pages = sorted(site.rglob("*.html"))
    count = 0
    for page in pages:
        for target in _LINK.findall(page.read_text(encoding="utf-8")):
            count += not re.match(r"[a-z]+:", target)  # not http:, mailto:, data:
    return len(pages), count


def compare(first: Path, second: Path) -> tuple[int, list[str]]:
    """Compare two builds file by file (sitemaps aside); return the count and what differs."""
    names = sorted(p.relative_to(first).as_posix() for p in first.rglob("*") if p.is_file())
    other = sorted(p.relative_to(second).as_posix() for p in second.rglob("*") if p.is_file())
    differ = sorted(set(names) ^ set(other))
    differ += [
        name
        for name in names
        if name in other
        and not name.startswith("sitemap.xml")
        and (first / name).read_bytes() != (second / name).read_bytes()
    ]
    return len(names), differ


def errors_documented(site: Path) -> int:
    """Count the rows of the Errors page's tables of raised errors: each a bad call."""
    html = (site / "errors" / "index.html").read_text(encoding="utf-8")
    tables = [table for table in re.findall(r"<table.*?</table>", html, re.S) if "raises" in table]
    return sum(len(re.findall(r"<tr\b[^>]*>\s*<td", table)) for table in tables)


def verdict(label: str, seconds: float, target: float | None, ok: bool, detail: str) -> list[str]:
    """Print one measurement against its target; return ``[label]`` if it missed."""
    goal = f"target < {target:g} s " if target is not None else ""
    print(f"{label + ':':32s}{seconds:6.1f} s   {goal}{'ok' if ok else 'MISSED'}; {detail}")
    return [] if ok else [label]


def zensical_builds(tree: Path, cache: Path) -> dict[str, float]:
    """Time a cold and a warm ``zensical build --strict`` of `tree` (into ``site-zensical/``).

    Cold: an empty figure and table cache, and no Zensical cache (``.cache/``
    of `tree`, which Zensical always uses). Warm: the same again, nothing changed.
    """
    env = {**environment(cache), "PE_SITE_DIR": "site-zensical"}
    times = {}
    for label in ("cold", "warm"):
        start = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-m", "zensical", "build", "--strict"],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        times[label] = time.perf_counter() - start
        if result.returncode != 0:
            raise SystemExit(f"zensical build failed:\n{(result.stdout + result.stderr)[-3000:]}")
        print(f"{'zensical ' + label + ' build:':32s}{times[label]:6.1f} s")
    return times


def zensical_only() -> int:
    """Measure the Zensical builds alone; keep the other figures of timing.json."""
    path = ROOT / "benchmarks" / "results" / "timing.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="pe-timing-") as scratch:
        tree, cache = Path(scratch) / "tree", Path(scratch) / "cache"
        copy_tree(tree)
        times = zensical_builds(tree, cache)
    record["zensical_cold_build_seconds"] = times["cold"]
    record["zensical_warm_build_seconds"] = times["warm"]
    print(f"wrote {write('timing', record).relative_to(ROOT)}")
    return 0


#: Fresh clones timed per record: one run moved by 13 s (44 to 57 s) from one minute
#: to the next on this machine, mostly pip's install (20 to 30 s).
CLONE_RUNS = 3


def fresh_clone_median(scratch: Path, runs: int = CLONE_RUNS) -> tuple[float, dict[str, object]]:
    """Time `runs` fresh clones (`fresh_clone_serve`); return the median run, with every run.

    The median run's detail is kept whole; ``runs_seconds`` and
    ``install_runs_seconds`` list each run's time to the first page and to the end
    of the install, in the order they ran.
    """
    measured = []
    for number in range(runs):
        folder = scratch / f"clone-run-{number}"
        folder.mkdir()
        measured.append(fresh_clone_serve(folder))
    seconds, detail = sorted(measured, key=lambda run: run[0])[(runs - 1) // 2]
    detail = {
        **detail,
        "runs_seconds": [run[0] for run in measured],
        "install_runs_seconds": [run[1]["install_seconds"] for run in measured],
    }
    return seconds, detail


def only(measurements: list[str]) -> int:
    """Measure only `measurements` (``serve-edit``, ``fresh-clone``); update ``timing.json``."""
    path = ROOT / "benchmarks" / "results" / "timing.json"
    record = json.loads(path.read_text())
    missed = []
    with tempfile.TemporaryDirectory(prefix="pe-timing-") as scratch:
        if "serve-edit" in measurements:
            tree, cache = Path(scratch) / "tree", Path(scratch) / "cache"
            copy_tree(tree)
            build(tree, cache)  # fill the cache, as the server's first build would
            seconds, report = serve_edit(tree, cache)
            record["serve_edit_seconds"] = seconds
            record["targets"]["serve_edit_seconds"] = SERVE_TARGET
            ok = seconds < SERVE_TARGET and "ran 0 script" in report
            missed += verdict("serve, edited page shown after", seconds, SERVE_TARGET, ok, report)
        if "fresh-clone" in measurements:
            seconds, detail = fresh_clone_median(Path(scratch))
            record["fresh_clone_serve_seconds"] = seconds
            record["fresh_clone_serve"] = detail
            record["targets"]["fresh_clone_serve_seconds"] = FRESH_CLONE_TARGET
            ok = seconds < FRESH_CLONE_TARGET
            label = "fresh clone, first page served"
            missed += verdict(label, seconds, FRESH_CLONE_TARGET, ok, _clone_detail(detail))
    record["targets_met"] = record["targets_met"] and not missed
    write("timing", record)
    return 1 if missed else 0


def _clone_detail(detail: dict[str, object]) -> str:
    """Summarize the fresh clone's install in one line."""
    install = float(str(detail["install_seconds"]))
    size = int(str(detail["env_bytes"])) / 2**20
    torch = "with torch" if detail["torch_installed"] else "no torch"
    cache = detail["install_cache"]
    tool = cache.get("installer", "pip") if isinstance(cache, dict) else "pip"
    warm = "warm" if isinstance(cache, dict) and cache.get("warm") else "cold"
    figures = float(str(detail.get("figures_shown_seconds", "nan")))
    load = detail.get("load_average", {})
    before = load.get("before", [float("nan")])[0] if isinstance(load, dict) else float("nan")
    return (
        f"make serve's install {install:.1f} s ({tool}, its cache {warm}), .venv {size:.0f} MiB, "
        f"{torch}; every figure shown at {figures:.1f} s; load {before:.1f} before"
    )


def main() -> int:
    """Run the seven measurements and print them; return 1 if a target is missed."""
    if "--zensical" in sys.argv[1:]:
        return zensical_only()
    if sys.argv[1:2] == ["--only"]:
        return only(sys.argv[2].split(","))
    missed = []
    record: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="pe-timing-") as scratch:
        tree, cache = Path(scratch) / "tree", Path(scratch) / "cache"
        copy_tree(tree)

        cold, log = build(tree, cache, cold=True)
        record["cold_build_seconds"] = cold
        record["offline"] = isolation()[1]
        print(f"{'cold build (no cache):':32s}{cold:6.1f} s   {figures_line(log)}")
        pages, links = internal_references(tree / "site-cold")
        record["links_checked"] = {"pages": pages, "references": links}
        record["errors_documented"] = errors_documented(tree / "site-cold")
        print(
            f"  with no network ({isolation()[1]}); htmlproofer checked {links:,} internal "
            f"links, anchors and images on {pages} pages: none broken; the Errors page "
            f"documents {record['errors_documented']} bad calls"
        )

        warm, log = build(tree, cache)
        record["warm_build_seconds"] = warm
        ok = warm < WARM_TARGET and "ran 0 script" in log
        missed += verdict("warm build", warm, WARM_TARGET, ok, figures_line(log))
        files, differ = compare(tree / "site-cold", tree / "site")
        record["reproducible"] = {"files": files, "differing": differ}
        missed += [] if not differ else ["reproducible"]
        print(
            f"  the two builds: {files} files, "
            f"{'identical (sitemap dates aside)' if not differ else f'DIFFER: {differ[:5]}'}"
        )

        seconds, report = serve_edit(tree, cache)
        record["serve_edit_seconds"] = seconds
        ok = seconds < SERVE_TARGET and "ran 0 script" in report
        missed += verdict("serve, edited page shown after", seconds, SERVE_TARGET, ok, report)

        script = tree / SCRIPT
        script.write_text(script.read_text() + "\n# edited by tools/build_timing.py\n")
        seconds, log = build(tree, cache)
        line = figures_line(log)
        record["one_figure_seconds"] = seconds
        record["one_figure_report"] = line
        ok = f"ran 1 script(s) ({Path(SCRIPT).name})" in line
        missed += verdict("one figure script edited", seconds, None, ok, f"only it re-ran; {line}")

        times = zensical_builds(tree, Path(scratch) / "zensical-cache")
        record["zensical_cold_build_seconds"] = times["cold"]
        record["zensical_warm_build_seconds"] = times["warm"]

        seconds, summary = make_test(tree)
        record["make_test_seconds"] = seconds
        record["make_test_summary"] = summary
        missed += verdict("make test", seconds, TEST_TARGET, seconds < TEST_TARGET, summary)

        seconds, detail = fresh_clone_median(Path(scratch))
        record["fresh_clone_serve_seconds"] = seconds
        record["fresh_clone_serve"] = detail
        ok = seconds < FRESH_CLONE_TARGET
        label = "fresh clone, first page served"
        missed += verdict(label, seconds, FRESH_CLONE_TARGET, ok, _clone_detail(detail))
    record["targets"] = {
        "fresh_clone_serve_seconds": FRESH_CLONE_TARGET,
        "warm_build_seconds": WARM_TARGET,
        "serve_edit_seconds": SERVE_TARGET,
        "make_test_seconds": TEST_TARGET,
    }
    record["targets_met"] = not missed
    path = write("timing", {**machine_record(threads=os.cpu_count() or 1), **record})
    print(f"wrote {path.relative_to(ROOT)}")
    if missed:
        print(f"missed: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
