"""Lighthouse on every page, served compressed as the host serves it (``make lighthouse``).

Usage: ``python -m tools.lighthouse [SITE_DIR] [--record] [PAGE ...]`` (default
``site/``, from ``make build``; PAGE is a path such as ``reference/rope/``, to
look at a few pages while fixing them; a run of only some pages records
nothing). Serves the built site on a loopback port with its text files
gzip-compressed, as GitHub Pages sends them, and runs the Lighthouse pinned in
``tools/lighthouse/package-lock.json`` on every page of the sitemap, one page
at a time, five times each (the run of median performance is kept:
Lighthouse's documentation on variability, its docs/variability.md, advises
the median of several runs, and finds five runs' median twice as stable as a
single run): its default mobile run (a phone's screen, simulated slow 4G and
a CPU four times slower) of the performance, accessibility, best-practices and
SEO categories, in Debian's Chromium. Prints each page's scores and the audits
it fails, and keeps each whole report in ``.cache/lighthouse/reports/``.
With ``--record`` writes ``benchmarks/results/lighthouse.json``; with ``--add``
and pages, adds those pages (missing from the record: a new page) to it, each
marked with the date, load and runs of its own measurement.
Exits with status 1 if a page scores under 95 for performance or under 100 in
another category.

Lighthouse is a Node.js program: the first run installs the pinned version
with ``npm ci`` into ``.cache/lighthouse/`` (about 40 MB, once), so it needs
Node.js 18.20 or newer and npm, and the npm registry that one time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks._common import environment, write
from tools import local_site
from tools.screen_checks import chosen_pages

ROOT = Path(__file__).resolve().parents[1]
PINNED = ROOT / "tools" / "lighthouse"
INSTALL = ROOT / ".cache" / "lighthouse"
#: Each page's whole report, for Lighthouse's viewer (googlechrome.github.io/lighthouse/viewer).
REPORTS = INSTALL / "reports"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
#: The lowest score each category may have on any page.
TARGETS = {"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100}
#: Lighthouse's own line between a passed audit and one it flags (its report's green).
PASS = 0.9
#: The performance metrics recorded for each page, Lighthouse's audit ids.
METRICS = (
    "first-contentful-paint",
    "largest-contentful-paint",
    "total-blocking-time",
    "cumulative-layout-shift",
    "speed-index",
)
CHROME_FLAGS = "--headless --no-sandbox --disable-gpu"
#: Runs of each page; its median run is recorded (see `median_run`). Five: by
#: Lighthouse's docs/variability.md the median of five runs is twice as stable as
#: one run; with three, /reference/rope/'s recorded score moved by 7 points (98,
#: then 91) between two full runs of one build an hour apart (2026-11-28).
RUNS = 5


def installed() -> Path:
    """Return the pinned Lighthouse's command-line script, installed by ``npm ci`` if needed."""
    script = INSTALL / "node_modules" / "lighthouse" / "cli" / "index.js"
    lock = PINNED / "package-lock.json"
    copy = INSTALL / "package-lock.json"
    if script.is_file() and copy.is_file() and copy.read_bytes() == lock.read_bytes():
        return script
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise SystemExit(
            "make lighthouse needs Node.js (18.20 or newer) and npm, to install the "
            "pinned Lighthouse into .cache/lighthouse/; install them (Debian: apt-get "
            "install nodejs npm) and run it again"
        )
    INSTALL.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(PINNED / name, INSTALL / name)
    print("installing the pinned Lighthouse into .cache/lighthouse/ (npm ci, once)")
    subprocess.run(
        [npm, "ci", "--prefix", str(INSTALL), "--no-audit", "--no-fund", "--ignore-scripts"],
        check=True,
    )
    return script


