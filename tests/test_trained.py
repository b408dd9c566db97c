"""The trained-model harness (benchmarks/trained.py), its two pages and their figures.

The quick mode checks the pipeline end to end (its numbers mean nothing). The
pages' numbers and every ordering their readings state are checked against
the committed record's per-seed runs, read here with plain ``json`` and
reduced here, not through the record's summary or `sitegen.trained`.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from benchmarks import trained  # noqa: E402
from benchmarks.trained_names import METHODS, rule_variants  # noqa: E402
from sitegen import trained as reader  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "benchmarks" / "results" / "trained.json"
KEYS = {
    "passkey_accuracy",
    "passkey_accuracy_near",
    "passkey_accuracy_far",
    "loss",
    "loss_by_band",
    "attention_entropy_near",
    "attention_entropy_far",
    "attention_on_passkey_near",
    "attention_on_passkey_far",
}
VARIANTS = {
    *(m for m in METHODS if m != "rope"),
    *rule_variants(),
    *rule_variants(finetuned=True),
}


def committed() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RECORD.read_text())
    return data


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("trained") / "record.json"
    trained.main(["--quick", "--output", str(path)])
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def seed_values(data: dict[str, Any], variant: str, length: int, key: str) -> list[float]:
    """Every seed's value, straight from the runs."""
    index = data["settings"]["lengths"].index(length)
    values = []
    for run in data["runs"]:
        if variant in run["variants"]:
            value = run["variants"][variant][index][key]
            if value is not None:
                values.append(value)
    return values


def check_schema(data: dict[str, Any]) -> None:
    settings = data["settings"]
    lengths, train = settings["lengths"], settings["train_length"]
    assert lengths == [train * 2**k for k in range(len(lengths))]
    assert lengths[-1] == train * settings["scale"]
    assert set(data["summary"]) == VARIANTS
    # every method trained with every seed, once
    jobs = sorted((run["method"], run["seed"]) for run in data["runs"])
    assert jobs == sorted((m, s) for m in METHODS for s in settings["seeds"])
    for run in data["runs"]:
        for rows in run["variants"].values():
            assert len(rows) == len(lengths)
            for length, row in zip(lengths, rows, strict=True):
                assert set(row) == KEYS
                assert 0.0 <= row["passkey_accuracy"] <= 1.0
                assert math.isfinite(row["loss"])
                assert row["loss"] > 0
                bands = len(lengths[: lengths.index(length) + 1])
                assert len(row["loss_by_band"]) == bands
                for side in ("near", "far"):
                    entropy = row[f"attention_entropy_{side}"]
                    # one query's weights over at most `length` keys: in [0, ln length]
                    assert entropy is None or -1e-6 <= entropy <= math.log(length) + 1e-6
            assert rows[0]["passkey_accuracy_far"] is None  # at L every passkey is near
            assert all(row["passkey_accuracy_far"] is not None for row in rows[1:])
    assert data["wall_seconds"] > 0
    assert data["cpu_seconds"] > 0
    assert data["machine"]["threads_used"] == 1
    assert len(data["load_average"]) == 3


def test_quick_mode_writes_a_complete_record(quick: dict[str, Any]) -> None:
    check_schema(quick)
    assert quick["quick"] is True


def test_the_committed_record_is_a_full_run() -> None:
    data = committed()
    check_schema(data)
    settings = data["settings"]
    assert data["quick"] is False
    assert len(settings["seeds"]) >= 5
    assert settings["head_dim"] >= 64
    assert settings["scale"] == 8
    assert data["interval"] == "lowest to highest seed"


def test_summary_is_the_mean_and_range_over_seeds(quick: dict[str, Any]) -> None:
    for data in (quick, committed()):
        for variant in ("none", "yarn@target+ft", "alibi"):
            for index, length in enumerate(data["settings"]["lengths"]):
                values = seed_values(data, variant, length, "loss")
                found = data["summary"][variant][index]["loss"]
                assert found["mean"] == pytest.approx(sum(values) / len(values), abs=1e-4)
                assert (found["low"], found["high"]) == (min(values), max(values))


def test_passkeys_hide_the_key_near_or_far_as_asked() -> None:
    text = np.arange(ord("a"), ord("a") + 20).repeat(100)
    length, digits, farthest = 96, 4, 28
    tokens, starts = trained.passkeys(text, 20, length, digits, np.random.default_rng(0), farthest)
    query = length - digits  # the final marker: the input position that predicts d1
    for row, (sequence, start) in enumerate(zip(tokens.tolist(), starts.tolist(), strict=True)):
        assert sequence[start] == sequence[query] == trained.MARKER
        assert sequence.count(trained.MARKER) == 2
        assert sequence[start + 1 : start + 1 + digits] == sequence[query + 1 :]
        distance = query - start
        assert distance <= farthest if row % 2 == 0 else distance > farthest
    # training shows distances up to L - digits and no further
    settings = trained.QUICK
    _, starts = trained.passkeys(text, 200, settings.train_length, 4, np.random.default_rng(1))
    farthest_seen = settings.train_length - 4 - int(starts.min())
    assert farthest_seen == trained.farthest_trained(settings)


