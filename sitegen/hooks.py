"""MkDocs hooks: conveniences of the MkDocs build, none needed for a correct site.

Listed under ``hooks:`` in ``mkdocs.yml``; Zensical runs no hooks. What a correct
page needs (figures drawn on demand, MathML, the figures' files in the site) is
done by the page's own blocks and the Markdown extension `sitegen.site_markdown`.
Here MkDocs only starts every stale figure up front, several at a time and in
the background while pages render, and lists the files (and the served
wheel) so the link checker knows them, names the source
commit in the footer, reuses the search entries of unchanged pages
(`sitegen.search_cache`) and the compiled templates and formatted signatures
of the last build (`sitegen.template_cache`), and, without a ``site_url``, lists each page in the
sitemap by its path.

MkDocs loads this file by path on every (re)build, so it first drops earlier
imports of `sitegen` and `pe`: a rebuild under ``mkdocs serve`` then sees
edited tables and library code.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
for _name in [n for n in sys.modules if n.split(".")[0] in {"sitegen", "pe"}]:
    del sys.modules[_name]

from sitegen import figures, reader, search_cache, template_cache  # noqa: E402
from sitegen.site_markdown import DIST  # noqa: E402

log = logging.getLogger("mkdocs.hooks.sitegen")


def _source_commit() -> str:
    """Say which commit this build comes from (and whether it was edited), for the footer."""
    commit = os.environ.get("GITHUB_SHA", "")
    dirty = False
    if not commit:
        try:
            commit = subprocess.run(
                ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
            ).stdout.strip()
            dirty = bool(
                subprocess.run(
                    ["git", "status", "--porcelain", "--untracked-files=no"],
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.strip()
            )
        except (OSError, subprocess.CalledProcessError):
            return "Built from a source tree outside git."
    short = commit[:7]
    repository = os.environ.get("GITHUB_REPOSITORY")
    if repository:
        server = os.environ.get("GITHUB_SERVER_URL", "https://github.com")
        short = f'<a href="{server}/{repository}/commit/{commit}">{short}</a>'
    return f"Last built from commit {short}{' with local changes' if dirty else ''}."


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Name the source commit in every page's footer; reuse what the last build computed.

    Unchanged pages' search entries (`sitegen.search_cache`), compiled
    templates and formatted signatures (`sitegen.template_cache`) come from
    ``.cache/``. mkdocstrings makes its handler in its own ``on_config``, which
    runs before this hook's; its templates are compiled while the pages are
    converted, before ``on_env``.
    """
    config.copyright = f"{config.copyright or ''} {_source_commit()}".strip()
    search_cache.install()
    template_cache.cache_signature_formatting()
    mkdocstrings = config.plugins.get("mkdocstrings")
    if mkdocstrings is not None:
        handler = mkdocstrings.handlers.get_handler("python")
        template_cache.use_bytecode_cache(handler.env)
    return config


