"""Every page of the built site on every screen: sideways scrolling, reading, axe-core.

Used by ``tests/test_a11y.py`` (in ``make test``) and ``tools/screens.py``
(``make screens``). Each page is loaded once, then switched through the colour
schemes as the palette toggle switches them and, in each, resized through the
widths, so the whole site is checked in as many page loads as it has pages.
At each width `_LAYOUT` reports what makes a page read badly there (squeezed
or overwide tables, broken identifiers, a copy button on code, a gap under a
figure, a formula out of its line, an unnamed dialog, a navigation target
under 24 px). axe-core is the ``axe.min.js`` shipped in the
``axe-playwright-python`` wheel on PyPI (nothing from a CDN), run with the
WCAG 2.0/2.1 A and AA rules.

axe skips KaTeX's drawing of each formula (``.katex-html``: hidden from screen
readers, often a thousand boxes a page, which doubled axe's time) and reads its
MathML. What axe would check there, the contrast of the math, is checked by
``_MATH_INK`` instead: every box of a drawn formula has the colour of the text
around it, whose contrast axe checks, and no background of its own.

On its first view (the widest window, first scheme) each page is also read as
it was drawn (`_RENDERED`): no formula left as TeX, KaTeX's HTML drawn in its
own fonts with its MathML beside it, every visible figure loaded and named;
and at `FIGURE_WIDTHS` the figures it shows are recorded (which drawing, how
wide) so that their text can be measured, and so is how far each table
scrolls sideways in its box. Requests to another host are
blocked and recorded, and so are console errors, for every view.

axe's colour-contrast rule runs on two samples of each look of text (colour,
size, weight, shadow, and the backgrounds and opacity under it) the first time
that look appears in a colour scheme: text that looks like text already checked
has the same contrast. Its link-in-text-block rule runs the same way on two
samples of each look of a link against the block around it. Every other rule
runs on every element.
"""

from __future__ import annotations

import importlib.util
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from tools.local_site import IDLE_WORKER, is_search_worker, open_page

WIDTHS = (320, 375, 768, 1280)
AXE_WIDTHS = (375, 1280)
#: Widths up to this are read as a phone is: in a browser context of its own that
#: emulates a phone (a touch screen with no hover, a mobile viewport, two device
#: pixels to a CSS pixel), where each page is loaded again; the wider ones as a
#: desktop with a mouse. The theme decides some things once, as a page starts
#: (which code blocks can take the focus, from matchMedia("(hover)")), and
#: Chromium keeps "(hover: none)" once touch is emulated in a page: resizing one
#: page through every width read the phones' widths with a desktop's pointer.
PHONE_MAX = 480
PHONE = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
#: Widths at which the figures each page shows are recorded (first scheme).
FIGURE_WIDTHS = (375, 1280)
SCHEMES = ("light", "dark")
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: axe's best-practice rules that a reader with a screen reader met on this site (its
#: other best-practice rules found nothing here): every landmark told apart from the
#: others of its role, and every header cell with text.
AXE_RULES = ["landmark-unique", "empty-table-header"]
# The rules of those tags that read colours: the only ones whose answer can
# change with the colour scheme (the others read the page's elements, names,
# roles and layout, which a scheme does not change).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
HEIGHT = 800

# Elements wider than the window, outside any box that scrolls by itself: what
# makes the page scroll sideways.
_OVERFLOW = """() => {
  const root = document.documentElement;
  const overflow = root.scrollWidth - root.clientWidth;
  if (overflow <= 0) return [0, []];
  const scrolls = (e) => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      const s = getComputedStyle(p).overflowX;
      if (s === 'auto' || s === 'scroll' || s === 'hidden') return true;
    }
    return false;
  };
  const wide = [...document.body.querySelectorAll('*')]
    .filter(e => e.getBoundingClientRect().right > root.clientWidth + 0.5 && !scrolls(e))
    .map(e => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string'
      ? '.' + e.className.trim().split(/\\s+/).join('.') : '')
      + ' "' + (e.textContent || '').trim().slice(0, 40) + '"');
  return [overflow, wide.slice(-5)];
}"""


# Headings that end in a line holding only their (invisible) permalink: a blank
# line under the heading.
_STRAY_PERMALINKS = """() => [...document.querySelectorAll(
    'article h1, article h2, article h3, article h4, article h5, article h6')].flatMap(h => {
  const link = h.querySelector(':scope > a.headerlink');
  if (!link || getComputedStyle(link).display === 'none' || link === h.firstChild) return [];
  const text = document.createRange();
  text.setStartBefore(h.firstChild);
  text.setEndBefore(link);
  const words = text.getBoundingClientRect(), mark = link.getBoundingClientRect();
  return mark.top >= words.bottom - 1 ? [h.tagName.toLowerCase() + ' "'
    + h.textContent.replace(/\\s+/g, ' ').trim().slice(0, 40) + '"'] : [];
})"""


