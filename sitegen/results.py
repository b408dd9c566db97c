"""The one reader of the committed benchmark records, ``benchmarks/results/*.json``."""

from __future__ import annotations


def result(name: str) -> dict[str, object]:
    """Read a committed benchmark result, ``benchmarks/results/<name>.json``."""
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / f"{name}.json"
    data: dict[str, object] = json.loads(path.read_text())
    return data
