"""The site's own Python-Markdown extension: math, figures and the Install page.

Listed under ``markdown_extensions`` in ``mkdocs.yml``, so MkDocs and Zensical
both run it on every page (neither needs a build hook for it). It

- typesets every formula with KaTeX (`sitegen.typeset`) once the page's HTML
  is complete, executed blocks and API entries included; the search index of
  either builder is made from this HTML, so it holds no TeX. A formula that
  KaTeX rejects fails the build. A page with math starts with preloads of
  the KaTeX fonts it draws;
- makes the ``/figures/...`` paths that `sitegen.figures.figure` writes
  relative to the page, and copies each figure's files from the figure cache
  into ``figures/`` of the built site; a figure with a phone drawing is put in
  a ``<picture>`` whose ``<source>`` gives that drawing to narrow screens;
- decides, in one place (`table_kind`), how each table reads on a phone: a
  table of prose shows its rows as cards, each cell beside its column's name
  (``extra.css``), instead of squeezing columns of sentences into one or two
  words a line; a table that compares (numbers, settings, short values) stays
  a table, scrolls sideways in its own box, and keeps its first column in view
  (`stack_prose_tables`). A table whose first column heads its rows (an empty
  first header) gets row headers and an empty corner cell, as WAI's tables
  tutorial draws a table with two headers;
- fills in the Install page's ``{{ wheel_install }}``, ``{{ git_install }}`` and
  ``{{ dist_name }}`` from the configuration, and puts the wheel it names into
  ``dist/`` of the built site. With a ``site_url`` (the hosted site) the command
  names the wheel's address; without one (a local build, the offline zip,
  served on any host and port) the page links the wheel relative to itself and
  the command installs the downloaded file.

The page and the configuration come from the builder: MkDocs registers its
``relpath`` tree processor (which holds the page's file and the config) on
each page's Markdown instance, Zensical its ``rendering_context`` preprocessor.
A conversion outside either (a docstring rendered alone, a test) has no page:
math is still typeset, and paths are left as they are.
"""

from __future__ import annotations

import html as html_module
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown import Extension, Markdown
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor

from sitegen import figures, reader, typeset

DIST = "dist"
_FIGURE_SRC = re.compile(r'src="/figures/([\w.-]+?)(#[\w-]+)?"')
_FIGURE_IMG = re.compile(r'<img\b[^>]*\ssrc="/figures/(\w+-(?:light|dark))(\.svg)#[^>]*>')
_PLACEHOLDER = re.compile(r"\{\{ (wheel_install|git_install|dist_name) \}\}")


@dataclass(frozen=True)
class Context:
    """What the extension needs to know of the page being built."""

    src_uri: str
    prefix: str  # what a link from this page's HTML to the site's root starts with
    site_dir: Path
    site_url: str
    repo_url: str


def context(md: Markdown) -> Context | None:
    """Return the page and configuration of the builder converting with `md` (None: no build)."""
    registry = md.treeprocessors
    relpath: Any = registry["relpath"] if "relpath" in registry else None  # noqa: SIM401
    if relpath is not None and hasattr(relpath, "file"):  # MkDocs
        config = relpath.config
        return Context(
            src_uri=relpath.file.src_uri,
            # MkDocs leaves links in raw HTML as they are: relative to the page's address.
            prefix=relative_prefix(relpath.file.url),
            site_dir=Path(config.site_dir),
            site_url=config.site_url or "",
            repo_url=config.repo_url or "",
        )
    for processor in md.preprocessors:  # Zensical
        if type(processor).__name__ == "ContextPreprocessor":
            found: Any = processor
            config = found.config
            return Context(
                src_uri=found.page.path,
                # Zensical reads links in raw HTML as relative to the page's source
                # file (beyond/rope.md) and rewrites them for its address itself.
                prefix="../" * found.page.path.count("/"),
                site_dir=Path(config["site_dir"]),
                site_url=config.get("site_url") or "",
                repo_url=config.get("repo_url") or "",
            )
    return None


def relative_prefix(url: str) -> str:
    """``../`` once for each folder the page's address lies in (``beyond/rope/`` → ``../../``)."""
    return "../" * url.removeprefix("./").lstrip("/").count("/")


