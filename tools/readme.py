"""Write the measured figures into the README's Development section (``make readme``).

The figures come from the committed results in ``benchmarks/results/``:
``table.json`` (``make bench``), ``timing.json`` (``make timing``),
``weight.json`` (``make weight``), ``screens.json`` (``make screens``) and
``lighthouse.json`` (``make lighthouse``).
They go between two markers in README.md; nothing between them is typed by
hand. ``--check`` changes nothing and exits
with status 1 if the README is out of date (the test suite runs it).
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sitegen.results import MAKE, Name, Record, recorded

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
START = "<!-- figures:start: written by `make readme` from benchmarks/results/ -->"
END = "<!-- figures:end -->"
MIB = 2**20


def _missing(name: Name) -> str:
    return f"| `make {MAKE[name]}` | not recorded (yet) | `make {MAKE[name]}` |"


def _speed_rows(table: dict[str, Any]) -> list[str]:
    rows = []
    for framework in ("numpy", "torch"):
        for entry in table[framework]:
            seconds = entry["seconds"]
            ours = seconds["pe"]
            others = "; ".join(
                f"{name}: {seconds[name] / ours:.1f}×"
                for name in sorted(seconds)
                if name not in ("pe", "allocate and fill")
            )
            fill = seconds["allocate and fill"]
            rows.append(
                f"| table speed, {framework}, {entry['length']:,} × {entry['d_model']:,} "
                f"| `pe` {ours * 1e3:.2f} ms, faster than {others}; {ours / fill:.2f}× the time "
                f"to allocate and fill the output | `make bench` |"
            )
    return rows


def _table_rows(table: dict[str, Any]) -> list[str]:
    worst = table["pe_below_2_24"]
    last = table["errors"][-1]
    common = next(row for row in table["memory"] if row["method"] == "(a) common float32")
    ours = next(row for row in table["memory"] if row["method"] == "pe")
    return [
        *_speed_rows(table),
        f"| accuracy below 2^24 | `pe`: at most {worst['max_error_float64']:.1e} from float64 "
        f"over {worst['random_windows']} random windows, {worst['max_error_mpmath']:.1e} in "
        f"{worst['mpmath_spot_checks']} mpmath checks; the common float32 recipe near "
        f"{last['start']:,}: {last['numpy (a) common float32']:.2f} | `make bench` |",
        f"| memory | `pe`'s largest temporary: {ours['extra_over_output']:.3f}× its output "
        f"(the common recipe: {common['extra_over_output']:.2f}×) | `make bench` |",
    ]


def _rope_rows(rope: dict[str, Any]) -> list[str]:
    cases = rope["accuracy"]
    speed = rope["speed"]
    ms = speed["median_ms"]
    steps = speed["decode"]["median_us"]
    copy, apply = "copy of q and k", "transformers apply only (cos, sin given)"
    copy_into = "copy into buffers written before"
    llama, interleaved = "pe eager (concatenated, Llama)", "pe eager (interleaved)"
    torch_ops = "pe eager (Llama), torch's operations only"
    met = speed["met"]
    accuracy = "; ".join(
        f"{case['case']}: `pe` {case['ours_max_error']:.1e}, transformers "
        f"{case['transformers_max_error']:.1e}"
        for case in cases
    )
    fastest_peer = min(
        (name for name in ms if not name.startswith("pe ") and name not in (copy, copy_into)),
        key=ms.__getitem__,
    )
    missed = [target for target, ok in met.items() if not ok]
    return [
        f"| RoPE cos/sin cache, float32, positions to 2^20 (head_dim {rope['head_dim']}, "
        f"base {rope['base']:g}) | largest error against mpmath: {accuracy} | `make bench` |",
        f"| RoPE prefill, CPU, q {tuple(speed['q_shape'])} and k {tuple(speed['k_shape'])} "
        f"| `pe` {ms[llama]:.0f} ms (Llama layout; torch's operations only, as without a C "
        f"compiler: {ms[torch_ops]:.0f} ms, {ms[torch_ops] / ms[copy]:.2f}×) and "
        f"{ms[interleaved]:.0f} ms (interleaved): "
        f"{ms[llama] / ms[copy]:.2f}× and {ms[interleaved] / ms[copy]:.2f}× a bare copy of q "
        f"and k (target {speed['targets']['prefill_vs_copy']}×), {ms[copy]:.0f} ms, of which "
        f"{ms[copy] - ms[copy_into]:.0f} ms is fresh memory (the copy into buffers written "
        f"before: {ms[copy_into]:.1f} ms); the Llama layout compiled: "
        f"{ms['pe compiled']:.0f} ms, {ms['pe compiled'] / ms[copy]:.2f}×; fastest other: "
        f"{fastest_peer} {ms[fastest_peer]:.0f} ms | `make bench` |",
        f"| RoPE decoding step, CPU, one token at {speed['decode']['offset']:,} "
        f"| `pe` {steps[llama]:.0f} µs, transformers' apply alone (cos, sin given) "
        f"{steps[apply]:.0f} µs (target: no slower); load average "
        f"{speed['load_average'][0]:.1f} | `make bench` |",
        "| RoPE speed targets | "
        + ("all met" if not missed else "missed: " + "; ".join(missed))
        + " | `make bench` |",
    ]


def _timing_rows(timing: dict[str, Any]) -> list[str]:
    targets = timing["targets"]
    links = timing["links_checked"]
    same = timing["reproducible"]
    return [
        f"| bad input | the Errors page: {timing['errors_documented']} bad calls, each a "
        "`TypeError` or `ValueError` naming its parameter; hypothesis for the rest "
        "| `make timing` |",
        f"| links | htmlproofer: {links['references']:,} internal links, anchors and images on "
        f"{links['pages']} pages, none broken | `make timing` |",
        f"| reproducible | two clean builds: {same['files']} files, "
        + ("identical (sitemap dates aside)" if not same["differing"] else "NOT identical")
        + " | `make timing` |",
        f"| offline | the cold build ran with no network: {timing['offline']} | `make timing` |",
        f"| cold build | {timing['cold_build_seconds']:.1f} s, every figure drawn, links checked "
        "| `make timing` |",
        f"| warm build | {timing['warm_build_seconds']:.1f} s "
        f"(target < {targets['warm_build_seconds']:.0f} s), no figure drawn | `make timing` |",
        *(
            [
                f"| Zensical build | cold {timing['zensical_cold_build_seconds']:.1f} s, warm "
                f"{timing['zensical_warm_build_seconds']:.1f} s (`zensical build --strict`, "
                "no hooks) | `make timing` |"
            ]
            if "zensical_cold_build_seconds" in timing
            else []
        ),
        f"| edit a page under `make serve` | shown after {timing['serve_edit_seconds']:.1f} s "
        f"(target < {targets['serve_edit_seconds']:g} s), no figure drawn | `make timing` |",
        f"| edit one figure script | {timing['one_figure_report'].removeprefix('figures: ')}; "
        f"build {timing['one_figure_seconds']:.1f} s | `make timing` |",
        f"| `make test` | {timing['make_test_seconds']:.0f} s "
        f"(target < {targets['make_test_seconds']:.0f} s): {timing['make_test_summary']} "
        "| `make timing` |",
        *_fresh_clone_row(timing),
    ]


def _fresh_clone_row(timing: dict[str, Any]) -> list[str]:
    if "fresh_clone_serve_seconds" not in timing:
        return []
    clone = timing["fresh_clone_serve"]
    cache = clone["install_cache"]
    tool = cache["installer"]
    note = ""
    if tool == "uv" and cache["bytes_before"]["pip"] == 0 and cache["bytes_added"]["pip"] == 0:
        # pip installs uv itself; with pip's cache empty before and after, it was fetched.
        note = "; uv itself fetched by pip, whose cache stays empty here"
    source = (
        f"with {tool} from its cache (warm{note})"
        if cache["warm"]
        else f"with {tool}, its cache cold (downloaded{note})"
    )
    figures = clone.get("figures_shown_seconds")
    shown = (
        f"; the pages come first, every figure is shown at {figures:.0f} s"
        if figures is not None
        else ""
    )
    load = clone.get("load_average", {}).get("before")
    at_load = (
        f" at load average {load[0]:.1f} on {timing['machine']['logical_cpus']} cores"
        if load
        else ""
    )
    runs = clone.get("runs_seconds")
    median = (
        f", the median of {len(runs)} runs ({', '.join(f'{r:.0f}' for r in runs)} s)"
        if runs
        else ""
    )
    return [
        f"| fresh clone to first page | {timing['fresh_clone_serve_seconds']:.0f} s{median}"
        f"{at_load} "
        f"(target < {timing['targets']['fresh_clone_serve_seconds']:.0f} s): `git clone`, then "
        f"`make serve` installs {clone['env_bytes'] / 2**20:.0f} MiB "
        f"({'with' if clone['torch_installed'] else 'no'} torch) in "
        f"{clone['install_seconds']:.0f} s {source} and builds with no figure cache{shown} "
        "| `make timing` |",
        f"| install sizes | `make serve`'s `.venv`: {clone['env_bytes'] / 2**20:.0f} MiB; "
        f"`make test`'s: {clone['full_env_bytes'] / 2**30:.1f} GiB, of which torch (a CPU-only "
        f"build here) {clone['full_env_torch_bytes'] / 2**20:.0f} MiB | `make timing` |",
    ]


def _weight_rows(weight: dict[str, Any]) -> list[str]:
    heavy = weight["heaviest_compressed"]
    raw = weight["heaviest_raw"]
    return [
        f"| page weight | heaviest page `{heavy['page']}`: {heavy['bytes'] / MIB:.2f} MiB "
        f"compressed as served by GitHub Pages (limit {weight['limit_bytes'] / MIB:.1f} MiB); "
        f"uncompressed at most {raw['raw_bytes'] / MIB:.2f} MiB (`{raw['page']}`) "
        "| `make weight` |",
    ]


def _reader_rows(reader: dict[str, Any]) -> list[str]:
    return [
        f"| reader's path | {reader['blocks run']} copyable Python blocks on {reader['pages']} "
        "pages, each run alone in a fresh environment with only the served wheel, numpy and "
        "torch (and transformers for a block that imports it, on a page that says to "
        f"install it): {reader['outputs matched']} print exactly what the page shows "
        f"({reader['blocks with output shown']} show an output); "
        f"{reader['blocks marked no-copy']} blocks marked no-copy (library excerpts, and the "
        "API reference's signatures and console sessions) "
        "| `make test` (`tests/test_reader.py`) |",
    ]


def _screens_rows(screens: dict[str, Any]) -> list[str]:
    widths = ", ".join(str(w) for w in screens["widths"])
    axe_widths = " and ".join(str(w) for w in screens["axe_widths"])
    phone = screens["phone"]
    return [
        f"| every screen | {screens['page_views']} page views ({screens['pages']} pages at "
        f"{widths} px, light and dark): {screens['sideways']} scroll sideways; "
        f"{screens['stray_permalinks']} headings end in a blank line; "
        f"{screens['layout_problems']} reading problems; "
        f"{screens['drawing_problems']} drawing problems (TeX left, figures not loaded or "
        f"unnamed); {screens['outside_requests']} requests to another host; "
        f"{screens['console_errors']} console errors; axe-core "
        f"WCAG 2.1 AA violations at {axe_widths} px: {screens['axe_violations']} "
        "| `make screens` |",
        f"| math on a phone | drawn {screens['math_on_phone_s']:.2f} s after navigation "
        f"({phone['download_mbps']} Mbps, {phone['latency_ms']} ms, CPU "
        f"{phone['cpu_slowdown']}x slower; files gzip-compressed as GitHub Pages serves them; "
        f"target {screens['math_target_s']} s) "
        "| `make screens` |",
    ]


def _lighthouse_rows(lighthouse: dict[str, Any]) -> list[str]:
    lowest = "; ".join(
        f"{name} {lighthouse['lowest'][name]['score']} (`{lighthouse['lowest'][name]['page']}`, "
        f"target {lighthouse['targets'][name]})"
        for name in ("performance", "accessibility", "best-practices", "seo")
    )
    missed = sum(1 for page in lighthouse["pages"].values() if page["misses"])
    load = lighthouse["load_average"]
    runs = lighthouse.get("runs_per_page", 1)
    each = f", the median of {runs} runs each" if runs > 1 else ""
    apart = [path for path, page in lighthouse["pages"].items() if "measured_apart" in page]
    if apart:
        when = lighthouse["pages"][apart[0]]["measured_apart"]
        each += (
            f" ({', '.join(f'`{path}`' for path in apart)} added later, the median of "
            f"{when['runs_per_page']} runs at load {when['load_average']['before'][0]:.1f})"
        )
    performance = [page["scores"]["performance"] for page in lighthouse["pages"].values()]
    # Lighthouse's own measure of the machine's speed: its 4x slowdown makes a phone
    # of a faster machine faster, so a score is read with it.
    speed = sorted(page["benchmark_index"] for page in lighthouse["pages"].values())
    # A page's runs apart: its highest performance less its lowest.
    spreads = {
        path: page["spread"] for path, page in lighthouse["pages"].items() if "spread" in page
    }
    if spreads:
        widest = max(spreads, key=lambda path: spreads[path])
        single = min(
            (run, path)
            for path, page in lighthouse["pages"].items()
            for run in page.get("performance_runs", [])
        )
        each += (
            f" (a page's runs up to {spreads[widest]} points apart, on `{widest}`; "
            f"lowest single run {single[0]}, on `{single[1]}`)"
        )
    return [
        f"| Lighthouse | {lighthouse['lighthouse_version']}, mobile (simulated slow 4G, CPU "
        f"4x slower), {len(lighthouse['pages'])} pages served gzip-compressed{each}: lowest "
        f"{lowest}; median performance {statistics.median(performance):g}; {missed} pages "
        f"miss a target; the machine's benchmark index {speed[0]:g} to {speed[-1]:g} "
        f"(median {statistics.median(speed):g}); load average {load['before'][0]:.1f} "
        "| `make lighthouse` |",
    ]


def render() -> str:
    """Return the generated part of the Development section."""
    rows: dict[Name, Callable[[Record], list[str]]] = {
        "table": _table_rows,
        "rope": _rope_rows,
        "timing": _timing_rows,
        "weight": _weight_rows,
        "reader": _reader_rows,
        "screens": _screens_rows,
        "lighthouse": _lighthouse_rows,
    }
    loaded = {name: recorded(name) for name in rows}
    body = []
    for name, make_rows in rows.items():
        data = loaded[name]
        try:
            body += make_rows(data) if data is not None else [_missing(name)]
        except KeyError:  # recorded by an older version of the command
            body.append(_missing(name))
    dates = ", ".join(
        f"{MAKE[name]} {data['date']}"
        for name, data in loaded.items()
        if data is not None and "date" in data
    )
    machines = {
        f"{data['machine']['cpu']}, {data['machine']['logical_cpus']} logical CPUs"
        for data in loaded.values()
        if data is not None and "machine" in data
    }
    lines = [
        START,
        f"Measured on {'; '.join(sorted(machines))} ({dates}).",
        "",
        "| target | measured | command |",
        "| --- | --- | --- |",
        *body,
        END,
    ]
    return "\n".join(lines)


def updated(text: str) -> str:
    """`text` (the README) with the generated section replaced."""
    if START not in text or END not in text:
        raise SystemExit(f"README.md needs the markers {START!r} and {END!r}")
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    return before + render() + after


def main(argv: list[str]) -> int:
    """Rewrite the README, or with ``--check`` say whether it is current."""
    text = README.read_text()
    new = updated(text)
    if "--check" in argv:
        if new != text:
            print("README.md's figures are out of date: run make readme")
            return 1
        print("README.md's figures match benchmarks/results/")
        return 0
    README.write_text(new)
    print("README.md: figures written from benchmarks/results/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
