"""``make serve`` without torch: the note in place of an output, and the rebuild policy."""

from __future__ import annotations

import html as html_module
import logging
import re
import time
from pathlib import Path
from types import SimpleNamespace

import markdown
import pytest

from sitegen import exec_format
from tools import serve

ROOT = Path(__file__).resolve().parents[1]
MISSING_TORCH = "raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')"


def render(source: str) -> str:
    """Render `source` with the python fence that mkdocs.yml configures."""
    import markdown_exec

    md = markdown.Markdown(
        extensions=["pymdownx.superfences", "admonition"],
        extension_configs={
            "pymdownx.superfences": {
                "custom_fences": [
                    {
                        "name": "python",
                        "class": "python",
                        "validator": markdown_exec.validator,
                        "format": exec_format.formatter,
                    }
                ]
            }
        },
    )
    return md.convert(source)


@pytest.fixture(autouse=True)
def block_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test keeps blocks in a cache of its own."""
    monkeypatch.setenv("PE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "blocks"


def counting_block(tally: Path, body: str = "", options: str = "") -> str:
    """A block that adds a line to `tally` each time it runs, and prints `body`."""
    return (
        f'```python exec="on"{options}\n'
        f"with open({str(tally)!r}, 'a') as f:\n    f.write('ran\\n')\nprint({body!r})\n```\n"
    )


def test_a_block_is_kept_and_read_back_without_running(tmp_path: Path, block_cache: Path) -> None:
    tally = tmp_path / "tally"
    first = render(counting_block(tally, "Kept output"))
    second = render(counting_block(tally, "Kept output"))
    assert "Kept output" in first
    assert second == first
    assert tally.read_text().splitlines() == ["ran"]
    assert len(list(block_cache.iterdir())) == 1
    # Another block, or the same one once a source it can read has changed, runs.
    render(counting_block(tally, "Other output"))
    assert tally.read_text().splitlines() == ["ran", "ran"]


def test_failing_and_heading_blocks_run_every_time(
    tmp_path: Path, block_cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tally = tmp_path / "tally"
    failing = counting_block(tally).replace("print('')", "1 / 0")
    for _ in range(2):
        with caplog.at_level(logging.WARNING):
            caplog.clear()
            render(failing)
        assert "ZeroDivisionError" in caplog.text  # a strict build fails on it every time
    render(counting_block(tally, "## A heading"))
    render(counting_block(tally, "## A heading"))
    assert tally.read_text().splitlines() == ["ran"] * 4
    assert not block_cache.exists() or list(block_cache.iterdir()) == []


def session_page(tally: Path, last: str) -> str:
    """Three blocks of one session: the later ones read what the first defined."""
    return (
        counting_block(tally, options=' session="s"').replace("print('')", "x = 40")
        + counting_block(tally, options=' session="s"').replace("print('')", "x += 1; print(x)")
        + counting_block(tally, options=' session="s"').replace("print('')", last)
    )


def test_session_blocks_are_kept_under_the_blocks_before_them(
    tmp_path: Path, block_cache: Path
) -> None:
    """Unchanged, no block runs; an edited last block runs after the kept ones are replayed."""
    tally = tmp_path / "tally"
    first = render(session_page(tally, "print(x * 2)"))
    assert "82" in first
    assert tally.read_text().splitlines() == ["ran"] * 3
    assert render(session_page(tally, "print(x * 2)")) == first
    assert tally.read_text().splitlines() == ["ran"] * 3  # nothing ran
    # The third block changed: the two kept blocks run again (their output unused), then it.
    edited = render(session_page(tally, "print(x * 3)"))
    assert "123" in edited
    assert "41" in edited
    assert tally.read_text().splitlines() == ["ran"] * 6
    # The first block changed: every later block's key changed with it.
    moved = render(session_page(tally, "print(x * 3)").replace("x = 40", "x = 50"))
    assert "153" in moved
    assert "51" in moved


@pytest.fixture
def torch_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exec_format, "missing_optional", lambda: ["torch"])


def test_under_serve_a_block_needing_torch_shows_the_note_and_nothing_else(
    torch_missing: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PE_SERVE", "1")
    html = render(f'```python exec="on"\nprint("half an output")\n{MISSING_TORCH}\n```\n')
    assert "Not computed here" in html
    assert "PyTorch, which <code>make serve</code> did not install" in html
    assert "half an output" not in html
    assert "Traceback" not in html


def test_under_serve_a_block_that_runs_shows_its_output(
    torch_missing: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PE_SERVE", "1")
    html = render('```python exec="on"\nprint("| a |\\n| - |\\n| 1 |")\n```\n')
    assert re.search(r"<td>1</td>", html)
    assert "Not computed here" not in html


def test_under_serve_other_errors_still_fail(
    torch_missing: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PE_SERVE", "1")
    with caplog.at_level(logging.WARNING):
        html = render('```python exec="on"\nraise ValueError("d_model must be even")\n```\n')
    assert "Not computed here" not in html
    assert "ValueError" in html
    assert any("exited with errors" in record.getMessage() for record in caplog.records)


def test_without_serve_a_missing_torch_fails_the_block(
    torch_missing: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("PE_SERVE", raising=False)
    with caplog.at_level(logging.WARNING):  # a warning: --strict stops the build
        html = render(f'```python exec="on"\n{MISSING_TORCH}\n```\n')
    assert "Not computed here" not in html
    assert "ModuleNotFoundError" in html
    assert any("exited with errors" in record.getMessage() for record in caplog.records)


def test_a_shown_source_stays_the_reader_s_code(
    torch_missing: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PE_SERVE", "1")
    html = render(
        f'```python exec="on" source="above" result="text"\nimport math\n{MISSING_TORCH}\n```\n'
    )
    assert "run_block" not in html
    assert "make build or make test installs everything" in html  # plain text in a text block


def test_a_session_block_after_a_noted_one_shows_the_note_too(torch_missing: None) -> None:
    printed: list[str] = []
    namespace: dict[str, object] = {
        "print": lambda *args, **kwargs: printed.append(" ".join(map(str, args)))
    }
    exec_format.run_block(MISSING_TORCH, namespace, html=False, text=False)
    exec_format.run_block("show()", namespace, html=False, text=False)  # NameError
    assert len(printed) == 2
    assert all("Not computed here" in text for text in printed)


def test_figure_scripts_that_import_torch_are_found(torch_missing: None) -> None:
    needs = {
        script.name: exec_format.script_needs(script)
        for script in sorted((ROOT / "scripts").glob("fig_*.py"))
    }
    assert needs["fig_rope_scores.py"] == "torch"
    assert needs["fig_t5_buckets.py"] == "torch"
    assert needs["fig_wavelengths.py"] is None


def test_a_page_edit_rebuilds_dirty_and_a_code_edit_in_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    times = iter([1.0, 1.0, 2.0, 2.0])  # at start, then before each of three builds
    monkeypatch.setattr(serve, "newest_code_change", lambda: next(times))
    calls: list[bool] = []
    monkeypatch.setattr(serve, "build", lambda config, serve_url, dirty: calls.append(dirty))
    builder = serve.Builder()
    config = SimpleNamespace(
        plugins={"autorefs": SimpleNamespace(**{key: {} for key in serve.AUTOREFS_MAPS})}
    )
    for _ in range(3):
        builder(config, serve_url=None, dirty=True)
    assert calls == [True, False, True]


def test_make_serve_watches_everything_whose_edit_rebuilds_every_page() -> None:
    """An edit rebuilds pages only if `mkdocs serve` notices it: every path of
    `serve.CODE` is watched (mkdocs.yml by MkDocs itself, the rest by `watch:`)."""
    text = (serve.ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    block = re.search(r"^watch:.*\n((?:  - .*\n)+)", text, re.MULTILINE)
    assert block is not None
    watched = {line.removeprefix("  - ").strip() for line in block.group(1).splitlines()}
    assert set(serve.CODE) - {"mkdocs.yml"} <= watched, sorted(set(serve.CODE) - watched)


def test_the_dirty_build_warning_is_said_once_as_information(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """MkDocs warns on every dirty build; under make serve that is by design, so it
    is shown once, as INFO, saying what make serve rebuilds; other warnings pass."""
    logger = logging.getLogger("mkdocs.commands.build.test_dirty_notice")
    logger.propagate = True
    notice = serve.DirtyNotice()
    logger.addFilter(notice)
    dirty = "A 'dirty' build is being performed, this will likely lead to inaccurate navigation"
    with caplog.at_level(logging.INFO, logger=logger.name):
        logger.warning(dirty)
        logger.warning(dirty)
        logger.warning("a real problem")
    records = [(record.levelname, record.getMessage()) for record in caplog.records]
    assert len(records) == 2
    assert records[0][0] == "INFO"
    assert "rebuilt alone (a 'dirty' build)" in records[0][1]
    assert "benchmarks/results" in records[0][1]
    assert records[1] == ("WARNING", "a real problem")


def test_with_everything_installed_serve_runs_blocks_unchanged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PE_SERVE", "1")
    monkeypatch.setattr(exec_format, "missing_optional", list)
    with caplog.at_level(logging.WARNING):
        html = render(f'```python exec="on"\n{MISSING_TORCH}\n```\n')
    assert "Not computed here" not in html
    assert any("exited with errors" in record.getMessage() for record in caplog.records)


def real_tracebacks(page: str) -> list[str]:
    """Python tracebacks in a built page's text (a doctest's elided ``...`` one aside)."""
    text = html_module.unescape(re.sub(r"<[^>]+>", "", page))
    found = []
    for match in re.finditer(r"Traceback \(most recent call last\):\s*\n\s*(\S.*)", text):
        if match[1].strip() != "...":
            found.append(text[match.start() : match.start() + 400])
    return found


def test_real_tracebacks_tells_a_doctest_from_a_failure() -> None:
    doctest = "<pre>Traceback (most recent call last):\n...\nValueError: no</pre>"
    failure = '<pre>Traceback (most recent call last):\n  File "x", line 1\nStopIteration</pre>'
    assert real_tracebacks(doctest) == []
    assert len(real_tracebacks(failure)) == 1


@pytest.mark.site
def test_a_fresh_clone_serves_every_page_without_a_traceback(serve_site: Path) -> None:
    """Build as ``make serve`` does on a fresh clone: no torch, no compared libraries.

    Built in the background of the session (tests/conftest.py, `_build_as_serve`):
    the figure cache starts with only the figures such a clone can draw (copied
    from the session's build, so none is drawn again); every table is computed
    afresh. Each output that needs a missing library must show the note.
    """
    pages = sorted(serve_site.rglob("*.html"))
    assert len(pages) > 20
    failures = {
        str(page.relative_to(serve_site)): found
        for page in pages
        if (found := real_tracebacks(page.read_text(encoding="utf-8")))
    }
    assert failures == {}
    # the two pages whose figures are drawn with torch say so in the figure's place
    for name in ("beyond/rope", "beyond/relative-bias"):
        page = (serve_site / name / "index.html").read_text(encoding="utf-8")
        assert "Not computed here" in page, name
    # pages whose blocks need numpy alone show every output (their cached tables'
    # keys name torch's version: a missing torch once made them show the note)
    for name in ("properties", "rotation", "formula"):
        page = (serve_site / name / "index.html").read_text(encoding="utf-8")
        assert "Not computed here" not in page, name


def test_a_figure_still_drawing_shows_a_placeholder_then_the_rebuild_is_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under make serve (`figures.later` set) a page does not wait for a figure being
    drawn: it shows a placeholder naming the script; once the drawing ends, the
    build's waiting thread asks the server for a rebuild, and only then."""
    from concurrent.futures import Future

    from sitegen import figures

    asked: list[str] = []
    drawing: Future[None] = Future()
    monkeypatch.setattr(figures, "later", lambda: asked.append("rebuild"))
    monkeypatch.setattr(figures, "_started", {"rotation": drawing})
    monkeypatch.setattr(figures, "_placeholders", set())
    monkeypatch.setattr(figures, "finish", lambda: figures.wait_drawn())
    shown = figures.figure("rotation", "A pair turns.")
    assert figures.PLACEHOLDER in shown
    assert "scripts/fig_rotation.py" in shown
    assert "A pair turns." in shown
    assert "/figures/" not in shown  # no image address that would wait for the drawing
    assert figures.finish_in_background() is True
    time.sleep(0.05)
    assert asked == []  # still drawing
    drawing.set_result(None)
    deadline = time.monotonic() + 5
    while not asked and time.monotonic() < deadline:
        time.sleep(0.01)
    assert asked == ["rebuild"]


def test_a_failed_build_leaves_no_figure_waiting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A build that fails after starting the figures (under make serve, drawn after the
    pages) stops them (`figures.abandon`, called by sitegen/hooks.py's on_build_error):
    no script waiting for the pages runs, no thread is left for Python to wait for as
    it exits, and the next rebuild's wait for the last build's figures returns.
    Without it, a fresh clone's make serve whose build failed printed the error and
    never exited."""
    import threading

    from sitegen import figures, fork_runner

    ran: list[str] = []
    monkeypatch.setenv("PE_CACHE", str(tmp_path))
    monkeypatch.setattr(figures, "_started", {})
    for name in ("_report", "_shared", "_placeholders"):  # restored after the test
        monkeypatch.setattr(figures, name, getattr(figures, name))
    monkeypatch.setattr(figures, "_pages_done", threading.Event())
    monkeypatch.setattr(figures, "_abandoned", threading.Event())
    monkeypatch.setattr(figures, "later", lambda: None)
    monkeypatch.setattr(figures, "_complete", lambda name, target: False)
    monkeypatch.setattr(figures, "_run", lambda script, target: ran.append(script.name))
    monkeypatch.setattr(fork_runner, "supported", lambda: False)
    report = figures.start(jobs=2)
    assert len(report.ran) > 2  # two scripts wait for the pages, the rest are queued

    def drawing() -> list[str]:
        return [t.name for t in threading.enumerate() if t.name.startswith("figure_")]

    assert drawing()
    figures.abandon()
    figures.wait_drawn()  # what tools/serve.py's next rebuild calls first
    deadline = time.monotonic() + 5
    while drawing() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert drawing() == []
    assert ran == []
    assert all(future.done() for future in figures._started.values())


def test_make_timing_tells_which_installer_ran() -> None:
    """The fresh clone's record says pip installed only when the Makefile printed that it
    fell back to pip, not when make echoed the recipe that would (it always does)."""
    from tools import build_timing

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert f'echo "{build_timing.PIP_FALLBACK}"' in makefile
    recipe = next(line for line in makefile.splitlines() if build_timing.PIP_FALLBACK in line)
    assert build_timing.installer(f"test -x .venv/bin/python\n{recipe}\n") == "uv"
    assert build_timing.installer(f"{recipe}\n{build_timing.PIP_FALLBACK}\n") == "pip"


def test_without_a_placeholder_shown_the_build_waits_for_its_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sitegen import figures

    monkeypatch.setattr(figures, "_placeholders", set())
    monkeypatch.setattr(figures, "later", lambda: None)
    assert figures.finish_in_background() is False  # hooks.on_env then calls finish()
    monkeypatch.setattr(figures, "later", None)
    monkeypatch.setattr(figures, "_placeholders", {"rotation"})
    assert figures.finish_in_background() is False  # make build: never deferred


def test_after_the_figures_are_drawn_every_page_is_rebuilt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rebuild the drawing asks for is a full one: a dirty build would keep the
    placeholders of the pages it does not re-render."""
    monkeypatch.setattr(serve, "newest_code_change", lambda: 1.0)
    calls: list[bool] = []
    monkeypatch.setattr(serve, "build", lambda config, serve_url, dirty: calls.append(dirty))
    builder = serve.Builder()
    config = SimpleNamespace(
        plugins={"autorefs": SimpleNamespace(**{key: {} for key in serve.AUTOREFS_MAPS})}
    )
    builder(config, serve_url=None, dirty=True)
    builder.drawn()
    builder(config, serve_url=None, dirty=True)
    builder(config, serve_url=None, dirty=True)
    assert calls == [True, False, True]


def test_pages_come_before_figures_only_where_no_block_output_is_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A kept block output (the full environment) would outlive its placeholder."""
    monkeypatch.setenv("PE_SERVE", "1")
    monkeypatch.setattr(exec_format, "missing_optional", lambda: ["torch"])
    assert serve.figures_later() is True
    monkeypatch.setattr(exec_format, "missing_optional", list)
    assert serve.figures_later() is False
    monkeypatch.delenv("PE_SERVE")
    monkeypatch.setattr(exec_format, "missing_optional", lambda: ["torch"])
    assert serve.figures_later() is False