def copy_if_changed(source: Path, target: Path) -> None:
    """Copy `source` to `target` unless `target` already holds the same bytes."""
    if target.is_file() and target.read_bytes() == source.read_bytes():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def wheel_install(wheel: str, page: Context) -> str:
    """Return Markdown that installs the served wheel: by its address, or by a relative link."""
    if page.site_url:
        return f"```bash\npip install {page.site_url.rstrip('/')}/{DIST}/{wheel}\n```"
    link = f'<a href="{page.prefix}{DIST}/{wheel}" download><code>{wheel}</code></a>'
    return (
        f"Download {link} from this site, then install the file from the folder you saved "
        f"it in:\n\n```bash\npip install {wheel}\n```"
    )


class InstallPage(Preprocessor):
    """Write the Install page's commands from the configuration and the wheel's name."""

    def run(self, lines: list[str]) -> list[str]:
        """Replace the placeholders (only the Install page has any); copy the wheel."""
        page = context(self.md)
        text = "\n".join(lines)
        if page is None or not _PLACEHOLDER.search(text):
            return lines
        wheel = reader.build_wheel()
        copy_if_changed(wheel, page.site_dir / DIST / wheel.name)
        repo_url = page.repo_url.rstrip("/")
        if repo_url:
            git_install = f'```bash\npip install "git+{repo_url}"\n```'
        else:  # built from a clone with no remote: say how to install from that clone
            git_install = "```bash\npip install .  # in the clone this site was built from\n```"
        values = {
            "wheel_install": wheel_install(wheel.name, page),
            "git_install": git_install,
            "dist_name": reader.distribution()[0],
        }
        return _PLACEHOLDER.sub(lambda m: values[m[1]], text).split("\n")


_TABLE = re.compile(r"<table>(.*?)</table>", re.S)
_TAG = re.compile(r"<[^>]+>")
_WORD_CODE = re.compile(r"<code>([^<\s]+)</code>")
_SPACED_CODE = re.compile(r"<code>([^<]*\s[^<]*)</code>")
PROSE_WORDS = 4  # a cell with this many words of letters or more is prose
LONG_WORD = 24  # an identifier longer than this may break, after a dot, slash or underscore
# A word of prose: two letters or more, no digit ("pe", "faster"; not "12.7x", "k", "2i/d").
_LETTER_WORD = re.compile(r"^[^\w]*[^\W\d_]{2,}[^\d]*$")
# KaTeX's drawing of a formula (its MathML beside it holds the same text once).
_KATEX_HTML = re.compile(r'<span class="katex-html"')
_SPAN = re.compile(r"<span\b|</span>")


def _without_drawn_math(html: str) -> str:
    """Drop KaTeX's drawn boxes (``katex-html``) from `html`, keeping its MathML text.

    >>> _without_drawn_math('a <span class="katex-html" aria-hidden="true">'
    ...                     '<span>x</span></span> b')
    'a  b'
    """
    out, start = [], 0
    for found in _KATEX_HTML.finditer(html):
        if found.start() < start:
            continue
        depth, end = 0, len(html)
        for tag in _SPAN.finditer(html, found.start()):
            depth += 1 if tag[0] == "<span" else -1
            if depth == 0:
                end = tag.end()
                break
        out.append(html[start : found.start()])
        start = end
    return "".join(out) + html[start:]


def _words(cell: str) -> list[str]:
    """Return the words of letters in a cell's HTML (its text, drawn math left out)."""
    text = html_module.unescape(_TAG.sub(" ", _without_drawn_math(cell)))
    return [word for word in text.split() if _LETTER_WORD.match(word)]


def _has_digit(cell: str) -> bool:
    return bool(re.search(r"\d", _TAG.sub(" ", _without_drawn_math(cell))))