def test_rules_in_both_settings_are_what_their_configs_say() -> None:
    """Checked against formulas written out here in float64, not through pe."""
    settings = trained.Settings()
    d, base, length, scale = settings.head_dim, settings.base, settings.train_length, 8.0
    unscaled = base ** (-np.arange(0, d, 2) / d)
    for n in settings.lengths:
        for setting in ("target", "matched"):
            factor = scale if setting == "target" else n / length

            def frequencies(rule: str, setting: str = setting, n: int = n) -> np.ndarray:
                module = trained.rotary_for(settings, rule, setting, n)
                return np.asarray(module.frequencies, dtype=np.float64)

            np.testing.assert_allclose(frequencies("none"), unscaled, rtol=1e-6)
            np.testing.assert_allclose(frequencies("linear"), unscaled / factor, rtol=1e-6)
            ntk = (base * factor ** (d / (d - 2))) ** (-np.arange(0, d, 2) / d)
            np.testing.assert_allclose(frequencies("ntk"), ntk, rtol=1e-6)
            # dynamic: transformers' alpha = s n / L - (s - 1) for 8x; matched: s = 1
            alpha = (scale * n / length - (scale - 1)) if setting == "target" else n / length
            grown = (base * alpha ** (d / (d - 2))) ** (-np.arange(0, d, 2) / d)
            np.testing.assert_allclose(frequencies("dynamic"), grown, rtol=1e-6)
            yarn = trained.rotary_for(settings, "yarn", setting, n)
            assert yarn.attention_factor == pytest.approx(
                1.0 if factor == 1 else 0.1 * math.log(factor) + 1.0
            )
            # the slowest pair of YaRN and llama3 is interpolated by the full factor
            for rule in ("yarn", "llama3"):
                assert frequencies(rule)[-1] == pytest.approx(unscaled[-1] / factor, rel=1e-6)


def test_theory_matches_formulas_written_here() -> None:
    data = committed()
    s, theory = data["settings"], data["theory"]
    d, base, length = s["head_dim"], s["base"], s["train_length"]
    # Liu et al.: 2 ceil((d/2) log_b(L / 2 pi))
    assert theory["critical_dimension"] == 2 * math.ceil(
        (d / 2) * math.log(length / (2 * math.pi)) / math.log(base)
    )
    wavelengths = 2 * math.pi * base ** (np.arange(0, d, 2) / d)
    assert theory["pairs_turning_in_training"] == int((wavelengths <= length).sum())
    # with no rule every pair that did not turn in L sweeps a new arc at 8L
    assert theory["pairs_past_trained_arc_at_longest"]["none"] == int((wavelengths > length).sum())
    assert theory["pairs_past_trained_arc_at_longest"]["linear"] == 0
    # RoFormer's bound at distance 0 is (d/2 + 1) / 2
    assert theory["decay_bound"]["0"] == pytest.approx((d / 2 + 1) / 2)


def test_every_ordering_the_pages_state_holds_in_every_seed() -> None:
    from sitegen import claims
    from sitegen.pages import comparison, rope_scaling_model

    reader.COMPARISONS.clear()
    texts = [
        rope_scaling_model.reading(),
        comparison.extrapolation_summary(),
        claims.sinusoid_extrapolation_sentence(),
    ]
    assert all(texts)
    data = committed()
    assert len(reader.COMPARISONS) >= 10
    for found in reader.COMPARISONS:
        left = seed_values(data, *found.left)
        right = seed_values(data, *found.right)
        assert left
        assert right
        if found.relation == ">":
            assert min(left) > max(right), found
        elif found.relation == "<":
            assert max(left) < min(right), found
        else:  # the page declines to order them: the seed ranges must overlap
            assert min(left) <= max(right), found
            assert min(right) <= max(left), found


def test_an_ordering_the_seeds_do_not_support_is_not_stated() -> None:
    """The reader's wording follows the ranges (a made-up pair of cells)."""
    apart = ({"low": 0.7, "high": 0.9}, {"low": 0.1, "high": 0.6})
    overlap = ({"low": 0.5, "high": 0.9}, {"low": 0.1, "high": 0.6})
    assert reader.relation(*apart) == ">"
    assert reader.relation(*reversed(apart)) == "<"
    assert reader.relation(*overlap) == "~"


def test_page_tables_show_the_record() -> None:
    from sitegen.pages import comparison, rope_scaling_model

    data = committed()
    s = data["settings"]
    train, longest = s["train_length"], s["lengths"][-1]
    markdown = rope_scaling_model.accuracy_table()
    line = next(row for row in markdown.splitlines() if row.startswith("| YaRN, for 8\u00d7 |"))
    values = seed_values(data, "yarn@target", longest, "passkey_accuracy_far")
    mean = sum(values) / len(values)
    expected = f"{mean:.2f}" if min(values) == max(values) else f"{mean:.2f}<br><small>"
    assert expected in line.split("|")[-2]
    losses = comparison.loss_table()
    line = next(row for row in losses.splitlines() if row.startswith("| ALiBi |"))
    values = seed_values(data, "alibi", train, "loss")
    assert f"{sum(values) / len(values):.3f}" in line.split("|")[2]
    assert f"{min(values):.3f}\u2013{max(values):.3f}" in line.split("|")[2]


@pytest.mark.parametrize("name", ["trained_methods", "trained_rules"])
def test_figure_alt_texts_read_the_record(name: str) -> None:
    """The figures' alt texts (tests/test_scripts.py draws the figures themselves)."""
    import runpy

    sys.path.insert(0, str(ROOT / "scripts"))  # where the scripts find _figstyle
    try:
        alt = runpy.run_path(str(ROOT / "scripts" / f"fig_{name}.py"))["ALT"]
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    data = committed()
    if name == "trained_methods":
        values = seed_values(data, "alibi", data["settings"]["train_length"], "loss")
        assert f"ALiBi: loss {sum(values) / len(values):.2f}" in alt
    else:
        near = seed_values(data, "none", data["settings"]["lengths"][1], "passkey_accuracy_near")
        assert f"no scaling: near {sum(near) / len(near):.2f}" in alt