# How the page reads at this width (the window's width is passed in): each
# problem as one line. Only a table of prose shows its rows as cards (never one
# whose values are mostly numbers), every value of its cards starts at the same
# place, and no card is cut off; a header cell has text; a table to compare that
# scrolls keeps its first column in view; on a desktop no display formula is
# wider than its box. A phone (up to 480 px) gets no table row taller than
# 200 px (a table of prose shows its rows as cards there), and nothing runs past
# the edge of a card; an identifier in a table is never broken inside a word; a
# table wider than its column sits in a box that scrolls, with its hint, and no
# hint stands where nothing scrolls; a copy button covers no text of its
# block; a caption sits under its figure; an inline formula stays inside its
# paragraph; a dialog has a name; a link or button of the navigation is at
# least 24 px tall and wide (WCAG 2.2's target size).
_LAYOUT = """(width) => {
  const out = [];
  const shown = (e) => e.checkVisibility({checkVisibilityCSS: true})
    && e.getBoundingClientRect().width > 0;
  const name = (e) => '"' + (e.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 40) + '"';
  const overlaps = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  for (const table of document.querySelectorAll('article table:is(:not([class]), .pe-wrapped)')) {
    if (!shown(table)) continue;
    const row = table.querySelector('tbody tr');
    const cards = table.matches('[data-pe-stack]') && row
      && getComputedStyle(row).display === 'block';
    if (cards) {
      // Only prose is read as cards: a table of numbers is compared column by column.
      const values = [...table.querySelectorAll('tbody tr')].flatMap(r => [...r.cells].slice(1))
        .map(c => c.textContent.replace(/\\s+/g, ' ').trim())
        .filter(t => t && !/^[\\u2014\\u2013-]$/.test(t));
      const numbers = values.filter(t => /\\d/.test(t)
        && (t.match(/[^\\W\\d_]{2,}/g) || []).length <= 1).length;
      if (table.matches('[data-pe-compare]') || 2 * numbers > values.length) {
        out.push('a table of numbers shown as cards: ' + name(table.querySelector('th') || table));
      }
      // Every value of every card starts at the same place (no ragged column).
      const starts = [...table.querySelectorAll('td > .pe-cell')].filter(shown)
        .map(c => c.getBoundingClientRect().left);
      if (starts.length && Math.max(...starts) - Math.min(...starts) > 1) {
        out.push('values of cards not lined up: ' + name(table.querySelector('th') || table));
      }
      for (const card of table.querySelectorAll('tbody tr')) {
        if (card.scrollWidth > card.clientWidth + 1) out.push('a card cut off: ' + name(card));
      }
    }
    // A header cell says what it heads (an empty corner is a td, not a th).
    for (const head of table.querySelectorAll('th')) {
      if (!head.textContent.trim()) out.push('a header cell with no text: ' + name(table));
    }
    // A table to compare that scrolls keeps its first column in view.
    const first = table.querySelector('tbody tr > :first-child');
    const wrap = table.closest('.md-typeset__scrollwrap') || table;
    if (table.matches('[data-pe-compare]') && first && wrap.scrollWidth > wrap.clientWidth + 1
        && getComputedStyle(first).position !== 'sticky') {
      out.push('a table that scrolls loses its first column: ' + name(table.querySelector('th')));
    }
    if (width <= 480 && cards) {
      // A row shown as a card: each cell as wide as the card, its name in it.
      for (const cell of table.querySelectorAll('td')) {
        const narrow = cell.getBoundingClientRect().width
          < 0.8 * table.getBoundingClientRect().width;
        if (shown(cell) && narrow) out.push('table cell squeezed in a card: ' + name(cell));
        // Nothing in a card runs past its edge (a card never scrolls).
        if (shown(cell) && cell.scrollWidth > cell.clientWidth + 1) {
          out.push('text runs past its card: ' + name(cell));
        }
      }
    } else if (width <= 480) {
      for (const row of table.querySelectorAll('tr')) {
        const h = row.getBoundingClientRect().height;
        if (h > 200) out.push('table row ' + Math.round(h) + ' px tall: ' + name(row));
      }
    }
    // An identifier (no space) is whole, or broken only after a dot, a slash or
    // an underscore, or between two words of a long CamelCase name.
    for (const code of table.querySelectorAll('code')) {
      if (/\\s/.test(code.textContent.trim()) || code.getClientRects().length < 2) continue;
      const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      const range = document.createRange();
      let top = null, before = '', bad = false;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.length; i++) {
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const r = range.getBoundingClientRect();
          const camel = /[a-z]/.test(before) && /[A-Z]/.test(node.data[i]);
          if (top !== null && r.top > top + 2 && !/[./_]/.test(before) && !camel) bad = true;
          if (r.width > 0) top = r.top;
          before = node.data[i];
        }
      }
      if (bad) out.push('identifier broken in a table: ' + name(code));
    }
    // Wider than the column: the table scrolls in its box (itself, or the
    // theme's wrapper), which is marked and has its hint (scroll-regions.js).
    const box = table.closest('.md-typeset__scrollwrap') || table;
    const column = table.closest('article').getBoundingClientRect();
    const wide = table.getBoundingClientRect().width > column.width + 1
      || box.scrollWidth > box.clientWidth + 1;
    const scrolls = box.matches('[data-pe-scrolls]') && box.scrollWidth > box.clientWidth + 1
      && box.previousElementSibling && box.previousElementSibling.matches('.pe-scroll-hint');
    if (wide && !scrolls) out.push('table wider than its column, with no scroll box and hint: '
      + name(table.querySelector('th') || table));
  }
  // A hint to scroll sideways only above a box that scrolls.
  for (const hint of document.querySelectorAll('article .pe-scroll-hint')) {
    const box = hint.nextElementSibling;
    if (shown(hint) && !(box && box.scrollWidth > box.clientWidth + 1)) {
      out.push('a scroll hint where nothing scrolls: ' + name(box || hint));
    }
  }
  for (const button of document.querySelectorAll('article pre > .md-code__nav')) {
    const code = button.parentElement.querySelector(':scope > code');
    if (!code || !shown(button)) continue;
    // The text shows inside the code's padding box (what lies beyond it scrolls).
    const b = button.getBoundingClientRect(), box = code.getBoundingClientRect();
    const left = box.left + code.clientLeft, right = left + code.clientWidth;
    const range = document.createRange();
    range.selectNodeContents(code);
    const hit = [...range.getClientRects()].some(r => r.width > 0.5 && overlaps(
      {left: Math.max(r.left, left), right: Math.min(r.right, right), top: r.top, bottom: r.bottom},
      b));
    if (hit) out.push('copy button covers the text of ' + name(code));
  }
  for (const caption of document.querySelectorAll('article figure > figcaption')) {
    const images = [...caption.parentElement.querySelectorAll('img')].filter(shown);
    if (!images.length) continue;
    const gap = caption.getBoundingClientRect().top
      - Math.max(...images.map(i => i.getBoundingClientRect().bottom));
    if (gap > 16) out.push('caption ' + Math.round(gap) + ' px under its figure: ' + name(caption));
  }
  for (const formula of document.querySelectorAll('article span.arithmatex')) {
    const block = formula.closest('p, li, td, dd, figcaption, div');
    if (!block || !shown(formula)) continue;
    const line = block.getBoundingClientRect();
    const out_of = [...formula.getClientRects()].some(r => r.right > line.right + 1
      || r.left < line.left - 1);
    const hidden = [formula, ...formula.querySelectorAll('.katex, .katex-html')].some(e =>
      e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible');
    if (out_of || hidden) out.push('inline formula leaves its line: ' + name(formula));
  }
  // On a desktop every display formula fits its box: none is cut at the edge.
  if (width >= 1024) {
    for (const box of document.querySelectorAll('article div.arithmatex, article .katex-display')) {
      if (shown(box) && box.scrollWidth > box.clientWidth + 1) {
        out.push('formula wider than its box by ' + (box.scrollWidth - box.clientWidth) + ' px: '
          + name(box.querySelector('.katex-mathml') || box));
      }
    }
  }
  for (const dialog of document.querySelectorAll('[role=dialog]')) {
    const named = (dialog.getAttribute('aria-label') || '').trim()
      || (dialog.getAttribute('aria-labelledby') || '').trim();
    if (!named) out.push('a dialog with no name: ' + dialog.className);
  }
  for (const target of document.querySelectorAll('.md-nav a, .md-nav label, .md-header a, '
      + '.md-header label, .md-tabs a, .md-footer a')) {
    // A link inside a sentence (the footer's credits) is exempt, as WCAG says.
    const style = getComputedStyle(target);
    if (!shown(target) || style.visibility === 'hidden' || style.display === 'inline') continue;
    const r = target.getBoundingClientRect();
    if (r.height < 23.5 || r.width < 23.5) {
      out.push('navigation target ' + Math.round(r.width) + ' x ' + Math.round(r.height)
        + ' px: ' + name(target) + (target.getAttribute('aria-label') || ''));
    }
  }
  return out;
}"""


