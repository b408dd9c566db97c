"""What a reader takes home: the wheel the site serves, and each page as a notebook.

The wheel is built from the working tree with hatchling (offline, reproducible:
hatchling fixes the timestamps) and kept in the build cache under the hash of
the files it packs. `copied_blocks` reads a built page the way Material's copy
button does, so the notebooks, the scripts and ``tests/test_reader.py`` all take
exactly the code a reader copies. A notebook or script whose code imports more
than pe, numpy, torch and the standard library opens with the ``pip install``
line it needs (`install_line`).
"""

from __future__ import annotations

import ast
import html
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from sitegen.cache import cache_root, digest

ROOT = Path(__file__).resolve().parents[1]
# What the wheel is made of (pyproject.toml names README.md as the description).
WHEEL_INPUTS = ("pe", "pyproject.toml", "README.md", "LICENSE")


def distribution() -> tuple[str, str]:
    """Return the distribution's name and version, as pyproject.toml and pe say."""
    project = (ROOT / "pyproject.toml").read_text()
    named = re.search(r'^name = "([^"]+)"', project, re.M)  # the first: [project]'s
    if named is None:
        raise RuntimeError("pyproject.toml has no name line")
    name = named[1]
    init = (ROOT / "pe" / "__init__.py").read_text()
    match = re.search(r'^__version__ = "([^"]+)"$', init, re.M)
    if match is None:
        raise RuntimeError("pe/__init__.py has no __version__ line")
    return name, match[1]


def wheel_name() -> str:
    """Return the file name of the wheel (PEP 427: the name normalised with underscores)."""
    name, version = distribution()
    return f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}-py3-none-any.whl"


