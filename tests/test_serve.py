"""``make serve`` without torch: the note in place of an output, and the rebuild policy."""

from __future__ import annotations

import logging
import re
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


def test_with_everything_installed_serve_runs_blocks_unchanged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PE_SERVE", "1")
    monkeypatch.setattr(exec_format, "missing_optional", list)
    with caplog.at_level(logging.WARNING):
        html = render(f'```python exec="on"\n{MISSING_TORCH}\n```\n')
    assert "Not computed here" not in html
    assert any("exited with errors" in record.getMessage() for record in caplog.records)