# Formulas drawn in a colour, or on a background, of their own (see the module
# docstring): each is named by the start of its MathML text.
_MATH_INK = """() => [...document.querySelectorAll('.katex-html')].flatMap(drawn => {
  const formula = drawn.closest('.katex');
  const ink = getComputedStyle(formula.parentElement).color;
  const own = [drawn, ...drawn.querySelectorAll('*')].find(e => {
    const s = getComputedStyle(e);
    return s.color !== ink || !['rgba(0, 0, 0, 0)', 'transparent'].includes(s.backgroundColor);
  });
  if (!own) return [];
  const text = (formula.querySelector('.katex-mathml') || formula).textContent;
  return ['"' + text.replace(/\\s+/g, ' ').trim().slice(0, 40) + '"'];
})"""

# What decides the contrast of each element that holds text: whether it is
# shown, its colour, size and weight, and the backgrounds and opacity under it.
# What decides axe's link-in-text-block answer for a link: its own look (colour,
# weight, underline, border, background, outline, generated content) against
# the look of the block around it, whether there is text beside it in that
# block, and the backgrounds under it. axe's colour rules (colour-contrast and
# link-in-text-block, nine tenths of its time) run only on samples of the
# signatures that no earlier check in this colour scheme has seen, at any
# width, on any page: the rest look exactly like text or links that were
# checked. The other rules run on every element at every axe width.
_SIGNATURES = """() => {
  const grounds = new Map();
  const ground = (e) => {
    if (!e) return 'page';
    if (grounds.has(e)) return grounds.get(e);
    const s = getComputedStyle(e);
    const own = s.backgroundColor !== 'rgba(0, 0, 0, 0)' || s.backgroundImage !== 'none';
    const g = s.opacity + (own ? ' on ' + s.backgroundColor + s.backgroundImage : '')
      + ' / ' + ground(e.parentElement);
    grounds.set(e, g);
    return g;
  };
  const signs = new Map();
  for (const e of document.body.querySelectorAll('*')) {
    if (![...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const s = getComputedStyle(e);
    const shown = e.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
    signs.set(e, [shown, s.color, s.fontSize, s.fontWeight, s.textShadow, ground(e)].join('|'));
  }
  const look = (e) => {
    const s = getComputedStyle(e);
    return [s.color, s.fontWeight, s.fontStyle, s.textDecorationLine, s.textDecorationStyle,
      s.textDecorationColor, s.textDecorationThickness, s.borderBottomWidth,
      s.borderBottomStyle, s.borderBottomColor, s.backgroundColor, s.backgroundImage,
      s.outlineStyle, getComputedStyle(e, '::before').content,
      getComputedStyle(e, '::after').content].join(',');
  };
  const links = new Map();
  for (const a of document.body.querySelectorAll('a[href], [role=link]')) {
    let block = a.parentElement;
    const inline = (e) => getComputedStyle(e).display.startsWith('inline');
    while (block && block !== document.body && inline(block)) block = block.parentElement;
    block = block || document.body;
    const beside = (block.textContent || '').trim().length > (a.textContent || '').trim().length;
    const shown = a.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
    links.set(a, ['link', shown, beside, look(a), look(block), ground(a)].join('|'));
  }
  return [signs, links];
}"""
# Marks the first two shown elements of each text signature (``data-pe-recheck``)
# and the first two links of each link signature (``data-pe-relink``) not in
# `seen` (two, in case axe cannot decide one, say one under the sticky header);
# returns the new signatures, which the caller adds to `seen`.
_MARK_UNSEEN = (
    """(seen) => {
  const SAMPLES = 2;
  const known = new Set(seen);
  const [text, links] = ("""
    + _SIGNATURES
    + """)();
  for (const mark of ['data-pe-recheck', 'data-pe-relink']) {
    document.querySelectorAll('[' + mark + ']').forEach(e => e.removeAttribute(mark));
  }
  const fresh = new Map();
  for (const [signs, mark] of [[text, 'data-pe-recheck'], [links, 'data-pe-relink']]) {
    for (const [e, sign] of signs) {
      if (mark === 'data-pe-recheck' && !sign.startsWith('true')) continue;
      if (known.has(sign)) continue;
      const marked = fresh.get(sign) || 0;
      if (marked >= SAMPLES) continue;
      e.setAttribute(mark, '');
      fresh.set(sign, marked + 1);
    }
  }
  return [...fresh.keys()];
}"""
)

