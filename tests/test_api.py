"""The public surface: complete, sorted, documented, and torch-free at import."""

import inspect
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import pe
import pe.analysis
import pe.nn
import pe.nn.functional

ROOT = Path(__file__).resolve().parents[1]
MODULES = {
    "pe": pe,
    "pe.analysis": pe.analysis,
    "pe.nn": pe.nn,
    "pe.nn.functional": pe.nn.functional,
}


@pytest.mark.parametrize("name", MODULES)
def test_all_is_sorted_and_complete(name: str) -> None:
    module = MODULES[name]
    assert module.__all__ == sorted(module.__all__)
    public = {
        key
        for key, value in vars(module).items()
        if not key.startswith("_") and not inspect.ismodule(value) and key != "annotations"
    }
    assert public == set(module.__all__)


@pytest.mark.parametrize(("module", "name"), [(m, n) for m in MODULES for n in MODULES[m].__all__])
def test_every_public_callable_has_a_doctest(module: str, name: str) -> None:
    obj = getattr(MODULES[module], name)
    if not (inspect.isfunction(obj) or inspect.isclass(obj)):
        return  # constants and type aliases
    if inspect.isclass(obj) and issubclass(obj, Warning):
        return
    assert ">>>" in (obj.__doc__ or ""), f"{module}.{name} needs an Examples section"


@pytest.mark.parametrize(("module", "name"), [(m, n) for m in MODULES for n in MODULES[m].__all__])
def test_every_public_name_is_in_the_api_reference(module: str, name: str) -> None:
    reference = "\n".join(
        page.read_text() for page in sorted((ROOT / "docs" / "reference").glob("*.md"))
    )
    assert re.search(rf"^::: {re.escape(module)}\.{re.escape(name)}$", reference, re.M)


def test_import_pe_does_not_import_torch() -> None:
    code = "import sys, pe; pe.sinusoidal(4, 8); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_version_is_a_string() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", pe.__version__)


def test_each_public_name_has_one_home() -> None:
    homes: dict[int, list[str]] = {}
    for module_name, module in MODULES.items():
        for name in module.__all__:
            homes.setdefault(id(getattr(module, name)), []).append(f"{module_name}.{name}")
    shared = [names for names in homes.values() if len(names) > 1]
    assert shared == []


def test_the_namespaces_are_documented_modules() -> None:
    for module in (pe.analysis, pe.nn.functional):
        assert ">>>" in (module.__doc__ or "")


# pe 0.1.0's names: each still works, warns, and names its replacement.
MOVED = (
    [("pe", name, f"pe.analysis.{name}", pe.analysis, name) for name in pe.analysis.__all__]
    + [
        ("pe.nn", name, f"pe.nn.functional.{name}", pe.nn.functional, name)
        # the functions pe.nn held in 0.1.0 (later ones were never there)
        for name in (
            "convert_rotary_layout",
            "position_ids",
            "relative_position_bucket",
            "sinusoidal",
        )
    ]
    + [
        ("pe", "convention", "pe.conventions[name]", None, None),
        ("pe", "convert", "pe.convert_layout", pe, "convert_layout"),
        ("pe", "permute_input_weight", "pe.convert_layout", pe, "convert_layout"),
    ]
)


@pytest.mark.parametrize(("module", "old", "new", "home", "name"), MOVED)
def test_old_names_warn_and_name_their_replacement(
    module: str, old: str, new: str, home: ModuleType | None, name: str | None
) -> None:
    with pytest.warns(
        DeprecationWarning,
        match=rf"{re.escape(module)}\.{old} is deprecated .*"
        rf"use {re.escape(new)}",
    ):
        obj = getattr(MODULES[module], old)
    if home is not None:
        assert name is not None  # a new home always names the new attribute
        assert obj is getattr(home, name)
    assert old not in MODULES[module].__all__
    assert old not in vars(MODULES[module])  # served by __getattr__ only


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'pe' has no attribute 'nonsense'"):
        pe.nonsense  # noqa: B018
    with pytest.raises(AttributeError, match=r"module 'pe\.nn' has no attribute 'nonsense'"):
        pe.nn.nonsense  # noqa: B018
