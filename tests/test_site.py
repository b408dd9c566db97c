"""The site builds strictly, caches its figures, and keeps generated files out of docs/."""

import re
from pathlib import Path

import pytest
from conftest import ROOT

from sitegen import figures

pytestmark = pytest.mark.site


def test_strict_build_has_no_warnings(site):
    for log in (site.cold_log, site.warm_log):
        assert not re.search(r"^(WARNING|ERROR)", log, re.M), log


def test_cold_build_runs_every_figure_script_and_warm_build_none(site):
    scripts = figures.figure_scripts()
    cold = re.search(r"figures: ran (\d+) script", site.cold_log)
    warm = re.search(r"figures: ran (\d+) script\(s\), reused (\d+)", site.warm_log)
    assert cold
    assert int(cold.group(1)) == len(scripts)
    assert warm
    assert int(warm.group(1)) == 0
    assert int(warm.group(2)) == len(scripts)


def test_every_figure_is_in_the_site_in_both_variants(site):
    for script in figures.figure_scripts():
        name = figures.figure_name(script)
        for variant in figures.VARIANTS:
            assert list((site.directory / "figures").glob(f"{name}-{variant}.*")), name


def test_pages_show_snippet_table_and_figure(site):
    for page in ["index.html", "formula/index.html"]:
        html = (site.directory / page).read_text()
        assert '<div class="highlight">' in html
        assert "<table>" in html
        light = r'<img alt="[^"]{20,}" src="(\.\./)?figures/\w+-light\.svg#only-light"'
        assert re.search(light, html)
        assert re.search(r'src="(\.\./)?figures/\w+-dark\.svg#only-dark"', html)
        assert 'class="arithmatex"' in html


def test_site_ships_mathjax_and_requests_nothing_remote(site):
    assert (site.directory / "assets/mathjax/tex-chtml.js").is_file()
    assert list((site.directory / "assets/mathjax/output/chtml/fonts/woff-v2").glob("*.woff"))
    for html in site.directory.rglob("*.html"):
        text = html.read_text()
        loads = re.findall(r"<(?:script|img|link)\b[^>]*>", text)
        remote = [
            tag
            for tag in loads
            if re.search(r'(?:src|href)="(?:https?:)?//', tag) and 'rel="canonical"' not in tag
        ]
        assert not remote, f"{html.name} loads {remote}"
        assert "fonts.googleapis" not in text


def write_script(directory: Path, name: str, body: str) -> None:
    (directory / f"fig_{name}.py").write_text(body)


GOOD = """
import sys, pathlib
out = pathlib.Path(sys.argv[1])
for v in ("light", "dark"):
    (out / f"NAME-{v}.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
(out / "NAME-alt.txt").write_text("a test figure")
"""


def test_figure_cache_reruns_only_the_edited_script(tmp_path, monkeypatch):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "_figstyle.py").write_text("")
    for name in ("one", "two"):
        write_script(scripts, name, GOOD.replace("NAME", name))
    monkeypatch.setattr(figures, "SCRIPTS", scripts)
    monkeypatch.setattr(figures, "STYLE", scripts / "_figstyle.py")
    monkeypatch.setenv("PE_FIGURE_CACHE", str(tmp_path / "cache"))
    assert sorted(figures.build().ran) == ["fig_one.py", "fig_two.py"]
    assert figures.build().ran == []
    write_script(scripts, "two", GOOD.replace("NAME", "two") + "\n# edited\n")
    report = figures.build()
    assert report.ran == ["fig_two.py"]
    assert report.cached == ["fig_one.py"]
    expected = {f"{n}-{v}.svg" for n in ("one", "two") for v in ("light", "dark")}
    assert set(report.outputs) == expected


def test_a_failing_figure_script_is_named(tmp_path, monkeypatch):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "_figstyle.py").write_text("")
    write_script(scripts, "broken", "raise RuntimeError('no data for this figure')\n")
    write_script(
        scripts,
        "half",
        "import sys, pathlib\n"
        "(pathlib.Path(sys.argv[1]) / 'half-light.svg').write_text('<svg/>')\n",
    )
    monkeypatch.setattr(figures, "SCRIPTS", scripts)
    monkeypatch.setattr(figures, "STYLE", scripts / "_figstyle.py")
    monkeypatch.setenv("PE_FIGURE_CACHE", str(tmp_path / "cache"))
    with pytest.raises(figures.FigureError) as caught:
        figures.build()
    message = str(caught.value)
    assert "fig_broken.py failed" in message
    assert "no data for this figure" in message
    assert "fig_half.py must write half-light and half-dark" in message


def test_cache_lives_outside_docs():
    assert not figures.cache_root().resolve().is_relative_to((ROOT / "docs").resolve())