#: True once every formula is drawn by KaTeX and no font is still loading.
MATH_READY = (
    "() => document.querySelectorAll("
    "'.arithmatex > .katex, .arithmatex > .katex-display').length"
    " >= document.querySelectorAll('.arithmatex').length"
    " && [...document.fonts].every(f => f.status !== 'loading')"
)

# Every code block with a copy button that a reader can see is brought into view, as a
# reader scrolling down the page does, then the page goes back to the top: the theme
# mounts a block's copy button only once the block comes into view (content.lazy in
# mkdocs.yml). Two frames are drawn at each stop: in the first the theme's
# IntersectionObserver sees the block, and its report has come by the second. A block
# in a closed tab or fold keeps no button until it is opened, as for a reader.
SCROLLED_THROUGH = """async () => {
  const frame = () => new Promise(r => requestAnimationFrame(() => r()));
  for (const code of document.querySelectorAll('article pre > code')) {
    if (code.closest('.no-copy') || !code.checkVisibility()
      || code.parentElement.querySelector(':scope > .md-code__nav')) continue;
    code.scrollIntoView({block: 'center'});
    await frame();
    await frame();
  }
  window.scrollTo(0, 0);
  await frame();
}"""

# Lazy figures that this window shows are loaded now, so that they can be checked.
_EAGER = """() => document.querySelectorAll('article img').forEach(i => {
  if (i.offsetParent !== null) i.loading = 'eager'; })"""
