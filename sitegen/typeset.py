r"""TeX typeset by KaTeX while the site is built: math is drawn at first paint, with no script.

``pymdownx.arithmatex`` (``generic: true``) leaves every formula as TeX in
``<span class="arithmatex">\(...\)</span>`` or ``<div class="arithmatex">\[...\]</div>``.
`render` replaces each with KaTeX's output, made while the page is built:

- KaTeX's HTML (``.katex-html``), which its stylesheet and web fonts
  (``docs/assets/katex/``, served by the site, woff2 only, ``font-display:
  block`` so no fallback glyph is ever shown) draw as TeX would: function
  names set apart from their arguments, primes attached, braces under
  ``\underbrace``, upright ``\mathrm`` subscripts. It is ``aria-hidden`` and
  marked ``data-search-exclude`` so search indexes the formula once;
- KaTeX's MathML (``.katex-mathml``, hidden from sight), which screen readers
  read. KaTeX keeps the TeX source in an ``<annotation>``; it is dropped, so no
  TeX is in the page at all, not even invisibly, nor in the search index.

Why KaTeX, run here: it sets math as well as the libraries readers know, its
HTML output looks the same in every browser (MathML alone is drawn by each
browser's own engine and fonts), and it runs in any JavaScript engine. It runs
in QuickJS (``quickjs-ng`` on PyPI: abi3 wheels for CPython 3.10+ on Linux,
Windows and macOS arm64, 2.5 MB), so a fresh machine with only Python builds
the site; no node at build time. KaTeX itself is not on PyPI: its script, CSS,
fonts and licence are vendored at one pinned version by
``tools/vendor_katex.py`` (``make katex``), which checks the npm tarball's
integrity; the tests check the vendored files against their hashes.

The fonts a page's math draws most (KaTeX_Main, KaTeX_Math) are preloaded from
the top of the page (`preloads`, called by ``sitegen.site_markdown``), so the
browser fetches them with the stylesheet and the math is drawn at first paint.

Each formula's KaTeX output is cached in ``.cache/math/`` under the hash of
KaTeX's script, the options and the TeX, so a warm build starts no JavaScript.

A display formula made of parts set apart by a top-level ``\qquad`` becomes
one KaTeX display per part in a wrapping row: side by side on a wide screen,
one under the other on a phone. A part still wider than the screen scrolls
inside its own box, with a hint (``extra.css`` and ``scroll-regions.js``).
Inline math breaks after relations and binary operators, as TeX breaks it,
but never from the bracket before it or the punctuation after it (both are
wrapped with it in a ``pe-math-glue`` span that does not wrap).

Any formula KaTeX rejects (an unknown command, a non-LaTeX construct: it runs
with ``strict: "error"``) fails the build, naming the page and the formula.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import tempfile
import threading
from functools import cache
from pathlib import Path
from typing import Any

from sitegen.cache import ROOT, cache_root

KATEX = ROOT / "vendor" / "katex" / "katex.min.js"
ARITHMATEX = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
# An inline formula with the bracket just before it and the punctuation just
# after it: kept on one line with them, so a line never ends in "(".
_GLUED = re.compile(r'([(\[]?)(<span class="arithmatex">\\\(.*?\\\)</span>)([)\].,;:!?]*)', re.S)
_DELIMITERS = {"span": ("\\(", "\\)"), "div": ("\\[", "\\]")}
# Everything KaTeX is told; part of each cached formula's key.
OPTIONS = {"output": "htmlAndMathml", "throwOnError": True, "strict": "error", "trust": False}
# A subscript or superscript spelled as a word of plain letters: TeX sets it as
# a product of italic variables (beta_{fast}); a name is written \mathrm{fast}.
# Two letters are often two indices (x_{ij}), so only three or more are refused.
_ITALIC_WORD = re.compile(r"[_^]\{([A-Za-z]{3,})\}")
_ANNOTATION = re.compile(r'<annotation encoding="application/x-tex">.*?</annotation>', re.S)
# One QuickJS context per thread that typesets (a context is not shared across
# threads). Calling the context directly costs about 3 ms a formula;
# quickjs.Function's worker thread cost 60-90 ms once torch was imported.
_ENGINES = threading.local()
# The JavaScript the engine runs: KaTeX, then one function that returns JSON
# (a result or an error message), so no exception crosses into Python.
_TYPESET = """
function typeset(tex, display, optionsJson) {
  try {
    const options = JSON.parse(optionsJson);
    options.displayMode = display;
    return JSON.stringify({html: katex.renderToString(tex, options)});
  } catch (error) {
    return JSON.stringify({error: String(error && error.message || error)});
  }
}
"""


class MathError(ValueError):
    """A formula that KaTeX could not typeset."""


@cache
def _katex_source() -> str:
    return KATEX.read_text(encoding="utf-8")


def _engine() -> Any:
    """KaTeX's ``typeset`` function, loaded in this thread's own QuickJS context."""
    engine = getattr(_ENGINES, "typeset", None)
    if engine is None:
        import quickjs  # only a cold build pays for the import and the load

        context = quickjs.Context()
        context.eval(_katex_source() + _TYPESET)
        _ENGINES.context = context  # kept alive as long as its function
        engine = _ENGINES.typeset = context.get("typeset")
    return engine


def _cache_file(tex: str, display: bool) -> Path:
    key = json.dumps([_katex_digest(), OPTIONS, display, tex], sort_keys=True)
    return cache_root() / "math" / (hashlib.sha256(key.encode()).hexdigest() + ".html")


@cache
def _katex_digest() -> str:
    return hashlib.sha256(_katex_source().encode()).hexdigest()


def katex(tex: str, *, display: bool) -> str:
    """KaTeX's own HTML for one formula (cached); `MathError` with KaTeX's message if it fails."""
    stored = _cache_file(tex, display)
    if stored.is_file():
        return stored.read_text(encoding="utf-8")
    answer = json.loads(_engine()(tex, display, json.dumps(OPTIONS)))
    if "error" in answer:
        raise MathError(f"{tex!r}: {answer['error']}")
    out: str = answer["html"]
    stored.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=stored.parent, suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(out)
    os.replace(temporary, stored)  # atomic: a parallel build never reads half a file
    return out


def to_html(tex: str, *, display: bool) -> str:
    """One formula typeset for the page: KaTeX's output without the TeX it keeps."""
    word = _ITALIC_WORD.search(tex)
    if word:
        raise MathError(
            f"{tex!r}: {word.group(0)!r} sets a word as italic variables; "
            f"write {word.group(0)[:2]}\\mathrm{{{word.group(1)}}}}}"
        )
    out = katex(tex.strip(), display=display)
    out = _ANNOTATION.sub("", out).replace("<semantics>", "").replace("</semantics>", "")
    out = out.replace(
        '<span class="katex-html" aria-hidden="true">',
        '<span class="katex-html" aria-hidden="true" data-search-exclude>',
    )
    if "application/x-tex" in out or "data-search-exclude" not in out:
        raise MathError(f"{tex!r}: KaTeX's output is not the form this module expects")
    return out


