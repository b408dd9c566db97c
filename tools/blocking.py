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
turns, `RUNS` times each, in one browser. The theme's bundle and the site's
inline scripts run in both, so the difference is what our scripts add: the
Hodges-Lehmann shift, the median of every difference between a load with them
and one without (`shift`), with an exact 90% interval from the ranks
(`shift_interval`). A load's blocking time moves both ways, by hundreds of
milliseconds: the same work falls into fewer or more tasks, and only the time
past 50 ms of each counts. So the least of each arm, this tool's first measure,
followed single loads: /beyond/rope-configs/ came out at 179 ms in a record of 7
loads an arm whose medians differ by -11 ms (2026-11-28).

The loads with the scripts also give their own share directly (`own_ms`): in
each task where their code runs (a script evaluated, a function of theirs
called, with the layouts it forces), the blocking time the task would lose
without that code. It leaves out work the browser does later because of them
(styling what they added, for example), which the comparison counts; it does
not move with the theme's tasks. The load average is recorded with the numbers.

With ``--record`` writes ``benchmarks/results/blocking.json``; with ``--add``
and pages, measures those pages (a new page, or one to measure again with more
``--runs``) and puts them in the record, each marked with the date, load and
runs of its own measurement. Exits with status 1 if a page's scripts add
`TARGET_MS` or more by either measure.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from tools import local_site

ROOT = Path(__file__).resolve().parents[1]
#: The site's own scripts: every file of docs/assets/javascripts/ (not the theme's).
OWN_SCRIPTS = re.compile(r"/assets/javascripts/[a-z-]+\.js(\?.*)?$")
#: The most blocking time the site's own scripts may add to a page (issue 41).
TARGET_MS = 150.0
#: Loads of each page with and without the site's scripts (every pair of them is compared).
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


def shift(with_ms: list[float], without_ms: list[float]) -> float:
    """Return the Hodges-Lehmann shift: the median of every difference ``with - without``.

    Examples
    --------
    One load without the scripts that happens to block little (100 ms) moves the
    least of that arm by 190 ms, and the shift by nothing:

    >>> shift([300.0, 310.0, 320.0], [100.0, 290.0, 300.0])
    20.0
    >>> shift([300.0, 310.0, 320.0], [290.0, 290.0, 300.0])
    20.0
    """
    differences = sorted(a - b for a in with_ms for b in without_ms)
    middle = len(differences) // 2
    if len(differences) % 2:
        return differences[middle]
    return (differences[middle - 1] + differences[middle]) / 2


@cache
def _rank_sum_counts(n: int, m: int) -> tuple[int, ...]:
    """How many orderings of n and m values give each Mann-Whitney U (0 to n*m)."""
    if n == 0 or m == 0:
        return (1,)
    counts = [0] * (n * m + 1)
    for u, count in enumerate(_rank_sum_counts(n - 1, m)):  # the largest value is one of the n
        counts[u + m] += count
    for u, count in enumerate(_rank_sum_counts(n, m - 1)):  # or one of the m
        counts[u] += count
    return tuple(counts)


def shift_interval(
    with_ms: list[float], without_ms: list[float], confidence: float = 0.9
) -> tuple[float, float]:
    """Return an exact interval for `shift` from the ranks (Mann-Whitney), at least `confidence`.

    With n and m loads the interval runs from the k-th smallest of the n*m
    differences to the k-th largest, k one more than the largest U whose lower
    tail holds at most (1 - confidence) / 2 of the orderings.

    Examples
    --------
    Tables of the Mann-Whitney test give 11 as the one-sided 5% critical U for
    7 and 7 values, so the 90% interval is the 12th smallest to the 12th largest
    of the 49 differences:

    >>> shift_interval([float(k) for k in range(7)], [0.0] * 7)
    (1.0, 5.0)
    >>> shift_interval([float(k) for k in range(100, 107)], [float(k) for k in range(7)])
    (98.0, 102.0)
    """
    n, m = len(with_ms), len(without_ms)
    counts = _rank_sum_counts(n, m)
    # In fractions: (1 - 0.9) / 2 is 0.04999... in floating point, and a tail of
    # exactly 5% (3 and 3 loads: 1 ordering of 20) would be left out.
    tail = (1 - Fraction(confidence).limit_denominator(10_000)) / 2 * sum(counts)
    k, below = 0, 0
    while below + counts[k] <= tail:
        below += counts[k]
        k += 1
    if k == 0:
        raise ValueError(
            f"{n} and {m} loads are too few for a {confidence:.0%} interval: even the"
            " widest, from the least difference to the greatest, holds less"
        )
    differences = sorted(a - b for a in with_ms for b in without_ms)
    return differences[k - 1], differences[-k]


