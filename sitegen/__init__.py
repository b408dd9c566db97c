"""Build-time machinery of the site: figure cache, offline math assets, tables.

Nothing here is part of the `pe` library. The MkDocs hook (`sitegen.hooks`)
runs the figure scripts and adds their output and the MathJax files to the
build; the pages call `sitegen.tables` from executed code blocks to print
Markdown tables computed by `pe`.
"""
