"""The downloadable notebooks and scripts say what to install besides pe, numpy and torch.

`sitegen.reader` writes each page's runnable blocks to a notebook and a
script (``tests/test_reader.py`` runs them from a built site). These tests
build both from blocks written here, without a site: a page whose code needs
transformers opens with its ``pip install`` line, one that needs nothing more
does not, and an import the reader cannot be told how to install fails the
build. The requirement is the one the RoPE-in-a-model page states.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitegen import reader

ROOT = Path(__file__).resolve().parents[1]
TRANSFORMERS = reader.Block(
    "python", "import torch\nfrom transformers import LlamaConfig\nprint(1)", "1"
)
PLAIN = reader.Block("python", "import math\nimport numpy as np\nimport pe.nn\nprint(2)", "2")


def first_cell(notebook: str) -> str:
    cells = json.loads(notebook)["cells"]
    assert cells[0]["cell_type"] == "markdown"
    return "".join(cells[0]["source"])


def test_a_notebook_that_needs_transformers_opens_with_its_install_line() -> None:
    notebook = reader.notebook([PLAIN, TRANSFORMERS], "pe's RoPE inside a transformers model")
    opening = first_cell(notebook)
    assert opening.startswith("# pe's RoPE inside a transformers model\n")
    assert '```\npip install "transformers>=5"\n```' in opening
    code = [cell for cell in json.loads(notebook)["cells"] if cell["cell_type"] == "code"]
    assert ["".join(cell["source"]) for cell in code] == [PLAIN.copied, TRANSFORMERS.copied]
    script = reader.script([PLAIN, TRANSFORMERS], "RoPE in a model")
    assert script.splitlines()[2] == (
        '# Needs more than pe, numpy and torch: pip install "transformers>=5"'
    )
    compile(script, "script", "exec")  # still a program


def test_a_notebook_of_pe_numpy_and_torch_says_nothing_to_install() -> None:
    assert "pip install" not in first_cell(reader.notebook([PLAIN], "Formula"))
    assert "pip install" not in reader.script([PLAIN], "Formula")
    assert reader.install_line([PLAIN]) is None


def test_an_import_with_no_known_requirement_fails_the_build() -> None:
    block = reader.Block("python", "import matplotlib.pyplot as plt", "")
    with pytest.raises(ValueError, match=r"imports matplotlib: add the requirement"):
        reader.notebook([block], "Figures")


def test_the_requirement_is_the_one_the_page_states() -> None:
    """The RoPE-in-a-model page and its notebook ask for the same transformers."""
    page = (ROOT / "docs" / "beyond" / "rope-in-a-model.md").read_text(encoding="utf-8")
    assert f'`pip install "{reader.REQUIREMENTS["transformers"]}"`' in page
    example = (ROOT / "examples" / "rope_in_a_model.py").read_text(encoding="utf-8")
    assert "from transformers import" in example or "import transformers" in example