def build_wheel() -> Path:
    """Build the wheel into the cache (once per content of its inputs); return its path."""
    paths = [
        path
        for entry in WHEEL_INPUTS
        for path in ([ROOT / entry] if (ROOT / entry).is_file() else (ROOT / entry).rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    ]
    where = cache_root() / "wheel" / digest(paths)
    wheel = where / wheel_name()
    if not wheel.is_file():
        where.mkdir(parents=True, exist_ok=True)
        result = subprocess.run(
            [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(where)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0 or not wheel.is_file():
            raise RuntimeError(f"building {wheel.name} failed:\n{result.stdout}{result.stderr}")
    return wheel


# A highlighted block as pymdownx.highlight writes it: no <div> nests inside one.
_BLOCK = re.compile(
    r'<div (?P<attributes>[^>]*\bclass="(?P<classes>[^"]*\bhighlight\b[^"]*)"[^>]*)>'
    r"(?P<inner>.*?)</div>",
    re.S,
)
_CODE = re.compile(r"<code[^>]*>(?P<code>.*?)</code>", re.S)
_DATA_COPY = re.compile(r'\bdata-copy="(?P<text>[^"]*)"')
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Block:
    """One code block of a built page, as a reader meets it.

    `copied` is what the copy button puts on the clipboard (None for a block
    marked ``no-copy``); `output` is the text of the output block shown right
    under it ("" when none is).
    """

    language: str
    copied: str | None
    output: str


def copied_text(code_html: str) -> str:
    """Return the text Material copies from a ``code`` element's HTML.

    Material copies ``code.innerText`` with trailing whitespace removed. Inside a
    ``pre`` that is the text of every node (the line anchors are empty), with
    the HTML entities decoded; the annotation markers Material hides while
    copying are only added by its script, so the static HTML has none.
    """
    return html.unescape(_TAG.sub("", code_html)).rstrip()


def copied_blocks(page_html: str) -> list[Block]:
    """Every highlighted code block of a page, in order, with the output shown under it."""
    found: list[tuple[str, str | None, bool, int, int]] = []
    for match in _BLOCK.finditer(page_html):
        classes = match["classes"].split()
        if "highlight" not in classes:
            continue
        language = next(
            (c.removeprefix("language-") for c in classes if c.startswith("language-")), ""
        )
        code = _CODE.search(match["inner"])
        if code is None:
            continue
        data_copy = _DATA_COPY.search(match["attributes"])
        if "no-copy" in classes:
            copied = None
        elif data_copy is not None:
            copied = html.unescape(data_copy["text"]).rstrip()
        else:
            copied = copied_text(code["code"])
        found.append((language, copied, "no-copy" in classes, match.start(), match.end()))
    blocks: list[Block] = []
    skip = False
    for index, (language, copied, _, _, end) in enumerate(found):
        if skip:  # this one is the output of the block before
            skip = False
            continue
        output = ""
        if language == "python" and index + 1 < len(found):
            next_language, next_copied, _, next_start, _ = found[index + 1]
            between = page_html[end:next_start]
            if next_language == "text" and not between.strip():
                output = next_copied or ""
                skip = True
        blocks.append(Block(language, copied, output))
    return blocks


def runnable(blocks: list[Block]) -> list[Block]:
    """Keep the blocks a reader can copy and run: Python, not marked ``no-copy``."""
    return [block for block in blocks if block.language == "python" and block.copied is not None]


#: What every reader has: the site's install steps give pe, numpy and torch.
INSTALLED = ("pe", "numpy", "torch")

#: The requirement to install for each other library a page's code may import,
#: by import name: the version its code needs (transformers 5's rotary module).
#: A block importing a library missing here fails the build.
REQUIREMENTS = {"transformers": "transformers>=5"}


def extra_imports(blocks: list[Block]) -> tuple[str, ...]:
    """Return the libraries `blocks` import besides `INSTALLED` and the standard library.

    >>> extra_imports([Block("python", "import torch; from transformers import LlamaConfig", "")])
    ('transformers',)
    """
    imported: set[str] = set()
    for block in blocks:
        for node in ast.walk(ast.parse(block.copied or "")):
            if isinstance(node, ast.Import):
                imported |= {alias.name.partition(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.partition(".")[0])
    extras = sorted(imported - set(INSTALLED) - set(sys.stdlib_module_names) - {"__future__"})
    unknown = [name for name in extras if name not in REQUIREMENTS]
    if unknown:
        raise ValueError(
            f"a page's code imports {', '.join(unknown)}: add the requirement to install "
            "to sitegen.reader.REQUIREMENTS, so its notebook and script can say it"
        )
    return tuple(extras)


def install_line(blocks: list[Block]) -> str | None:
    """Return the ``pip install`` line for `blocks`' extra libraries, or None if they need none.

    >>> install_line([Block("python", "from transformers import LlamaConfig", "")])
    'pip install "transformers>=5"'
    >>> install_line([Block("python", "import math, numpy, torch, pe", "")]) is None
    True
    """
    extras = extra_imports(blocks)
    if not extras:
        return None
    return "pip install " + " ".join(f'"{REQUIREMENTS[name]}"' for name in extras)


def notebook(blocks: list[Block], title: str) -> str:
    """Return an nbformat 4 notebook of `blocks` in order, with the outputs the page shows.

    Its first cell says what to install besides pe, numpy and torch, if anything.
    """
    introduction = f"# {title}\n\nThe runnable code of this page of the pe site, in order."
    line = install_line(blocks)
    if line is not None:
        introduction += (
            f" It needs more than pe, numpy and torch; install it first:\n\n```\n{line}\n```"
        )
    cells: list[dict[str, object]] = [
        {"cell_type": "markdown", "metadata": {}, "source": _lines(introduction)}
    ]
    for count, block in enumerate(blocks, start=1):
        assert block.copied is not None
        outputs = []
        if block.output:
            outputs.append(
                {"name": "stdout", "output_type": "stream", "text": _lines(block.output + "\n")}
            )
        cells.append(
            {
                "cell_type": "code",
                "execution_count": count,
                "metadata": {},
                "outputs": outputs,
                "source": _lines(block.copied),
            }
        )
    document = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number}"
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def script(blocks: list[Block], title: str) -> str:
    """Return the page's runnable blocks as one Python script, in order."""
    parts = [f'"""{title}: the runnable code of this page of the pe site, in order."""']
    line = install_line(blocks)
    if line is not None:
        parts.append(f"# Needs more than pe, numpy and torch: {line}")
    for number, block in enumerate(blocks, start=1):
        assert block.copied is not None
        parts.append(f"# %% Block {number}\n{block.copied}")
    return "\n\n".join(parts) + "\n"


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def blocks_phrase(count: int) -> str:
    """Name a page's runnable blocks for the line that offers them as downloads.

    >>> blocks_phrase(1), blocks_phrase(4)
    ('The runnable block of this page', 'The 4 runnable blocks of this page, in order')
    """
    if count == 1:
        return "The runnable block of this page"
    return f"The {count} runnable blocks of this page, in order"
