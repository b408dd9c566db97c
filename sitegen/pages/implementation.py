"""The implementation page (implementation.md): precomputed table versus on the fly."""

from __future__ import annotations

from typing import Any

from sitegen.markdown import table
from sitegen.results import provenance as _provenance
from sitegen.results import result as _result


def _and(items: list[str]) -> str:
    """Join words as prose: "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def modes_benchmark() -> str:
    """Tabulate the precomputed-table versus on-the-fly measurement, its spread and its verdict."""
    data = _result("modes")

    def timing(spread: dict[str, float]) -> str:
        return f"{spread['median_ms']:.3f} ({spread['q1_ms']:.3f}–{spread['q3_ms']:.3f})"

    def ratio(summary: dict[str, Any]) -> str:
        low, high = summary["ci95"]
        return f"{summary['median']:.2f} ({low:.2f}–{high:.2f})"

    rows = []
    separated: list[str] = []
    unresolved: list[str] = []
    for row in data["rows"]:
        low, high = row["on_the_fly_over_table"]["ci95"]
        (unresolved if low <= 1.0 <= high else separated).append(f"{row['seq_len']:,}")
        rows.append(
            [
                row["seq_len"],
                timing(row["table"]),
                timing(row["on_the_fly"]),
                timing(row["addition_only"]),
                ratio(row["on_the_fly_over_table"]),
                ratio(row["table_over_addition"]),
            ]
        )
    machine = data["machine"]
    threads = machine["threads_used"]
    headers = [
        "seq_len",
        "table (ms)",
        "on the fly (ms)",
        "addition alone (ms)",
        "on the fly / table",
        "table / addition",
    ]
    note = (
        f"\n\nBatch {data['batch']}, d_model = {data['d_model']}; the table of max_len = "
        f"{data['max_len']:,} rows holds {data['table_bytes'] / 2**20:.0f} MiB. Times are the "
        f"median (and quartiles) of {data['rounds']} rounds in which the three calls ran in a "
        f"random order; ratios are the median of the per-round ratios with a bootstrap 95% "
        f"interval ({data['bootstrap']:,} resamples). Measured on {machine['cpu']} with "
        f"{threads} thread{'' if threads == 1 else 's'} (a CPU, so nothing here measures GPU "
        f"memory or speed), torch {data['versions']['torch']}, on {data['date']}, by "
        f"{_provenance('modes')}."
    )
    verdict = []
    if separated:
        verdict.append(
            f"On the fly is measurably slower than the table at seq_len = {_and(separated)} "
            "(the interval excludes 1)."
        )
    if unresolved:
        verdict.append(
            f"At seq_len = {_and(unresolved)} the interval contains 1: this run cannot tell "
            "the two apart; a difference there, if any, is within its noise."
        )
    return table(headers, rows, align="rrrrrr") + note + "\n\n" + " ".join(verdict)
