"""MkDocs hooks for the reader's path: the repository link, copyable code, downloads.

Listed under ``hooks:`` in ``mkdocs.yml`` (beside ``sitegen/hooks.py``); Zensical
runs no hooks, and none of this is needed for a correct page. The wheel served
at ``dist/<wheel>`` and the Install page's commands are written by the Markdown
extension `sitegen.site_markdown`, which both builds run. These hooks

- find the repository's address from the clone's ``origin`` remote when the
  configuration names none;
- show the distribution's name and version beside the repository link, and keep
  Material from asking GitHub's API for the repository's facts (the site
  requests nothing from another host);
- mark console sessions (``>>>`` examples of the API reference) and signatures
  ``no-copy``: they are not programs to paste;
- write each page's runnable blocks, in order, to ``pe-<page>.ipynb`` (with the
  outputs the page shows) and ``pe-<page>.py`` beside the page, and link both
  under its title.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.modules.pop("sitegen.reader", None)

from sitegen import reader  # noqa: E402


def _origin_url() -> str | None:
    """Return the web address of this clone's ``origin`` remote, or None if it has none.

    The deploy workflow sets ``PE_REPO_URL``; a local build links to the
    repository it was cloned from, and shows no repository link at all when
    there is no remote (rather than an address nobody checked).
    """
    try:
        remote = subprocess.run(
            ["git", "remote", "get-url", "origin"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    scp = re.fullmatch(r"[\w.-]+@([\w.-]+):(.+)", remote)  # git@host:owner/name.git
    if scp:
        remote = f"https://{scp[1]}/{scp[2]}"
    if not remote.startswith(("https://", "http://")):
        return None  # a local path or another protocol: nothing a reader can open
    return remote.removesuffix(".git").rstrip("/")


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Find the repository's address; name the distribution and its version beside it."""
    if not config.repo_url:
        config.repo_url = _origin_url()
        config.edit_uri = "edit/main/docs/" if config.repo_url else None
    if config.repo_url:
        name, version = reader.distribution()
        config.repo_name = f"{name} {version}"
    return config


def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    """Tidy the page for the reader, and offer its code as a notebook and a script."""
    output = output.replace('class="md-source" data-md-component="source"', 'class="md-source"')
    output = re.sub(
        r'<div class="(language-pycon [^"]*highlight|language-python doc-signature highlight)"',
        r'<div class="\1 no-copy"',
        output,
    )
    blocks = reader.runnable(reader.copied_blocks(output))
    if not blocks:
        return output
    stem = f"pe-{Path(page.file.src_uri).stem}"
    folder = Path(config.site_dir) / Path(page.file.dest_uri).parent
    folder.mkdir(parents=True, exist_ok=True)
    title = page.title or stem
    (folder / f"{stem}.ipynb").write_text(reader.notebook(blocks, str(title)))
    (folder / f"{stem}.py").write_text(reader.script(blocks, str(title)))
    links = (
        f'<p class="pe-downloads">{reader.blocks_phrase(len(blocks))}: '
        f'<a href="{stem}.ipynb" download>as a notebook</a> (with the outputs shown here) or '
        f'<a href="{stem}.py" download>as a script</a>.</p>'
    )
    return re.sub(r"(</h1>)", lambda match: match[1] + links, output, count=1)
