"""Figures drawn by the page's own block, and the Markdown extension that both builds run."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from xml.etree.ElementTree import Element

import markdown
import pytest
from conftest import ROOT
from markdown.treeprocessors import Treeprocessor

from sitegen import figures, reader, site_markdown

SCRIPT = """
import sys, pathlib
out = pathlib.Path(sys.argv[1])
for v in ("light", "dark"):
    (out / f"demo-{v}.svg").write_text(
        f"<svg xmlns='http://www.w3.org/2000/svg' width='90pt' height='60pt'><!--{v}--></svg>"
    )
(out / "demo-alt.txt").write_text("a demo [figure]")
"""


@pytest.fixture
def demo_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One figure script, ``fig_demo.py``, in a fresh scripts folder with an empty cache."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "_figstyle.py").write_text("# style\n")
    (scripts / "fig_demo.py").write_text(SCRIPT)
    monkeypatch.setattr(figures, "SCRIPTS", scripts)
    monkeypatch.setattr(figures, "STYLE", scripts / "_figstyle.py")
    monkeypatch.setenv("PE_CACHE", str(tmp_path / "cache"))
    return scripts


def test_a_page_block_draws_its_figure_with_no_build_before(demo_figure: Path) -> None:
    """What the issue saw under Zensical: `figure` failed unless a hook had drawn it."""
    text = figures.figure("demo", caption="Look at the demo.")
    size = "{ loading=lazy width=120 height=80 }"  # 90 x 60 pt in CSS pixels
    assert f"![a demo (figure)](/figures/demo-light.svg#only-light){size}" in text
    assert f"![a demo (figure)](/figures/demo-dark.svg#only-dark){size}" in text
    assert "<figcaption>Look at the demo. <small" in text
    cached = figures.image_file("demo-dark.svg")
    assert cached is not None
    assert "<!--dark-->" in cached.read_text()
    assert figures.image_file("demo-sepia.svg") is None
    assert figures.image_file("absent-light.svg") is None
    with pytest.raises(figures.FigureError, match=r"no figure script scripts/fig_absent\.py"):
        figures.figure("absent", caption="")
    # On a phone's first screen the light drawing is fetched at once; the dark one waits.
    first = figures.figure("demo", caption="Look at the demo.", first_screen=True)
    eager = "{ loading=eager fetchpriority=high width=120 height=80 }"
    assert f"(/figures/demo-light.svg#only-light){eager}" in first
    assert f"(/figures/demo-dark.svg#only-dark){size}" in first


@pytest.mark.parametrize(
    ("url", "prefix"),
    [("./", ""), ("", ""), ("formula/", "../"), ("beyond/rope/", "../../"), ("404.html", "")],
)
def test_relative_prefix(url: str, prefix: str) -> None:
    assert site_markdown.relative_prefix(url) == prefix


EXTENSIONS = ["attr_list", "md_in_html", "pymdownx.arithmatex", "pymdownx.superfences"]
EXTENSIONS += ["sitegen.site_markdown"]


def convert(text: str, page: object | None = None) -> str:
    """Convert `text` with the extension; `page` stands in for MkDocs' relpath processor."""
    md = markdown.Markdown(
        extensions=EXTENSIONS,
        extension_configs={"pymdownx.arithmatex": {"generic": True}},
    )
    if page is not None:

        class RelPath(Treeprocessor):
            def run(self, root: Element) -> None:  # the real one makes links relative
                return None

        processor = RelPath(md)
        processor.__dict__.update(vars(page))
        md.treeprocessors.register(processor, "relpath", 0)
    return md.convert(text)


def test_math_is_typeset_outside_a_build() -> None:
    html = convert("The angle $p\\,\\omega_i$ grows.")
    assert '<span class="katex">' in html
    assert "<math" in html
    assert "\\omega" not in html
    assert "\\(" not in html


def test_inside_mkdocs_a_page_with_math_preloads_the_fonts_it_draws(tmp_path: Path) -> None:
    page = SimpleNamespace(
        file=SimpleNamespace(src_uri="beyond/demo.md", url="beyond/demo/"),
        config=SimpleNamespace(site_dir=str(tmp_path), site_url="", repo_url=""),
    )
    html = convert("Take $x$ and $2$.", page)
    fonts = re.findall(r'<link rel="preload" href="([^"]+)" as="font"', html)
    assert fonts == [
        "../../assets/katex/fonts/KaTeX_Main-Regular.woff2",
        "../../assets/katex/fonts/KaTeX_Math-Italic.woff2",
    ]
    assert all((ROOT / "docs" / font.removeprefix("../../")).is_file() for font in fonts)
    assert "preload" not in convert("No math here.", page)
    assert "preload" not in convert("# A heading with $x$", page)


