"""Shared helpers of the benchmark scripts: timing, and a record of where they ran."""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def best_of(function: Callable[[], object], repeats: int) -> float:
    """Best wall time of `repeats` calls, in seconds (one untimed warm-up call first)."""
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def cpu_model() -> str:
    """The processor's model name, from /proc/cpuinfo where there is one."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def command() -> str:
    """The command line that is running, as a reader would type it (``python -m ...``)."""
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    program = f"-m {spec.name}" if spec is not None else sys.argv[0]
    return " ".join(["python", program, *sys.argv[1:]])


def environment(threads: int) -> dict[str, Any]:
    """Machine, versions and command line, stored next to every measurement."""
    versions: dict[str, str | None] = {}
    for package in ("numpy", "torch"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "command": command(),
        "python": platform.python_version(),
        "versions": versions,
        "machine": {
            "cpu": cpu_model(),
            "logical_cpus": os.cpu_count(),
            "threads_used": threads,
            "system": f"{platform.system()} {platform.machine()}",
        },
    }


def write(name: str, payload: dict[str, Any]) -> Path:
    """Write `payload` as benchmarks/results/<name>.json and return the path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
    return path
