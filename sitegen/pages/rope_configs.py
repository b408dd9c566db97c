"""The page on reading published configuration files (beyond/rope-configs.md): every table.

Every table reads the files of ``configs/`` (copies of published ``config.json``
files, each with its source in ``configs/sources.json``) with `pe.read_config`
and `pe.explain`, the code ``python -m pe explain`` runs, so the page shows what
the command prints. numpy only: the page builds under ``make serve`` too.
``tests/test_configs.py`` compares every file with transformers' own modules.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pe
from pe._config import NOT_POSITIONAL, POSITION_KEYS, UNSUPPORTED
from pe._families import FAMILIES, NO_ROPE, TRANSFORMERS_VERSION
from sitegen.markdown import table

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "configs"

# The files whose reports the page prints, each for what it shows.
SHOWN = {
    "gemma3/gemma-3-27b-it.json": "two bases, one per attention type, and linear scaling on one",
    "olmo/olmo-3.1-32b-instruct.json": "YaRN on the full-attention layers only",
    "llama4/llama-4-scout-17b-16e-instruct.json": "every fourth layer without RoPE",
    "exaone/exaone-4.0-32b.json": "the sliding-window layers rotated, the others not",
    "qwen3.5/qwen3.5-27b.json": "linear-attention layers, and a quarter of each head rotated",
    "deepseek/deepseek-v3.json": "interleaved pairs by default, YaRN with DeepSeek's factor",
    "phi3/phi-3-mini-128k-instruct.json": "LongRoPE, whose factors depend on the length",
    "ministral/devstral-small-2-24b-instruct-2512.json": "a query temperature beside YaRN",
}


def sources() -> list[dict[str, Any]]:
    """Return the corpus's manifest: one entry per file, with the place it was copied from."""
    entries: list[dict[str, Any]] = json.loads((CORPUS / "sources.json").read_text("utf-8"))
    return entries


def load(path: str) -> dict[str, Any]:
    """Return one file of the corpus, as json.load reads it."""
    config: dict[str, Any] = json.loads((CORPUS / path).read_text("utf-8"))
    return config


def _quiet_facts(config: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`pe.explanation` of a file, and the warnings pe gave (marked on the page)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        facts = pe.explanation(config)
    return facts, [str(warning.message) for warning in caught]


def _show_base(value: float) -> str:
    return f"{value:,.0f}" if value >= 1000 else f"{value:g}"


def corpus_table() -> str:
    """One row per file: its rules, bases, rotated width, layout and unrotated layers."""
    rows = []
    for entry in sources():
        facts, notes = _quiet_facts(load(entry["path"]))
        rotated = [kind for kind in facts["kinds"] if kind["rotated"]]
        unrotated = sum(len(kind["layers"]) for kind in facts["kinds"] if not kind["rotated"])
        bases = sorted({float(kind["base"]) for kind in rotated})
        rows.append(
            [
                f"{entry['model']}{' (warns)' if notes else ''}",
                f"`{facts['model_type']}`",
                ", ".join(dict.fromkeys(kind["rule"] for kind in rotated)),
                ", ".join(_show_base(base) for base in bases),
                ", ".join(
                    dict.fromkeys(f"{kind['rotary_dim']}/{kind['head_dim']}" for kind in rotated)
                ),
                ", ".join(dict.fromkeys(kind["layout"] for kind in rotated)),
                str(unrotated) if unrotated else "none",
            ]
        )
    return table(
        ["published file", "model_type", "rule", "base", "rotated / head", "pairs", "no RoPE"],
        rows,
        align="lllrrll",
    )


def corpus_summary() -> str:
    """How many files, families and layers of each kind the corpus holds."""
    entries = sources()
    families = {entry["family"] for entry in entries}
    unrotated = rotated = 0
    for entry in entries:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = pe.read_config(load(entry["path"]))
        for kind in model.kinds:
            if kind.rotated:
                rotated += len(kind.layers)
            else:
                unrotated += len(kind.layers)
    return (
        f"{len(entries)} files of {len(families)} families; of their "
        f"{rotated + unrotated:,} layers, {unrotated:,} get no rotation."
    )


def report(path: str) -> str:
    """Return what ``python -m pe explain configs/<path>`` prints, in a console block."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = pe.explain(load(path))
    lines = [f"$ python -m pe explain configs/{path}", text]
    lines += [f"UserWarning: {warning.message}" for warning in caught]
    return '```{ .console .no-copy title="' + SHOWN[path] + '" }\n' + "\n".join(lines) + "\n```"


def reports() -> str:
    """Every report of `SHOWN`, one after another."""
    return "\n\n".join(report(path) for path in SHOWN)


def keys_table() -> str:
    """`pe.POSITION_KEYS`: each key, whether pe reads or refuses it, and what it means."""
    rows = [
        [f"`{name}`", "read" if key.read else "refused", key.meaning, ", ".join(key.families)]
        for name, key in sorted(POSITION_KEYS.items())
    ]
    return table(["key", "pe", "what it means", "model types"], rows, align="llll")


def unsupported_table() -> str:
    """Return the model types pe refuses, and why."""
    rows = [[f"`{name}`", why] for name, why in sorted(UNSUPPORTED.items())]
    return table(["model_type", "why pe refuses it"], rows, align="ll")


def family_counts() -> str:
    """How many model types the table of defaults holds, and from which transformers."""
    return (
        f"{len(FAMILIES)} model types with RoPE settings and {len(NO_ROPE)} without, "
        f"read from transformers {TRANSFORMERS_VERSION}; {len(UNSUPPORTED)} of the first "
        f"are refused, and {len(NOT_POSITIONAL)} key names that look like position "
        "settings are known not to be"
    )
