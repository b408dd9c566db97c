"""The site builds strictly, caches its figures, and keeps generated files out of docs/."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, Reruns, SiteBuild, mkdocs_build

from sitegen import cache, figures

pytestmark = pytest.mark.site


def test_strict_build_has_no_warnings(site: SiteBuild) -> None:
    for log in (site.cold_log, site.warm_log):
        assert not re.search(r"^(WARNING|ERROR)", log, re.M), log


def test_the_cold_build_had_no_network(site: SiteBuild) -> None:
    """The cold build ran this way; the same way, a request to a real host must fail."""
    from tools.offline import offline

    probe = (
        "import urllib.request\n"
        "try:\n"
        "    urllib.request.urlopen('https://pypi.org/simple/', timeout=5)\n"
        "except OSError as error:\n"
        "    print('blocked:', error)\n"
        "else:\n"
        "    print('REACHED')\n"
    )
    command, env = offline([sys.executable, "-c", probe], dict(__import__("os").environ))
    result = subprocess.run(
        command,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.startswith("blocked:"), (site.offline, result.stdout)


def test_cold_build_runs_every_figure_script_and_warm_build_none(site: SiteBuild) -> None:
    scripts = figures.figure_scripts()
    cold = re.search(r"figures: ran (\d+) script", site.cold_log)
    warm = re.search(r"figures: ran (\d+) script\(s\), reused (\d+)", site.warm_log)
    assert cold
    assert int(cold.group(1)) == len(scripts)
    assert warm
    assert int(warm.group(1)) == 0
    assert int(warm.group(2)) == len(scripts)


def test_every_figure_is_in_the_site_in_both_variants(site: SiteBuild) -> None:
    for script in figures.figure_scripts():
        name = figures.figure_name(script)
        for variant in figures.VARIANTS:
            assert list((site.directory / "figures").glob(f"{name}-{variant}.*")), name
            # and the drawing that narrow screens get (see scripts/_figstyle.py)
            assert (site.directory / "figures" / f"{name}-{variant}{figures.PHONE}.svg").is_file()


def test_pages_show_snippet_table_and_figure(site: SiteBuild) -> None:
    for page in ["index.html", "formula/index.html"]:
        html = (site.directory / page).read_text()
        assert '<div class="language-python highlight">' in html  # pygments_lang_class
        assert re.search(r"<table[\s>]", html)  # a table to compare carries data-pe-compare
        light = (
            r'<img alt="[^"]{20,}" height="\d+" loading="lazy" '
            r'src="(\.\./)?figures/[\w-]+-light\.svg#only-light" width="\d+"'
        )
        assert re.search(light, html)
        assert re.search(r'src="(\.\./)?figures/\w+-dark\.svg#only-dark"', html)
        assert 'class="arithmatex"' in html
        # The caption says what to look at; the drawing script is in small print.
        assert re.search(
            r"<figcaption>[^<]{30,} <small class=\"pe-figure-source\">"
            r"Drawn by <code>scripts/fig_\w+\.py</code>",
            html,
        )


def test_math_is_typeset_and_the_site_requests_nothing_remote(site: SiteBuild) -> None:
    assert not (site.directory / "assets/mathjax").exists()
    fonts = site.directory / "assets/katex/fonts"
    assert {p.suffix for p in fonts.iterdir()} == {".woff2"}
    for html in site.directory.rglob("*.html"):
        text = html.read_text()
        for formula in re.findall(r'<(?:span|div) class="arithmatex">(.{0,200})', text):
            assert formula.startswith(('<span class="katex">', '<span class="katex-display">')), (
                html,
                formula[:80],
            )
        assert "application/x-tex" not in text
        loads = re.findall(r"<(?:script|img|link)\b[^>]*>", text)
        remote = [
            tag
            for tag in loads
            if re.search(r'(?:src|href)="(?:https?:)?//', tag) and 'rel="canonical"' not in tag
        ]
        assert not remote, f"{html.name} loads {remote}"
        assert "fonts.googleapis" not in text


def test_search_index_holds_no_tex(site: SiteBuild) -> None:
    """Search snippets show the formulas' text, never their TeX source."""
    index = json.loads((site.directory / "search/search_index.json").read_text())
    prose = [doc for doc in index["docs"] if doc["text"]]
    assert len(prose) > 50
    for doc in prose:
        # Code listings may show TeX in docstrings; math in prose may not.
        text = re.sub(r"<pre>.*?</pre>|<code>.*?</code>", "", doc["text"], flags=re.S)
        for tex in ("\\(", "\\[", "\\frac", "\\omega", "\\sin", "arithmatex"):
            assert tex not in text, (doc["location"], tex)
    formula = next(doc for doc in index["docs"] if doc["location"] == "formula/#definition")
    assert "\u03c9" in formula["text"]  # omega, as a character


