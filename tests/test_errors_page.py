"""The Errors page's bad calls: each written once, as the text shown and the call run."""

from __future__ import annotations

import importlib

import pytest
from conftest import ROOT

import pe
from sitegen.pages import errors


def test_every_bad_call_names_an_exported_function() -> None:
    for package, calls in errors.CALLS.items():
        exported = importlib.import_module(package).__all__
        for call in calls:
            name = errors.function_of(call, package).removeprefix(f"{package}.")
            assert name.startswith("Convention.") or name.split(".")[0] in exported


def test_the_shown_text_is_the_call_made() -> None:
    """A call that does not raise fails the build: the shown text is what runs."""
    names = {name: getattr(pe, name) for name in pe.__all__}
    with pytest.raises(ValueError, match="d_model"):
        eval(errors.CALLS["pe"][0], {"__builtins__": {}}, names)  # sinusoidal(10, 7)
    assert errors.CALLS["pe"][0] == "sinusoidal(10, 7)"


def test_every_public_module_has_bad_calls_on_the_page() -> None:
    assert set(errors.CALLS) == {"pe", "pe.analysis", "pe.nn", "pe.nn.functional"}
    assert sum(len(calls) for calls in errors.CALLS.values()) >= 54


def test_function_of_refuses_what_it_cannot_name() -> None:
    with pytest.raises(ValueError, match="call="):
        errors.function_of("(lambda: 0)()", "pe")


def test_every_accepted_call_warns_and_names_what_was_odd() -> None:
    table = errors.warning_table()
    assert table.count("\n| `") == sum(len(calls) for calls in errors.WARNINGS.values())
    for needle in (
        "beta_fast",
        "high_freq_factor == low_freq_factor",
        "disagree",
        "mrope_section",
        "llama_4_scaling_beta",
        "seq_len",
    ):
        assert needle in table, needle


def test_the_limits_table_shows_each_limit_with_its_value_and_comment() -> None:
    import pe._alibi
    import pe._rope_base
    import pe._timesteps
    import pe._validation

    table = errors.limits_table()
    expected = {
        "MAX_POSITION": "2,147,483,647 (2**31 - 1)",
        "MAX_D_MODEL": "16,777,216 (2**24)",
        "MAX_ELEMENTS": "2,147,483,648 (2**31)",
        "MAX_TIMESTEP": "2,147,483,648 (2**31)",
        "MAX_HEADS": "65,536 (2**16)",
        "MAX_BASE_HEAD_DIM": "65,536 (2**16)",
        "MAX_BASE_TERMS": "268,435,456 (2**28)",
        "MAX_MIN_BASE_CONTEXT": "4,194,304 (2**22)",
    }
    values = {
        "MAX_POSITION": pe._validation.MAX_POSITION,
        "MAX_D_MODEL": pe._validation.MAX_D_MODEL,
        "MAX_ELEMENTS": pe._validation.MAX_ELEMENTS,
        "MAX_TIMESTEP": pe._timesteps.MAX_TIMESTEP,
        "MAX_HEADS": pe._alibi.MAX_HEADS,
        "MAX_BASE_HEAD_DIM": pe._rope_base.MAX_BASE_HEAD_DIM,
        "MAX_BASE_TERMS": pe._rope_base.MAX_BASE_TERMS,
        "MAX_MIN_BASE_CONTEXT": pe._rope_base.MAX_MIN_BASE_CONTEXT,
    }
    for name, shown in expected.items():
        assert f"| `{name}` | {shown} | " in table, name
        assert int(shown.split()[0].replace(",", "")) == values[name]
    assert "Checked before allocating" in table  # MAX_ELEMENTS's comment, from the code
    page = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    assert "print(limits_table())" in page


def test_the_table_is_built_in_a_fresh_process_and_before_any_large_allocation() -> None:
    """Every row, run first thing in a new interpreter, with little memory to spare.

    The first torch.tensor(...) of a process failed when the page removed
    Python's builtins: torch's C code imports ``torch.storage`` through the
    calling frame's ``__import__``, the page's ``eval`` gave it none, and torch
    answered ``SinusoidalTimestepEmbedding(256)(torch.tensor([1j]))`` with an
    internal assertion. The build passed only because something had called
    torch.tensor before. Rows such as ``grid_sincos(2**16, 4)`` ask for
    gigabytes: under `allocation.headroom` a check made after allocating would
    be a MemoryError, not the row's ValueError.
    """
    import subprocess
    import sys

    program = (
        "import sys\n"
        "sys.path.insert(0, 'tests')\n"
        "from allocation import headroom\n"
        "from sitegen.pages import errors\n"
        "for package, calls in errors.CALLS.items():\n"
        "    for call in calls:\n"
        "        with headroom():\n"
        "            print(errors.error_row(call, package)[2], call)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert len(lines) == sum(len(calls) for calls in errors.CALLS.values())
    assert "`TypeError` SinusoidalTimestepEmbedding(256)(torch.tensor([1j]))" in lines
    assert "`ValueError` grid_sincos(2**16, 4)" in lines
