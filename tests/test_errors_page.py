"""The Errors page's bad calls: each written once, as the text shown and the call run."""

from __future__ import annotations

import pytest

import pe
import pe.nn
from sitegen.pages import errors


def test_every_bad_call_names_an_exported_function():
    for call in errors.PE_CALLS:
        name = errors.function_of(call, "pe")
        assert name.startswith("Convention.") or name.removeprefix("pe.") in pe.__all__, call
    for call in errors.NN_CALLS:
        assert errors.function_of(call, "pe.nn").removeprefix("pe.nn.") in pe.nn.__all__, call


def test_the_shown_text_is_the_call_made():
    """A call that does not raise fails the build: the shown text is what runs."""
    names = {name: getattr(pe, name) for name in pe.__all__}
    with pytest.raises(ValueError, match="d_model"):
        eval(errors.PE_CALLS[0], {"__builtins__": {}}, names)  # sinusoidal(10, 7)
    assert errors.PE_CALLS[0] == "sinusoidal(10, 7)"


def test_function_of_refuses_what_it_cannot_name():
    with pytest.raises(ValueError, match="call="):
        errors.function_of("(lambda: 0)()", "pe")
