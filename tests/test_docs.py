"""The single-source rule, checked on the Markdown sources of the site.

Every Python code block in ``docs/`` is one of three kinds:

- executed at build time with its code hidden (markdown-exec's ``exec="on"``
  alone): it writes a table, a figure or a source excerpt into the page;
- executed at build time with its code shown (``source="above"``): then it is a
  reader's program, complete on its own: no ``session`` shared with other
  blocks, no hidden lines, nothing from the site's build helpers;
- snippet includes of named sections of tested files in ``examples/``.

Library source (``pe/``) is shown only through `sitegen.examples.excerpt`, as
titled ``no-copy`` source. ``tests/test_reader.py`` then runs every block a reader
can copy from the built site, in a fresh environment.
"""

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)$")
INCLUDE = re.compile(r'^--8<--\s+"(?P<path>[^":]+)(?::(?P<section>[a-z][-_0-9a-z]*))?"$')
TESTED_SOURCES = ("examples/",)
PYTHON = {"python", "py", "pycon", "python3"}


def code_blocks(text: str) -> Iterator[tuple[int, str, list[str]]]:
    """Yield (line number, info string, body lines) of every fenced block."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence, info = match["indent"], match["fence"], match["info"].strip()
        start = i
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(indent) :])
            i += 1
        yield start + 1, info, body
        i += 1


def python_blocks() -> Iterator[tuple[Path, int, str, list[str]]]:
    for page in PAGES:
        for line, info, body in code_blocks(page.read_text()):
            language = info.split()[0].lstrip(".{") if info else ""
            if language in PYTHON:
                yield page, line, info, body


BLOCKS = list(python_blocks())


def test_the_docs_have_python_blocks() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize(
    ("page", "line", "info", "body"),
    BLOCKS,
    ids=[f"{b[0].relative_to(DOCS)}:{b[1]}" for b in BLOCKS],
)
def test_python_block_is_executed_or_included(
    page: Path, line: int, info: str, body: list[str]
) -> None:
    executed = bool(re.search(r'\bexec="(on|1|true|yes)"', info))
    if executed:
        if "source=" not in info:
            return  # only its output is shown
        where = f"{page.name}:{line}"
        assert "session=" not in info, f"{where}: a shown block must not rely on another block"
        assert 'result="text"' in info, f"{where}: show what the block prints"
        assert not any("markdown-exec: hide" in row for row in body), f"{where}: hidden lines"
        assert not any("sitegen" in row for row in body), f"{where}: uses the build helpers"
        if not any(INCLUDE.match(row.strip()) for row in body):
            return
    content = [row.strip() for row in body if row.strip()]
    assert content, f"{page.name}:{line}: empty Python block"
    for row in content:
        match = INCLUDE.match(row)
        assert match, (
            f"{page.name}:{line}: a Python block must be executed at build time "
            f'(exec="on") or include a named section of a tested file; found {row!r}'
        )
        assert match["path"].startswith(TESTED_SOURCES), f"{match['path']} is not tested source"
        source = (ROOT / match["path"]).read_text()
        if match["section"] is None:
            # A whole example file is a whole program: allowed where the build runs it
            # and shows its output (the reader's test runs the copy on its own).
            whole = (
                f"{match['path']}: include a named section, or a whole example file "
                'in a block with exec="on" source="above" result="text"'
            )
            assert executed, whole
            assert match["path"].startswith("examples/"), whole
            continue
        assert f"--8<-- [start:{match['section']}]" in source
        assert f"--8<-- [end:{match['section']}]" in source


def test_library_source_is_shown_as_titled_no_copy_excerpts() -> None:
    from sitegen.examples import excerpt

    shown = excerpt("pe/_alibi.py", "slopes")
    header, *code = shown.splitlines()
    assert header.startswith('```{ .python .no-copy title="pe/_alibi.py, alibi_slopes (lines ')
    assert code[0].startswith("def alibi_slopes(")
    assert "not shown" in code[1]


def test_the_policy_check_catches_a_typed_snippet() -> None:
    page = "```python\nimport pe\nprint(pe.sinusoidal(4, 4))\n```\n"
    ((_, info, body),) = code_blocks(page)
    assert not re.search(r'\bexec="on"', info)
    assert not INCLUDE.match(body[0])


def test_no_generated_files_in_docs() -> None:
    assert not list(DOCS.rglob("figures"))
    assert not [p for p in DOCS.rglob("*") if p.suffix in {".png", ".pdf"}]


def test_readme_figures_match_the_recorded_results() -> None:
    """The Development table is written from benchmarks/results/; it must be current."""
    from tools import readme

    text = (ROOT / "README.md").read_text()
    assert readme.updated(text) == text, "README.md's figures are stale: run make readme"
    assert "| target | measured | command |" in readme.render()


def test_the_printed_commands_are_the_makefile_s() -> None:
    """Each record's command, as the pages print it, is what its make target runs."""
    from sitegen import results

    makefile = (ROOT / "Makefile").read_text()
    recipes = dict(re.findall(r"(?m)^([\w-]+):[^\n]*\n((?:\t[^\n]*\n?)*)", makefile))
    for name, command in results.COMMAND.items():
        target = results.MAKE[name]
        line = re.compile(r"(?m)^\t" + re.escape("$(BIN)/" + command) + r"(?:;|$)")
        assert line.search(recipes.get(target, "")), f"make {target} does not run {command}"


def test_a_record_is_read_once_and_again_when_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages read a record through one parse; a record written again is read again."""
    from sitegen import results

    monkeypatch.setattr(results, "RESULTS", tmp_path)
    assert results.recorded("table") is None
    (tmp_path / "table.json").write_text('{"n": 1}')
    first = results.recorded("table")
    assert first == {"n": 1}
    assert results.recorded("table") is first  # parsed once
    (tmp_path / "table.json").write_text('{"n": 22}')  # another size: another state
    assert results.recorded("table") == {"n": 22}
    (tmp_path / "table.json").unlink()
    assert results.recorded("table") is None
    with pytest.raises(FileNotFoundError, match="make bench"):
        results.result("table")


def _sitegen_modules() -> list[str]:
    import pkgutil

    import sitegen

    # The two MkDocs hook files reload sitegen and pe when imported: not here.
    hooks = {"sitegen.hooks", "sitegen.reader_hooks"}
    return sorted(
        info.name
        for info in pkgutil.walk_packages(sitegen.__path__, "sitegen.")
        if info.name not in hooks
    )


@pytest.mark.parametrize("name", _sitegen_modules())
def test_sitegen_doctests_pass(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
