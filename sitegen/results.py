"""The one reader of the committed records in ``benchmarks/results/*.json``.

The pages (through `sitegen.pages`, `sitegen.rope`, `sitegen.claims`) and the
README's Development table (``python -m tools.readme``) read the same files
through this module, so a record's name and place are written once. Each record
is the JSON object its command wrote (``make bench``, ``make timing``, ...):
`result` for a record a page needs (missing is an error), `recorded` for one
the README may show as "not recorded (yet)".

Examples
--------
>>> path("table").relative_to(RESULTS.parents[1]).as_posix()
'benchmarks/results/table.json'
>>> MAKE["table"], sorted(result("table"))[:2]
('bench', ['command', 'cuda'])
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

#: The folder of the committed records.
RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"

#: The name of each record, ``benchmarks/results/<name>.json``.
Name = Literal[
    "lighthouse",
    "modes",
    "reader",
    "rope",
    "rope_cuda",
    "screens",
    "table",
    "timing",
    "trained",
    "weight",
]

#: One record: the JSON object as its command wrote it.
Record = dict[str, Any]

#: The ``make`` target that writes each record.
MAKE: dict[Name, str] = {
    "lighthouse": "lighthouse",
    "modes": "bench",
    "reader": "test",
    "rope": "bench",
    "rope_cuda": "bench-cuda",
    "screens": "screens",
    "table": "bench",
    "timing": "timing",
    "trained": "trained",
    "weight": "weight",
}


#: The command that writes each record, as its ``make`` target runs it (from the
#: repository root). The pages print this, not the ``command`` a record holds:
#: that is the command line of the run, which an older layout of the repository
#: may have spelled differently. tests/test_docs.py checks each is in the Makefile.
COMMAND: dict[Name, str] = {
    "lighthouse": "python -m tools.lighthouse site --record",
    "modes": "python -m benchmarks.modes",
    "reader": "python -m pytest",
    "rope": "python -m benchmarks.rope",
    "rope_cuda": "python -m benchmarks.rope_cuda",
    "screens": "python -m tools.screens site --record",
    "table": "python -m benchmarks.table",
    "timing": "python -m tools.build_timing",
    "trained": "python -m benchmarks.trained",
    "weight": "python -m tools.page_weight site --record",
}


def provenance(name: Name) -> str:
    """Markdown naming the command that writes record `name` and its ``make`` target.

    Examples
    --------
    >>> provenance("table")
    '`python -m benchmarks.table` (`make bench`)'
    """
    return f"`{COMMAND[name]}` (`make {MAKE[name]}`)"


def path(name: Name) -> Path:
    """Return where record `name` is committed."""
    return RESULTS / f"{name}.json"


#: Each record read, by its file and that file's state (a record written again, as
#: under ``make serve``, is read again).
_READ: dict[tuple[Path, int, int], Record] = {}


def recorded(name: Name) -> Record | None:
    """Read record `name`, or return None if its command has not recorded it yet.

    A record is parsed once per state of its file and the same object returned to
    every caller, which must not change it: the pages of the trained model read
    ``trained.json`` (620 kB) about 1,200 times in a build, which parsed again
    each time was 12 of a cold ``make serve`` build's 55 s under a profiler.
    """
    file = path(name)
    try:
        state = file.stat()
    except FileNotFoundError:
        return None
    key = (file, state.st_mtime_ns, state.st_size)
    if key not in _READ:
        for old in [k for k in _READ if k[0] == file]:
            del _READ[old]
        _READ[key] = json.loads(file.read_text())
    return _READ[key]


def result(name: Name) -> Record:
    """Read record `name`, which a page needs: a missing record is an error."""
    data = recorded(name)
    if data is None:
        raise FileNotFoundError(
            f"benchmarks/results/{name}.json is not recorded: run make {MAKE[name]}"
        )
    return data
