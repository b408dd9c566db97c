"""Re-pin every package of the toolchain into ``constraints.txt`` (``make lock``).

Resolves the project with all its extras (``pip install --dry-run --report``) once
with the main interpreter and once with each ``--also`` interpreter (an older
Python whose newest packages differ), then writes one pin per package, with a
``python_version`` marker where the interpreters disagree. torch is pinned to the
CPU wheel's version without its ``+cpu`` local label, so ``torch==2.13.0``
matches both the CPU and the default build.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = "torch,docs,test,dev,conventions"
BOOTSTRAP = ["pip", "hatchling", "editables"]
NO_DEPS = ["keras-hub"]  # installed with --no-deps by the Makefile
TORCH = "torch==2.13.0"


def resolve(python: str) -> tuple[str, dict[str, str]]:
    """Return ``(major.minor, {name: version})`` of a full resolution under `python`."""
    with tempfile.TemporaryDirectory() as scratch:
        venv = Path(scratch) / "venv"
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        vpy = str(venv / "bin" / "python")
        pip = [vpy, "-m", "pip", "--disable-pip-version-check", "--quiet"]
        subprocess.run([*pip, "install", "--upgrade", *BOOTSTRAP], check=True)
        report = Path(scratch) / "report.json"
        subprocess.run(
            [
                *pip,
                "install",
                "--dry-run",
                "--ignore-installed",
                "--no-build-isolation",
                "--report",
                str(report),
                *BOOTSTRAP,
                TORCH,
                "-e",
                f"{ROOT}[{EXTRAS}]",
            ],
            check=True,
        )
        version = subprocess.run(
            [vpy, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        installs = json.loads(report.read_text())["install"]
        subprocess.run(
            [
                *pip,
                "install",
                "--dry-run",
                "--ignore-installed",
                "--no-deps",
                "--report",
                str(report),
                *NO_DEPS,
            ],
            check=True,
        )
        installs += json.loads(report.read_text())["install"]
    pins: dict[str, str] = {}
    for item in installs:
        meta = item["metadata"]
        if meta["name"].lower() == "pe":
            continue
        pins[meta["name"]] = meta["version"].split("+")[0]
    return version, pins


def main() -> None:
    """Resolve under every interpreter and write the merged pins."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--also", action="append", default=[], help="another interpreter")
    parser.add_argument("--output", type=Path, default=ROOT / "constraints.txt")
    args = parser.parse_args()
    main_version, main_pins = resolve(sys.executable)
    others = [resolve(python) for python in args.also]
    lines = [
        "# Pinned versions of everything the build, the tests and the site use.",
        f"# Regenerate with 'make lock' (resolved under Python {main_version}"
        + "".join(f" and {v}" for v, _ in others)
        + ").",
    ]
    names = sorted({*main_pins, *(n for _, pins in others for n in pins)}, key=str.lower)
    for name in names:
        versions = {main_version: main_pins.get(name)} | {v: pins.get(name) for v, pins in others}
        if len(set(versions.values())) == 1:
            lines.append(f"{name}=={main_pins[name]}")
            continue
        for version, pin in versions.items():
            if pin is None:
                continue
            op = "==" if version != main_version else ">="
            lines.append(f'{name}=={pin}; python_version {op} "{version}"')
    args.output.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.output.relative_to(ROOT)}: {len(names)} packages")


if __name__ == "__main__":
    main()
