"""The build's cache of formatted signatures and compiled templates gives what it was given.

The reference is ``ruff format`` run directly on the original code, and Jinja
rendering the template with no cache.
"""

from __future__ import annotations

import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from sitegen import template_cache

SIGNATURE = (
    "def {name}(positions: {a} | {b}, d_model: int, *, base: float = 10000.0, "
    "dtype: {c} | None = None, layout: {d} = 'interleaved') -> {e}: pass"
)


def ruff_format(code: str, line_length: int) -> str:
    """What mkdocstrings' formatter does, written out: ruff on standard input."""
    command = [sys.executable, "-m", "ruff", "format", "--config"]
    command += [f"line-length={line_length}", "--stdin-filename", "file.py", "-"]
    return subprocess.run(command, input=code, capture_output=True, text=True, check=True).stdout


def stand_ins(rng: random.Random) -> dict[str, str]:
    """Random names like mkdocstrings' stand-ins for cross-references, of fixed lengths."""
    lengths = {"a": 9, "b": 12, "c": 11, "d": 7, "e": 14}
    letters = string.ascii_letters + string.digits
    return {k: "_" + "".join(rng.choices(letters, k=n - 1)) for k, n in lengths.items()}


@pytest.fixture
def counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], dict[str, str], object]:
    """The cached formatter over ruff, with the calls that reached ruff and the stand-ins."""
    monkeypatch.setenv("PE_CACHE", str(tmp_path))
    calls: list[str] = []
    stash: dict[str, str] = {}

    def formatter(code: str, line_length: int) -> str:
        calls.append(code)
        return ruff_format(code, line_length)

    return calls, stash, template_cache._cached(formatter, "ruff test", stash)


def test_a_signature_with_new_stand_ins_comes_from_the_cache_and_is_ruffs(
    counted: tuple[list[str], dict[str, str], object],
) -> None:
    calls, stash, cached = counted
    rng = random.Random(1)
    for build in range(3):
        names = stand_ins(rng)
        stash.clear()
        stash.update({name: f"crossref {key}" for key, name in names.items()})
        code = SIGNATURE.format(name="x" * 24, **names)
        assert cached(code, 60) == ruff_format(code, 60)  # type: ignore[operator]
        assert len(calls) == 1, f"build {build} ran ruff again"
    # A different line length is a different answer.
    assert cached(code, 100) == ruff_format(code, 100)  # type: ignore[operator]
    assert len(calls) == 2


def test_a_renamed_stand_in_that_would_clash_is_formatted_directly(
    counted: tuple[list[str], dict[str, str], object], tmp_path: Path
) -> None:
    calls, stash, cached = counted
    names = stand_ins(random.Random(2))
    names["e"] = "_" + "0" * 13  # what the first stand-in would be renamed to, if as long
    names["a"] = "_" + "z" * 13
    stash.update({name: "crossref" for name in names.values() if name != names["e"]})
    code = SIGNATURE.format(name="x" * 24, **names)
    assert cached(code, 60) == ruff_format(code, 60)  # type: ignore[operator]
    assert calls == [code]  # not renamed, and not stored
    assert not (tmp_path / "signatures").exists()


def test_templates_render_the_same_from_the_bytecode_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jinja2 import DictLoader, Environment

    monkeypatch.setenv("PE_CACHE", str(tmp_path))
    source = {"page.html": "{% for i in items %}<li>{{ i * 2 }}</li>{% endfor %}"}
    for run in range(2):
        environment = Environment(loader=DictLoader(source), autoescape=True)
        template_cache.use_bytecode_cache(environment)
        html = environment.get_template("page.html").render(items=[1, 2])
        assert html == "<li>2</li><li>4</li>"
        assert len(list((tmp_path / "jinja").iterdir())) == 1, f"run {run}"
    # An edited template is compiled afresh, not read from the cache.
    source["page.html"] = "{{ items | length }}"
    environment = Environment(loader=DictLoader(source), autoescape=True)
    template_cache.use_bytecode_cache(environment)
    assert environment.get_template("page.html").render(items=[1, 2]) == "2"


def test_mkdocstrings_formatter_is_wrapped_once() -> None:
    from mkdocstrings_handlers.python._internal import rendering

    assert template_cache.cache_signature_formatting()
    first = rendering._get_formatter
    assert template_cache.cache_signature_formatting()
    assert rendering._get_formatter is first
    assert getattr(first(), template_cache._MARK)
