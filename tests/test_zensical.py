"""Zensical, Material's successor, builds the same site from mkdocs.yml, without hooks.

Zensical runs markdown-exec, mkdocstrings and the Markdown extensions, but no
MkDocs hooks: the figures, the typeset math and the Install page must come from the
pages' own blocks and `sitegen.site_markdown`. One strict Zensical build is
compared with the session's MkDocs build (the ``site`` fixture, whose cache it
shares, so no figure or slow table is computed twice). It is built in the
background while other tests run: the ``zensical_site`` fixture in conftest.py.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from conftest import SiteBuild

pytestmark = pytest.mark.site


def pages(directory: Path) -> dict[str, str]:
    """Every HTML page of a built site, by its path in the site, with its text."""
    return {
        path.relative_to(directory).as_posix(): path.read_text(encoding="utf-8")
        for path in directory.rglob("*.html")
    }


def main_content(page: str) -> str:
    """The article of a page (what the Markdown produced), without the theme around it."""
    match = re.search(r'<article class="md-content__inner[^"]*"[^>]*>(.*?)</article>', page, re.S)
    assert match is not None, "no article in the page"
    return match[1]


def tables(page: str) -> list[str]:
    """The text of each table of a page, tags and spacing removed."""
    found = re.findall(r"<table\b.*?</table>", main_content(page), re.S)
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", table)).split()) for table in found]


def test_zensical_builds_the_same_pages(site: SiteBuild, zensical_site: Path) -> None:
    assert set(pages(zensical_site)) == set(pages(site.directory))


def test_every_figure_is_there_and_every_image_loads(site: SiteBuild, zensical_site: Path) -> None:
    from sitegen import figures

    for script in figures.figure_scripts():
        name = figures.figure_name(script)
        for variant in figures.VARIANTS:
            assert list((zensical_site / "figures").glob(f"{name}-{variant}.*")), name
    shown = 0
    for name, page in pages(zensical_site).items():
        folder = (zensical_site / name).parent
        for source in re.findall(r'<img[^>]*\ssrc="([^"#]+)', main_content(page)):
            if source.startswith("data:"):
                continue
            assert (folder / source).resolve().is_file(), f"{name}: {source} is missing"
            shown += source.split("/")[-2:-1] == ["figures"]
    mkdocs_shown = sum(
        len(re.findall(r'<img[^>]*\ssrc="[^"]*figures/', main_content(page)))
        for page in pages(site.directory).values()
    )
    assert shown == mkdocs_shown > 2 * len(figures.figure_scripts()) - 1


def test_every_table_and_api_entry_is_there(site: SiteBuild, zensical_site: Path) -> None:
    built = pages(zensical_site)
    for name, page in pages(site.directory).items():
        if name == "404.html":
            continue
        assert tables(built[name]) == tables(page), f"{name}: the tables differ"
    entry = r'<h[2-6] id="(pe\.[\w.]+)"'
    mkdocs_pages = pages(site.directory)
    references = sorted(name for name in mkdocs_pages if name.startswith("reference/"))
    assert len(references) > 5
    mkdocs_entries = [e for name in references for e in re.findall(entry, mkdocs_pages[name])]
    assert len(mkdocs_entries) > 30
    assert [e for name in references for e in re.findall(entry, built[name])] == mkdocs_entries


def test_no_tex_no_error_no_placeholder(site: SiteBuild, zensical_site: Path) -> None:
    """No TeX, and no error the MkDocs build does not show too (the API documents some)."""
    mkdocs_pages = pages(site.directory)
    for name, page in pages(zensical_site).items():
        content = main_content(page)
        for formula in re.findall(r'<(?:span|div) class="arithmatex">(.{0,40})', content):
            assert formula.startswith(('<span class="katex">', '<span class="katex-display">')), (
                name
            )
        assert "application/x-tex" not in content
        expected = main_content(mkdocs_pages[name])
        for marker in ("Traceback (most recent call last)", "Error", "{{ "):
            assert content.count(marker) == expected.count(marker), f"{name}: {marker!r}"
    index = json.loads((zensical_site / "search.json").read_text(encoding="utf-8"))
    text = json.dumps(index)
    assert "arithmatex" not in text
    prose = re.sub(r"<pre>.*?</pre>|<code>.*?</code>", "", text, flags=re.S)
    assert "\\\\(" not in prose
    assert "\\\\frac" not in prose


def test_the_install_page_serves_the_wheel(zensical_site: Path) -> None:
    from sitegen import reader

    wheel = reader.wheel_name()
    assert (zensical_site / "dist" / wheel).is_file()
    assert f"/dist/{wheel}" in (zensical_site / "install/index.html").read_text(encoding="utf-8")


def test_widget_scripts_load_only_where_a_widget_is(zensical_site: Path) -> None:
    """overrides/main.html adds a widget's script to the pages with one under Zensical too."""
    from test_site import WIDGET_PAGES, widget_scripts

    assert widget_scripts(zensical_site) == WIDGET_PAGES
