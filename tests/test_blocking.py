"""What the site's own scripts cost a phone's main thread (``make blocking``, issue 41).

No browser here: ``make blocking`` loads every page in Chromium with and without
the site's scripts and writes ``benchmarks/results/blocking.json``; these tests
read that record against mkdocs.yml's navigation and issue 41's target (the
scripts add under 150 ms of total blocking time to any page), and check the
tool's reading of a Chromium trace on a trace written here by hand. Measuring
in the suite would cost about half a minute a page on this machine.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from conftest import ROOT

from tools import blocking

RECORD = ROOT / "benchmarks" / "results" / "blocking.json"
TARGET_MS = 150  # issue 41, written out here rather than read from the tool


def nav_paths() -> list[str]:
    """The served path of every page of mkdocs.yml's navigation."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = config[config.index("\nnav:") :]
    files = re.findall(r":\s+([\w/-]+\.md)\s*$", nav, flags=re.MULTILINE)
    stems = [name.removesuffix(".md").removesuffix("index").strip("/") for name in files]
    return [f"/{stem}/" if stem else "/" for stem in stems]


def record() -> dict[str, Any]:
    assert RECORD.is_file(), "benchmarks/results/blocking.json is missing: run make blocking"
    data: dict[str, Any] = json.loads(RECORD.read_text(encoding="utf-8"))
    return data


def test_the_record_covers_every_page_of_the_navigation() -> None:
    assert sorted(record()["pages"]) == sorted(set(nav_paths()))


def test_the_site_s_scripts_add_under_150_ms_to_every_page() -> None:
    """Both measures: against the page without them, and their own code's share."""
    data = record()
    over = {p: r["added_ms"] for p, r in data["pages"].items() if r["added_ms"] >= TARGET_MS}
    assert over == {}
    own = {p: max(r["own_ms"]) for p, r in data["pages"].items() if max(r["own_ms"]) >= TARGET_MS}
    assert own == {}
    assert data["targets_met"] is True
    assert data["target_ms"] == TARGET_MS


def test_each_page_s_figure_comes_with_its_interval() -> None:
    for path, page in record()["pages"].items():
        low, high = page["added_interval_ms"]
        assert low <= page["added_ms"] <= high, path
        differences = [a - b for a in page["with_scripts_ms"] for b in page["without_scripts_ms"]]
        assert min(differences) <= low, path
        assert high <= max(differences), path
        assert len(page["own_ms"]) == len(page["with_scripts_ms"]), path


def test_the_record_says_how_it_was_measured() -> None:
    data = record()
    assert len(data["load_average"]["before"]) == 3  # the machine's load, with the numbers
    assert data["device"]["cpu_slowdown"] == 4
    assert data["device"]["viewport"]["width"] <= 412  # a phone
    assert data["runs_per_arm"] >= 7  # the least of 5 moved by up to 170 ms (tools/blocking.py)
    for path, page in data["pages"].items():
        assert page["scripts_refused"] or page["no_own_scripts"], path  # the second arm ran
        assert len(page["with_scripts_ms"]) == len(page["without_scripts_ms"]), path
    # Every page loads scroll-regions.js; its refusal was seen on each page.
    assert all("scroll-regions.js" in p["scripts_refused"] for p in data["pages"].values())


def _thread_name(tid: int, name: str) -> dict[str, Any]:
    return {"name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": {"name": name}}


def _event(name: str, tid: int, ts: float, dur: float, tdur: float | None) -> dict[str, Any]:
    event: dict[str, Any] = {"name": name, "ph": "X", "pid": 1, "tid": tid, "ts": ts, "dur": dur}
    if tdur is not None:
        event["tdur"] = tdur
    return event


def test_the_main_thread_s_tasks_are_read_by_thread_time() -> None:
    """Two renderer main threads: the page's is the busier; a task's thread time is
    used where the trace has it (its wall-clock time includes waiting for a core)."""
    task = "ThreadControllerImpl::RunTask"
    trace = {
        "traceEvents": [
            _thread_name(7, "CrRendererMain"),
            _thread_name(8, "CrRendererMain"),
            _thread_name(9, "Compositor"),
            _event(task, 7, 1000.0, 90_000.0, 30_000.0),  # 90 ms waited for, 30 ms of work
            _event(task, 7, 200_000.0, 20_000.0, None),
            _event("FunctionCall", 7, 1000.0, 80_000.0, 25_000.0),  # inside a task: not one
            _event(task, 8, 0.0, 5_000.0, 4_000.0),
            _event(task, 9, 0.0, 900_000.0, 900_000.0),  # not a main thread
        ]
    }
    assert blocking.main_thread_tasks(trace) == [(1.0, 30.0), (200.0, 20.0)]
    # A phone four times slower: 120 ms and 80 ms, 70 + 30 ms past 50 ms.
    slowed = [(start, took * blocking.CPU_SLOWDOWN) for start, took in [(1.0, 30.0), (200.0, 20.0)]]
    assert blocking.blocking_ms(slowed) == 100.0