def table_kind(rows: list[list[str]]) -> str:
    """Say how a table reads on a phone: ``"cards"`` (prose) or ``"compare"`` (a table).

    `rows` are the HTML of the body's cells, row by row; the first column names
    the rows and is not counted. A cell of prose has `PROSE_WORDS` words of
    letters or more; a number is a cell with a digit and at most one such word
    (``0.0177 (k = 44)``, ``8.4 GiB``, ``16-39``). A table is prose when some
    column is mostly prose and at most half its non-empty cells are numbers:
    its rows are read one at a time, as cards. Every other table compares its
    rows column by column and stays a table on a phone (it scrolls sideways in
    its box, its first column kept in view), unless it holds no number at all
    and some cell of prose. Decided here alone, from what the
    cells hold, so no page marks its tables by hand.

    >>> table_kind([["Llama 2 7B chat", "4,096", "10,000"], ["Qwen2 7B", "32,768", "1e6"]])
    'compare'
    >>> table_kind([["a", "what the layer does with the key"], ["b", "1"]])
    'cards'
    >>> table_kind([["fp16", "rounded once, at the end", "0.0019", "0.0019"],
    ...             ["bf16", "rounded at every step", "0.0019", "0.041"]])
    'compare'
    """
    columns = max((len(row) for row in rows), default=0)
    values = [cell for row in rows for cell in row[1:] if _TAG.sub("", cell).strip(" —–-")]
    numbers = sum(_has_digit(cell) and len(_words(cell)) <= 1 for cell in values)
    prose_column = any(
        2 * sum(len(_words(row[j])) >= PROSE_WORDS for row in rows if j < len(row)) >= len(rows)
        for j in range(1, columns)
    )
    # A table with no number at all and a cell of prose (lists of keys, say) is read
    # as cards too: as a table on a phone its rows grew taller than a screen's third.
    prose_cell = any(len(_words(cell)) >= PROSE_WORDS for cell in values)
    if numbers == 0 and prose_cell:
        return "cards"
    return "cards" if prose_column and 2 * numbers <= len(values) else "compare"


def _plain(html: str) -> str:
    """Return the text of an HTML fragment, tags dropped, spaces collapsed (for a label)."""
    text = _TAG.sub("", _without_drawn_math(html)).replace('"', "&quot;")
    return " ".join(text.split())


def break_points(word: str) -> str:
    """Let a long identifier break after a dot or a slash; a part still long, after ``_``.

    >>> break_points("diffusers.models.get_timestep_embedding")
    'diffusers.<wbr>models.<wbr>get_timestep_embedding'
    >>> break_points("original_max_position_embeddings")
    'original_<wbr>max_<wbr>position_<wbr>embeddings'
    >>> break_points("UNet2DConditionModel")
    'UNet2DConditionModel'
    """
    if len(word) <= LONG_WORD:
        return word
    parts = re.split(r"(?<=[./])(?=\w)", word)
    parts = [_break_long_part(part) if len(part) > LONG_WORD else part for part in parts]
    return "<wbr>".join(parts)


def _break_long_part(part: str) -> str:
    """Break a long part of an identifier after each ``_``, or else between CamelCase words.

    A card on a 320 px phone has about 170 px for a value: 22 characters of code.

    >>> _break_long_part("CombinedTimestepGuidanceTextProjEmbeddings(...)")
    'Combined<wbr>Timestep<wbr>Guidance<wbr>Text<wbr>Proj<wbr>Embeddings(...)'
    """
    if "_" in part:
        return re.sub(r"(?<=_)(?=[^\W_])", "<wbr>", part)
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "<wbr>", part)


def _whole_word(match: re.Match[str]) -> str:
    """Keep an identifier (a code span with no space) whole in a table; see ``extra.css``.

    Never broken inside a word nor at a hyphen ("qwen2-vl-|vision"); a long
    dotted or slashed path may break after a dot or a slash, and a long part of
    it after an underscore, and nowhere else.

    >>> _whole_word(_WORD_CODE.search("<code>diffusers.models.get_timestep_embedding</code>"))
    '<code class="pe-word">diffusers.<wbr>models.<wbr>get_timestep_embedding</code>'
    """
    return f'<code class="pe-word">{break_points(match[1])}</code>'


def _spaced_code(match: re.Match[str]) -> str:
    """Let each long identifier of a code span with spaces break as `_whole_word` allows.

    >>> _spaced_code(_SPACED_CODE.search("<code>a.b_c.WanTimeTextImageEmbedding.x (T)</code>"))
    '<code>a.<wbr>b_c.<wbr>Wan<wbr>Time<wbr>Text<wbr>Image<wbr>Embedding.<wbr>x (T)</code>'
    """
    words = re.split(r"(\s+)", match[1])
    return "<code>" + "".join(break_points(word) for word in words) + "</code>"


_CELL_BOX = r'\1<div class="pe-cell">\2</div>\3'
_ROWS = re.compile(r"(?=<tr\b)")
_CELLS = re.compile(r"(?=<t[dh]\b)")