def write_script(directory: Path, name: str, body: str) -> None:
    (directory / f"fig_{name}.py").write_text(body)


GOOD = """
import sys, pathlib
out = pathlib.Path(sys.argv[1])
for v in ("light", "dark"):
    (out / f"NAME-{v}.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
(out / "NAME-alt.txt").write_text("a test figure")
"""


def test_figure_cache_reruns_only_the_edited_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "_figstyle.py").write_text("")
    for name in ("one", "two"):
        write_script(scripts, name, GOOD.replace("NAME", name))
    monkeypatch.setattr(figures, "SCRIPTS", scripts)
    monkeypatch.setattr(figures, "STYLE", scripts / "_figstyle.py")
    monkeypatch.setenv("PE_CACHE", str(tmp_path / "cache"))
    assert sorted(figures.build().ran) == ["fig_one.py", "fig_two.py"]
    assert figures.build().ran == []
    write_script(scripts, "two", GOOD.replace("NAME", "two") + "\n# edited\n")
    report = figures.build()
    assert report.ran == ["fig_two.py"]
    assert report.cached == ["fig_one.py"]
    expected = {f"{n}-{v}.svg" for n in ("one", "two") for v in ("light", "dark")}
    assert set(report.outputs) == expected


def test_figures_draw_in_the_background_and_a_page_waits_for_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`start` returns while the scripts run; `draw` waits for one figure, `finish` for all."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "_figstyle.py").write_text("")
    gate = tmp_path / "gate"
    slow = "import pathlib, time\nwhile not pathlib.Path(GATE).exists(): time.sleep(0.05)\n"
    write_script(
        scripts, "slow", slow.replace("GATE", repr(str(gate))) + GOOD.replace("NAME", "slow")
    )
    write_script(scripts, "fast", GOOD.replace("NAME", "fast"))
    monkeypatch.setattr(figures, "SCRIPTS", scripts)
    monkeypatch.setattr(figures, "STYLE", scripts / "_figstyle.py")
    monkeypatch.setenv("PE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(figures, "_report", None)
    monkeypatch.setattr(figures, "_started", {})
    report = figures.start(jobs=2)
    assert sorted(report.ran) == ["fig_fast.py", "fig_slow.py"]
    assert set(report.outputs) == {
        f"{n}-{v}.svg" for n in ("fast", "slow") for v in ("light", "dark")
    }
    assert sorted(figures.draw("fast")) == ["dark", "light"]  # while the slow one still waits
    assert not figures._started["slow"].done()
    gate.touch()
    assert figures.finish().ran == report.ran
    assert figures._started["slow"].done()


def test_a_figure_must_write_the_files_announced_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script drawing through the shared style announces phone drawings; none written fails."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "_figstyle.py").write_text("")
    write_script(scripts, "bare", "# would call save_variants\n" + GOOD.replace("NAME", "bare"))
    monkeypatch.setattr(figures, "SCRIPTS", scripts)
    monkeypatch.setattr(figures, "STYLE", scripts / "_figstyle.py")
    monkeypatch.setenv("PE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(figures, "_report", None)
    monkeypatch.setattr(figures, "_started", {})
    with pytest.raises(figures.FigureError, match=r"fig_bare.py wrote .*bare-light-phone.svg"):
        figures.build()


def test_figure_key_follows_the_benchmark_modules_a_script_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # fig_precision.py draws benchmarks.recipes' common recipe: editing the recipe
    # must re-draw the figure, and only the figures that import it.
    (tmp_path / "benchmarks").mkdir()
    recipes = tmp_path / "benchmarks" / "recipes.py"
    recipes.write_text("VALUE = 1\n")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    write_script(scripts, "uses", "from benchmarks.recipes import VALUE\n")
    write_script(scripts, "plain", "import numpy\n")
    monkeypatch.setattr(figures, "ROOT", tmp_path)
    keys = {name: figures.script_key(scripts / f"fig_{name}.py", "") for name in ("uses", "plain")}
    recipes.write_text("VALUE = 2\n")
    assert figures.script_key(scripts / "fig_uses.py", "") != keys["uses"]
    assert figures.script_key(scripts / "fig_plain.py", "") == keys["plain"]


def test_table_cache_recomputes_when_an_input_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    source = inputs / "module.py"
    source.write_text("VALUE = 1\n")
    monkeypatch.setattr(cache, "TABLE_INPUTS", (str(inputs),))
    monkeypatch.setenv("PE_CACHE", str(tmp_path / "cache"))
    calls = []

    @cache.cached_markdown
    def square(n: int) -> str:
        calls.append(n)
        return f"{n * n} ({len(calls)} call)"

    cache._inputs_key.cache_clear()
    assert square(3) == "9 (1 call)"
    assert square(3) == "9 (1 call)"  # read back, not computed
    assert square(4) == "16 (2 call)"  # other arguments, another entry
    source.write_text("VALUE = 2\n")
    cache._inputs_key.cache_clear()  # what the hooks' module purge does on a rebuild
    assert square(3) == "9 (3 call)"
    assert calls == [3, 4, 3]
    cache._inputs_key.cache_clear()


def test_a_failing_figure_script_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
    monkeypatch.setenv("PE_CACHE", str(tmp_path / "cache"))
    with pytest.raises(figures.FigureError) as caught:
        figures.build()
    message = str(caught.value)
    assert "fig_broken.py failed" in message
    assert "no data for this figure" in message
    assert "fig_half.py must write half-light and half-dark" in message


def test_cache_lives_outside_docs() -> None:
    assert not figures.cache_root().resolve().is_relative_to((ROOT / "docs").resolve())


def test_the_link_checker_catches_broken_links(tmp_path: Path, site: SiteBuild) -> None:
    """The cold build runs htmlproofer; here, the same configuration must fail on bad links."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(
        '# Broken\n\n<a href="other/#missing">an anchor that does not exist</a>\n'
    )
    (docs / "other.md").write_text("# Other\n\n## Present\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        f"INHERIT: {ROOT / 'mkdocs.yml'}\ndocs_dir: {docs}\nhooks: [{ROOT / 'sitegen/hooks.py'}]\n"
        "nav:\n  - index.md\n  - other.md\nextra_javascript: []\nextra_css: []\nwatch: []\n"
        # The theme's overrides are found from the configuration file's folder.
        f"theme:\n  custom_dir: {ROOT / 'overrides'}\n"
    )
    # The session's figure cache: the figures are already drawn, none is redrawn here.
    log = mkdocs_build(
        tmp_path / "site", site.cache, check_links=True, config=config, should_fail=True
    )
    assert "invalid url - other/#missing" in log


def relative_files(directory: Path) -> dict[str, Path]:
    return {p.relative_to(directory).as_posix(): p for p in directory.rglob("*") if p.is_file()}


def test_two_builds_are_identical(site: SiteBuild) -> None:
    first, second = relative_files(site.directory), relative_files(site.second_directory)
    assert set(first) == set(second)
    differing = [
        name
        for name in sorted(first)
        if not name.startswith("sitemap.xml")
        and first[name].read_bytes() != second[name].read_bytes()
    ]
    assert differing == [], f"files differ between two builds: {differing[:10]}"


def test_figure_scripts_are_reproducible(site: SiteBuild, figure_reruns: Reruns) -> None:
    """Every figure script, run again in a new process, draws the same bytes as in the build."""
    built = relative_files(site.directory / "figures")
    drawn = {
        name: path for name, path in figure_reruns.files.items() if not name.endswith("-alt.txt")
    }
    assert len(drawn) == 4 * len(figures.figure_scripts())  # light, dark, each for phones too
    changed = [
        name for name, path in drawn.items() if path.read_bytes() != built[name].read_bytes()
    ]
    assert changed == [], f"figures drawn differently by a second run: {changed}"


def test_figures_are_small(site: SiteBuild) -> None:
    """SVG for every figure (text that hosts compress); none heavier than 80 kB compressed."""
    import gzip

    images = [p for p in (site.directory / "figures").iterdir() if p.suffix in (".svg", ".png")]
    assert len(images) == 4 * len(figures.figure_scripts())  # light, dark, each for phones too
    for image in images:
        data = image.read_bytes()
        sent = len(gzip.compress(data, 9)) if image.suffix == ".svg" else len(data)
        assert len(data) < 200_000, f"{image.name}: {len(data):,} bytes"
        assert sent < 80_000, f"{image.name}: {sent:,} bytes compressed"


def test_no_page_repeats_an_id(site: SiteBuild) -> None:
    """Every id once per page: a link to a line of code (or a heading) finds one target."""
    repeated = {}
    for page in site.directory.rglob("*.html"):
        ids = re.findall(r'\sid="([^"]+)"', page.read_text(encoding="utf-8"))
        twice = sorted({name for name in ids if ids.count(name) > 1})
        if twice:
            repeated[page.relative_to(site.directory).as_posix()] = twice[:5]
    assert repeated == {}, repeated
    # The line anchors of executed blocks were the ones repeated: they are still there.
    assert "__codelineno-1-1" in (site.directory / "formula" / "index.html").read_text("utf-8")


def test_each_math_font_is_preloaded_once_at_the_top_of_a_page(site: SiteBuild) -> None:
    """The API pages once repeated the preloads, a set per docstring mkdocstrings converted."""
    found = {}
    for page in site.directory.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        links = re.findall(r'<link rel="preload" href="[^"]*katex/fonts/([^"]+)"', html)
        if links:
            body = html.index('<article class="md-content__inner md-typeset">')
            first = html.index('<link rel="preload" href', body)
            found[page.relative_to(site.directory).as_posix()] = (
                len(links) == len(set(links)),
                html.find("<", body + 1) == first,  # nothing drawn before them
            )
    assert len(found) > 20
    assert {name: facts for name, facts in found.items() if facts != (True, True)} == {}
    assert "reference/rope/index.html" in found


def test_no_page_shows_an_escaped_newline(site: SiteBuild) -> None:
    """A generated block that printed "\\n" (a backslash and an n) showed it in the prose."""
    found = {}
    for page in site.directory.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        prose = re.sub(r"(?s)<(pre|code|script|style|math|svg)\b.*?</\1>", "", html)
        prose = re.sub(r"<[^>]+>", "", prose)
        if "\\n" in prose:
            at = prose.index("\\n")
            found[page.relative_to(site.directory).as_posix()] = prose[at - 60 : at + 20]
    assert found == {}


def test_every_image_has_its_size(site: SiteBuild) -> None:
    """Each <img> says its width and height (no layout shift while it loads), as its file does;
    so does each <source> that gives a phone its own drawing of a figure."""
    sources = 0
    for page in site.directory.rglob("*.html"):
        for tag in re.findall(r"<(?:img|source)\b[^>]*>", page.read_text(encoding="utf-8")):
            width, height = re.search(r'\swidth="(\d+)"', tag), re.search(r'\sheight="(\d+)"', tag)
            where = (page.relative_to(site.directory).as_posix(), tag[:120])
            assert width, where
            assert height, where
            sources += tag.startswith("<source")
            name = re.search(r'(?:src|srcset)="[^"]*figures/([^"#]+)', tag)
            if name:
                svg = (site.directory / "figures" / name[1]).read_text(encoding="utf-8")
                box = re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg)
                assert box is not None, name[1]
                # matplotlib's viewBox is in points; the attributes are CSS pixels (4/3 pt).
                expected = (round(float(box[1]) * 4 / 3), round(float(box[2]) * 4 / 3))
                assert (int(width[1]), int(height[1])) == expected, tag[:120]
    assert sources >= 2 * len(figures.figure_scripts())


def widget_scripts(directory: Path) -> dict[str, list[str]]:
    """Each page of a built site that loads a widget's script, with those scripts."""
    loaded = {}
    for page in sorted(directory.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        names = re.findall(r'<script src="[^"]*assets/javascripts/([\w-]+\.js)"', text)
        widgets = [name for name in names if name in ("playground.js", "rope-bands.js")]
        if widgets:
            # Inside the container, where instant navigation runs a swapped-in page's scripts.
            container = text[text.index('data-md-component="container"') :]
            assert all(f"javascripts/{name}" in container for name in widgets), page
            loaded[page.relative_to(directory).as_posix()] = widgets
    return loaded


#: The pages that show a widget (their Markdown holds its element), with its script.
WIDGET_PAGES = {
    "beyond/rope-scaling/index.html": ["rope-bands.js"],
    "formula/index.html": ["playground.js"],
    "playground/index.html": ["playground.js"],
    "rotation/index.html": ["playground.js"],
}


def test_widget_scripts_load_only_where_a_widget_is(site: SiteBuild) -> None:
    """playground.js and rope-bands.js on the four pages with a widget, on no other page;
    the theme's bundle and scroll-regions.js on every page, held until the first paint
    (inert tags that overrides/main.html's loader makes real; nothing holds up the paint)."""
    assert widget_scripts(site.directory) == WIDGET_PAGES
    for name, scripts in WIDGET_PAGES.items():
        markdown = (ROOT / "docs" / name.replace("/index.html", ".md")).read_text("utf-8")
        marker = "data-pe-rope-panel" if scripts == ["rope-bands.js"] else "data-pe-widget="
        assert marker in markdown, name
    for page in site.directory.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if page.name == "index.html":
            held = re.findall(r'<script type="text/x-pe-after-paint" data-src="([^"]+)"', text)
            assert [src.rsplit("/", 1)[-1].split(".")[0] for src in held] == [
                "bundle",
                "scroll-regions",
            ], page
            assert 'script[type="text/x-pe-after-paint"]' in text, page
        for src, rest in re.findall(r'<script src="([^"]+)"([^>]*)>', text):
            assert rest == " defer", (page, src)
