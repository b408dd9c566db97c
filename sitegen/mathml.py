r"""TeX to MathML while the site is built: math is typeset at first paint.

``pymdownx.arithmatex`` (``generic: true``) leaves every formula as TeX in
``<span class="arithmatex">\(...\)</span>`` or ``<div class="arithmatex">\[...\]</div>``.
`render` replaces each with MathML from ``latex2mathml`` (pure Python, on
PyPI), which the browser draws natively and screen readers read: no script,
no web font, no raw TeX on screen while a page loads, and none in the search
index either (the search plugin indexes the page after this hook ran).

A display formula made of parts set apart by a top-level ``\qquad`` becomes
one ``<math display="block">`` per part in a wrapping row: side by side on a
wide screen, one under the other on a phone. A part still wider than the
screen scrolls inside its own box (see ``extra.css`` and ``scroll-regions.js``).

Any formula that does not convert, or whose MathML still holds a backslash (a
command the converter passed through as text), fails the build.
"""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert

ARITHMATEX = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
_DELIMITERS = {"span": ("\\(", "\\)"), "div": ("\\[", "\\]")}
# Escapes that TeX allows inside \text{...} but latex2mathml keeps literally.
_TEXT = re.compile(r"\\text\{((?:[^{}]|\{[^{}]*\})*)\}")
_TEXT_ESCAPES = re.compile(r"\\([_%&#${}])")


class MathError(ValueError):
    """A formula that could not be turned into MathML."""


_ALIGNED = re.compile(r"\\begin\{aligned\}(.*?)\\end\{aligned\}", re.S)
# Output the browser's MathML (MathML Core) would not draw as TeX does.
_UNSUPPORTED = ("<mi>&</mi>", "negativethinmathspace", "linebreak=")


def _aligned_as_array(match: re.Match[str]) -> str:
    """``aligned`` as an ``array`` of right- and left-aligned columns, which converts cleanly."""
    body = match.group(1)
    columns = 1 + max(row.count("&") for row in re.split(r"\\\\", body))
    spec = "".join("rl"[i % 2] for i in range(columns))
    return "\\begin{array}{" + spec + "}" + body + "\\end{array}"


def _prepare(tex: str) -> str:
    r"""Rewrite the few TeX forms the converter gets wrong into ones it gets right.

    Undo ``\_``-style escapes inside ``\text{}`` (kept as is otherwise),
    drop ``\!`` (a negative space MathML cannot draw), drop the extra
    spacing of ``\\[4pt]`` and write ``aligned`` as an ``array``.
    """
    tex = _TEXT.sub(lambda m: "\\text{" + _TEXT_ESCAPES.sub(r"\1", m.group(1)) + "}", tex)
    tex = tex.replace("\\!", "")
    tex = re.sub(r"\\\\\[[^\]]*\]", r"\\\\", tex)
    return _ALIGNED.sub(_aligned_as_array, tex)


def split_parts(tex: str) -> list[str]:
    r"""Split `tex` at every ``\qquad`` outside braces, environments and ``\left..\right``."""
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


def to_mathml(tex: str, *, display: bool) -> str:
    """One formula as a ``<math>`` element; `MathError` if it does not convert cleanly."""
    source = _prepare(tex.strip())
    try:
        mathml = convert(source, display="block" if display else "inline")
    except Exception as error:  # the converter raises many kinds of error
        raise MathError(f"{tex!r}: {type(error).__name__}: {error}") from None
    text = re.sub(r"<[^>]*>", "", mathml)
    if "\\" in text:
        raise MathError(f"{tex!r}: a command was not converted: {html.unescape(text)!r}")
    unsupported = [form for form in _UNSUPPORTED if form in mathml]
    if unsupported:
        raise MathError(f"{tex!r}: converted to MathML the browser cannot draw: {unsupported}")
    # MathML Core has no columnalign; the same alignment as CSS.
    mathml = re.sub(r'columnalign="(left|right|center)"', r'style="text-align: \1"', mathml)
    return mathml.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "", 1)


def _replace(match: re.Match[str], where: str) -> str:
    if match.group(2).lstrip().startswith("<"):  # already MathML (an inner conversion did it)
        return match.group(0)
    tag, body = match.group(1), html.unescape(match.group(2)).strip()
    opening, closing = _DELIMITERS[tag]
    if not (body.startswith(opening) and body.endswith(closing)):
        raise MathError(f"{where}: unexpected math markup {match.group(0)[:80]!r}")
    tex = body[len(opening) : -len(closing)]
    if tag == "span":
        return f'<span class="arithmatex">{to_mathml(tex, display=False)}</span>'
    return f'<div class="arithmatex">{"".join(_display(part) for part in split_parts(tex))}</div>'


def _display(part: str) -> str:
    """One part of a display formula; an ``aligned`` block as one formula per row.

    MathML Core draws tables but not their column alignment, so the rows of an
    ``aligned`` block are stacked instead, each one a formula that can wrap
    or scroll on its own.
    """
    whole = _ALIGNED.fullmatch(part)
    if whole is None:
        return to_mathml(part, display=True)
    rows = [row.replace("&", "") for row in re.split(r"\\\\(?:\[[^\]]*\])?", whole.group(1))]
    lines = "".join(to_mathml(row, display=True) for row in rows if row.strip())
    return f'<span class="pe-math-rows">{lines}</span>'


def render(page_html: str, where: str = "page") -> str:
    """Replace every arithmatex formula in `page_html` with MathML; `where` names the page."""
    errors: list[str] = []

    def replace(match: re.Match[str]) -> str:
        try:
            return _replace(match, where)
        except MathError as error:
            errors.append(str(error))
            return match.group(0)

    out = ARITHMATEX.sub(replace, page_html)
    if errors:
        raise MathError(f"{where}: {len(errors)} formula(s) failed:\n" + "\n".join(errors))
    return out