def test_inside_mkdocs_figures_are_placed_and_made_relative(
    demo_figure: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    page = SimpleNamespace(
        file=SimpleNamespace(src_uri="beyond/demo.md", url="beyond/demo/"),
        config=SimpleNamespace(site_dir=str(site), site_url="https://example.org/pe/", repo_url=""),
    )
    block = figures.figure("demo", caption="Look.")
    html = convert(block, page)
    assert 'src="../../figures/demo-light.svg#only-light"' in html
    assert (site / "figures" / "demo-light.svg").read_text().endswith("<!--light--></svg>")
    assert (site / "figures" / "demo-dark.svg").is_file()


def test_inside_mkdocs_the_install_page_names_the_served_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = tmp_path / "built" / "demo_pkg-1.0-py3-none-any.whl"
    wheel.parent.mkdir()
    wheel.write_bytes(b"PK")
    monkeypatch.setattr(reader, "build_wheel", lambda: wheel)
    site = tmp_path / "site"
    page = SimpleNamespace(
        file=SimpleNamespace(src_uri="install.md", url="install/"),
        config=SimpleNamespace(site_dir=str(site), site_url="https://example.org/pe/", repo_url=""),
    )
    html = convert("{{ wheel_install }}\n\nas **{{ dist_name }}**", page)
    text = re.sub(r"<[^>]+>", "", html)  # the highlighted command, as a reader copies it
    assert "pip install https://example.org/pe/dist/demo_pkg-1.0-py3-none-any.whl" in text
    assert "{{" not in html
    assert (site / "dist" / wheel.name).read_bytes() == b"PK"
    # Without a site_url (a local build, the offline zip) no host is named: the page
    # links the wheel relative to itself and installs the downloaded file.
    page.config.site_url = None
    html = convert("{{ wheel_install }}", page)
    assert 'href="../dist/demo_pkg-1.0-py3-none-any.whl"' in html
    assert "pip install demo_pkg-1.0-py3-none-any.whl" in re.sub(r"<[^>]+>", "", html)
    assert "http" not in html


def _html_table(head: list[str], rows: list[list[str]]) -> str:
    """A table as Python-Markdown writes one (a head row, then the body)."""
    cells = "".join(f"<th>{name}</th>" for name in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def test_numbers_stay_a_table_and_prose_becomes_cards() -> None:
    """Decided from the cells: a table of numbers stays a table even with long row names.

    The old rule (any cell of four words) made the models' table of RoPE at long
    context 5,766 px of cards on a phone, because of names like "Llama 2 7B chat".
    """
    models = _html_table(
        ["model", "d", "base", "trained context"],
        [["Llama 2 7B chat hf", "128", "10,000", "4,096"], ["Qwen2 7B", "128", "1e6", "32,768"]],
    )
    assert site_markdown.stack_prose_tables(models).startswith("<table data-pe-compare>")
    prose = _html_table(
        ["convention", "source (file, function)"],
        [
            ["paper", "read from the PyTorch tutorial, beginner source"],
            ["t2t", "read from tensor2tensor's common attention layer"],
        ],
    )
    stacked = site_markdown.stack_prose_tables(prose)
    assert stacked.startswith('<table data-pe-stack role="table">')
    assert stacked.count('data-label="source (file, function)"') == 2
    # A column of sentences beside mostly numbers: still a table to compare.
    mixed = _html_table(
        ["p", "sin p", "cos p", "back at its start?"],
        [["3", "0.1411", "-0.9900", "no: the pair is opposite its start"]] * 3,
    )
    assert site_markdown.stack_prose_tables(mixed).startswith("<table data-pe-compare>")


def test_an_empty_first_header_makes_row_headers() -> None:
    """The first column names the rows: row headers, and the corner is an empty td."""
    made = site_markdown.stack_prose_tables(
        _html_table(["", "Llama 3.1 8B", "Qwen2.5 7B"], [["factor s", "8.00", "4.00"]])
    )
    assert "<th></th>" not in made
    assert "<thead><tr><td></td><th>Llama 3.1 8B</th>" in made
    assert '<tr><th scope="row">factor s</th><td>8.00</td>' in made


def test_long_paths_in_inline_code_break_after_slashes_not_inside_names() -> None:
    html = "<p><code>src/diffusers/models/unets/unet_2d_condition.py</code></p>"
    broken = site_markdown.break_inline_code(html)
    assert broken.replace("<wbr>", "") == html
    assert "unet_2d_condition.<wbr>py" in broken
    assert "unets/<wbr>unet_2d_condition" in broken
