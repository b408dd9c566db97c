"""pe's rotary module inside transformers' Llama: the same logits, and decoding that agrees.

The reference is transformers itself (the pinned version): tiny Llama models
from ``examples/rope_in_a_model.py``, one per rule, run with transformers' own
rotary module and with `PeRotary` in its place.
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest
import torch

pytest.importorskip("transformers")

EXAMPLE = runpy.run_path(
    str(Path(__file__).resolve().parents[1] / "examples" / "rope_in_a_model.py"),
    run_name="examples.rope_in_a_model",
)
RULES: dict[str, Any] = EXAMPLE["RULES"]
SUPPORTED: list[str] = EXAMPLE["supported_rules"]()
TOLERANCE: float = EXAMPLE["TOLERANCE"]
LENGTH_DEPENDENT = {"dynamic", "longrope"}
# The smallest disagreement the page reports as a disagreement (a logit is ~1 here).
MISMATCH = 0.1


def test_every_rule_of_transformers_has_a_tiny_model() -> None:
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    missing = (set(ROPE_INIT_FUNCTIONS) | {"default"}) - set(RULES)
    assert not missing, f"examples/rope_in_a_model.py has no RULES entry for {sorted(missing)}"
    assert {"default", "linear", "dynamic", "yarn", "longrope", "llama3"} <= set(SUPPORTED)


@pytest.fixture(scope="module", params=SUPPORTED)
def measured(request: pytest.FixtureRequest) -> tuple[str, dict[str, float]]:
    rule = request.param
    return rule, EXAMPLE["measure"](rule)


def test_logits_match_transformers(measured: tuple[str, dict[str, float]]) -> None:
    rule, found = measured
    assert found["cos_sin"] < 1e-5, rule  # float32 rounding of transformers' angles
    assert found["short"] < TOLERANCE, rule
    assert found["long"] < TOLERANCE, rule
    assert found["logit_std"] > 0.3, rule  # the weights are wide enough to matter


def test_cached_decoding_equals_the_full_pass(measured: tuple[str, dict[str, float]]) -> None:
    rule, found = measured
    assert found["pe_self"] < TOLERANCE, rule
    assert found["pe_decode"] < TOLERANCE, rule  # and transformers' own full pass


def test_transformers_decoding_disagrees_only_for_the_length_dependent_rules(
    measured: tuple[str, dict[str, float]],
) -> None:
    rule, found = measured
    if rule in LENGTH_DEPENDENT:
        assert found["hf_decode"] > MISMATCH, rule
        assert found["cost"] > MISMATCH, rule  # pe's price: the short prompt changes
    else:
        assert found["hf_decode"] < TOLERANCE, rule
        assert found["cost"] < TOLERANCE, rule


def test_the_adapter_returns_transformers_layout_in_float64() -> None:
    from pe.nn import RotaryEmbedding

    rope = RotaryEmbedding(8, layout="concatenated", base=100.0)
    positions = torch.tensor([[0, 3, 7]])
    cos, sin = EXAMPLE["PeRotary"](rope)(torch.zeros(1, 3, 8, dtype=torch.float64), positions)
    assert cos.dtype == torch.float64
    assert cos.shape == (1, 3, 8)
    frequencies = 100.0 ** (-torch.arange(0, 8, 2, dtype=torch.float64) / 8)
    angles = positions[..., None].to(torch.float64) * frequencies
    torch.testing.assert_close(cos, torch.cat((angles.cos(), angles.cos()), -1), rtol=0, atol=1e-15)
    torch.testing.assert_close(sin, torch.cat((angles.sin(), angles.sin()), -1), rtol=0, atol=1e-15)


def test_the_adapter_refuses_what_llama_attention_cannot_use() -> None:
    from pe.nn import RotaryEmbedding

    adapter = EXAMPLE["PeRotary"]
    with pytest.raises(ValueError, match="layout='interleaved'"):
        adapter(RotaryEmbedding(8))
    with pytest.raises(ValueError, match="rotary_dim=4 of head_dim=8"):
        adapter(RotaryEmbedding(8, layout="concatenated", partial_rotary_factor=0.5))
    rope = adapter(RotaryEmbedding(8, layout="concatenated"))
    with pytest.raises(ValueError, match="position_ids must be >= 0; got -1"):
        rope(torch.zeros(1, 2, 8), torch.tensor([[-1, 0]]))


def test_the_engine_table_runs_transformers_and_pe() -> None:
    from sitegen.pages import rope_in_a_model

    rows = {
        line.split(" | ")[0].strip("| "): line
        for line in rope_in_a_model.engine_table().splitlines()
        if line.startswith("| ")
    }
    transformers_row = next(row for name, row in rows.items() if name.startswith("transformers"))
    # transformers uses an explicit attention_factor in place of the computed 1.1386
    assert transformers_row.split(" | ")[1] == "1.0000"
    assert "ignored, with a warning" in transformers_row.split(" | ")[2]
    assert rows["pe (run)"].split(" | ")[1] == "1.0000"
    assert {"vLLM (read)", "SGLang (read)"} <= set(rows)


def test_every_engine_reading_cites_a_file_at_a_commit() -> None:
    import re

    from sitegen import yarn_keys

    assert len({reading.engine for reading in yarn_keys.READINGS}) == len(yarn_keys.READINGS)
    for reading in yarn_keys.READINGS:
        assert reading.sources, reading.engine
        for source in reading.sources:
            assert re.fullmatch(r"[0-9a-f]{40}", source.commit), source
            assert re.fullmatch(r"[\w.-]+/[\w.-]+", source.repo), source
            assert source.path.endswith(".py"), source
        for cell in (reading.attention_factor, reading.attn_factor, reading.mscale):
            assert cell, reading.engine
