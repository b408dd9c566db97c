"""Run the figure scripts in ``scripts/``, caching their output by content hash.

Every ``scripts/fig_<name>.py`` is run as ``python scripts/fig_<name>.py OUTDIR``
would run it, from the repository root (on Linux, forked from a process that
has imported what the scripts import: `sitegen.fork_runner`). The root is
importable (a script may import the benchmark's reference recipes,
``benchmarks.recipes``). A script must write
``<name>-light.svg`` and ``<name>-dark.svg`` (or ``.png``) into OUTDIR, and
may write a phone variant of each (``<name>-light-phone.svg``: the shared
style's scripts all do), which pages serve to narrow screens. Its
output is kept under ``.cache/figures/<script>/<key>/`` (see
`sitegen.cache`), where the key hashes the script, the committed results it
reads, the ``benchmarks`` modules it imports, the shared style module, every
``pe`` source file and the versions of
Python, numpy and matplotlib: an unchanged script is never run twice, and
editing one script re-runs only that script.

Under ``make serve`` (`tools.serve`), a page need not wait for its figures:
with `later` set, a page whose figure is still being drawn shows a
placeholder that says so (`figure`), the build ends without waiting
(`finish_in_background`), and once every figure is drawn `later` asks the
server for a full rebuild, which shows the drawn figures (the browser
reloads). A page never shows an outdated drawing: the cache is keyed by
content, so a figure is either the current one or the placeholder.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sitegen import cache, fork_runner

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
STYLE = SCRIPTS / "_figstyle.py"
VARIANTS = ("light", "dark")
PHONE = "-phone"  # a variant's phone drawing: <name>-<variant>-phone.svg
# The screens that get the phone drawing: up to 600 px, where the full-size
# drawing (about 690 px wide) would be shrunk below 0.85 of its size.
PHONE_MEDIA = "(max-width: 37.5em)"
SUFFIXES = (".svg", ".png")


class FigureError(RuntimeError):
    """A figure script failed or did not write both variants."""


@dataclass
class Report:
    """What one pass did: which scripts ran, which came from the cache."""

    ran: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    outputs: dict[str, Path] = field(default_factory=dict)


def cache_root() -> Path:
    """Directory of the figure cache, ``figures/`` in `sitegen.cache.cache_root`."""
    return cache.cache_root() / "figures"


def figure_scripts() -> list[Path]:
    """Return the figure scripts, sorted by name."""
    return sorted(SCRIPTS.glob("fig_*.py"))


def figure_name(script: Path) -> str:
    """``scripts/fig_rotation_dot.py`` draws the figure ``rotation_dot``."""
    return script.stem.removeprefix("fig_")


def shared_key() -> str:
    """Hash of everything every figure depends on besides its own script."""
    sources = sorted((ROOT / "pe").rglob("*.py"))
    return cache.digest([STYLE, *sources], extra=cache.versions("numpy", "matplotlib"))


_DATA = re.compile(r"benchmarks/results/[\w-]+\.json")
_MODULE = re.compile(r"^(?:from|import) (benchmarks(?:\.\w+)+)", re.MULTILINE)


def script_key(script: Path, shared: str) -> str:
    """Cache key of one script's output: the script, its data files and modules, the shared key.

    A script that reads a committed result names it as a literal path
    (``benchmarks/results/<name>.json``); that file is part of its key, so
    re-measuring re-draws exactly the figures that show the measurement. So is
    each ``benchmarks`` module it imports (``from benchmarks.recipes import``):
    editing a recipe re-draws the figures that draw it.
    """
    text = script.read_text(encoding="utf-8")
    data = {ROOT / match for match in _DATA.findall(text)}
    data |= {ROOT / (module.replace(".", "/") + ".py") for module in _MODULE.findall(text)}
    inputs = sorted(path for path in data if path.is_file())
    return cache.digest([script, *inputs], extra=shared)[:20]


def _outputs(name: str, directory: Path) -> dict[str, Path]:
    """Find the image files of figure `name` in `directory`, by variant (phone ones too)."""
    found: dict[str, Path] = {}
    for variant in (*VARIANTS, *(v + PHONE for v in VARIANTS)):
        for suffix in SUFFIXES:
            path = directory / f"{name}-{variant}{suffix}"
            if path.is_file():
                found[variant] = path
    return found


def _complete(name: str, directory: Path) -> bool:
    """Tell whether `directory` holds both variants of figure `name` and its alt text."""
    images = _outputs(name, directory)
    drawn = all(variant in images for variant in VARIANTS)
    return drawn and (directory / f"{name}-alt.txt").is_file()


def script_environment() -> dict[str, str]:
    """Return the environment a figure script runs in: fixed seeds and dates, repo importable.

    A script runs as ``python scripts/fig_<name>.py OUT`` from the repository root;
    the root on ``PYTHONPATH`` lets it import the reference recipes it draws
    (``benchmarks.recipes``).
    """
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return dict(
        os.environ, MPLBACKEND="Agg", PYTHONHASHSEED="0", SOURCE_DATE_EPOCH="0", PYTHONPATH=path
    )


def _execute(script: Path, scratch: Path) -> tuple[int, str]:
    """Run `script` into `scratch`; its exit status and what it printed (errors first).

    Forked from `_runner` where `start` made one (`sitegen.fork_runner`),
    else as a process of its own.
    """
    runner = _runner
    if runner is not None:
        log = scratch.with_name(f".{scratch.name}")
        try:
            status = runner.run(script, [str(scratch)], log)
        except OSError:
            pass  # the waiting process is gone: run the script on its own
        else:
            printed = [Path(f"{log}{suffix}") for suffix in (".err", ".out")]
            text = [path.read_text(encoding="utf-8", errors="replace") for path in printed]
            for path in printed:
                path.unlink(missing_ok=True)
            return status, text[0].strip() or text[1]
    result = subprocess.run(
        [sys.executable, str(script), str(scratch)],
        cwd=ROOT,
        env=script_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode, result.stderr.strip() or result.stdout


def _run(script: Path, target: Path) -> None:
    """Run one script into a fresh directory, then move it to `target`."""
    name = figure_name(script)
    scratch = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=target.parent))
    status, printed = _execute(script, scratch)
    rel = cache.label(script)
    if status != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        tail = "\n".join(printed.strip().splitlines()[-15:])
        raise FigureError(f"figure script {rel} failed (exit {status}):\n{tail}")
    if not _complete(name, scratch):
        wrote = sorted(p.name for p in scratch.iterdir())
        shutil.rmtree(scratch, ignore_errors=True)
        raise FigureError(
            f"figure script {rel} must write {name}-light and {name}-dark (.svg or .png) "
            f"and {name}-alt.txt; it wrote {wrote}"
        )
    if target.exists():
        shutil.rmtree(target)
    scratch.rename(target)


def _script(name: str) -> Path:
    """Return the script that draws figure `name`; `FigureError` if there is none."""
    script = SCRIPTS / f"fig_{name}.py"
    if not script.is_file():
        raise FigureError(f"no figure script scripts/fig_{name}.py for figure {name!r}")
    return script


def _target(script: Path, shared: str) -> Path:
    """Where the cache keeps the current output of `script`."""
    return cache_root() / script.stem / script_key(script, shared)


def _prune(target: Path) -> None:
    """Keep one version per script: the one at `target`."""
    for stale in target.parent.iterdir():
        if stale != target and stale.is_dir() and re.fullmatch(r"[0-9a-f]{20}", stale.name):
            shutil.rmtree(stale, ignore_errors=True)


_LOCK = threading.Lock()


def draw(name: str) -> dict[str, Path]:
    """Draw figure `name` unless the cache holds it; return its image files by variant.

    This is what a page's own block calls (through `figure`): the figure is
    drawn on demand, through the content-hash cache, so no build hook has to
    draw it first. Where `start` is drawing it in the background, this waits
    for it alone. Otherwise a miss draws every stale figure (`build`, in
    parallel), so a cold build waits for the figures once, not page by page.
    """
    script = _script(name)
    started = _started.get(name)
    if started is not None:  # drawing in the background (`start`): wait for it alone
        started.result()
    with _LOCK:  # two pages asking for one figure at once draw it once
        # The shared key of this build (every page asks: hashing pe's sources and reading
        # two packages' versions each time was a second of a warm build).
        target = _target(script, _shared if _shared is not None else shared_key())
        if not _complete(name, target) and _report is None:
            # A miss on a cold cache is rarely alone: draw every stale figure
            # now, several at a time, rather than one per page as pages come.
            build()
        elif not _complete(name, target) and script in figure_scripts():
            # After `start`, a script it did not find stale (new since, or its
            # output removed) is drawn alone; one left out of the build is not.
            target.parent.mkdir(parents=True, exist_ok=True)
            _run(script, target)
    images = _outputs(name, target)
    if not _complete(name, target):
        # Under `make serve` without torch the scripts that import it are left out
        # of the build (tools/serve.py); the block asking for one shows a note.
        raise FigureError(
            f"figure {name!r} has not been built yet: scripts/{script.name} was left out "
            "of this build"
        )
    return images


#: The drawing started by `start`: each stale script's run, by figure name.
_started: dict[str, Future[None]] = {}
#: Set by `tools.serve`: what to call once the figures a build left drawing are drawn.
later: Callable[[], None] | None = None
#: The figures some page of this build showed as a placeholder (`later` set).
_placeholders: set[str] = set()
#: Set once the pages are rendered: with `later`, the scripts start only then.
_pages_done = threading.Event()
#: Set by `abandon` when the build failed: the scripts still waiting do not run.
_abandoned = threading.Event()
_report: Report | None = None
_shared: str | None = None  # `shared_key` as `start` found it
_runner: fork_runner.Runner | None = None  # the scripts' waiting process, from `start` to `finish`


def start(jobs: int | None = None) -> Report:
    """Start drawing every stale figure in the background; return what it will hold.

    Returns at once: the scripts run in worker threads (each in its own
    process, several at a time) while the pages are rendered, and `draw`
    waits for the one figure a page asks for. The report lists the scripts
    that run and those whose output the cache holds, and every file the
    figures will have: a light and a dark SVG of each, and a phone drawing of
    each where the script draws through the shared style's ``save_variants``
    (``scripts/_figstyle.py``); `finish` checks that the scripts wrote those.
    Call `finish` before the site's files are copied.
    """
    global _report, _shared, _runner
    _started.clear()
    _placeholders.clear()
    _pages_done.clear()
    _abandoned.clear()
    if later is None:
        _pages_done.set()
    report = Report()
    shared = _shared = shared_key()
    pending: list[tuple[Path, Path]] = []
    for script in figure_scripts():
        name, target = figure_name(script), _target(script, shared)
        if _complete(name, target):
            report.cached.append(script.name)
            found = _outputs(name, target)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            pending.append((script, target))
            report.ran.append(script.name)
            variants: tuple[str, ...] = VARIANTS  # and phone drawings, by the shared style
            if "save_variants" in script.read_text(encoding="utf-8"):
                variants += tuple(variant + PHONE for variant in VARIANTS)
            found = {variant: target / f"{name}-{variant}.svg" for variant in variants}
        report.outputs.update({path.name: path for path in found.values()})
    if pending:
        if _runner is None and fork_runner.supported():
            try:
                _runner = _start_runner()
            except OSError:
                _runner = None  # each script runs as a process of its own
        workers = jobs or min(len(pending), os.cpu_count() or 1)
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="figure")
        for script, target in pending:
            _started[figure_name(script)] = pool.submit(_run_after_pages, script, target)
        pool.shutdown(wait=False)
    _report = report
    return report


def _run_after_pages(script: Path, target: Path) -> None:
    """Run `script` into `target` once the pages are rendered (at once without `later`).

    Under ``make serve`` the pages come first: on two cores, scripts drawn alongside
    them (niced) still took time from their build.
    """
    _pages_done.wait()
    if not _abandoned.is_set():
        _run(script, target)


def abandon() -> None:
    """Drop the drawing a failed build began: no script that has not started runs.

    The pool's threads wait for the pages (`_run_after_pages`), and Python waits
    for those threads as it exits: without this, ``make serve`` whose first build
    failed printed the error and then never exited. Each waiting run returns at
    once, and so does `wait_drawn` (the next rebuild under ``make serve`` calls it);
    none is cancelled, which would make `wait_drawn` raise. A script already
    drawing finishes; its figure is kept in the cache.
    """
    _abandoned.set()
    _pages_done.set()


def _start_runner() -> fork_runner.Runner:
    """Start the scripts' waiting process; with `later`, at a lower priority (``nice``).

    While pages are served before their figures, the pages' own build comes
    first: the scripts, forked from a process niced by 10, take the cores it
    leaves.
    """
    if later is None:
        return fork_runner.Runner.for_figures(ROOT, SCRIPTS, script_environment())
    command = [sys.executable, "-m", "sitegen.fork_runner", "--path", str(SCRIPTS)]
    niced = ["nice", "-n", "10", *command, *fork_runner.PRELOAD]
    return fork_runner.Runner(niced, ROOT, script_environment())


def drawing(name: str) -> bool:
    """Tell whether figure `name` is being drawn in the background (by `start`), not drawn yet."""
    started = _started.get(name)
    return started is not None and not started.done()


def wait_drawn() -> None:
    """Wait until every figure `start` began has been drawn (or has failed)."""
    for future in list(_started.values()):
        future.exception()


def finish_in_background() -> bool:
    """With `later` set and a page showing a placeholder, finish in a thread; else do nothing.

    Returns whether it did: the thread waits for the figures (`finish`), then
    calls `later` (the server then rebuilds every page, with the figures). A
    figure script that fails is reported in the log and no rebuild is asked
    for (the next edit asks again).
    """
    _pages_done.set()  # the pages are rendered: the figures may be drawn
    callback = later
    if callback is None or not _placeholders:
        return False

    def wait() -> None:
        try:
            finish()
        except FigureError as error:
            sys.stderr.write(f"ERROR   -  {error}\n")
            return
        callback()

    threading.Thread(target=wait, name="figures-finish", daemon=True).start()
    return True


def finish() -> Report:
    """Wait for the figures `start` began; raise `FigureError` for any that failed.

    Also fails if a script wrote files other than those `start` announced
    (the link checker and the site's file list were given those names).
    """
    global _runner
    _pages_done.set()
    report = _report or start()
    errors = [str(error) for future in _started.values() if (error := future.exception())]
    if _runner is not None:
        _runner.close()
        _runner = None
    if errors:
        raise FigureError("\n\n".join(errors))
    shared = shared_key()
    for script in figure_scripts():
        name, target = figure_name(script), _target(script, shared)
        written = {path.name: path for path in _outputs(name, target).values()}
        announced = {file for file, path in report.outputs.items() if path.parent == target}
        if script.name in report.ran and set(written) != announced:
            raise FigureError(
                f"scripts/{script.name} wrote {sorted(written)}; a figure script writes "
                f"{sorted(announced)} (light, dark and phone SVGs, through scripts/_figstyle.py)"
            )
        _prune(target)
    return report


def build(jobs: int | None = None) -> Report:
    """Bring every figure up to date and return where each output file lies."""
    start(jobs)
    return finish()


def figure(name: str, caption: str, *, first_screen: bool = False) -> str:
    """Markdown for a figure: light and dark variants, its alt text, a caption.

    Pages print this from an executed block. The figure is drawn here if the
    cache does not hold it yet (`draw`), so the alt text comes from the script
    that drew the figure and no build hook is needed. `caption` tells the
    reader what to look at; the script that drew the figure (and any
    committed result it reads) is named after it in small print. Paths start
    with ``/figures/``: the Markdown extension `sitegen.site_markdown` makes
    them relative to the page and puts the files into the built site.

    Both drawings load lazily (the one of the other palette is hidden, and
    never fetched), except for a figure on a phone's first screen
    (`first_screen`): there the light drawing, the theme's default, is fetched
    at once and first (``fetchpriority=high``), so that the page's largest
    element does not wait for the layout to ask for it.
    """
    script = _script(name)
    if later is not None and drawing(name):
        _placeholders.add(name)
        return placeholder(name, caption)
    images_by_variant = draw(name)
    directory = next(iter(images_by_variant.values())).parent
    alt = (directory / f"{name}-alt.txt").read_text(encoding="utf-8").strip()
    alt = alt.replace("[", "(").replace("]", ")")

    def loading(variant: str) -> str:
        if first_screen and variant == VARIANTS[0]:
            return "loading=eager fetchpriority=high"
        return "loading=lazy"

    images = [
        f"  ![{alt}](/figures/{path.name}#only-{variant})"
        "{{ {} width={} height={} }}".format(loading(variant), *image_size(path))
        for variant, path in images_by_variant.items()
        if variant in VARIANTS
    ]
    data = sorted(set(_DATA.findall(script.read_text(encoding="utf-8"))))
    source = f"Drawn by <code>scripts/{script.name}</code>" + "".join(
        f" from <code>{path}</code>" for path in data
    )
    credit = f'<small class="pe-figure-source">{source} while the site was built.</small>'
    caption_line = f"  <figcaption>{caption} {credit}</figcaption>"
    lines = ['<figure markdown="span">', *images, caption_line, "</figure>"]
    return "\n".join(lines) + "\n"


#: The class of the placeholder shown for a figure still being drawn (`later` set).
PLACEHOLDER = "pe-figure-drawing"


def placeholder(name: str, caption: str) -> str:
    """Markdown for figure `name` while it is drawn (under ``make serve``): its caption, a note.

    >>> lines = placeholder("rotation", "A pair turns.").splitlines()
    >>> lines[0], lines[-2:]
    ('<figure markdown="span" class="pe-figure-drawing">', \
['  <figcaption>A pair turns.</figcaption>', '</figure>'])
    >>> "scripts/fig_rotation.py" in lines[1] and "reloads by itself" in lines[1]
    True
    """
    note = (  # in the drawings' place, inline like them: the caption follows as for a figure
        f"**Drawing this figure** (`scripts/fig_{name}.py`): "
        "this page reloads by itself once it is drawn."
    )
    lines = [f'<figure markdown="span" class="{PLACEHOLDER}">', f"  {note}"]
    lines += [f"  <figcaption>{caption}</figcaption>", "</figure>"]
    return "\n".join(lines) + "\n"


_SVG_SIZE = re.compile(
    r"""<svg\b[^>]*?\swidth=["']([\d.]+)(pt|px)?["'][^>]*?\sheight=["']([\d.]+)(pt|px)?["']"""
)


def image_size(path: Path) -> tuple[int, int]:
    """Width and height of a drawn figure in CSS pixels (for its <img>: no layout shift).

    An SVG's size is read from its root element (matplotlib writes points: 1 pt
    is 4/3 px), a PNG's from its header.
    """
    data = path.read_bytes()
    if path.suffix == ".png":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    match = _SVG_SIZE.search(data[:4096].decode("utf-8", "replace"))
    if match is None:
        raise FigureError(f"{path.name}: the <svg> element gives no width and height")
    scale = 4 / 3 if match[2] == "pt" else 1.0
    return round(float(match[1]) * scale), round(float(match[3]) * scale)


def image_file(file_name: str) -> Path | None:
    """Return the cached file behind ``/figures/<file_name>`` (None: no figure has that name)."""
    match = re.fullmatch(r"(\w+)-(?:light|dark)(?:-phone)?\.(?:svg|png)", file_name)
    if match is None or not (SCRIPTS / f"fig_{match[1]}.py").is_file():
        return None
    found = {path.name: path for path in draw(match[1]).values()}
    return found.get(file_name)