TASK = "ThreadControllerImpl::RunTask"
#: Trace events that run a script's code: its evaluation, and each call into it.
CODE_EVENTS = ("EvaluateScript", "FunctionCall")


def _main_thread_events(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the complete events of the page's main thread.

    That is the renderer main thread (``CrRendererMain``) whose tasks took the most
    thread time.
    """
    events = trace["traceEvents"]
    mains = {
        (event["pid"], event["tid"])
        for event in events
        if event.get("name") == "thread_name"
        and event.get("args", {}).get("name") == "CrRendererMain"
    }
    by_thread: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for event in events:
        thread = (event.get("pid"), event.get("tid"))
        if thread in mains and event.get("ph") == "X":
            by_thread.setdefault(thread, []).append(event)

    def busy(thread_events: list[dict[str, Any]]) -> float:
        return sum(_took(event) for event in thread_events if event.get("name") == TASK)

    if not any(busy(thread_events) for thread_events in by_thread.values()):
        raise SystemExit("the trace has no task of a page's main thread")
    return max(by_thread.values(), key=busy)


def _took(event: dict[str, Any]) -> float:
    """Return an event's thread time in ms (its wall-clock time where the trace has none)."""
    return float(event.get("tdur", event.get("dur", 0))) / 1000


def main_thread_tasks(trace: dict[str, Any]) -> list[tuple[float, float]]:
    """Each task of the page's main thread in a Chromium trace: (start, thread time), in ms.

    A task is a top-level ``ThreadControllerImpl::RunTask`` event.
    """
    return [
        (event["ts"] / 1000, _took(event))
        for event in _main_thread_events(trace)
        if event.get("name") == TASK
    ]


def own_blocking_ms(trace: dict[str, Any], slowdown: float = CPU_SLOWDOWN) -> float:
    """Return the blocking time the site's own code adds to the tasks it runs in (`OWN_SCRIPTS`).

    In each task of the main thread, the thread time of the outermost events that
    run the site's code (`CODE_EVENTS` whose script is one of `OWN_SCRIPTS`, the
    layouts they force included) is taken away; what the task's time past 50 ms
    loses is what that code added. Times are multiplied by `slowdown`.

    Chromium marks only the outermost call into a script: the site's code called
    by other code (the theme's, a promise's continuation) is counted as that
    code's. Raises ValueError when the trace shows none of the site's scripts
    evaluated, rather than answer 0.
    """
    events = _main_thread_events(trace)
    tasks = sorted((e for e in events if e.get("name") == TASK), key=lambda e: e["ts"])
    code = sorted(
        (
            e
            for e in events
            if e.get("name") in CODE_EVENTS
            and OWN_SCRIPTS.search(str((e.get("args", {}).get("data") or {}).get("url", "")))
        ),
        key=lambda e: (e["ts"], -e.get("dur", 0)),
    )
    if not any(e.get("name") == "EvaluateScript" for e in code):
        raise ValueError("the trace shows none of the site's scripts evaluated")
    added = 0.0
    for task in tasks:
        end = task["ts"] + task.get("dur", 0)
        own, reached = 0.0, task["ts"]
        for event in code:
            if task["ts"] <= event["ts"] < end and event["ts"] >= reached:  # outermost only
                own += _took(event)
                reached = event["ts"] + event.get("dur", 0)
        whole = _took(task) * slowdown
        added += max(0.0, whole - LONG_TASK_MS) - max(0.0, whole - own * slowdown - LONG_TASK_MS)
    return added


def load_once(browser: Any, context: Any, url: str, own_scripts: bool) -> dict[str, Any]:
    """Load `url` once in a new page of `context`; return its blocking time and long tasks.

    With the site's scripts, also the blocking time their own code adds (`own_blocking_ms`).
    """
    page = context.new_page()
    refused: list[str] = []
    if not own_scripts:

        def refuse(route: Any) -> None:
            refused.append(route.request.url)
            route.abort()

        page.route(OWN_SCRIPTS, refuse)
    browser.start_tracing(page=page, categories=["toplevel", "devtools.timeline"])
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
        "own_ms": own_blocking_ms(trace) if own_scripts else 0.0,
        "long_tasks_ms": [round(took) for _, took in tasks if took > LONG_TASK_MS],
        "refused": refused,
    }