def add_pages(
    pages: dict[str, dict[str, Any]],
    load_before: tuple[float, float, float],
    load_after: tuple[float, float, float],
    version: str,
) -> None:
    """Add pages missing from the record (``--add PAGE...``), each marked with its own run.

    The record's other pages, its date and its load stay those of the last full run; each
    added page says when, under what load and with how many runs it was measured. The
    lowest scores and ``targets_met`` are recomputed over every page.
    """
    record = json.loads((ROOT / "benchmarks" / "results" / "lighthouse.json").read_text())
    if version != record["lighthouse_version"]:
        raise SystemExit(f"the record was made with Lighthouse {record['lighthouse_version']}")
    present = [path for path in pages if path in record["pages"]]
    if present:
        raise SystemExit(f"already in the record (re-record every page instead): {present}")
    measured = {
        "date": environment(threads=1)["date"],
        "load_average": {"before": list(load_before), "after": list(load_after)},
        "runs_per_page": RUNS,
    }
    for path, page in pages.items():
        record["pages"][path] = {**page, "measured_apart": measured}
    record["lowest"] = {
        name: min(
            ({"page": p, "score": r["scores"][name]} for p, r in record["pages"].items()),
            key=lambda entry: entry["score"] or 0,
        )
        for name in CATEGORIES
    }
    record["targets_met"] = not any(page["misses"] for page in record["pages"].values())
    print(f"added {', '.join(pages)}: wrote {write('lighthouse', record).relative_to(ROOT)}")


def performance(report: dict[str, Any]) -> int:
    """Return a report's performance score (0 to 100)."""
    return round(100 * (report["categories"]["performance"]["score"] or 0))


