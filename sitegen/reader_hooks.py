"""MkDocs hooks for the reader's path: the wheel, the Install page, copyable code.

Listed under ``hooks:`` in ``mkdocs.yml`` (beside ``sitegen/hooks.py``). They

- serve the package's wheel at ``dist/<wheel>``, so ``pip install <site>/dist/<wheel>``
  works for someone who never cloned the repository;
- write the commands of the Install page from the configuration (``site_url``,
  ``repo_url``) and the wheel's name, so the page never names a stale file;
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
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.modules.pop("sitegen.reader", None)

from sitegen import reader  # noqa: E402

DIST = "dist"


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


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Serve the wheel, built from this tree, at ``dist/<wheel>``."""
    try:
        wheel = reader.build_wheel()
    except RuntimeError as error:
        raise PluginError(str(error)) from None
    files.append(File.generated(config, f"{DIST}/{wheel.name}", abs_src_path=str(wheel)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, **_: object) -> str:
    """Fill in the Install page's commands: ``{{ wheel_url }}`` and ``{{ repo_url }}``."""
    if page.file.src_uri != "install.md":
        return markdown
    site_url = (config.site_url or "").rstrip("/")
    repo_url = (config.repo_url or "").rstrip("/")
    if repo_url:
        git_install = f'```bash\npip install "git+{repo_url}"\n```'
    else:  # built from a clone with no remote: say how to install from that clone
        git_install = "```bash\npip install .  # in the clone this site was built from\n```"
    values = {
        "wheel_url": f"{site_url}/{DIST}/{reader.wheel_name()}",
        "git_install": git_install,
        "dist_name": reader.distribution()[0],
    }
    return re.sub(r"\{\{ (wheel_url|git_install|dist_name) \}\}", lambda m: values[m[1]], markdown)


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
        f'<p class="pe-downloads">The {len(blocks)} runnable blocks of this page, in order: '
        f'<a href="{stem}.ipynb" download>as a notebook</a> (with the outputs shown here) or '
        f'<a href="{stem}.py" download>as a script</a>.</p>'
    )
    return re.sub(r"(</h1>)", lambda match: match[1] + links, output, count=1)
