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


# Open (issue 41): in the record of 2026-11-28 (5 runs an arm, load 1.9) the
# playground's widget adds 227 ms; every other page adds under 150 ms. Its start is
# one task of about 300 ms on a 4x-throttled phone (building the four sections,
# styling and laying them out, drawing the canvases), and the figure is noisy: 69 ms
# in a 5-run measurement of the same page an hour before, 121 ms in the record
# before. strict: once a record meets the target this fails, and the mark goes.
@pytest.mark.xfail(
    strict=True,
    reason="issue 41's target is missed on /playground/: its widget's script adds "
    "227 ms of blocking time in the recorded run (target under 150 ms)",
)
def test_the_site_s_scripts_add_under_150_ms_to_every_page() -> None:
    data = record()
    over = {p: r["added_ms"] for p, r in data["pages"].items() if r["added_ms"] >= TARGET_MS}
    assert over == {}
    assert data["targets_met"] is True
    assert data["target_ms"] == TARGET_MS


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
            {
                "name": "thread_name",
                "ph": "M",
                "pid": 1,
                "tid": 7,
                "args": {"name": "CrRendererMain"},
            },
            {
                "name": "thread_name",
                "ph": "M",
                "pid": 1,
                "tid": 8,
                "args": {"name": "CrRendererMain"},
            },
            {"name": "thread_name", "ph": "M", "pid": 1, "tid": 9, "args": {"name": "Compositor"}},
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