_FIGURES_LOADED = """() => [...document.querySelectorAll('article img')]
  .filter(i => i.offsetParent !== null).every(i => i.complete)"""
# Each figure this window shows: the drawing it chose, and its width on the screen.
_FIGURES = """() => [...document.querySelectorAll('article figure img')]
  .filter(i => i.offsetParent !== null)
  .map(i => [i.currentSrc, i.getBoundingClientRect().width])"""

# Each table of the article: the text of its first two column heads, and how far
# it scrolls sideways in its box (the theme's scroll wrapper, or the table).
_TABLES = """() => [...document.querySelectorAll('article table')].map(t => {
  const box = t.closest('.md-typeset__scrollwrap') || t;
  // (an empty corner of a table with row headers is a td)
  const names = [...t.querySelectorAll('thead :is(th, td)')].slice(0, 2)
    .map(h => h.textContent.trim());
  return [names, box.scrollWidth - box.clientWidth];
})"""

# How the page was drawn, once math and figures have loaded: each problem as a
# line. No formula is left as TeX; KaTeX's HTML is drawn with a real size and
# hidden from screen readers, with its MathML beside it; KaTeX_Main loaded and
# no font failed; no inline formula is a scroll box of its own; every visible
# image loaded and has alt text.
_RENDERED = """() => {
  const out = [];
  const math = [...document.querySelectorAll('.arithmatex')];
  const raw = math.filter(e => !e.querySelector('.katex') || /\\\\[a-zA-Z(\\[]/.test(e.textContent))
    .map(e => e.textContent.slice(0, 60));
  if (raw.length) out.push('math left as TeX: ' + JSON.stringify(raw.slice(0, 3)));
  if (math.length) {
    for (const k of document.querySelectorAll('.arithmatex .katex')) {
      const html = k.querySelector('.katex-html');
      const height = html ? html.getBoundingClientRect().height : 0;
      if (!html || html.getAttribute('aria-hidden') !== 'true'
          || k.querySelectorAll('.katex-mathml > math').length !== 1) {
        out.push('a formula without its hidden drawing and MathML: ' + k.textContent.slice(0, 30));
      } else if (height && height <= 5) {
        out.push('a formula drawn ' + height + ' px tall: ' + k.textContent.slice(0, 40));
      }
    }
    const fonts = [...document.fonts].filter(f => f.family.startsWith('KaTeX'));
    if (!fonts.some(f => f.family === 'KaTeX_Main' && f.status === 'loaded')) {
      out.push('KaTeX_Main did not load');
    }
    for (const f of fonts.filter(f => f.status === 'error')) out.push('font failed: ' + f.family);
    const boxes = [...document.querySelectorAll('span.arithmatex')]
      .filter(s => getComputedStyle(s).overflowX !== 'visible').length;
    if (boxes) out.push(boxes + ' inline formulas are scroll boxes');
  }
  const moved = window.peTransitions;
  if (moved && moved.length) {
    const names = [...new Set(moved)].slice(0, 3).join(', ');
    out.push('transitions ran while the page loaded: ' + names);
  }
  const images = [...document.querySelectorAll('article img')];
  const broken = images.filter(i => i.offsetParent !== null && i.naturalWidth === 0)
    .map(i => i.getAttribute('src'));
  if (broken.length) out.push('images failed to load: ' + broken.join(', '));
  const unnamed = images.filter(i => !(i.getAttribute('alt') || '').trim()).map(i => i.src);
  if (unnamed.length) out.push('images without alt text: ' + unnamed.join(', '));
  return out;
}"""

# Every transition that starts in the page, from its first byte: none should
# while it loads (`_RENDERED` reads them on the first view). The theme's script
# rearranges the page after its first paint, and a transition there draws a
# sliding or fading frame that the reader did not ask for.
_WATCH_TRANSITIONS = """window.peTransitions = [];
addEventListener('transitionrun', e => window.peTransitions.push(e.target.nodeName
  + (e.target.classList && e.target.classList.length ? '.' + e.target.classList[0] : '')
  + (e.pseudoElement || '') + ' ' + e.propertyName), true);"""

# Layout is measured once it has settled: no transitions (the search box
# animates its width), and two frames after a resize for resize observers.
_STILL = "*, *::before, *::after { transition: none !important; animation: none !important; }"
_SETTLED = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def axe_script() -> str:
    """Read ``axe.min.js`` from the installed ``axe-playwright-python`` wheel."""
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or spec.origin is None:
        raise RuntimeError(
            "axe-core is missing: install the test extra (pip install -e '.[test]'), "
            "which provides it through the axe-playwright-python package"
        )
    return (Path(spec.origin).parent / "axe.min.js").read_text(encoding="utf-8")