def _label_row(row: str, names: list[str]) -> str:
    """Give each cell of one table row its role, and each ``<td>`` its column's name."""
    parts = []
    column = 0
    for part in _CELLS.split(row):
        cell = re.match(r"<t([dh])\b", part)
        if cell and cell[1] == "d":
            part = f'<td role="cell" data-label="{names[column % len(names)]}"{part[3:]}'
            # The cell's content in one box, placed beside its name on a phone.
            part = re.sub(r"^(<td\b[^>]*>)(.*)(</td>)", _CELL_BOX, part, flags=re.S)
            column += 1
        elif cell and 'scope="row"' in part:
            part = f'<th role="rowheader"{part[3:]}'
            column += 1
        elif cell:
            part = f'<th role="columnheader"{part[3:]}'
        parts.append(part)
    return re.sub(r"<tr\b", '<tr role="row"', "".join(parts))


def _row_headers(body: str) -> str:
    """Make the first cell of each body row a row header and the empty corner a ``<td>``.

    For a table whose first header is empty: its first column names the rows.

    >>> made = _row_headers("<thead><tr><th></th><th>a</th></tr></thead>"
    ...                     "<tbody><tr><td>x</td><td>1</td></tr></tbody>")
    >>> made.partition("<tbody>")[0]
    '<thead><tr><td></td><th>a</th></tr></thead>'
    >>> made.partition("<tbody>")[2]
    '<tr><th scope="row">x</th><td>1</td></tr></tbody>'
    """
    head, _, rest = body.partition("</thead>")
    head = re.sub(r"<th\b([^>]*)>\s*</th>", r"<td\1></td>", head, count=1)
    rows = []
    for row in _ROWS.split(rest):
        row = re.sub(
            r"^(<tr\b[^>]*>\s*)<td\b([^>]*)>(.*?)</td>",
            r'\1<th scope="row"\2>\3</th>',
            row,
            count=1,
            flags=re.S,
        )
        rows.append(row)
    return head + "</thead>" + "".join(rows)


