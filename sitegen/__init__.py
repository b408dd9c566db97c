"""Build-time machinery of the site: figure cache, math, tables.

Nothing here is part of the `pe` library. The MkDocs hook (`sitegen.hooks`)
runs the figure scripts, adds their output to the build and the site's Markdown
extension typesets every formula with KaTeX (`sitegen.typeset`); each page calls
its `sitegen.pages` module from
executed code blocks to print Markdown tables computed by `pe`.
"""
