"""Check every page on every screen and time math on a throttled phone (``make screens``).

Usage: ``python -m tools.screens [SITE_DIR] [--record]`` (default ``site/``, from
``make build``). Loads every page in Debian's Chromium in both colour schemes
at 320, 375, 768 and 1280 px and counts the page views that scroll sideways;
runs axe-core (WCAG 2.1 AA) at 375 and 1280 px and counts its violations; reads
each page's math and figures as drawn, and counts requests to another host and
console errors (see `tools.screen_checks`). Then opens the formula page as a
throttled phone would (1.6 Mbps, 150 ms round trip, CPU 4x slower, through the
DevTools protocol) and measures the seconds from navigation until its math is
drawn. With ``--record`` writes ``benchmarks/results/screens.json``. Exits with
status 1 if any of those finds a problem or math takes over 2.5 s.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from benchmarks._common import environment, write
from tools import local_site
from tools import screen_checks as screens
from tools.local_site import open_page

ROOT = Path(__file__).resolve().parents[1]

MATH_TARGET_S = 2.5
PHONE = {"latency_ms": 150, "download_mbps": 1.6, "upload_mbps": 0.75, "cpu_slowdown": 4}
# Time from navigation until a formula is laid out with a real size in KaTeX's
# fonts (font-display: block: its glyphs are invisible until they load), and
# the page's first contentful paint; math counts as drawn at the later of the two.
_WATCH = """
window.__peMath = null;
(function poll() {
  const m = document.querySelector('.arithmatex .katex-html');
  const fonts = [...document.fonts].filter(f => f.family.startsWith('KaTeX'));
  if (m && m.getBoundingClientRect().height > 5 && fonts.some(f => f.status === 'loaded')
      && fonts.every(f => f.status !== 'loading')) {
    window.__peMath = performance.now(); return;
  }
  requestAnimationFrame(poll);
})();
"""


def math_on_a_phone(browser: Any, base: str, path: str = "formula/") -> dict[str, float]:
    """Seconds until the math of `path` is drawn on a throttled phone, and first paint."""
    context = browser.new_context(
        viewport={"width": 375, "height": 740}, device_scale_factor=2, is_mobile=True
    )
    page = context.new_page()
    page.add_init_script(_WATCH)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": PHONE["latency_ms"],
            "downloadThroughput": PHONE["download_mbps"] * 1e6 / 8,
            "uploadThroughput": PHONE["upload_mbps"] * 1e6 / 8,
        },
    )
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": PHONE["cpu_slowdown"]})
    open_page(page, base + path, timeout=60_000)
    page.wait_for_function("window.__peMath !== null", timeout=60_000)
    math_ms = page.evaluate("window.__peMath")
    paint_ms = page.evaluate(
        "(performance.getEntriesByName('first-contentful-paint')[0] || {startTime: 0}).startTime"
    )
    tex = page.evaluate(
        "[...document.querySelectorAll('.arithmatex')]"
        ".some(e => /\\\\[a-z(\\[]/i.test(e.textContent))"
    )
    context.close()
    if tex:
        raise SystemExit(f"{path}: raw TeX on the page")
    return {"math_s": max(math_ms, paint_ms) / 1000, "first_paint_s": paint_ms / 1000}


def main() -> int:
    """Run every check, print the figures; return 1 if a target is missed."""
    arguments = [a for a in sys.argv[1:] if a != "--record"]
    site = local_site.built_site(arguments, ROOT / "site")
    from playwright.sync_api import sync_playwright

    paths = screens.site_pages(site)
    with local_site.served(site, local_site.GzipHandler) as base, sync_playwright() as playwright:
        browser = local_site.launch(playwright)
        start = time.perf_counter()
        result = screens.check_side_by_side(local_site.launch, base, paths)
        seconds = time.perf_counter() - start
        phone = math_on_a_phone(browser, base)
        browser.close()
    for line in result.problems():
        print(line)
    views = f"{len(paths)} pages x {len(screens.WIDTHS)} widths x {len(screens.SCHEMES)} schemes"
    print(f"page views checked: {result.checks} ({views}), in {seconds:.0f} s")
    print(f"page views that scroll sideways: {len(result.sideways)}")
    print(f"page views with a heading ending in a blank line: {len(result.stray_permalinks)}")
    print(f"reading problems (tables, figures, code, math, targets): {len(result.layout)}")
    print(f"drawing problems (math as TeX, images not loaded or unnamed): {len(result.rendering)}")
    blocked = sum(len(facts.outside) for facts in result.pages.values())
    errors = sum(len(facts.errors) for facts in result.pages.values())
    print(f"requests to another host: {blocked}; console errors: {errors}")
    print(
        f"axe-core WCAG 2.1 AA violations: {result.violation_nodes} "
        f"(in {result.axe_runs} runs at {', '.join(map(str, screens.AXE_WIDTHS))} px)"
    )
    # Printed from the values as recorded (to the millisecond), so the figure printed is
    # the README's: from the unrounded time, the 1.055 s recorded on 2026-11-28 was
    # printed as 1.06 and shown in the README as 1.05.
    math_s, first_paint_s = round(phone["math_s"], 3), round(phone["first_paint_s"], 3)
    print(
        f"math drawn on a throttled phone after {math_s:.2f} s "
        f"(first paint {first_paint_s:.2f} s; target {MATH_TARGET_S} s)"
    )
    met = not result.problems() and phone["math_s"] <= MATH_TARGET_S
    if "--record" in sys.argv:
        payload = {
            **environment(threads=1),
            "pages": len(paths),
            "widths": list(screens.WIDTHS),
            "schemes": list(screens.SCHEMES),
            "axe_widths": list(screens.AXE_WIDTHS),
            "page_views": result.checks,
            "sideways": len(result.sideways),
            "stray_permalinks": len(result.stray_permalinks),
            "layout_problems": len(result.layout),
            "drawing_problems": len(result.rendering),
            "outside_requests": blocked,
            "console_errors": errors,
            "axe_runs": result.axe_runs,
            "axe_violations": result.violation_nodes,
            "phone": PHONE,
            "math_on_phone_s": math_s,
            "first_paint_on_phone_s": first_paint_s,
            "math_target_s": MATH_TARGET_S,
            "targets_met": met,
        }
        print(f"wrote {write('screens', payload).relative_to(ROOT)}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