def site_pages(directory: Path) -> list[str]:
    """Paths of every page, read from the sitemap MkDocs wrote."""
    tree = ET.parse(directory / "sitemap.xml")
    namespace = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    return [urlparse(loc.text or "").path for loc in tree.findall(".//s:loc", namespace)]


def chosen_pages(site: Path, names: list[str]) -> list[str]:
    """Return the pages named on a command line (``rope``, ``/beyond/rope/``), else all."""
    every = site_pages(site)
    chosen = ["/" + p.strip("/") + "/" if p.strip("/") else "/" for p in names]
    unknown = [p for p in chosen if p not in every]
    if unknown:
        raise SystemExit(f"not pages of {site}: {', '.join(unknown)}")
    return chosen or every


@dataclass
class PageFacts:
    """What one page did while it was checked, for the tests that read the check."""

    #: Requests to another host, blocked (every view).
    outside: list[str] = field(default_factory=list)
    #: Console errors and uncaught exceptions (every view).
    errors: list[str] = field(default_factory=list)
    #: Every URL fetched for the first view, its visible figures loaded.
    fetched: list[str] = field(default_factory=list)
    #: At each of `FIGURE_WIDTHS`: ``(drawing's URL, width in CSS px)`` of each figure shown.
    figures: dict[int, list[tuple[str, float]]] = field(default_factory=dict)
    #: At each of `FIGURE_WIDTHS`: ``(first two column heads, px scrolled sideways)`` of each
    #: table of the article.
    tables: dict[int, list[tuple[tuple[str, ...], int]]] = field(default_factory=dict)


@dataclass
class Result:
    """What the pass found: page loads, sideways scrolling, stray permalinks, axe violations."""

    loads: int = 0
    checks: int = 0
    sideways: list[str] = field(default_factory=list)
    stray_permalinks: list[str] = field(default_factory=list)
    layout: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    violation_nodes: int = 0
    axe_runs: int = 0
    contrast_checked: int = 0  # distinct text and link signatures axe's colour rules checked
    rendering: list[str] = field(default_factory=list)  # `_RENDERED`'s problems, by page
    pages: dict[str, PageFacts] = field(default_factory=dict)

    def add(self, other: Result) -> None:
        """Add what `other` found (another set of pages) to this result."""
        self.loads += other.loads
        self.checks += other.checks
        self.sideways += other.sideways
        self.stray_permalinks += other.stray_permalinks
        self.layout += other.layout
        self.violations += other.violations
        self.violation_nodes += other.violation_nodes
        self.axe_runs += other.axe_runs
        self.contrast_checked += other.contrast_checked
        self.rendering += other.rendering
        self.pages.update(other.pages)

    def problems(self) -> list[str]:
        """Every problem found, one line each: an empty list when the site passed."""
        blocked = [
            f"{p}: request to another host: {u}" for p, f in self.pages.items() for u in f.outside
        ]
        errors = [f"{p}: console error: {e}" for p, f in self.pages.items() for e in f.errors]
        return (
            self.sideways
            + self.stray_permalinks
            + self.layout
            + self.violations
            + self.rendering
            + blocked
            + errors
        )


def _scheme(page: Any, scheme: str) -> None:
    """Switch the palette as the reader's toggle does (its radio input), without reloading.

    The theme answers the choice by setting ``data-md-color-scheme`` on the
    body; a page without the toggle gets the attribute set directly. Fails if
    the page does not end in `scheme`.
    """
    page.emulate_media(color_scheme=scheme)
    name = "slate" if scheme == "dark" else "default"
    now = page.evaluate(
        """(name) => {
          const toggle = document.querySelector(
            'input[name=__palette][data-md-color-scheme="' + name + '"]');
          if (toggle) toggle.click(); else document.body.setAttribute('data-md-color-scheme', name);
          return document.body.getAttribute('data-md-color-scheme');
        }""",
        name,
    )
    if now != name:
        raise RuntimeError(f"the page stayed in colour scheme {now!r}; asked for {name!r}")