def median_run(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the report of median performance (the lower middle one of an even count).

    One run's performance score moves by several points with what else the machine is
    doing (total blocking time is simulated from the main thread's real work); Lighthouse's
    documentation on variability advises running a page several times and keeping the
    median run. The report kept is one real run, whole: its other scores come with it.
    """
    ordered = sorted(reports, key=performance)
    return ordered[(len(ordered) - 1) // 2]


def spread(scores: list[int]) -> int:
    """Return how far apart a page's performance runs are (highest less lowest).

    The median run is recorded; the spread says how much one run of that page moves
    on this machine under its load (recorded beside it).

    Examples
    --------
    >>> spread([97, 99, 92])
    7
    """
    return max(scores) - min(scores)


def run_page(script: Path, chrome: str, url: str) -> dict[str, Any]:
    """Run Lighthouse once on `url`; return its report (the LHR) as a dict."""
    completed = subprocess.run(
        [
            "node",
            str(script),
            url,
            "--output=json",
            "--output-path=stdout",
            "--quiet",
            f"--only-categories={','.join(CATEGORIES)}",
            f"--chrome-flags={CHROME_FLAGS}",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "CHROME_PATH": chrome},
        timeout=300,
        check=False,
    )
    if completed.returncode != 0:
        raise SystemExit(f"lighthouse failed on {url}:\n{completed.stderr[-2000:]}")
    report: dict[str, Any] = json.loads(completed.stdout)
    if report.get("runtimeError"):
        raise SystemExit(f"lighthouse on {url}: {report['runtimeError']}")
    return report


def summary(report: dict[str, Any]) -> dict[str, Any]:
    """Return the scores (0 to 100), failing audits and performance metrics of `report`."""
    audits = report["audits"]
    scores: dict[str, int | None] = {}
    failing: dict[str, list[str]] = {}
    flagged: dict[str, list[str]] = {}
    for name in CATEGORIES:
        category = report["categories"][name]
        score = category["score"]
        scores[name] = None if score is None else round(score * 100)
        below = [
            ref
            for ref in category["auditRefs"]
            if audits[ref["id"]]["scoreDisplayMode"] in ("binary", "numeric", "metricSavings")
            and audits[ref["id"]]["score"] is not None
            and audits[ref["id"]]["score"] < PASS
        ]
        failing[name] = sorted(ref["id"] for ref in below if ref.get("weight", 0) > 0)
        flagged[name] = sorted(ref["id"] for ref in below if not ref.get("weight", 0) > 0)
    return {
        "scores": scores,
        # Audits that count towards the score and fail; then the advice (insights and
        # diagnostics, weight 0) that Lighthouse flags without counting it.
        "failing_audits": {name: ids for name, ids in failing.items() if ids},
        "flagged_audits": {name: ids for name, ids in flagged.items() if ids},
        "metrics": {name: round(audits[name]["numericValue"], 3) for name in METRICS},
        "dom_elements": audits["dom-size"].get("numericValue"),
        # Lighthouse's measure of the machine's speed as it ran the page (a loaded
        # machine scores lower; its simulated phone is then slower still).
        "benchmark_index": round(report["environment"]["benchmarkIndex"]),
    }


def misses(scores: dict[str, int | None]) -> list[str]:
    """Return the categories whose score is under its target (or missing).

    Examples
    --------
    >>> misses({"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100})
    []
    >>> misses({"performance": 72, "accessibility": 100, "best-practices": 96, "seo": None})
    ['performance', 'best-practices', 'seo']
    """
    return [name for name, target in TARGETS.items() if (scores.get(name) or 0) < target]


def main(argv: list[str]) -> int:
    """Run every page, print the table; return 1 if a page misses a target."""
    record = "--record" in argv
    add = "--add" in argv
    arguments = [a for a in argv if a not in ("--record", "--add")]
    site = local_site.built_site(arguments[:1], ROOT / "site")
    paths = chosen_pages(site, arguments[1:])
    chrome = local_site.chromium()
    if chrome is None:
        raise SystemExit("make lighthouse needs Chromium (Debian: apt-get install chromium)")
    script = installed()
    load_before = os.getloadavg()
    pages: dict[str, dict[str, Any]] = {}
    version = ""
    start = time.perf_counter()
    width = max(len(p) for p in paths)
    print(f"{'page':<{width}}  perf  a11y  b-p  seo  failing audits (those that count)")
    with local_site.served(site, local_site.GzipHandler) as base:
        for path in paths:
            runs = [run_page(script, chrome, base + path.lstrip("/")) for _ in range(RUNS)]
            report = median_run(runs)
            version = report["lighthouseVersion"]
            pages[path] = summary(report)
            pages[path]["performance_runs"] = [performance(run) for run in runs]
            pages[path]["spread"] = spread(pages[path]["performance_runs"])
            pages[path]["misses"] = misses(pages[path]["scores"])
            REPORTS.mkdir(parents=True, exist_ok=True)
            slug = path.strip("/").replace("/", "-") or "index"
            (REPORTS / f"{slug}.json").write_text(json.dumps(report))
            s = pages[path]["scores"]
            flagged = ", ".join(i for ids in pages[path]["failing_audits"].values() for i in ids)
            advice = sum(len(ids) for ids in pages[path]["flagged_audits"].values())
            flagged += f" (+{advice} flagged, weight 0)" if advice else ""
            print(
                f"{path:<{width}}  {s['performance']!s:>4}  {s['accessibility']!s:>4}  "
                f"{s['best-practices']!s:>3}  {s['seo']!s:>3}  {flagged}",
                flush=True,
            )
    seconds = time.perf_counter() - start
    load_after = os.getloadavg()
    lowest = {
        name: min(
            ({"page": p, "score": r["scores"][name]} for p, r in pages.items()),
            key=lambda entry: entry["score"] or 0,
        )
        for name in CATEGORIES
    }
    missed = {p: r["misses"] for p, r in pages.items() if r["misses"]}
    print(
        f"Lighthouse {version}, {len(paths)} pages in {seconds:.0f} s; load average "
        f"{load_before[0]:.1f} before, {load_after[0]:.1f} after"
    )
    for name, entry in lowest.items():
        print(f"lowest {name}: {entry['score']} ({entry['page']}; target {TARGETS[name]})")
    for path, names in missed.items():
        print(f"MISSED {path}: {', '.join(names)}")
    if add:
        add_pages(pages, load_before, load_after, version)
    elif record and arguments[1:]:
        print("not recorded: only some pages were run")
    elif record:
        payload = {
            **environment(threads=1),
            "lighthouse_version": version,
            "chromium": chrome,
            "chrome_flags": CHROME_FLAGS,
            "form_factor": "mobile",
            "throttling": "simulated (Lighthouse's default: slow 4G, CPU 4x slower)",
            "served": "loopback, text files gzip-compressed as GitHub Pages sends them",
            "load_average": {"before": list(load_before), "after": list(load_after)},
            "seconds": round(seconds, 1),
            "runs_per_page": RUNS,
            "scores_from": "the run of median performance of each page's runs",
            "spread": "each page's highest performance run less its lowest",
            "targets": TARGETS,
            "pages": pages,
            "lowest": lowest,
            "targets_met": not missed,
        }
        print(f"wrote {write('lighthouse', payload).relative_to(ROOT)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