@event_priority(50)  # before the plugins, so the link checker knows these files too
def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Start drawing every figure not in the cache and list their files in the build.

    The scripts run in the background while the pages are rendered (a page
    waits only for a figure it shows); `on_env` waits for the rest.
    """
    report = figures.start()
    log.info(
        "figures: ran %d script(s)%s, reused %d from the cache",
        len(report.ran),
        f" ({', '.join(report.ran)})" if report.ran else "",
        len(report.cached),
    )
    for name, path in sorted(report.outputs.items()):
        if figures.later is not None and not path.is_file():
            continue  # make serve: drawn after the pages (the page copies it, or the next build)
        files.append(File.generated(config, f"figures/{name}", abs_src_path=str(path)))
    # The wheel the Install page links (relative to itself when no site_url names a
    # host); `sitegen.site_markdown` copies it into the site, listed here for the
    # link checker.
    wheel = reader.build_wheel()
    files.append(File.generated(config, f"{DIST}/{wheel.name}", abs_src_path=str(wheel)))
    return files


def on_build_error(error: Exception) -> None:
    """Stop the figures a failed build left waiting, so that the process can exit."""
    figures.abandon()


def on_env(env: Any, config: MkDocsConfig, files: Files) -> Any:
    """Wait for the figures still drawing (before MkDocs copies the site's files).

    The theme's templates, compiled once the pages are converted, come from
    the bytecode cache of `sitegen.template_cache`.
    """
    template_cache.use_bytecode_cache(env)
    if figures.finish_in_background():  # make serve: pages first, figures in a rebuild
        return env
    try:
        figures.finish()
    except figures.FigureError as error:
        raise PluginError(str(error)) from None
    return env


def on_pre_page(page: Page, config: MkDocsConfig, files: Files) -> Page:
    """Without a ``site_url``, give the page its path from the site's root for the sitemap.

    MkDocs leaves a page out of ``sitemap.xml`` when no ``site_url`` names the
    host. A local build and the offline zip name none (so no address is baked in
    that would be wrong on another host or port), and are served from the root
    of their host, so each page is listed by its path, ``/formula/``.
    """
    if not config.site_url and page.abs_url is None:
        page.abs_url = "/" + page.url
    return page


#: KaTeX's fonts besides its two text fonts (which `sitegen.typeset` preloads in every
#: page with math), each with the classes KaTeX's stylesheet draws in it
#: (docs/assets/katex/katex.css: ``.delimsizing.size1``, ``.op-symbol.small-op``, ...).
KATEX_FONTS = {
    "KaTeX_Size1-Regular.woff2": re.compile(
        r'class="[^"]*\b(?:delimsizing size1|small-op|delim-size1)\b'
    ),
    "KaTeX_Size2-Regular.woff2": re.compile(r'class="[^"]*\b(?:delimsizing size2|large-op)\b'),
    "KaTeX_Size3-Regular.woff2": re.compile(r'class="[^"]*\bdelimsizing size3\b'),
    "KaTeX_Size4-Regular.woff2": re.compile(r'class="[^"]*\b(?:delimsizing size4|delim-size4)\b'),
    "KaTeX_AMS-Regular.woff2": re.compile(r'class="[^"]*\b(?:mathbb|amsrm|textbb)\b'),
    "KaTeX_Typewriter-Regular.woff2": re.compile(r'class="[^"]*\b(?:mathtt|texttt)\b'),
    "KaTeX_Main-Bold.woff2": re.compile(r'class="[^"]*\b(?:mathbf|textbf)\b'),
}
_KATEX_PRELOAD = re.compile(r'<link rel="preload" href="[^"]*assets/katex/fonts/[^"]*"[^>]*>')


def font_preloads(output: str, page_url: str) -> str:
    """Add a preload of each of `KATEX_FONTS` that the page's math draws, after the others.

    Without it the browser finds such a font only once the page is laid out, and
    draws the formula meanwhile without it: on a throttled phone the definition
    on The formula showed its sums without their large parentheses for up to
    half a second. Decided per page, from the HTML KaTeX wrote at build time;
    a page with no math has no KaTeX preload and is left as it is.

    >>> page = '<link rel="preload" href="../assets/katex/fonts/KaTeX_Main-Regular.woff2">'
    >>> page += '<span class="delimsizing size1">(</span>'
    >>> font_preloads(page, "formula/").count("KaTeX_Size1-Regular.woff2")
    1
    """
    found = list(_KATEX_PRELOAD.finditer(output))
    if not found:
        return output
    links = "".join(
        f'<link rel="preload" href="{get_relative_url(f"assets/katex/fonts/{font}", page_url)}" '
        'as="font" type="font/woff2" crossorigin>'
        for font, drawn in KATEX_FONTS.items()
        if font not in output and drawn.search(output)
    )
    end = found[-1].end()
    return output[:end] + links + output[end:]


#: The hint above a box that scrolls sideways (docs/assets/javascripts/scroll-regions.js).
SCROLL_HINT = "Scroll sideways to see all of it →"
#: A box that may scroll sideways: a table without a class (up to its end: the site has
#: no table inside a table), a display formula.
_MAY_SCROLL = re.compile(
    r'<table(?![^>]*\sclass=)(?=[\s>])(?P<rest>.*?</table>)|<div class="arithmatex">',
    flags=re.DOTALL,
)

#: The class of a table the build has put into the theme's scrolling wrapper. The theme
#: wraps only tables without a class; docs/assets/stylesheets/extra.css gives this class
#: the theme's table rules.
WRAPPED_TABLE = "pe-wrapped"


def scroll_hints(output: str) -> str:
    """Write a hidden hint before each box that may scroll sideways, for the script to show.

    scroll-regions.js shows the hint of a box whose content is wider than the box;
    inserting one at run time made the browser restyle and lay out the rest of a
    long page (up to 0.8 s on a 4x-throttled phone), where showing one already
    there restyles only it. Written after the search index has read the page.

    A table goes into a box of its own (``div.pe-table``) with its hint, already in
    the theme's scrolling wrapper (``md-typeset__scrollwrap``, ``md-typeset__table``),
    and gets a class, so the theme leaves it where it is. As it starts, the theme
    takes each table without a class out of its place and puts it back in that
    wrapper; the next time it asked a box for its size, the browser restyled and
    laid out every moved table on the spot: 100-200 ms of its first task on
    /conventions/ and /beyond/rope-scaling/ on a 4x-throttled phone, against under
    10 ms with the tables in place (a CPU profile of the theme's bundle).

    >>> scroll_hints('<p>x</p><table><tr><td>1</td></tr></table><table class="k">')
    '<p>x</p><div class="pe-table"><p class="pe-scroll-hint" aria-hidden="true" hidden>\
Scroll sideways to see all of it →</p><div class="md-typeset__scrollwrap">\
<div class="md-typeset__table"><table class="pe-wrapped"><tr><td>1</td></tr></table>\
</div></div></div><table class="k">'
    """
    hint = f'<p class="pe-scroll-hint" aria-hidden="true" hidden>{SCROLL_HINT}</p>'

    def place(match: re.Match[str]) -> str:
        if match["rest"] is None:
            return hint + match[0]
        return (
            f'<div class="pe-table">{hint}<div class="md-typeset__scrollwrap">'
            f'<div class="md-typeset__table"><table class="{WRAPPED_TABLE}"{match["rest"]}'
            "</div></div></div>"
        )

    return _MAY_SCROLL.sub(place, output)


#: A heading's last word (plain text, after a space or a tag) and its permalink.
_LAST_WORD_AND_LINK = re.compile(r'(?<=[\s>])([^\s<>]+)(<a class="headerlink" [^>]*>[^<]*</a>)')


def keep_permalinks_on_the_line(output: str) -> str:
    """Join each heading's permalink to its last word, so it never wraps onto a line alone.

    A heading that just fills its last line pushed the permalink (shown from 720 px)
    onto a line of its own, and the heading ended in a blank line.

    >>> keep_permalinks_on_the_line('<h2 id="a">The base<a class="headerlink" href="#a">¶</a></h2>')
    '<h2 id="a">The <span class="pe-nowrap">base<a class="headerlink" href="#a">¶</a></span></h2>'
    """
    return _LAST_WORD_AND_LINK.sub(r'<span class="pe-nowrap">\1\2</span>', output)


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    """Finish a page: preloads, scroll hints, permalinks kept on their headings' lines."""
    return keep_permalinks_on_the_line(scroll_hints(font_preloads(output, page.url)))
