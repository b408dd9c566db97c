"""Load the example programs in ``examples/`` so executed blocks can reuse their code."""

from __future__ import annotations

import ast
import runpy
import textwrap
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# A definition that can enclose a snippet section (it has a name and a body).
_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def load(name: str) -> dict[str, Any]:
    """Run ``examples/<name>.py`` (not as ``__main__``) and return its globals."""
    path = EXAMPLES / f"{name}.py"
    if not path.is_file():
        raise FileNotFoundError(f"no example {path.name} in {EXAMPLES}")
    return runpy.run_path(str(path), run_name=f"examples.{name}")


def excerpt(path: str, section: str) -> str:
    """Show a named section of library source as source: a titled, not copyable block.

    The excerpt keeps the ``def`` (or ``class``) line of the function that holds
    the section, says which lines it leaves out, and is marked ``no-copy`` (the
    lines are part of the library, not a program to paste). Returns Markdown.
    """
    file = ROOT / path
    lines = file.read_text().splitlines()
    start = _marker(lines, f"--8<-- [start:{section}]", path)
    end = _marker(lines, f"--8<-- [end:{section}]", path)
    body = lines[start + 1 : end]
    if file.suffix == ".c":  # C source: the lines between the markers, as they are
        text = textwrap.dedent("\n".join(body)).strip("\n")
        title = f"{path} (lines {start + 2}-{end})"
        return f'```{{ .c .no-copy title="{title}" }}\n{text}\n```\n'
    tree = ast.parse("\n".join(lines))
    owner = _enclosing_definition(tree, start + 2)
    shown: list[str] = []
    name = ""
    if owner is not None:
        node, qualname = owner
        name = qualname
        signature_end = node.body[0].lineno - 1  # 1-based line before the body
        signature = lines[node.lineno - 1 : signature_end]
        shown += signature
        skipped = (signature_end + 1, start)  # 1-based, inclusive: lines not shown
        if skipped[1] >= skipped[0]:
            indent = _indent(body[0]) if body else _indent(signature[0]) + 4
            shown.append(f"{' ' * indent}...  # lines {skipped[0]}-{skipped[1]} not shown")
    shown += body
    while shown and not shown[-1].strip():
        shown.pop()
    width = min(_indent(row) for row in shown if row.strip())
    text = "\n".join(row[width:] for row in shown)
    first, last = (owner[0].lineno if owner else start + 2), end
    if not name:  # the section is whole definitions: name them
        name = ", ".join(
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and start < node.lineno <= end
        )
    title = f"{path}, {name}" if name else path
    title += f" (lines {first}-{last})"
    return f'```{{ .python .no-copy title="{title}" }}\n{text}\n```\n'


ROOT = EXAMPLES.parent


def _marker(lines: list[str], marker: str, path: str) -> int:
    for number, row in enumerate(lines):
        if row.strip().endswith(marker):
            return number
    raise ValueError(f"{path} has no line ending in {marker!r}")


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip())


def _enclosing_definition(tree: ast.Module, line: int) -> tuple[_Definition, str] | None:
    """Find the innermost function or class around 1-based `line`, with its dotted name."""
    found: tuple[_Definition, str] | None = None

    def visit(node: ast.AST, prefix: str) -> None:
        nonlocal found
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                end = child.end_lineno or child.lineno
                qualname = f"{prefix}{child.name}"
                if child.lineno < line <= end:
                    found = (child, qualname)
                    visit(child, qualname + ".")

    visit(tree, "")
    return found
