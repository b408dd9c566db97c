"""Print how much each page of a built site weighs (``make weight``).

Usage: ``python -m tools.page_weight [SITE_DIR]`` (default ``site/``, from
``make build``). Serves the directory on a free local port, loads every page in
Debian's Chromium and prints raw and compressed bytes per page; writes them
to ``benchmarks/results/weight.json`` when given ``--record`` (``make weight``
does), and exits with status 1 if a page needs more than 1.5 MiB compressed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from benchmarks._common import environment, write
from tools import local_site
from tools.weight import LIMIT, page_weights

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    """Measure every page and print the table; return 1 if a page is too heavy."""
    arguments = [a for a in sys.argv[1:] if a != "--record"]
    site = local_site.built_site(arguments, ROOT / "site")
    from playwright.sync_api import sync_playwright

    with local_site.served(site) as base, sync_playwright() as playwright:
        browser = local_site.launch(playwright)
        weights = page_weights(browser, base, site)
        browser.close()
    print(f"{'page':40s} {'files':>5s} {'raw KiB':>9s} {'compressed KiB':>15s}")
    for weight in sorted(weights, key=lambda w: -w.compressed):
        print(
            f"{weight.path:40s} {weight.files:5d} {weight.raw / 1024:9.0f} "
            f"{weight.compressed / 1024:15.0f}"
        )
    heaviest = max(weights, key=lambda w: w.compressed)
    print(
        f"heaviest page: {heaviest.path}, {heaviest.compressed / 2**20:.2f} MiB compressed "
        f"({heaviest.raw / 2**20:.2f} MiB raw); limit {LIMIT / 2**20:.1f} MiB"
    )
    if "--record" in sys.argv:
        pages: list[dict[str, Any]] = [
            {"page": w.path, "files": w.files, "raw_bytes": w.raw, "compressed_bytes": w.compressed}
            for w in sorted(weights, key=lambda w: w.path)
        ]
        payload = {
            **environment(threads=1),
            "limit_bytes": LIMIT,
            "pages": pages,
            "heaviest_compressed": {"page": heaviest.path, "bytes": heaviest.compressed},
            "heaviest_raw": max(pages, key=lambda p: p["raw_bytes"]),
            "targets_met": heaviest.compressed <= LIMIT,
        }
        print(f"wrote {write('weight', payload).relative_to(ROOT)}")
    return 1 if heaviest.compressed > LIMIT else 0


if __name__ == "__main__":
    sys.exit(main())
