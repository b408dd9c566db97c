"""The committed Lighthouse record covers every page and meets the targets (``make lighthouse``).

No browser here: ``make lighthouse`` runs Lighthouse (it needs Node.js) and
writes ``benchmarks/results/lighthouse.json``; these tests read that record
against mkdocs.yml's navigation and the targets of issue 23, and check the
tool's own parts that need no browser (its pinned version, its compressed server).
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
import urllib.request
from pathlib import Path
from typing import Any

from conftest import ROOT

from tools import lighthouse, local_site

RECORD = ROOT / "benchmarks" / "results" / "lighthouse.json"
#: The two full runs of one build (70d3307, after the playground's change), three runs
#: a page; the second was the record until the record of five runs a page. Kept so that
#: what the CHANGELOG says of both is checked.
EARLIER_RUNS = [ROOT / "benchmarks" / "results" / f"lighthouse-70d3307-run{n}.json" for n in (1, 2)]
#: Issue 23's targets, written out here rather than read from the tool.
TARGETS = {"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100}


def nav_paths() -> list[str]:
    """The served path of every page of mkdocs.yml's navigation (``beyond/rope.md`` is
    ``/beyond/rope/``, ``reference/index.md`` is ``/reference/``)."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = config[config.index("\nnav:") :]
    files = re.findall(r":\s+([\w/-]+\.md)\s*$", nav, flags=re.MULTILINE)
    assert "reference/rope.md" in files
    assert "playground.md" in files
    paths = []
    for name in files:
        stem = name.removesuffix(".md").removesuffix("index").strip("/")
        paths.append(f"/{stem}/" if stem else "/")
    return paths


def record() -> dict[str, Any]:
    assert RECORD.is_file(), "benchmarks/results/lighthouse.json is missing: run make lighthouse"
    data: dict[str, Any] = json.loads(RECORD.read_text(encoding="utf-8"))
    return data


def test_the_record_covers_every_page_of_the_navigation() -> None:
    pages = record()["pages"]
    assert sorted(pages) == sorted(nav_paths())
    assert len(pages) == len(set(nav_paths())) >= 30


def below(name: str) -> dict[str, int | None]:
    """The pages whose recorded score in category `name` is under issue 23's target."""
    return {
        path: page["scores"][name]
        for path, page in record()["pages"].items()
        if page["scores"][name] is None or page["scores"][name] < TARGETS[name]
    }


def test_every_page_scores_100_for_accessibility_best_practices_and_seo() -> None:
    data = record()
    assert data["targets"] == TARGETS
    for name in ("accessibility", "best-practices", "seo"):
        assert below(name) == {}, name
    for path, page in data["pages"].items():
        assert not {"accessibility", "best-practices", "seo"} & set(page["misses"]), path
        assert page["metrics"]["cumulative-layout-shift"] < 0.1, path  # no layout shift


# Issue 41's target. Met by the record of five runs a page of 2026-11-28, after
# /reference/rope/ was split in two (/reference/rope-frequencies/): every page 95 or
# more, /beyond/rope-scaling/ and /playground/ at 95; the machine's benchmark index
# 1,082 to 2,581, median 1,721. Single runs still miss: 14 of 215 under 95, down to 86
# (/properties/). Not met by the two full runs of three a page an hour apart before it
# (70d3307, EARLIER_RUNS, benchmark index medians 1,234 and 1,309): five of the site's
# eight largest pages at 91 to 94 in one run and 98 or 99 in the other, always on total
# blocking time, which the simulation takes from the main thread's real work on this
# shared machine.
def test_every_page_scores_95_for_performance() -> None:
    assert below("performance") == {}
    assert record()["targets_met"] is True


def test_the_record_is_as_the_changelog_says() -> None:
    """The record of five runs a page: the two pages at 95, the machine's benchmark index,
    and the single runs under 95 (the median run of each page is what counts)."""
    data = record()
    assert data["runs_per_page"] == 5
    pages = data["pages"]
    assert all(len(page["performance_runs"]) == 5 for page in pages.values())
    score = {path: page["scores"]["performance"] for path, page in pages.items()}
    assert sorted(path for path, value in score.items() if value == 95) == [
        "/beyond/rope-scaling/",
        "/playground/",
    ]
    index = [page["benchmark_index"] for page in pages.values()]
    assert [round(min(index)), round(statistics.median(index)), round(max(index))] == [
        1082,
        1721,
        2581,
    ]
    runs = [(value, path) for path, page in pages.items() for value in page["performance_runs"]]
    assert (len(runs), sum(value < 95 for value, _ in runs)) == (215, 14)
    assert min(runs) == (86, "/properties/")
    # The rotary page, split in two: its elements before (the earlier runs) and after.
    before = json.loads(EARLIER_RUNS[1].read_text(encoding="utf-8"))["pages"]
    assert before["/reference/rope/"]["dom_elements"] == 7646
    halves = ("/reference/rope/", "/reference/rope-frequencies/")
    assert [pages[path]["dom_elements"] for path in halves] == [3794, 4166]