def _axe(
    page: Any, disabled: set[str], *, recheck: bool = False, colours_only: bool = False
) -> Any:
    """Run axe's WCAG rules and `AXE_RULES` on the page; `recheck`: colours only on samples.

    With `recheck`, the colour-contrast rule looks only at the elements that
    `_MARK_UNSEEN` marked (``data-pe-recheck``) and link-in-text-block only at
    the links it marked (``data-pe-relink``), in the same run as every other rule.
    With `colours_only`, only the rules that read colours (`COLOUR_RULES`) run.
    KaTeX's drawn boxes are left out (see the module docstring). Returns
    ``[rule, node count, up to three examples]`` for each violation.
    """
    return page.evaluate(
        """async ([tags, extra, disabled, recheck, colours]) => {
          const rules = Object.fromEntries(disabled.map(r => [r, {enabled: false}]));
          const only = [{id: 'color-contrast', selector: '[data-pe-recheck]'},
            {id: 'link-in-text-block',
              selector: 'a[href][data-pe-relink], [role=link][data-pe-relink]'}];
          const runOnly = colours
            ? {type: 'rule', values: colours.filter(r => !disabled.includes(r))}
            : {type: 'tag', values: tags};
          // A rule named in options.rules runs beside the tags' rules (not in colours' runs).
          for (const r of extra) if (!disabled.includes(r)) rules[r] = {enabled: true};
          if (recheck) axe.configure({rules: only});
          try {
            const r = await axe.run({exclude: [['.katex-html']]},
              {runOnly, rules, resultTypes: ['violations']});
            return r.violations.map(v => [v.id, v.nodes.length,
              v.nodes.slice(0, 3).map(n => n.target.join(' ') + ': '
                + (n.failureSummary || '').split('\\n').slice(1, 2).join(''))]);
          } finally {
            if (recheck) axe.reset();
          }
        }""",
        [AXE_TAGS, AXE_RULES, sorted(disabled), recheck, COLOUR_RULES if colours_only else None],
    )


def check(
    browser: Any,
    base: str,
    paths: Iterable[str],
    *,
    widths: Iterable[int] = WIDTHS,
    axe_widths: Iterable[int] = AXE_WIDTHS,
    schemes: Iterable[str] = SCHEMES,
    skip_axe: dict[str, set[str]] | None = None,
    prepare: dict[str, str] | None = None,
    every_rule_in: Iterable[str] | None = None,
    figure_widths: Iterable[int] = FIGURE_WIDTHS,
    search: bool = True,
) -> Result:
    """Load every page as a desktop and as a phone; in each scheme resize it through `widths`.

    The widths up to `PHONE_MAX` are read in a phone's browser context (`PHONE`:
    touch, no hover, a mobile viewport), the others in a desktop's; axe runs at
    `axe_widths`.

    `skip_axe` maps a page path to axe rule ids not run there (none by default);
    `prepare` maps a page path to a script run on it once it has loaded, before
    any check (to make a problem on a real page, and test that it is found).
    `every_rule_in` names the schemes where axe runs every rule (all, by default);
    in the others it runs only `COLOUR_RULES`, the rules a scheme can change.
    On the first view of each page `_RENDERED` reads how it was drawn; at each
    of `figure_widths` (first scheme) its figures and tables are recorded (`PageFacts`).
    Without `search`, the theme's search worker is served idle
    (`local_site.IDLE_WORKER`; the test suite's check, whose search is tested apart).
    """
    axe = axe_script()
    result = Result()
    widths, axe_widths, paths = sorted(set(widths), reverse=True), set(axe_widths), list(paths)
    figure_widths = set(figure_widths)
    facts = PageFacts()  # the page being checked: the listeners below write to it
    counting = [False]  # whether a finished request counts for the page's first view
    schemes = list(schemes)
    every_rule = set(schemes if every_rule_in is None else every_rule_in)
    seen: dict[str, set[str]] = {scheme: set() for scheme in schemes}  # text signatures checked
    # The desktop's widths, then the phone's (`PHONE_MAX`): each in its own context.
    devices = [
        group
        for group in (
            [w for w in widths if w > PHONE_MAX],
            [w for w in widths if w <= PHONE_MAX],
        )
        if group
    ]

    def route(route: Any) -> None:
        url = route.request.url
        if not search and is_search_worker(url):
            route.fulfill(body=IDLE_WORKER, content_type="text/javascript")
        elif url.startswith((base, "data:", "blob:")):
            route.continue_()
        else:
            facts.outside.append(url)
            route.abort()

    def finished(request: Any) -> None:
        if counting[0]:
            facts.fetched.append(request.url)

    contexts, pages = [], []
    for group in devices:
        phone = PHONE if group[0] <= PHONE_MAX else {}
        context = browser.new_context(
            viewport={"width": group[0], "height": HEIGHT}, color_scheme=schemes[0], **phone
        )
        context.add_init_script(_WATCH_TRANSITIONS)
        contexts.append(context)
        page = context.new_page()
        page.route("**/*", route)
        page.on(
            "console", lambda msg: facts.errors.append(msg.text) if msg.type == "error" else None
        )
        page.on("pageerror", lambda error: facts.errors.append(str(error)))
        page.on("requestfinished", finished)
        pages.append(page)
    try:
        for path in paths:
            facts = result.pages[path] = PageFacts()
            for device, (group, page) in enumerate(zip(devices, pages, strict=True)):
                counting[0] = device == 0
                open_page(page, base + path.lstrip("/"))
                result.loads += 1
                if prepare and path in prepare:
                    page.evaluate(prepare[path])
                if page.locator(".arithmatex").count():
                    page.wait_for_function(MATH_READY, timeout=15_000)
                _load_figures(page)
                page.evaluate("document.fonts.ready")
                if device == 0:
                    result.rendering += [
                        f"{path}: {problem}" for problem in page.evaluate(_RENDERED)
                    ]
                counting[0] = False
                page.add_style_tag(content=_STILL)
                # (after the page's own loading is read: scrolling moves the header's
                # title and the table of contents' mark, with transitions)
                page.evaluate(SCROLLED_THROUGH)
                page.evaluate(axe)
                width_now = group[0]
                for turn, scheme in enumerate(schemes):
                    # Switched as the toggle does, on the loaded page; the widths are walked
                    # down in one scheme and back up in the next, so no width is visited twice
                    # in a row.
                    _scheme(page, scheme)
                    for formula in page.evaluate(_MATH_INK):
                        result.violations.append(
                            f"{path} {scheme}: math-ink: {formula} is drawn in a colour or"
                            " on a background of its own, which axe does not check"
                        )
                    for width in group if turn % 2 == 0 else group[::-1]:
                        if width != width_now:
                            page.set_viewport_size({"width": width, "height": HEIGHT})
                            width_now = width
                        page.evaluate(_SETTLED)
                        record = turn == 0 and width in figure_widths
                        _check_view(page, path, width, scheme, record, result, facts)
                        if width in axe_widths:
                            disabled = set((skip_axe or {}).get(path, set()))
                            # Contrast only for text drawn unlike any checked before.
                            fresh = page.evaluate(_MARK_UNSEEN, sorted(seen[scheme]))
                            found = _axe(
                                page, disabled, recheck=True, colours_only=scheme not in every_rule
                            )
                            seen[scheme].update(fresh)
                            result.contrast_checked += len(fresh)
                            result.axe_runs += 1
                            for rule, count, examples in found:
                                result.violation_nodes += count
                                result.violations.append(
                                    f"{path} {width}px {scheme}: {rule} x{count}: {examples}"
                                )
    finally:
        for context in contexts:
            context.close()
    return result


