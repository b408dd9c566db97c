"""The public surface: complete, sorted, documented, and torch-free at import."""

import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pe
import pe.nn

ROOT = Path(__file__).resolve().parents[1]
MODULES = {"pe": pe, "pe.nn": pe.nn}


@pytest.mark.parametrize("name", MODULES)
def test_all_is_sorted_and_complete(name):
    module = MODULES[name]
    assert module.__all__ == sorted(module.__all__)
    public = {
        key
        for key, value in vars(module).items()
        if not key.startswith("_") and not inspect.ismodule(value) and key != "annotations"
    }
    assert public == set(module.__all__)


@pytest.mark.parametrize(("module", "name"), [(m, n) for m in MODULES for n in MODULES[m].__all__])
def test_every_public_callable_has_a_doctest(module, name):
    obj = getattr(MODULES[module], name)
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return  # constants and type aliases
    if inspect.isclass(obj) and issubclass(obj, Warning):
        return
    assert ">>>" in (obj.__doc__ or ""), f"{module}.{name} needs an Examples section"


@pytest.mark.parametrize(("module", "name"), [(m, n) for m in MODULES for n in MODULES[m].__all__])
def test_every_public_name_is_in_the_api_reference(module, name):
    reference = (ROOT / "docs" / "reference.md").read_text()
    assert re.search(rf"^::: {re.escape(module)}\.{re.escape(name)}$", reference, re.M)


def test_import_pe_does_not_import_torch():
    code = "import sys, pe; pe.sinusoidal(4, 8); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_version_is_a_string():
    assert re.fullmatch(r"\d+\.\d+\.\d+", pe.__version__)