def test_the_shift_is_the_median_of_every_difference() -> None:
    # 2 x 3 differences: 5, 15, 25 and 105, 115, 125; the median lies between 25 and 105.
    assert blocking.shift([10.0, 110.0], [-15.0, -5.0, 5.0]) == 65.0
    # A load without the scripts that blocks far less than the others leaves it be.
    assert blocking.shift([400.0] * 7, [300.0] * 6 + [0.0]) == 100.0


@pytest.mark.parametrize(
    ("n", "m", "critical"),
    # One-sided 5% critical values of the Mann-Whitney U from the published tables
    # (the largest U whose lower tail is at most 5%).
    [(5, 5, 4), (7, 7, 11), (10, 10, 27), (8, 6, 10)],
)
def test_the_interval_uses_the_mann_whitney_critical_value(n: int, m: int, critical: int) -> None:
    # Every difference distinct (the with-loads far apart), so the k-th smallest is k.
    with_ms = [float(1000 * k) for k in range(n)]
    without_ms = [float(-k) for k in range(m)]
    differences = sorted(a - b for a in with_ms for b in without_ms)
    low, high = blocking.shift_interval(with_ms, without_ms)
    assert low == differences[critical]  # the (critical + 1)-th smallest
    assert high == differences[-critical - 1]


def test_the_interval_is_exact_at_its_edge_and_refused_below_it() -> None:
    # 3 and 3 loads: 20 orderings, one of them (all with-loads below) 5%: the 90%
    # interval is the whole range of differences, from the least to the greatest.
    assert blocking.shift_interval([1.0, 2.0, 3.0], [0.0, 0.0, 0.0]) == (1.0, 3.0)
    # 2 and 2: 6 orderings, one is 17%, so no interval of the differences holds 90%.
    with pytest.raises(ValueError, match="2 and 2 loads are too few for a 90% interval"):
        blocking.shift_interval([1.0, 2.0], [0.0, 0.0])


def test_the_own_code_s_share_of_a_task_is_what_it_adds_past_50_ms() -> None:
    """Three tasks on the page's thread, each time x4 on the phone: a 30 ms task with
    20 ms of ours, a 20 ms task with 5 ms of ours (a call nested in it counted once),
    and a task of the theme's code only, which adds nothing of ours."""
    ours = "http://127.0.0.1:8000/assets/javascripts/playground.js"
    theme = "http://127.0.0.1:8000/assets/javascripts/bundle.a5f9d56c.min.js"
    task = "ThreadControllerImpl::RunTask"

    def code(name: str, ts: float, tdur: float, url: str) -> dict[str, Any]:
        event = _event(name, 7, ts, tdur * 1000, tdur * 1000)
        event["args"] = {"data": {"url": url}}
        return event

    trace = {
        "traceEvents": [
            _thread_name(7, "CrRendererMain"),
            _event(task, 7, 0.0, 30_000.0, 30_000.0),
            code("EvaluateScript", 1000.0, 20.0, ours),
            _event(task, 7, 100_000.0, 20_000.0, 20_000.0),
            code("FunctionCall", 101_000.0, 5.0, ours),
            code("FunctionCall", 102_000.0, 2.0, ours),  # inside the call before: counted once
            _event(task, 7, 200_000.0, 40_000.0, 40_000.0),
            code("EvaluateScript", 201_000.0, 39.0, theme),
        ]
    }
    # 30 ms task x4 = 120 (70 past 50); less ours (20 x4 = 80) = 40: ours adds 70.
    # 20 ms task x4 = 80 (30 past 50); less ours (5 x4 = 20) = 60 (10 past): ours adds 20.
    assert blocking.own_blocking_ms(trace) == 90.0
    # A trace in which none of the site's scripts ran gives no answer, not 0.
    theirs = {"traceEvents": [e for e in trace["traceEvents"] if ours not in str(e.get("args"))]}
    with pytest.raises(ValueError, match="none of the site's scripts evaluated"):
        blocking.own_blocking_ms(theirs)


def test_the_site_s_own_scripts_are_those_of_docs_assets_javascripts() -> None:
    ours = sorted(p.name for p in (ROOT / "docs" / "assets" / "javascripts").glob("*.js"))
    assert {"scroll-regions.js", "rope-bands.js", "playground.js"} <= set(ours)
    for name in ours:
        assert blocking.OWN_SCRIPTS.search(f"http://127.0.0.1:8000/assets/javascripts/{name}")
    theme = "http://127.0.0.1:8000/assets/javascripts/bundle.a5f9d56c.min.js"
    assert not blocking.OWN_SCRIPTS.search(theme)
    assert not blocking.OWN_SCRIPTS.search(
        "http://127.0.0.1:8000/assets/javascripts/workers/search.2c215733.min.js"
    )


def test_scroll_hints_written_by_the_build_say_what_the_script_says() -> None:
    """The build writes each hint hidden (sitegen/hooks.py); the script writes one for a
    box the build did not see: both say the same."""
    script = (ROOT / "docs" / "assets" / "javascripts" / "scroll-regions.js").read_text("utf-8")
    found = re.search(r'var HINT = "([^"]+)";', script)
    assert found is not None
    hooks_text = (ROOT / "sitegen" / "hooks.py").read_text("utf-8")
    said = re.search(r'^SCROLL_HINT = "([^"]+)"', hooks_text, flags=re.MULTILINE)
    assert said is not None
    assert found[1] == said[1]