def stack_prose_tables(text: str) -> str:
    """Mark each table as prose (cards on a phone) or as a table to compare (`table_kind`).

    A table of prose gets ``data-pe-stack`` and ARIA roles (a table shown as
    blocks keeps its meaning for screen readers), and each cell a
    ``data-label``: the name of its column, which ``extra.css`` writes at the
    cell's left on a phone. A table to compare gets ``data-pe-compare``: it
    stays a table, in its own box that scrolls sideways, its first column kept
    in view. Identifiers in either are kept whole; a table whose first header
    is empty gets row headers (`_row_headers`).

    >>> html = ("<table><thead><tr><th>name</th><th>what</th><th>n</th></tr></thead>"
    ...         "<tbody><tr><td>a</td><td>one cell of prose here</td><td>1</td></tr>"
    ...         "</tbody></table>")
    >>> stacked = stack_prose_tables(html)
    >>> 'data-pe-stack' in stacked, stacked.count('data-label="what"')
    (True, 1)
    >>> stack_prose_tables(html.replace("one cell of prose here", "short")).startswith(
    ...     "<table data-pe-compare>")
    True
    >>> stack_prose_tables("<table><tr><td><code>qwen2-vl</code></td></tr></table>")
    '<table data-pe-compare><tr><td><code class="pe-word">qwen2-vl</code></td></tr></table>'

    """

    def stack(match: re.Match[str]) -> str:
        body = _SPACED_CODE.sub(_spaced_code, _WORD_CODE.sub(_whole_word, match[1]))
        heads = re.findall(r"<th\b[^>]*>(.*?)</th>", body, re.S)
        if heads and not _plain(heads[0]) and "</thead>" in body:
            body = _row_headers(body)
        names = [_plain(cell) for cell in heads]
        rows = [
            re.findall(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", row, re.S)
            for row in _ROWS.split(body.partition("</thead>")[2] or body)
        ]
        rows = [row for row in rows if row]
        if len(names) < 2 or table_kind(rows) == "compare":
            return f"<table data-pe-compare>{body}</table>"
        body = "".join(_label_row(row, names) for row in _ROWS.split(body))
        for part in ("thead", "tbody"):
            body = body.replace(f"<{part}>", f'<{part} role="rowgroup">')
        return f'<table data-pe-stack role="table">{body}</table>'

    return _TABLE.sub(stack, text)


_CODE = re.compile(r"<pre\b.*?</pre>", re.S)
_INLINE_CODE = re.compile(r"<code>([^<]+)</code>")


def break_inline_code(text: str) -> str:
    """Let long paths and identifiers in inline code break after a dot, slash or underscore.

    Outside tables too (a source's path in a list of provenance): on a phone the
    theme broke them anywhere (``unet_2d_co|ndition.py``). Code blocks are left
    as they are.

    >>> break_inline_code("<p><code>src/diffusers/models/unets/unet_2d_condition.py</code></p>")
    '<p><code>src/<wbr>diffusers/<wbr>models/<wbr>unets/<wbr>unet_2d_condition.<wbr>py</code></p>'
    >>> break_inline_code("<pre><code>a_very_long_identifier_in_a_code_block</code></pre>")
    '<pre><code>a_very_long_identifier_in_a_code_block</code></pre>'
    """
    out, start = [], 0
    for block in _CODE.finditer(text):
        out.append(_INLINE_CODE.sub(_spaced_code, text[start : block.start()]))
        out.append(block[0])
        start = block.end()
    out.append(_INLINE_CODE.sub(_spaced_code, text[start:]))
    return "".join(out)


_LINE_ANCHOR = re.compile(r"__codelineno-\d+-")


def number_line_anchors(text: str) -> str:
    """Give each code block's line anchors (``__codelineno-B-L``) a block number of its own.

    pymdownx.highlight numbers the blocks of one conversion, and markdown-exec
    converts each block's output apart, so every executed block was block 0:
    the same ids, many times on a page.

    >>> html = '<pre><a id="__codelineno-0-1"></a></pre><pre><a id="__codelineno-0-1"></a></pre>'
    >>> number_line_anchors(html).count("__codelineno-1-1")
    1
    """
    blocks = iter(range(1_000_000))

    def renumber(block: re.Match[str]) -> str:
        if "__codelineno-" not in block[0]:
            return block[0]
        number = next(blocks)
        return _LINE_ANCHOR.sub(f"__codelineno-{number}-", block[0])

    return _CODE.sub(renumber, text)


#: A preload of a KaTeX font, as `typeset.preloads` writes it.
_PRELOAD = re.compile(r'<link rel="preload" href="[^"]*assets/katex/fonts/[^"]*"[^>]*>')


class PageHtml(Postprocessor):
    """Typeset the page's TeX; figure paths relative to the page, their files in the site."""

    def run(self, text: str) -> str:
        """Typeset the math, number the code blocks' line anchors, then place the figures."""
        page = context(self.md)
        text = number_line_anchors(typeset.render(text, page.src_uri if page else "page"))
        text = break_inline_code(stack_prose_tables(text))
        if page is None:
            return text
        # A page's body (not a heading that Zensical converts alone for the
        # table of contents, which has no paragraph) starts with the preloads:
        # one set, also where mkdocstrings converted each docstring on its own
        # first (each conversion adds a set; the page's own, last, keeps one).
        if re.search(r"<(?:p|div)\b", text):
            text = _PRELOAD.sub("", text)
            text = typeset.preloads(text, page.prefix) + text

        def place_file(name: str) -> Path:
            source = figures.image_file(name)
            if source is None:
                raise figures.FigureError(f"{page.src_uri}: no figure draws {name!r}")
            copy_if_changed(source, page.site_dir / "figures" / name)
            return source

        def place(match: re.Match[str]) -> str:
            place_file(match[1])
            return f'src="{page.prefix}figures/{match[1]}{match[2] or ""}"'

        def picture(match: re.Match[str]) -> str:
            phone = f"{match[1]}{figures.PHONE}{match[2]}"
            if figures.image_file(phone) is None:
                return match[0]
            width, height = figures.image_size(place_file(phone))
            source = (
                f'<source media="{figures.PHONE_MEDIA}" srcset="{page.prefix}figures/{phone}" '
                f'width="{width}" height="{height}">'
            )
            return f"<picture>{source}{match[0]}</picture>"

        return _FIGURE_SRC.sub(place, _FIGURE_IMG.sub(picture, text))


class SiteExtension(Extension):
    """Register the Install page preprocessor and the page postprocessor."""

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Python-Markdown's name)
        """Add the two processors to `md`."""
        # Before fenced blocks are set aside (snippets: 32, superfences: 25 and 31.05).
        md.preprocessors.register(InstallPage(md), "pe_install_page", 40)
        # After the raw HTML (executed blocks, API entries) is put back (priority 30).
        md.postprocessors.register(PageHtml(md), "pe_page_html", 5)


def makeExtension(**kwargs: Any) -> SiteExtension:  # noqa: N802 (Python-Markdown's name)
    """Entry point named by ``markdown_extensions: [sitegen.site_markdown]``."""
    return SiteExtension(**kwargs)
