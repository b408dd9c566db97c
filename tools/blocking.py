"""The main-thread time the site's own scripts cost a phone (``make blocking``).

Usage: ``python -m tools.blocking [SITE_DIR] [--record] [--runs N] [PAGE ...]``
(default ``site/``; PAGE is a path such as ``beyond/rope/``; a run of only some
pages records nothing).

Each page is loaded in Debian's Chromium as a phone, Lighthouse's mobile
screen (412 x 823 CSS px, touch), served from a loopback port
gzip-compressed as GitHub Pages serves it. Chromium's trace (its
``toplevel`` category) gives every task the page's main thread runs from
the navigation until a while after the site's scripts have run, each with
the thread time it took; the phone's CPU, four times slower, is simulated as
Lighthouse's default throttling simulates it: each task's time is
multiplied by four. The total blocking time is the sum of each task's
simulated time past 50 ms (Lighthouse's definition, counted over the whole
load). Thread time, not wall-clock time, and no real throttling: on a
machine shared with other work, a task's wall-clock time grows with the
time its thread waits for a core, which no script of ours spends (measured
so, one page's blocking time moved by a second between runs at a load
average of 10 on two cores).

The same page is loaded with the site's own scripts (`OWN_SCRIPTS`: those in
``docs/assets/javascripts/``) and with them refused (the request aborted), in
turns, `RUNS` times each, in one browser; the page's cost is the least with
them less the least without them (what else the machine does only adds time
to a run: the least is the closest to the page's own). The theme's bundle and the site's inline
scripts run in both, so the difference is what our scripts add. The load
average is recorded with the numbers.

With ``--record`` writes ``benchmarks/results/blocking.json``; with ``--add``
and pages, measures those pages (a new page, or one to measure again with more
``--runs``) and puts them in the record, each marked with the date, load and
runs of its own measurement. Exits with status 1 if a page's scripts add
`TARGET_MS` or more.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from tools import local_site

ROOT = Path(__file__).resolve().parents[1]
#: The site's own scripts: every file of docs/assets/javascripts/ (not the theme's).
OWN_SCRIPTS = re.compile(r"/assets/javascripts/[a-z-]+\.js(\?.*)?$")
#: The most blocking time the site's own scripts may add to a page (issue 41).
TARGET_MS = 150.0
#: Loads of each page with and without the site's scripts (the least of each is used).
#: A page's blocking time moves by hundreds of milliseconds from one load to the
#: next (the theme's tasks fall together or apart), and the least of 5 loads an arm
#: still moved: /formula/ gave 183, 71 and 14 ms in three measurements of one build
#: (2026-11-28). 7 loads an arm.
RUNS = 7
#: Lighthouse's mobile device (its ``screenEmulation`` for a Moto G Power).
PHONE = {
    "viewport": {"width": 412, "height": 823},
    "device_scale_factor": 1.75,
    "is_mobile": True,
    "has_touch": True,
}
CPU_SLOWDOWN = 4
#: A task longer than this blocks input (the Long Tasks API's threshold).
LONG_TASK_MS = 50.0
#: How long after the site's scripts have run the page is still watched (ms).
SETTLE_MS = 1500


def blocking_ms(tasks: list[tuple[float, float]]) -> float:
    """Total blocking time of `tasks` ((start, duration) in ms): the time each spends past 50 ms.

    Examples
    --------
    >>> blocking_ms([(0.0, 120.0), (300.0, 40.0), (500.0, 51.5)])
    71.5
    """
    return sum(max(0.0, duration - LONG_TASK_MS) for _, duration in tasks)


def main_thread_tasks(trace: dict[str, Any]) -> list[tuple[float, float]]:
    """Each task of the page's main thread in a Chromium trace: (start, thread time), in ms.

    The page's main thread is the renderer main thread (``CrRendererMain``) that ran
    the most; a task is a top-level ``ThreadControllerImpl::RunTask`` event.
    """
    events = trace["traceEvents"]
    mains = {
        (event["pid"], event["tid"])
        for event in events
        if event.get("name") == "thread_name"
        and event.get("args", {}).get("name") == "CrRendererMain"
    }
    by_thread: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for event in events:
        thread = (event.get("pid"), event.get("tid"))
        if (
            thread in mains
            and event.get("ph") == "X"
            and event.get("name") == "ThreadControllerImpl::RunTask"
        ):
            took = event.get("tdur", event.get("dur", 0))
            by_thread.setdefault(thread, []).append((event["ts"] / 1000, took / 1000))
    if not by_thread:
        raise SystemExit("the trace has no task of a page's main thread")
    return max(by_thread.values(), key=lambda tasks: sum(took for _, took in tasks))


def load_once(browser: Any, context: Any, url: str, own_scripts: bool) -> dict[str, Any]:
    """Load `url` once in a new page of `context`; return its blocking time and long tasks."""
    page = context.new_page()
    refused: list[str] = []
    if not own_scripts:

        def refuse(route: Any) -> None:
            refused.append(route.request.url)
            route.abort()

        page.route(OWN_SCRIPTS, refuse)
    browser.start_tracing(page=page, categories=["toplevel"])
    try:
        # Without the site's scripts no widget is drawn: only the held scripts are waited for.
        ready = local_site.SCRIPTS_RUN if own_scripts else local_site.HELD_SCRIPTS_RUN
        local_site.open_page(page, url, timeout=60_000, ready=ready)
        page.wait_for_timeout(SETTLE_MS)
    finally:
        trace = json.loads(browser.stop_tracing())
        page.close()
    tasks = [(start, took * CPU_SLOWDOWN) for start, took in main_thread_tasks(trace)]
    return {
        "blocking_ms": blocking_ms(tasks),
        "long_tasks_ms": [round(took) for _, took in tasks if took > LONG_TASK_MS],
        "refused": refused,
    }


def measure(browser: Any, url: str, runs: int = RUNS) -> dict[str, Any]:
    """Load `url` `runs` times with the site's scripts and `runs` times without, in turns.

    Returns each arm's blocking times and ``added_ms``: the least with the
    scripts less the least without (the site's scripts' cost).
    """
    context = browser.new_context(**PHONE)
    local_site.idle_search(context)  # the same worker in both arms; it never runs on the page
    with_scripts: list[dict[str, Any]] = []
    without: list[dict[str, Any]] = []
    try:
        for _ in range(runs):
            with_scripts.append(load_once(browser, context, url, own_scripts=True))
            without.append(load_once(browser, context, url, own_scripts=False))
    finally:
        context.close()
    with_ms = min(run["blocking_ms"] for run in with_scripts)
    without_ms = min(run["blocking_ms"] for run in without)
    return {
        "with_scripts_ms": [round(run["blocking_ms"]) for run in with_scripts],
        "without_scripts_ms": [round(run["blocking_ms"]) for run in without],
        "longest_task_with_ms": max(max(r["long_tasks_ms"], default=0) for r in with_scripts),
        "scripts_refused": sorted(
            {u.rsplit("/", 1)[-1].split("?")[0] for r in without for u in r["refused"]}
        ),
        "no_own_scripts": not any(run["refused"] for run in without),
        "added_ms": round(max(0.0, with_ms - without_ms)),
    }


def add_pages(pages: dict[str, dict[str, Any]], load_before: tuple[float, ...], runs: int) -> None:
    """Put `pages` into the record (``--add``), each marked with its own measurement.

    The record's other pages, its date and its load stay those of the last full run;
    its most costly page and ``targets_met`` are recomputed over every page.
    """
    from benchmarks._common import environment, write

    record = json.loads((ROOT / "benchmarks" / "results" / "blocking.json").read_text())
    measured = {
        "date": environment(threads=1)["date"],
        "load_average": {"before": list(load_before), "after": list(os.getloadavg())},
        "runs_per_arm": runs,
    }
    for path, page in pages.items():
        record["pages"][path] = {**page, "measured_apart": measured}
    worst = max(record["pages"], key=lambda p: record["pages"][p]["added_ms"])
    record["most_added"] = {"page": worst, "ms": record["pages"][worst]["added_ms"]}
    record["targets_met"] = all(page["added_ms"] < TARGET_MS for page in record["pages"].values())
    print(f"added {', '.join(pages)}: wrote {write('blocking', record).relative_to(ROOT)}")


def main(argv: list[str]) -> int:
    """Measure the pages; print a line each; return 1 if a page's scripts add too much."""
    from playwright.sync_api import sync_playwright

    from benchmarks._common import environment, write
    from tools.screen_checks import chosen_pages

    record = "--record" in argv
    add = "--add" in argv
    runs = RUNS
    arguments = []
    rest = iter(argv)
    for argument in rest:
        if argument == "--runs":
            runs = int(next(rest))
        elif argument not in ("--record", "--add"):
            arguments.append(argument)
    if runs < 1:
        raise SystemExit(f"--runs must be 1 or more, not {runs}")
    site = local_site.built_site(arguments[:1], ROOT / "site")
    paths = chosen_pages(site, arguments[1:])
    load_before = os.getloadavg()
    start = time.perf_counter()
    pages: dict[str, dict[str, Any]] = {}
    width = max(len(p) for p in paths)
    print(f"{'page':<{width}}  added  with (ms)        without (ms)      longest task")
    with sync_playwright() as playwright, local_site.served(site, local_site.GzipHandler) as base:
        browser = local_site.launch(playwright)
        try:
            for path in paths:
                result = measure(browser, base + path.lstrip("/"), runs)
                pages[path] = result
                print(
                    f"{path:<{width}}  {result['added_ms']:>5}  "
                    f"{result['with_scripts_ms']!s:<17} {result['without_scripts_ms']!s:<17} "
                    f"{result['longest_task_with_ms']}",
                    flush=True,
                )
        finally:
            browser.close()
    seconds = time.perf_counter() - start
    load_after = os.getloadavg()
    worst = max(pages, key=lambda p: pages[p]["added_ms"])
    over = {p: r["added_ms"] for p, r in pages.items() if r["added_ms"] >= TARGET_MS}
    print(
        f"{len(paths)} pages in {seconds:.0f} s; load average {load_before[0]:.1f} before, "
        f"{load_after[0]:.1f} after; most added: {pages[worst]['added_ms']} ms ({worst}); "
        f"target under {TARGET_MS:.0f} ms"
    )
    for path, added in over.items():
        print(f"MISSED {path}: the site's scripts add {added} ms")
    if add and arguments[1:]:
        add_pages(pages, load_before, runs)
    elif record and arguments[1:]:
        print("not recorded: only some pages were run")
    elif record:
        payload = {
            **environment(threads=1),
            "device": {**PHONE, "cpu_slowdown": CPU_SLOWDOWN, "throttling": "simulated"},
            "served": "loopback, text files gzip-compressed as GitHub Pages sends them",
            "own_scripts": OWN_SCRIPTS.pattern,
            "runs_per_arm": runs,
            "measure": (
                "total blocking time: each main-thread task's thread time (Chromium's "
                "trace, from navigation until 1.5 s after the site's scripts ran) times "
                "the CPU slowdown, past 50 ms, summed; the least of the runs with the "
                "site's scripts less the least without them"
            ),
            "load_average": {"before": list(load_before), "after": list(load_after)},
            "seconds": round(seconds, 1),
            "target_ms": TARGET_MS,
            "pages": pages,
            "most_added": {"page": worst, "ms": pages[worst]["added_ms"]},
            "targets_met": not over,
        }
        print(f"wrote {write('blocking', payload).relative_to(ROOT)}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