def test_the_two_runs_differ_as_the_changelog_says() -> None:
    """Both runs of one build: the benchmark index medians, the pages at 95 or more in
    both (37), /playground/ in each, and each miss on one of the eight largest pages,
    on total blocking time, scoring 98 or more in the other run."""
    runs = [json.loads(run.read_text(encoding="utf-8"))["pages"] for run in EARLIER_RUNS]
    assert sorted(runs[0]) == sorted(runs[1])
    medians = [statistics.median(p["benchmark_index"] for p in run.values()) for run in runs]
    assert [round(m) for m in medians] == [1234, 1309]
    score = [{path: p["scores"]["performance"] for path, p in run.items()} for run in runs]
    assert sum(all(s[path] >= 95 for s in score) for path in score[0]) == 37
    assert [s["/playground/"] for s in score] == [98, 97]
    largest = sorted(runs[1], key=lambda path: runs[1][path]["dom_elements"])[-8:]
    missed = 0
    for first, second in ((0, 1), (1, 0)):
        for path, value in score[first].items():
            if value < 95:
                missed += 1
                assert path in largest, path
                assert 91 <= value <= 94, path
                assert score[second][path] >= 98, path
                assert runs[first][path]["failing_audits"] == {
                    "performance": ["total-blocking-time"]
                }
    assert missed == 5


def test_the_record_names_its_lighthouse_and_the_machine() -> None:
    data = record()
    lock = json.loads((ROOT / "tools" / "lighthouse" / "package-lock.json").read_text("utf-8"))
    pinned = lock["packages"]["node_modules/lighthouse"]["version"]
    assert data["lighthouse_version"] == pinned
    assert pinned.startswith("12.")  # Lighthouse 13 needs Node.js 22
    package = json.loads((ROOT / "tools" / "lighthouse" / "package.json").read_text("utf-8"))
    assert package["dependencies"] == {"lighthouse": pinned}  # exact, not a range
    assert data["form_factor"] == "mobile"
    assert data["chrome_flags"] == "--headless --no-sandbox --disable-gpu"
    assert len(data["load_average"]["before"]) == 3
    assert data["machine"]["logical_cpus"] >= 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", data["date"])
    lowest = data["lowest"]
    for name in TARGETS:
        worst = min(page["scores"][name] for page in data["pages"].values())
        assert lowest[name]["score"] == worst
        assert data["pages"][lowest[name]["page"]]["scores"][name] == worst


def test_misses_names_each_category_under_its_target() -> None:
    assert lighthouse.misses(dict(TARGETS)) == []
    scores = {"performance": 94, "accessibility": 100, "best-practices": 99, "seo": None}
    assert lighthouse.misses(scores) == ["performance", "best-practices", "seo"]


def test_the_server_compresses_text_as_github_pages_does(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<p>" + "words " * 500 + "</p>", encoding="utf-8")
    (tmp_path / "font.woff2").write_bytes(bytes(range(256)) * 4)
    with local_site.served(tmp_path, local_site.GzipHandler) as base:
        asking = {"Accept-Encoding": "gzip"}
        with urllib.request.urlopen(urllib.request.Request(base, headers=asking)) as response:
            assert response.headers["Content-Encoding"] == "gzip"
            assert response.headers["Content-Type"] == "text/html"
            body = response.read()
        assert gzip.decompress(body) == (tmp_path / "index.html").read_bytes()
        assert len(body) < 200
        with urllib.request.urlopen(base) as response:  # not asked for: sent as it is
            assert response.headers["Content-Encoding"] is None
            assert response.read() == (tmp_path / "index.html").read_bytes()
        font = urllib.request.Request(base + "font.woff2", headers=asking)
        with urllib.request.urlopen(font) as response:  # already compressed: as it is
            assert response.headers["Content-Encoding"] is None
            assert response.read() == (tmp_path / "font.woff2").read_bytes()
