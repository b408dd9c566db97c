"""Fetch the pinned KaTeX from npm and vendor it (``make katex``), or check the copy.

The site's math is typeset while it is built by KaTeX (``sitegen/typeset.py``),
run in QuickJS from PyPI, so building needs no node. KaTeX itself is not on
PyPI, so its files are vendored here at one pinned version:

- ``vendor/katex/katex.min.js`` and ``LICENSE``: what the build runs (never served);
- ``docs/assets/katex/katex.css``: KaTeX's ``katex.min.css`` with every font
  source but the woff2 one removed (every browser that draws MathML-era CSS
  reads woff2), and ``docs/assets/katex/fonts/*.woff2``, served by the site;
  a browser fetches only the fonts the page's math uses;
- ``vendor/katex/SHA256SUMS``: the hash of every vendored file, which the
  tests check offline (``tests/test_typeset.py``).

``python -m tools.vendor_katex`` runs ``npm pack katex@VERSION`` (npm checks the
tarball against the registry), checks the tarball against the integrity pinned
below, and writes the files; ``--check`` writes nothing and fails if a vendored
file differs from what the tarball gives. To move to a new KaTeX, change
`VERSION` and `INTEGRITY` (``npm view katex@X dist.integrity``) and run it.
Only maintainers need npm; the build and the tests read the vendored files.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "vendor" / "katex"
SERVED = ROOT / "docs" / "assets" / "katex"
VERSION = "0.19.1"
INTEGRITY = (
    "sha512-jG8uKntjSEcm2EpQOh0XturpPuuC9r3Sq5HLHdsFdWZT27E672SF19QEi+of0"
    "/YeOy15lDgRhKvr5614uRrEfA=="
)
# A @font-face source list: keep the woff2 entry, drop the woff and ttf ones.
_OTHER_SOURCES = re.compile(r',url\(fonts/[\w-]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)')


def woff2_only(css: str) -> str:
    """KaTeX's CSS with only the woff2 source in each ``@font-face``.

    >>> woff2_only('src:url(fonts/A.woff2) format("woff2"),url(fonts/A.woff) format("woff"),'
    ...            'url(fonts/A.ttf) format("truetype")}')
    'src:url(fonts/A.woff2) format("woff2")}'
    """
    return _OTHER_SOURCES.sub("", css)


def vendored(tarball: bytes) -> dict[Path, bytes]:
    """Every vendored file (path in the repository → bytes) made from the npm tarball."""
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:

        def read(name: str) -> bytes:
            member = archive.extractfile(f"package/{name}")
            if member is None:
                raise SystemExit(f"katex {VERSION}: {name} is missing from the tarball")
            return member.read()

        files = {
            VENDOR / "katex.min.js": read("dist/katex.min.js"),
            VENDOR / "LICENSE": read("LICENSE"),
            SERVED / "LICENSE": read("LICENSE"),
            SERVED / "katex.css": woff2_only(read("dist/katex.min.css").decode()).encode(),
        }
        fonts = sorted(
            name[len("package/") :]
            for name in archive.getnames()
            if re.fullmatch(r"package/dist/fonts/KaTeX_[\w-]+\.woff2", name)
        )
        for name in fonts:
            files[SERVED / "fonts" / Path(name).name] = read(name)
    files[VENDOR / "SHA256SUMS"] = sums(files).encode()
    return files


def sums(files: dict[Path, bytes]) -> str:
    """``sha256sum``-style lines for `files`, paths relative to the repository."""
    return "".join(
        f"{hashlib.sha256(data).hexdigest()}  {path.relative_to(ROOT).as_posix()}\n"
        for path, data in sorted(files.items())
    )


def fetch() -> bytes:
    """Fetch the npm tarball of KaTeX `VERSION` and check it against `INTEGRITY`."""
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            ["npm", "pack", f"katex@{VERSION}", "--pack-destination", folder, "--silent"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        tarball = (Path(folder) / f"katex-{VERSION}.tgz").read_bytes()
    digest = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    if digest != INTEGRITY:
        raise SystemExit(f"katex {VERSION}: tarball integrity {digest} is not {INTEGRITY}")
    return tarball


def main(argv: list[str] | None = None) -> int:
    """Write the vendored files, or with ``--check`` compare them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    files = vendored(fetch())
    if args.check:
        stale = [p for p, data in files.items() if not p.is_file() or p.read_bytes() != data]
        extra = {p for p in SERVED.rglob("*") if p.is_file()} - set(files)
        for path in sorted(stale) + sorted(extra):
            print(f"differs from katex {VERSION}: {path.relative_to(ROOT)}", file=sys.stderr)
        return 1 if stale or extra else 0
    for old in SERVED.glob("fonts/*"):
        old.unlink()
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"katex {VERSION}: {len(files)} files written")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
