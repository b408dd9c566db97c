"""Static files the site ships from installed packages rather than from a CDN.

MathJax 3 comes from the ``django-static-mathjax`` wheel on PyPI (a plain copy
of MathJax's ``es5`` build). The site loads MathJax's small ``startup.js`` and
names the components it needs (see ``mathjax-config.js``): the same TeX input
and CHTML output as the one-file ``tex-chtml.js`` bundle, with the screen-reader
MathML, but without the 420 kB context menu, which would make every page that
much heavier. Those components, the TeX extensions MathJax loads on demand
and the web fonts are copied under ``assets/mathjax/``; MathJax finds them
relative to its own script.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

MATHJAX_PREFIX = "assets/mathjax"
FONT_DIR = "output/chtml/fonts/woff-v2"
# The components mathjax-config.js asks for, and what they load themselves.
COMPONENTS = (
    "startup.js",
    "core.js",
    "input/tex.js",
    "output/chtml.js",
    "output/chtml/fonts/tex.js",
    "a11y/assistive-mml.js",
)
EXTENSIONS = "input/tex/extensions"


def mathjax_root() -> Path:
    """Directory of MathJax's ``es5`` build inside the installed package."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or spec.origin is None:
        raise RuntimeError(
            "MathJax is missing: install the docs extra (pip install -e '.[docs]'), "
            "which provides it through the django-static-mathjax package"
        )
    root = Path(spec.origin).parent / "static" / "mathjax" / "es5"
    missing = [name for name in COMPONENTS if not (root / name).is_file()]
    if missing:
        raise RuntimeError(f"MathJax components {missing} not found under {root}")
    return root


def mathjax_files() -> Iterator[tuple[str, Path]]:
    """Yield ``(site path, source file)`` for the MathJax components and fonts."""
    root = mathjax_root()
    for name in COMPONENTS:
        yield f"{MATHJAX_PREFIX}/{name}", root / name
    for extension in sorted((root / EXTENSIONS).glob("*.js")):
        yield f"{MATHJAX_PREFIX}/{EXTENSIONS}/{extension.name}", extension
    for font in sorted((root / FONT_DIR).glob("*.woff")):
        yield f"{MATHJAX_PREFIX}/{FONT_DIR}/{font.name}", font