def split_parts(tex: str) -> list[str]:
    r"""Split `tex` at every ``\qquad`` outside braces, environments and ``\left..\right``.

    >>> split_parts(r"a = b \qquad \text{for } x \qquad \left( c \qquad d \right)")
    ['a = b', '\\text{for } x', '\\left( c \\qquad d \\right)']
    """
    parts, depth, start, i = [], 0, 0, 0
    while i < len(tex):
        if tex[i] == "\\":
            name = re.match(r"\\([A-Za-z]+|.)", tex[i:])
            word = name.group(1) if name else ""
            if word in ("begin", "left"):
                depth += 1
            elif word in ("end", "right"):
                depth -= 1
            elif word == "qquad" and depth == 0:
                parts.append(tex[start:i])
                start = i + len("\\qquad")
            i += 1 + len(word)
            continue
        if tex[i] == "{":
            depth += 1
        elif tex[i] == "}":
            depth -= 1
        i += 1
    parts.append(tex[start:])
    return [part.strip() for part in parts if part.strip()]


def _replace(match: re.Match[str], where: str) -> str:
    if "katex" in match.group(2)[:200]:  # already typeset (an inner conversion did it)
        return match.group(0)
    tag, body = match.group(1), html.unescape(match.group(2)).strip()
    opening, closing = _DELIMITERS[tag]
    if not (body.startswith(opening) and body.endswith(closing)):
        raise MathError(f"{where}: unexpected math markup {match.group(0)[:80]!r}")
    tex = body[len(opening) : -len(closing)]
    if tag == "span":
        return f'<span class="arithmatex">{to_html(tex, display=False)}</span>'
    parts = "".join(to_html(part, display=True) for part in split_parts(tex))
    return f'<div class="arithmatex">{parts}</div>'


# KaTeX's two text fonts and the classes of the characters drawn in each: a
# page whose math draws any asks the browser for the font at once (a preload
# at the top of the page) instead of after its stylesheet and layout.
PRELOADS = {
    "KaTeX_Main-Regular.woff2": re.compile(r'class="(?:mord|mrel|mbin|mop|mopen|mclose|mpunct)"'),
    "KaTeX_Math-Italic.woff2": re.compile(r'class="mord mathnormal"'),
}


def preloads(page_html: str, prefix: str) -> str:
    """``<link rel="preload">`` for each KaTeX text font `page_html` draws (paths from `prefix`).

    >>> preloads('<span class="mord mathnormal">x</span>', "../")
    '<link rel="preload" href="../assets/katex/fonts/KaTeX_Math-Italic.woff2" as="font" \
type="font/woff2" crossorigin>'
    """
    return "".join(
        f'<link rel="preload" href="{prefix}assets/katex/fonts/{font}" as="font" '
        'type="font/woff2" crossorigin>'
        for font, drawn in PRELOADS.items()
        if drawn.search(page_html)
    )


def render(page_html: str, where: str = "page") -> str:
    """Typeset every arithmatex formula in `page_html`; `where` names the page in errors."""
    errors: list[str] = []

    def replace(match: re.Match[str]) -> str:
        try:
            return _replace(match, where)
        except MathError as error:
            errors.append(str(error))
            return match.group(0)

    glued = _GLUED.sub(
        lambda m: f'<span class="pe-math-glue">{m[1]}{m[2]}{m[3]}</span>' if m[1] or m[3] else m[0],
        page_html,
    )
    out = ARITHMATEX.sub(replace, glued)
    if errors:
        raise MathError(f"{where}: {len(errors)} formula(s) failed:\n" + "\n".join(errors))
    return out
