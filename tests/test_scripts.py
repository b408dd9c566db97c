"""The figure scripts stand on `pe` (and `benchmarks`), never on the site generator.

Data that figures, pages and tests all read lives below all three, in `pe`
(for RoPE, `pe._published`), so a script imports it like any installed module:
no script edits ``sys.path`` or imports `sitegen`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).resolve().parents[1] / "scripts").glob("*.py"))


def imported_modules(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("script", SCRIPTS, ids=[script.name for script in SCRIPTS])
def test_scripts_neither_edit_sys_path_nor_import_sitegen(script: Path) -> None:
    source = script.read_text(encoding="utf-8")
    tree = ast.parse(source)
    assert not any(name.split(".")[0] == "sitegen" for name in imported_modules(tree))
    assert "sys.path" not in source


def test_the_check_sees_an_import_of_sitegen() -> None:
    tree = ast.parse("import numpy\nfrom sitegen.rope import by_model\n")
    assert "sitegen.rope" in imported_modules(tree)


def test_the_longrope_figure_reads_the_published_configs_from_pe() -> None:
    script = next(s for s in SCRIPTS if s.name == "fig_rope_longrope.py")
    assert "pe._published" in imported_modules(ast.parse(script.read_text(encoding="utf-8")))
