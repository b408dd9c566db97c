"""The Errors page's bad calls: each written once, as the text shown and the call run."""

from __future__ import annotations

import importlib

import pytest

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
