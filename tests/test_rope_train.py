"""The RoPE training benchmark (benchmarks/rope_train.py), its page and its figure.

The quick mode checks the pipeline end to end (its numbers mean nothing); the
page's tables are checked against the committed record read here with plain
``json`` and averaged here, seed by seed, not through the page's summary.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import pe  # noqa: E402
from benchmarks import rope_train  # noqa: E402
from sitegen.figures import script_environment  # noqa: E402
from sitegen.pages import rope_scaling_model as page  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DASH = "\u2013"  # the page's en dash
RECORD = ROOT / "benchmarks" / "results" / "rope_train.json"
VARIANTS = (
    "none",
    "linear",
    "ntk",
    "dynamic",
    "yarn",
    "llama3",
    "none+finetune",
    "linear+finetune",
    "yarn+finetune",
)
KEYS = {
    "length",
    "passkey_accuracy",
    "passkey_accuracy_near",
    "passkey_accuracy_far",
    "loss",
    "loss_beyond_training",
    "attention_on_passkey_near",
    "attention_on_passkey_far",
    "attention_entropy_near",
    "attention_entropy_far",
}


def committed() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RECORD.read_text())
    return data


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("rope_train") / "record.json"
    rope_train.main(["--quick", "--output", str(path)])
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def check_schema(data: dict[str, Any]) -> None:
    settings = data["settings"]
    lengths = settings["lengths"]
    assert lengths == [settings["train_length"] * 2**k for k in range(len(lengths))]
    assert lengths[-1] == settings["train_length"] * settings["scale"]
    assert [record["seed"] for record in data["seeds"]] == settings["seeds"]
    assert set(data["summary"]) == set(VARIANTS)
    for record in data["seeds"]:
        assert set(record["variants"]) == set(VARIANTS)
        for rows in record["variants"].values():
            assert [row["length"] for row in rows] == lengths
            for row in rows:
                assert set(row) == KEYS
                for key in ("passkey_accuracy", "attention_on_passkey_near"):
                    value = row[key]
                    assert value is None or 0.0 <= value <= 1.0
                assert row["loss"] > 0
                assert math.isfinite(row["loss"])
                # entropy of one query's weights over at most `length` keys: in [0, ln length]
                for key in ("attention_entropy_near", "attention_entropy_far"):
                    value = row[key]
                    assert value is None or -1e-6 <= value <= math.log(row["length"]) + 1e-6
            # near passkeys exist at every length; far ones only beyond the trained length
            assert rows[0]["passkey_accuracy_far"] is None
            assert rows[0]["loss_beyond_training"] is None
            assert all(row["loss_beyond_training"] is not None for row in rows[1:])
        layer, head = record["retrieval_head"]["layer"], record["retrieval_head"]["head"]
        assert 0 <= layer < settings["layers"]
        assert 0 <= head < settings["heads"]
    assert data["wall_seconds"] > 0
    assert data["cpu_seconds"] > 0
    assert data["machine"]["threads_used"] == 1


def test_quick_mode_writes_a_complete_record(quick: dict[str, Any]) -> None:
    check_schema(quick)
    assert quick["quick"] is True


def test_quick_summary_is_the_mean_over_seeds(quick: dict[str, Any]) -> None:
    for variant in VARIANTS:
        for index, cell in enumerate(quick["summary"][variant]):
            values = [r["variants"][variant][index]["loss"] for r in quick["seeds"]]
            assert cell["loss"]["mean"] == pytest.approx(sum(values) / len(values), abs=1e-4)


def test_rules_at_the_trained_length_are_what_the_configs_say() -> None:
    """At factor 1 every rule is the trained rotation; at factor s the slowest pair is s slower."""
    settings = rope_train.QUICK
    trained = pe.rope_frequencies(settings.head_dim, base=settings.base).frequencies
    for name, arguments in rope_train.rules(settings).items():
        frequencies = rope_train.rotary_for(settings, arguments, settings.lengths[-1]).frequencies
        slower = trained[-1] / frequencies[-1]
        expected = 1.0 if name == "none" else float(settings.scale)
        assert slower == pytest.approx(expected, rel=1e-9), name
    dynamic = rope_train.rotary_for(settings, rope_train.rules(settings)["dynamic"], 16)
    assert list(dynamic.frequencies) == pytest.approx(list(trained), rel=1e-12)


def test_passkeys_hide_the_key_where_they_say() -> None:
    import numpy as np

    text = np.full(500, ord("a"), dtype=np.int64)
    tokens, starts = rope_train.passkeys(text, 20, 40, 4, np.random.default_rng(0))
    assert tokens.shape == (20, 41)
    for row, start in zip(tokens.tolist(), starts.tolist(), strict=True):
        assert row[start] == rope_train.MARKER
        assert row[start : start + 5] == row[-5:]  # the key, asked for again at the end
        assert row.count(rope_train.MARKER) == 2
        assert all(chr(c).isdigit() for c in row[-4:])


def test_the_committed_record_is_a_full_run() -> None:
    data = committed()
    check_schema(data)
    assert data["quick"] is False
    assert len(data["settings"]["seeds"]) >= 3
    # within 20 minutes on two cores: its CPU time (all processes) over two cores
    assert data["cpu_seconds"] / 2 < 20 * 60


def _cells(markdown: str, label: str) -> list[str]:
    row = next(line for line in markdown.splitlines() if line.startswith(f"| {label} |"))
    return [cell.strip() for cell in row.strip("|").split("|")][1:]


def _expected(values: list[float], digits: int) -> str:
    mean = sum(values) / len(values)
    low, high = min(values), max(values)
    if low == high:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ({low:.{digits}f}{DASH}{high:.{digits}f})"


@pytest.mark.parametrize(("key", "digits"), [("passkey_accuracy", 2), ("loss", 3)])
def test_page_tables_match_the_record(key: str, digits: int) -> None:
    data = committed()
    markdown = page.by_length(key, digits)
    for variant in VARIANTS:
        expected = []
        for index in range(len(data["settings"]["lengths"])):
            values = [r["variants"][variant][index][key] for r in data["seeds"]]
            expected.append(_expected(values, digits))
        cells = _cells(markdown, page.LABELS[variant])
        # the record's means are rounded to 4 places; allow the last digit shown to differ
        for cell, want in zip(cells, expected, strict=True):
            got_mean, want_mean = float(cell.split()[0]), float(want.split()[0])
            assert abs(got_mean - want_mean) <= 1.01 * 10**-digits, (variant, cell, want)
            assert cell.split()[1:] == want.split()[1:], (variant, cell, want)


def test_seed_table_shows_each_seed() -> None:
    data = committed()
    markdown = page.seeds()
    for variant in VARIANTS:
        values = [f"{r['variants'][variant][-1]['passkey_accuracy']:.2f}" for r in data["seeds"]]
        assert _cells(markdown, page.LABELS[variant]) == values


def test_attention_table_matches_the_record() -> None:
    data = committed()
    markdown = page.attention(-1)
    for variant in VARIANTS:
        cells = _cells(markdown, page.LABELS[variant])
        for cell, key in zip(
            cells,
            [
                f"{name}_{side}"
                for name in ("passkey_accuracy", "attention_on_passkey", "attention_entropy")
                for side in ("near", "far")
            ],
            strict=True,
        ):
            values = [r["variants"][variant][-1][key] for r in data["seeds"]]
            values = [v for v in values if v is not None]
            if not values:
                assert cell == DASH
                continue
            mean = sum(values) / len(values)
            assert abs(float(cell.split()[0]) - mean) <= 0.01, (variant, key, cell)


def test_setup_counts_the_model_s_parameters() -> None:
    data = committed()
    fields = {
        key: value
        for key, value in data["settings"].items()
        if key in rope_train.Settings.__dataclass_fields__
    }
    fields["seeds"] = tuple(fields["seeds"])
    model = rope_train.Decoder(rope_train.Settings(**fields))
    count = sum(parameter.numel() for parameter in model.parameters())
    assert f"({count:,} parameters)" in page.setup()
    assert re.search(r"\d+\.\d minutes wall time", page.setup())


def test_figure_script_draws_both_variants(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "fig_rope_train.py"), str(tmp_path)],
        cwd=ROOT,
        env=script_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    for variant in ("light", "dark"):
        assert (tmp_path / f"rope_train-{variant}.svg").read_text().startswith("<?xml")
    alt = (tmp_path / "rope_train-alt.txt").read_text()
    data = committed()
    first = data["summary"]["none"][0]["passkey_accuracy"]["mean"]
    assert f"no scaling: accuracy {first:.2f}" in alt