def _check_view(
    page: Any, path: str, width: int, scheme: str, record: bool, result: Result, facts: PageFacts
) -> None:
    """Read one view of a page: sideways scrolling, stray permalinks, `_LAYOUT`.

    With `record`, its figures and tables are recorded too (`PageFacts`).
    """
    result.checks += 1
    if record:
        _load_figures(page)
        facts.figures[width] = [tuple(f) for f in page.evaluate(_FIGURES)]
        facts.tables[width] = [(tuple(names), over) for names, over in page.evaluate(_TABLES)]
    overflow, wide = page.evaluate(_OVERFLOW)
    if overflow > 0:
        result.sideways.append(
            f"{path} {width}px {scheme}: scrolls sideways by {overflow}px ({wide})"
        )
    stray = page.evaluate(_STRAY_PERMALINKS)
    if stray:
        result.stray_permalinks.append(
            f"{path} {width}px {scheme}: a heading ends in a blank line ({stray})"
        )
    result.layout += [
        f"{path} {width}px {scheme}: {problem}" for problem in page.evaluate(_LAYOUT, width)
    ]


def _load_figures(page: Any) -> None:
    """Load the lazy figures this window shows, and wait until every one has loaded."""
    page.evaluate(_EAGER)
    page.wait_for_function(_FIGURES_LOADED)


def check_side_by_side(
    launch: Callable[[Any], Any],
    base: str,
    paths: Iterable[str],
    *,
    schemes: Iterable[str] = SCHEMES,
    **options: Any,
) -> Result:
    """Run `check` on two halves of `paths` at once, each in its own browser and thread.

    `launch` takes a Playwright instance and returns a browser. Each thread starts
    its own Playwright (its API is not shared between threads), so the halves
    run side by side on a machine with two cores; the results are added up.
    Each page is checked in every scheme; axe's rules that read only elements,
    names, roles and layout run in the first scheme, and the rules that read
    colours (`COLOUR_RULES`) in every scheme, so each rule's answer is got once
    wherever a scheme cannot change it.
    """
    from playwright.sync_api import sync_playwright

    paths, schemes = list(paths), list(schemes)
    halves = [paths[0::2], paths[1::2]]

    def one(half: list[str]) -> Result:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            try:
                return check(
                    browser, base, half, schemes=schemes, every_rule_in=schemes[:1], **options
                )
            finally:
                browser.close()

    with ThreadPoolExecutor(max_workers=len(halves)) as pool:
        parts = list(pool.map(one, [half for half in halves if half]))
    total = Result()
    for part in parts:
        total.add(part)
    total.pages = {path: total.pages[path] for path in paths}  # in the order asked for
    return total
