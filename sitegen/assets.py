"""Static files the site ships from installed packages rather than from a CDN.

MathJax 3 comes from the ``django-static-mathjax`` wheel on PyPI (a plain copy
of MathJax's ``es5`` build). Only the TeX-to-CHTML bundle and its web fonts are
copied into the site, under ``assets/mathjax/``; MathJax finds the fonts
relative to its own script.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

MATHJAX_PREFIX = "assets/mathjax"
FONT_DIR = "output/chtml/fonts/woff-v2"


def mathjax_root() -> Path:
    """Directory of MathJax's ``es5`` build inside the installed package."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or spec.origin is None:
        raise RuntimeError(
            "MathJax is missing: install the docs extra (pip install -e '.[docs]'), "
            "which provides it through the django-static-mathjax package"
        )
    root = Path(spec.origin).parent / "static" / "mathjax" / "es5"
    if not (root / "tex-chtml.js").is_file():
        raise RuntimeError(f"MathJax's tex-chtml.js not found under {root}")
    return root


def mathjax_files() -> Iterator[tuple[str, Path]]:
    """Yield ``(site path, source file)`` for the MathJax bundle and its fonts."""
    root = mathjax_root()
    yield f"{MATHJAX_PREFIX}/tex-chtml.js", root / "tex-chtml.js"
    for font in sorted((root / FONT_DIR).glob("*.woff")):
        yield f"{MATHJAX_PREFIX}/{FONT_DIR}/{font.name}", font
