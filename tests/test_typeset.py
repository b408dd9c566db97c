r"""Math typeset by KaTeX at build time (sitegen/typeset.py): the cases the old converter got wrong.

Each case is one that latex2mathml drew badly: function names run into their
arguments ("sinacosc", "2lnb"), primes as detached ticks, ``\underbrace`` as a
tiny arc with the parentheses stretched over its row, word subscripts in
italics. The checks read KaTeX's HTML (what is drawn: ``mop`` operators with
a thin space, ``msupsub`` scripts) and its MathML (what screen readers read).
How the pages look in a browser is checked in tests/test_browser.py.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from sitegen import typeset
from tools import vendor_katex

PRIME = "\u2032"
THIN = '<span class="mspace" style="margin-right:0.1667em;"></span>'


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Typeset afresh into a scratch cache, so each test runs KaTeX itself."""
    monkeypatch.setenv("PE_CACHE", str(tmp_path / "cache"))


def drawn(tex: str, *, display: bool = False) -> str:
    """The visible part: KaTeX's HTML, without the (hidden) MathML."""
    out = typeset.to_html(tex, display=display)
    return out[out.index('<span class="katex-html"') :]


def mathml(tex: str, *, display: bool = False) -> str:
    out = typeset.to_html(tex, display=display)
    return out[out.index("<math") : out.index("</math>") + len("</math>")]


def test_function_names_are_operators_set_apart_from_their_arguments() -> None:
    html = drawn(r"\sin a\cos c")
    # sin, thin space, a, thin space, cos, thin space, c: never "sinacosc".
    assert re.search(
        rf'<span class="mop">sin</span>{THIN}<span class="mord mathnormal">a</span>{THIN}'
        rf'<span class="mop">cos</span>{THIN}<span class="mord mathnormal">c</span>',
        html,
    )
    assert "<mi>sin</mi><mo>\u2061</mo><mi>a</mi>" in mathml(
        r"\sin a\cos c"
    )  # function application
    html = drawn(r"\cos k\omega_i")
    assert re.search(
        f'<span class="mop">cos</span>{THIN}<span class="mord mathnormal"[^>]*>k<', html
    )
    html = drawn(r"2\ln b")
    assert f'<span class="mord">2</span>{THIN}<span class="mop">ln</span>{THIN}' in html


def test_primes_are_attached_superscripts() -> None:
    html = drawn(r"\theta'_i = \theta_i / s")
    # The prime is the superscript of theta, in the same script box as the subscript i.
    script = re.search(r'θ</span><span class="msupsub">(.*?)<span class="mrel">', html, re.S)
    assert script is not None
    assert PRIME in script.group(1)
    assert ">i<" in script.group(1)
    assert re.search(
        r"<msubsup><mi>θ</mi><mi>i</mi><mo[^>]*>" + PRIME + "</mo></msubsup>", mathml(r"\theta'_i")
    )


def test_underbrace_is_a_brace_and_leaves_the_parentheses_alone() -> None:
    matrix = (
        r"\begin{pmatrix} \cos k\omega_i & \sin k\omega_i \\ "
        r"-\sin k\omega_i & \cos k\omega_i \end{pmatrix}"
    )
    braced = drawn(rf"\underbrace{{{matrix}}}_{{R_i(k)}}", display=True)
    alone = drawn(matrix, display=True)
    # A drawn brace: KaTeX's stretchy SVG pieces, as wide as the matrix.
    assert braced.count("<svg") >= 3
    assert "brace" in braced
    assert re.search(
        r"<munder><munder[^>]*>.*<mo[^>]*>⏟</mo></munder>",
        mathml(rf"\underbrace{{{matrix}}}_{{R}}"),
    )

    def delimiters(html: str) -> list[str]:
        return re.findall(
            r'<span class="(?:mopen|mclose)[^"]*"[^>]*><span class="delimsizing[^"]*">', html
        )

    # The parentheses are sized to the matrix, not stretched over the brace's row.
    assert delimiters(braced) == delimiters(alone) != []


def test_word_subscripts_are_upright_and_italic_words_fail() -> None:
    html = drawn(r"\beta_{\mathrm{fast}}")
    assert '<span class="mord mathrm mtight">fast</span>' in html
    assert '<mi mathvariant="normal">f</mi>' in mathml(r"\beta_{\mathrm{fast}}")
    with pytest.raises(typeset.MathError, match=r"write _\{\\mathrm\{fast\}\}"):
        typeset.to_html(r"\beta_{fast}", display=False)
    typeset.to_html(r"W_{ij}", display=False)  # two indices stay italic


def test_no_tex_left_and_search_reads_the_formula_once() -> None:
    out = typeset.to_html(r"\frac{\omega_i}{2}", display=True)
    assert "application/x-tex" not in out
    assert "\\" not in out
    assert '<span class="katex-html" aria-hidden="true" data-search-exclude>' in out
    assert out.count("<math") == 1


def test_a_bracket_and_punctuation_stay_on_the_formula_line() -> None:
    page = (
        'it (<span class="arithmatex">\\(a = b\\)</span>), '
        'and <span class="arithmatex">\\(c\\)</span> d'
    )
    out = typeset.render(page)
    assert out.startswith(
        'it <span class="pe-math-glue">(<span class="arithmatex"><span class="katex">'
    )
    assert out.count('class="pe-math-glue"') == 1
    assert out.endswith(
        '</span>),</span> and <span class="arithmatex">'
        + typeset.to_html("c", display=False)
        + "</span> d"
    )


def test_display_parts_split_at_qquad_and_failures_name_the_page() -> None:
    out = typeset.render('<div class="arithmatex">\\[a = b \\qquad \\text{for every } p\\]</div>')
    assert out.count('<span class="katex-display">') == 2
    bad = (
        '<span class="arithmatex">\\(\\notacommand{1}\\)</span>'
        '<span class="arithmatex">\\(x^\\)</span>'
    )
    with pytest.raises(
        typeset.MathError, match=r"fails\.md: 2 formula\(s\) failed(.|\n)*notacommand"
    ):
        typeset.render(bad, "fails.md")


def test_a_cached_formula_starts_no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    first = typeset.katex(r"e^{i\pi}", display=False)

    def no_engine() -> None:
        raise AssertionError("the engine ran for a cached formula")

    monkeypatch.setattr(typeset, "_engine", no_engine)
    assert typeset.katex(r"e^{i\pi}", display=False) == first


def test_the_vendored_katex_is_the_pinned_release() -> None:
    sums = (vendor_katex.VENDOR / "SHA256SUMS").read_text().splitlines()
    listed = {}
    for line in sums:
        digest, name = line.split("  ")
        listed[name] = digest
        path = vendor_katex.ROOT / name
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, name
    served = {
        p.relative_to(vendor_katex.ROOT).as_posix()
        for p in vendor_katex.SERVED.rglob("*")
        if p.is_file()
    }
    assert served <= set(listed), served - set(listed)  # nothing served that was not vendored
    assert all(name.endswith(".woff2") for name in served if "/fonts/" in name)
    source = typeset.KATEX.read_text()
    assert f'version:"{vendor_katex.VERSION}"' in source.replace(" ", "")
    css = (vendor_katex.SERVED / "katex.css").read_text()
    fonts = set(re.findall(r"url\(fonts/([\w-]+\.\w+)\)", css))
    assert fonts == {p.name for p in (vendor_katex.SERVED / "fonts").iterdir()}