def measure(browser: Any, url: str, runs: int = RUNS) -> dict[str, Any]:
    """Load `url` `runs` times with the site's scripts and `runs` times without, in turns.

    Returns each arm's blocking times; ``added_ms``, the site's scripts' cost
    (`shift`), and ``added_interval_ms``, its 90% interval (`shift_interval`); and
    ``own_ms``, each load's blocking time of the scripts' own code (`own_blocking_ms`).
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
    with_ms = [run["blocking_ms"] for run in with_scripts]
    without_ms = [run["blocking_ms"] for run in without]
    low, high = shift_interval(with_ms, without_ms)
    return {
        "with_scripts_ms": [round(ms) for ms in with_ms],
        "without_scripts_ms": [round(ms) for ms in without_ms],
        "longest_task_with_ms": max(max(r["long_tasks_ms"], default=0) for r in with_scripts),
        "scripts_refused": sorted(
            {u.rsplit("/", 1)[-1].split("?")[0] for r in without for u in r["refused"]}
        ),
        "no_own_scripts": not any(run["refused"] for run in without),
        "added_ms": round(shift(with_ms, without_ms)),
        "added_interval_ms": [round(low), round(high)],
        "own_ms": [round(run["own_ms"]) for run in with_scripts],
    }


def missed(pages: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Return the pages whose scripts add `TARGET_MS` or more (either measure), and how much."""
    over = {}
    for path, page in pages.items():
        own = max(page["own_ms"])
        if page["added_ms"] >= TARGET_MS or own >= TARGET_MS:
            over[path] = f"{page['added_ms']} ms against the page without them, {own} ms their own"
    return over


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
    record["targets_met"] = not missed(record["pages"])
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
    if runs < 3:  # 3 and 3 loads are the fewest with a 90% interval (`shift_interval`)
        raise SystemExit(f"--runs must be 3 or more, not {runs}")
    site = local_site.built_site(arguments[:1], ROOT / "site")
    paths = chosen_pages(site, arguments[1:])
    load_before = os.getloadavg()
    start = time.perf_counter()
    pages: dict[str, dict[str, Any]] = {}
    width = max(len(p) for p in paths)
    print(f"{'page':<{width}}  added  (90%)        own (most)  with (ms), without (ms)")
    with sync_playwright() as playwright, local_site.served(site, local_site.GzipHandler) as base:
        browser = local_site.launch(playwright)
        try:
            for path in paths:
                result = measure(browser, base + path.lstrip("/"), runs)
                pages[path] = result
                low, high = result["added_interval_ms"]
                print(
                    f"{path:<{width}}  {result['added_ms']:>5}  {f'({low}, {high})':<12} "
                    f"{max(result['own_ms']):>10}  "
                    f"{result['with_scripts_ms']}, {result['without_scripts_ms']}",
                    flush=True,
                )
        finally:
            browser.close()
    seconds = time.perf_counter() - start
    load_after = os.getloadavg()
    worst = max(pages, key=lambda p: pages[p]["added_ms"])
    over = missed(pages)
    print(
        f"{len(paths)} pages in {seconds:.0f} s; load average {load_before[0]:.1f} before, "
        f"{load_after[0]:.1f} after; most added: {pages[worst]['added_ms']} ms ({worst}); "
        f"target under {TARGET_MS:.0f} ms"
    )
    for path, how in over.items():
        print(f"MISSED {path}: the site's scripts add {how}")
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
                "the CPU slowdown, past 50 ms, summed. added_ms: the median of every "
                "difference between a load with the site's scripts and one without "
                "(Hodges-Lehmann), added_interval_ms its exact 90% interval from the "
                "ranks; own_ms: in each load with them, the blocking time their own "
                "code (evaluated or called, forced layouts included) adds to its tasks"
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
