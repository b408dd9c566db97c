"""Pack the built site into one zip file for reading offline (``make archive``).

Usage: ``python -m tools.archive [SITE_DIR] [ARCHIVE]`` (defaults ``site``
and ``dist/pe-site.zip``). Every file of the site goes under one top folder,
``pe-site/``, in sorted order with a fixed timestamp, so the same site always
gives the same bytes. To read it::

    unzip pe-site.zip && python -m http.server --directory pe-site 8000

and open http://127.0.0.1:8000/. Everything the pages need (math, search,
figures, the playground) is inside; nothing is fetched from another host.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

TOP = "pe-site"
STAMP = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip entry can hold
# Already compressed, or not worth the time: stored as they are.
STORED = {".woff", ".woff2", ".png", ".jpg", ".gz", ".zip"}


def make_archive(site: Path, archive: Path) -> int:
    """Write every file under `site` into the zip `archive`; return how many."""
    if not (site / "index.html").is_file():
        raise FileNotFoundError(f"no built site in {site} (run 'make build' first)")
    files = sorted(path for path in site.rglob("*") if path.is_file())
    archive.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive, "w") as bundle:
        for path in files:
            name = f"{TOP}/{path.relative_to(site).as_posix()}"
            entry = zipfile.ZipInfo(name, date_time=STAMP)
            entry.external_attr = 0o644 << 16
            stored = path.suffix in STORED
            entry.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            bundle.writestr(entry, path.read_bytes(), compresslevel=None if stored else 9)
    return len(files)


def main(argv: list[str]) -> int:
    """Pack the site named on the command line and say where it went."""
    site = Path(argv[0] if argv else "site")
    archive = Path(argv[1] if len(argv) > 1 else "dist/pe-site.zip")
    count = make_archive(site, archive)
    size = archive.stat().st_size
    print(f"wrote {archive}: {count} files, {size / 2**20:.1f} MiB")
    print(f"read it offline: unzip {archive.name} && python -m http.server --directory {TOP}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
