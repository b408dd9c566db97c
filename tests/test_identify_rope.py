"""pe.identify_rope: RoPE implementations named by probing them, with their bugs.

References are independent of the code under test: the config a module was
built from (pe's or transformers' own rotary classes), formulas written here in
float64 (dynamic NTK's grown base, LongRoPE's attention factor), and bugs
planted by hand in an otherwise correct implementation.
"""

from __future__ import annotations

import importlib
import json
import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import transformers
from transformers.models.deepseek_v3 import modeling_deepseek_v3 as deepseek
from transformers.models.glm import modeling_glm as glm
from transformers.models.gpt_neox import modeling_gpt_neox as neox
from transformers.models.llama import modeling_llama as llama
from transformers.models.phi3 import modeling_phi3 as phi3
from transformers.utils import logging as transformers_logging

from pe._identify_rope import RopeIdentification, identify_rope
from pe.nn import RotaryEmbedding

ROOT = Path(__file__).resolve().parents[1]
FAST = (64, 32768)  # two lengths: enough for rules that do not change with the length


@pytest.fixture(autouse=True)
def _quiet_transformers() -> Iterator[None]:
    level = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_error()
    yield
    transformers_logging.set_verbosity(level)


def close(found: float, expected: float, tolerance: float = 1e-6) -> bool:
    return abs(found - expected) <= tolerance * abs(expected)


def same_parameters(found: dict[str, Any], expected: dict[str, Any]) -> None:
    """Every key of `expected` is in `found` with the same value (numbers within 1e-6)."""
    for key, value in expected.items():
        assert key in found, (key, found)
        if isinstance(value, float):
            assert close(float(found[key]), value), (key, found[key], value)
        else:
            assert found[key] == value, (key, found[key], value)


# --- round trips through pe's own module --------------------------------------------------

ROUND_TRIPS = {
    "default": {"rope_type": "default", "rope_theta": 10000.0},
    "linear": {"rope_type": "linear", "factor": 4.0, "rope_theta": 10000.0},
    "yarn": {
        "rope_type": "yarn",
        "factor": 4.0,
        "rope_theta": 1000000.0,
        "original_max_position_embeddings": 32768,
    },
    "llama3": {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_theta": 500000.0,
    },
}


@pytest.mark.parametrize("rule", list(ROUND_TRIPS))
def test_pe_module_identified_as_its_config(rule: str) -> None:
    config = {"head_dim": 64, "rope_parameters": ROUND_TRIPS[rule]}
    found = identify_rope(RotaryEmbedding.from_config(config), lengths=FAST)
    assert (found.recognised, found.name, found.bugs) == (True, rule, ()), str(found)
    assert found.config is not None
    same_parameters(found.config["rope_parameters"], ROUND_TRIPS[rule])
    assert found.parameters["layout"] == "concatenated"
    assert found.residual < 1e-5
    json.dumps(found.as_dict())  # JSON-able
    assert str(found).startswith(f"{rule} (rope, recognised; residual ")
    assert max(map(len, str(found).splitlines())) <= 88


def test_interleaved_partial_round_trip_and_config_rebuilds_it() -> None:
    rope = RotaryEmbedding(40, base=50000.0, layout="interleaved", partial_rotary_factor=0.4)
    found = identify_rope(rope, lengths=FAST)
    assert found.parameters["layout"] == "interleaved"
    assert found.parameters["rotary_dim"] == 16
    assert found.parameters["head_dim"] == 40
    assert found.config is not None
    assert close(found.config["partial_rotary_factor"], 0.4)
    again = RotaryEmbedding.from_config(found.config, layout="interleaved")
    expected = 50000.0 ** (-np.arange(0, 16, 2) / 16)  # written here, float64
    np.testing.assert_allclose(again.frequencies, expected, rtol=1e-12)


def test_pe_dynamic_is_fixed_at_its_length_so_it_reads_as_a_grown_base() -> None:
    """pe fixes dynamic NTK's frequencies at seq_len: a plain rule with the grown base."""
    scaling = {"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10000.0}
    config = {"head_dim": 64, "max_position_embeddings": 4096, "rope_parameters": scaling}
    found = identify_rope(RotaryEmbedding.from_config(config, seq_len=8192), lengths=FAST)
    grown = 10000.0 * (2.0 * 8192 / 4096 - 1.0) ** (64 / 62)  # transformers' formula
    assert found.name == "default"
    assert close(found.parameters["base"], grown, 1e-5)


def test_pe_longrope_at_a_long_length_gives_its_long_factors() -> None:
    short = [1.0 + 0.01 * i for i in range(16)]
    long = [1.0 + 0.5 * i for i in range(16)]
    config = {
        "head_dim": 32,
        "max_position_embeddings": 131072,
        "rope_parameters": {
            "rope_type": "longrope",
            "short_factor": short,
            "long_factor": long,
            "original_max_position_embeddings": 4096,
        },
    }
    found = identify_rope(RotaryEmbedding.from_config(config, seq_len=131072), lengths=FAST)
    assert found.name == "longrope"
    assert found.config is not None
    np.testing.assert_allclose(found.config["rope_parameters"]["long_factor"], long, rtol=1e-6)
    attention = math.sqrt(1 + math.log(131072 / 4096) / math.log(4096))  # Phi-3's formula
    assert close(found.parameters["attention_factor"], attention)


def test_pe_proportional_round_trip_pairs_over_the_whole_head() -> None:
    """Gemma 4's rule: the first quarter of the pairs (i, i + 32) turn, the rest stay still."""
    scaling = {
        "rope_type": "proportional",
        "rope_theta": 1000000.0,
        "partial_rotary_factor": 0.25,
        "factor": 8.0,
    }
    found = identify_rope(
        RotaryEmbedding.from_config({"head_dim": 64, "rope_parameters": scaling}), lengths=FAST
    )
    assert (found.recognised, found.name, found.bugs) == (True, "proportional", ()), str(found)
    assert found.config is not None
    same_parameters(found.config["rope_parameters"], scaling)
    assert (found.parameters["layout"], found.parameters["rotary_dim"]) == ("concatenated", 16)
    assert found.residual < 1e-5
    # Written here in float64: the exponent over the whole head (64), not the turned 16.
    expected = np.zeros(32)
    expected[:8] = 1000000.0 ** (-np.arange(0, 16, 2) / 64) / 8.0
    np.testing.assert_allclose(found.parameters["frequencies"], expected, rtol=1e-6, atol=1e-12)
    again = RotaryEmbedding.from_config(found.config)
    np.testing.assert_allclose(again.frequencies, expected, rtol=1e-9, atol=0)


def test_a_partial_rotary_is_not_read_as_proportional() -> None:
    """The first 16 of 64 dimensions turned as (i, i + 8): partial rotary, not proportional."""
    found = identify_rope(RotaryEmbedding(64, partial_rotary_factor=0.25), lengths=FAST)
    assert (found.name, found.parameters["rotary_dim"]) == ("default", 16), str(found)
    assert found.config is not None
    assert close(found.config["partial_rotary_factor"], 0.25)


# --- transformers' own classes ----------------------------------------------------------


def test_gemma4_text_rotary_full_attention_is_proportional() -> None:
    from transformers.models.gemma4 import modeling_gemma4 as gemma4

    parameters = {
        "full_attention": {
            "rope_type": "proportional",
            "rope_theta": 1000000.0,
            "partial_rotary_factor": 0.25,
        },
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
    }
    config = transformers.Gemma4TextConfig(
        hidden_size=64, num_attention_heads=2, head_dim=16, global_head_dim=32,
        num_hidden_layers=2, layer_types=["sliding_attention", "full_attention"],
        vocab_size=32, intermediate_size=32, rope_parameters=parameters,
    )  # fmt: skip
    rotary = gemma4.Gemma4TextRotaryEmbedding(config)
    found = identify_rope(rotary, layer_type="full_attention", lengths=FAST)
    assert (found.recognised, found.name, found.bugs) == (True, "proportional", ()), str(found)
    assert found.config is not None
    same_parameters(found.config["rope_parameters"], parameters["full_attention"])
    assert (found.parameters["head_dim"], found.parameters["rotary_dim"]) == (32, 8)
    expected = np.zeros(16)
    expected[:4] = 1000000.0 ** (-np.arange(0, 8, 2) / 32)  # float64, written here
    np.testing.assert_allclose(found.parameters["frequencies"], expected, rtol=1e-6, atol=1e-9)
    assert found.residual < 1e-5
    sliding = identify_rope(rotary, layer_type="sliding_attention", lengths=FAST)
    assert (sliding.name, sliding.parameters["base"]) == ("default", 10000.0), str(sliding)


def llama_rotary(parameters: dict[str, Any], longest: int = 4096) -> Any:
    config = transformers.LlamaConfig(
        hidden_size=256,
        num_attention_heads=4,
        head_dim=64,
        max_position_embeddings=longest,
        rope_parameters=parameters,
    )
    return llama.LlamaRotaryEmbedding(config)


TRANSFORMERS_RULES = [
    ({"rope_type": "default", "rope_theta": 10000.0}, 4096),
    ({"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0}, 4096),
    ({"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10000.0}, 4096),
    (
        {
            "rope_type": "yarn",
            "factor": 4.0,
            "rope_theta": 1000000.0,
            "original_max_position_embeddings": 4096,
        },
        16384,
    ),
    ({**ROUND_TRIPS["llama3"]}, 131072),
]


@pytest.mark.parametrize(("parameters", "longest"), TRANSFORMERS_RULES)
def test_llama_rotary_embedding_of_each_rule(parameters: dict[str, Any], longest: int) -> None:
    found = identify_rope(llama_rotary(parameters, longest))
    assert (found.recognised, found.name) == (True, parameters["rope_type"]), str(found)
    assert found.config is not None
    assert found.residual < 1e-5
    same_parameters(found.config["rope_parameters"], parameters)
    if found.name == "dynamic":
        assert found.config["max_position_embeddings"] == longest  # found by bisection
    assert found.parameters["layout"] == "concatenated"


def test_phi3_longrope_switches_factors_past_its_original_length() -> None:
    short = [1.0 + 0.01 * i for i in range(48)]
    long = [1.0 + 0.5 * i for i in range(48)]
    config = transformers.Phi3Config(
        hidden_size=384,
        num_attention_heads=4,
        max_position_embeddings=131072,
        original_max_position_embeddings=4096,
        rope_parameters={
            "rope_type": "longrope",
            "short_factor": short,
            "long_factor": long,
            "original_max_position_embeddings": 4096,
        },
    )
    found = identify_rope(phi3.Phi3RotaryEmbedding(config))
    assert found.name == "longrope", str(found)
    assert found.config is not None
    rope = found.config["rope_parameters"]
    assert rope["original_max_position_embeddings"] == 4096
    assert found.config["max_position_embeddings"] == 131072
    np.testing.assert_allclose(rope["short_factor"], short, rtol=1e-5)
    np.testing.assert_allclose(rope["long_factor"], long, rtol=1e-5)


def test_gpt_neox_partial_rotary() -> None:
    config = transformers.GPTNeoXConfig(hidden_size=256, num_attention_heads=4, rotary_pct=0.25)
    found = identify_rope(neox.GPTNeoXRotaryEmbedding(config))
    assert found.parameters["head_dim"] == 64
    assert found.parameters["rotary_dim"] == 16
    assert found.config is not None
    assert close(found.config["partial_rotary_factor"], 0.25)


def test_glm_apply_turns_interleaved_pairs_of_half_the_head() -> None:
    config = transformers.GlmConfig(
        hidden_size=128, num_attention_heads=4, head_dim=32, partial_rotary_factor=0.5
    )
    found = identify_rope(
        glm.apply_rotary_pos_emb, rotary=glm.GlmRotaryEmbedding(config), head_dim=32, lengths=FAST
    )
    assert found.name == "default"
    assert found.parameters["layout"] == "interleaved"
    assert found.parameters["rotary_dim"] == 16


def test_deepseek_v3_interleave_apply_reorders_its_output_but_pairs_its_input() -> None:
    rotary = llama_rotary({"rope_type": "default", "rope_theta": 10000.0})
    found = identify_rope(deepseek.apply_rotary_pos_emb_interleave, rotary=rotary, lengths=FAST)
    assert found.parameters["layout"] == "interleaved"
    assert any("reordered" in line for line in found.lines)
    alone = identify_rope(deepseek.apply_rotary_pos_emb_interleave, head_dim=32)
    assert alone.name == "rotation"
    assert alone.config is None
    assert alone.parameters["layout"] == "interleaved"
    llama_apply = identify_rope(llama.apply_rotary_pos_emb, head_dim=32)
    assert llama_apply.parameters["layout"] == "concatenated"


def test_cos_sin_caches_numpy_torch_and_complex() -> None:
    positions = np.arange(4096)[:, None]
    theta = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    angles = positions * theta
    halves = np.concatenate([angles, angles], axis=1)
    found = identify_rope((np.cos(halves), np.sin(halves)))
    assert found.name == "default"
    assert found.parameters["layout"] == "concatenated"
    repeated = torch.from_numpy(np.repeat(angles, 2, axis=1))[None]  # (1, seq, width)
    found = identify_rope((repeated.cos(), repeated.sin()), head_dim=128)
    assert found.parameters["layout"] == "interleaved"
    assert found.parameters["rotary_dim"] == 64
    found = identify_rope(np.exp(1j * angles))  # Meta's freqs_cis
    assert found.parameters["layout"] == "interleaved"
    assert found.name == "default"


# --- bugs, planted ----------------------------------------------------------------------


class PlantedRotary(torch.nn.Module):
    """transformers' Llama rotary module, written out, with one bug switched on."""

    def __init__(self, bug: str = "") -> None:
        super().__init__()
        self.bug = bug
        self.inv_freq = 1.0 / 10000.0 ** (torch.arange(0, 32, 2, dtype=torch.float32) / 32)

    def forward(self, x: Any, position_ids: Any) -> tuple[Any, Any]:
        positions, inv_freq = position_ids.float(), self.inv_freq
        if self.bug == "offset":
            positions = positions + 1
        if self.bug == "bfloat16 positions":
            positions = positions.to(torch.bfloat16).float()
        if self.bug == "float16 inv_freq":
            inv_freq = inv_freq.half().float()
        if self.bug == "float16 angles":
            angles = positions.half()[..., None] * inv_freq.half()
        else:
            angles = positions[..., None] * inv_freq
        if self.bug == "direction":
            angles = -angles
        both = torch.cat((angles, angles), dim=-1)
        return both.cos().float(), both.sin().float()


def test_planted_bugs_are_named_and_the_correct_one_has_none() -> None:
    assert identify_rope(PlantedRotary(), lengths=FAST).bugs == ()
    for bug, name, words in [
        ("offset", "offset", "offset by +1"),
        ("bfloat16 positions", "low_precision", "positions rounded to bfloat16"),
        ("float16 inv_freq", "low_precision", "held in float16"),
        ("float16 angles", "low_precision", "angles computed in float16"),
        ("direction", "direction", "the other way"),
    ]:
        found = identify_rope(PlantedRotary(bug), lengths=FAST)
        assert found.bugs == (name,), (bug, str(found))
        assert any(words in line for line in found.lines), (bug, str(found))
        assert found.name == "default", (bug, str(found))


def test_layout_other_than_the_checkpoints_is_a_bug() -> None:
    rope = RotaryEmbedding(32, layout="interleaved")
    found = identify_rope(rope, lengths=FAST, expected_layout="concatenated")
    assert found.bugs == ("layout",)
    assert identify_rope(rope, lengths=FAST, expected_layout="interleaved").bugs == ()


def test_scaling_rule_on_the_wrong_layers() -> None:
    gemma3 = {
        "head_dim": 32,
        "layer_types": ["sliding_attention", "full_attention"],
        "rope_parameters": {
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
            "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
        },
    }
    full = RotaryEmbedding.from_config(gemma3, layer_type="full_attention")
    wrong = identify_rope(full, lengths=FAST, expected_config=gemma3, layer=0)
    assert wrong.bugs == ("wrong_layers",)
    right = identify_rope(full, lengths=FAST, expected_config=gemma3, layer=1)
    assert right.bugs == ()
    assert any("Matches" in line for line in right.lines)


def test_queries_and_keys_turned_differently() -> None:
    inner = RotaryEmbedding(16)

    def shifted_keys(q: Any, k: Any, positions: Any) -> tuple[Any, Any]:
        q_turned, k_turned = inner(q, k, q_positions=positions, k_positions=positions + 1)
        return q_turned, k_turned

    assert "q_k_differ" in identify_rope(shifted_keys, head_dim=16, lengths=FAST).bugs


def test_random_functions_are_unrecognised_with_their_residual() -> None:
    generator = torch.Generator().manual_seed(0)
    mixing = torch.randn(16, 16, generator=generator)
    jumbled = torch.rand(40, 8, generator=generator) * 6

    def matrix(q: Any, k: Any, positions: Any) -> tuple[Any, Any]:
        return q @ mixing, k @ mixing

    def random_angles(q: Any, k: Any, positions: Any) -> tuple[Any, Any]:
        angles = jumbled[: q.shape[-2]]
        cos, sin = torch.cat([angles.cos()] * 2, -1), torch.cat([angles.sin()] * 2, -1)

        def half(x: Any) -> Any:
            return torch.cat([-x[..., 8:], x[..., :8]], -1)

        return q * cos + half(q) * sin, k * cos + half(k) * sin

    for function in (matrix, random_angles):
        found = identify_rope(function, head_dim=16, lengths=(64,))
        assert not found.recognised
        assert found.name == "unrecognised"
        assert found.config is None
        assert found.residual > 0.1
        assert str(found).startswith("unrecognised (rope, not recognised; residual ")


# --- refusals -------------------------------------------------------------------------------


def test_bad_inputs_are_refused_by_name() -> None:
    good = np.ones((8, 4))
    nan = good.copy()
    nan[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"non-finite values.*position 3"):
        identify_rope((good, nan))
    with pytest.raises(ValueError, match="one shape"):
        identify_rope((good, good[:, :2]))
    with pytest.raises(ValueError, match="shape"):
        identify_rope((np.ones(8), np.ones(8)))
    with pytest.raises(TypeError, match="complex"):
        identify_rope(good)
    with pytest.raises(TypeError, match="got int"):
        identify_rope(3)
    with pytest.raises(ValueError, match="pair"):
        identify_rope((good, good, good))

    def broken(q: Any, k: Any, positions: Any) -> tuple[Any, Any]:
        raise RuntimeError("boom")

    with pytest.raises(ValueError, match=r"broken raised RuntimeError.*boom") as caught:
        identify_rope(broken, head_dim=8)
    assert isinstance(caught.value.__cause__, RuntimeError)

    def truncating(q: Any, k: Any, positions: Any) -> tuple[Any, Any]:
        return q[..., :4], k[..., :4]

    with pytest.raises(ValueError, match="returned q of shape"):
        identify_rope(truncating, head_dim=8)
    with pytest.raises(ValueError, match="head_dim= is needed"):
        identify_rope(truncating)
    with pytest.raises(ValueError, match="wider than identify_rope probes"):
        identify_rope(truncating, head_dim=4096)
    with pytest.raises(ValueError, match="lengths must lie"):
        identify_rope(truncating, head_dim=8, lengths=(1,))
    with pytest.raises(TypeError, match="lengths must hold integers"):
        identify_rope(truncating, head_dim=8, lengths=(2.5,))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="expected_layout"):
        identify_rope((good, good), expected_layout="half")
    with pytest.raises(ValueError, match="positive even"):
        identify_rope(truncating, head_dim=7)


def test_a_numpy_cache_is_identified_without_importing_torch() -> None:
    code = (
        "import sys, numpy as np\n"
        "from pe._identify_rope import identify_rope\n"
        "a = np.arange(512)[:, None] * 10000.0 ** (-np.arange(0, 16, 2) / 16)\n"
        "found = identify_rope((np.cos(a), np.sin(a)))\n"
        "assert found.name == 'default', found\n"
        "assert 'torch' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_identification_is_frozen() -> None:
    found = RopeIdentification(False, "unrecognised", {}, ("x",), None, 1.0)
    with pytest.raises(AttributeError):
        found.name = "default"  # type: ignore[misc]
    assert str(found) == "unrecognised (rope, not recognised; residual 1.00e+00)\n  x"
    assert found.as_dict()["bugs"] == []


def test_a_numpy_function_of_interleaved_pairs_with_positions_shifted_by_three() -> None:
    """RoFormer's form in numpy (pairs 2i, 2i + 1), turning position p as p + 3."""
    theta = 500.0 ** (-np.arange(0, 12, 2) / 12)

    def roformer(q: Any, k: Any, positions: Any = None) -> tuple[Any, Any]:
        angles = (positions[:, None] + 3) * theta  # (seq, pairs)
        cos, sin = np.repeat(np.cos(angles), 2, -1), np.repeat(np.sin(angles), 2, -1)

        def turn(x: Any) -> Any:
            swapped = np.stack([-x[..., 1::2], x[..., 0::2]], axis=-1).reshape(x.shape)
            return x * cos + swapped * sin

        return turn(q), turn(k)

    found = identify_rope(roformer, head_dim=12, lengths=(4096,))
    assert found.name == "default"
    assert found.parameters["layout"] == "interleaved"
    assert found.parameters["offset"] == 3
    assert found.bugs == ("offset",)
    assert found.config is not None
    assert close(found.config["rope_parameters"]["rope_theta"], 500.0)


# --- published configurations, through transformers' own rotary classes -------------------

PUBLISHED = {
    # file: (layer_type, rule, parameters the file sets, read from it by hand)
    "gpt-oss/gpt-oss-20b.json": (
        None,
        "yarn",
        {"factor": 32.0, "rope_theta": 150000.0, "original_max_position_embeddings": 4096},
    ),
    "llama4/llama-4-scout-17b-16e-instruct.json": (
        None,
        "llama3",
        {"factor": 16.0, "rope_theta": 500000.0, "original_max_position_embeddings": 8192},
    ),
    "deepseek/deepseek-v3.json": (
        None,
        "yarn",
        {"factor": 40.0, "rope_theta": 10000.0, "original_max_position_embeddings": 4096},
    ),
    "gemma4/gemma-4-26b-a4b.json": (  # global layers: the first quarter of the pairs turn
        "full_attention",
        "proportional",
        {"rope_theta": 1000000.0, "partial_rotary_factor": 0.25},
    ),
    "olmo/olmo-3.1-32b-instruct.json": (  # a rotary of one RoPE per layer type
        "full_attention",
        "yarn",
        {"factor": 8.0, "rope_theta": 500000.0, "original_max_position_embeddings": 8192},
    ),
}


def published_rotary(name: str) -> Any:
    """The model's own rotary class, built from a published config.json of configs/."""
    raw = json.loads((ROOT / "configs" / name).read_text())
    text = transformers.AutoConfig.for_model(**raw).get_text_config()
    module = importlib.import_module(type(text).__module__.replace("configuration_", "modeling_"))
    classes = [
        getattr(module, key)
        for key in dir(module)
        if key.endswith("RotaryEmbedding") and "Vision" not in key and not key.startswith("_")
    ]
    return max(classes, key=lambda cls: len(cls.__name__))(text)


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_configs_through_their_own_rotary_class(name: str) -> None:
    layer_type, rule, parameters = PUBLISHED[name]
    found = identify_rope(published_rotary(name), layer_type=layer_type, lengths=FAST)
    assert (found.recognised, found.name) == (True, rule), str(found)
    assert found.config is not None
    same_parameters(found.config["rope_parameters"], parameters)


def test_a_huge_cache_is_read_without_copying_it() -> None:
    """2**21 positions (a 1 GiB float64 copy): only the probed rows are copied."""
    from allocation import headroom

    row = np.ones((1, 64), dtype=np.float32)
    cos = np.broadcast_to(row, (2**21, 64))  # a view: no memory
    sin = np.broadcast_to(row * 0, (2**21, 64))
    with headroom():
        found = identify_rope((cos, sin))
    assert not found.recognised  # nothing turns
    assert found.bugs == ()


def test_llama3_with_bfloat16_frequencies_names_both_rule_and_bug() -> None:
    theta = 500000.0 ** (-np.arange(0, 128, 2) / 128)
    wavelength = 2 * np.pi / theta  # llama3 written here: kept, divided by 8, or blended
    blend = np.clip((8192 / wavelength - 1.0) / (4.0 - 1.0), 0.0, 1.0)
    scaled = np.where(wavelength < 8192 / 4, theta, theta / 8 * (1 - blend) + theta * blend)
    inv_freq = torch.tensor(scaled, dtype=torch.float32).to(torch.bfloat16).float()

    def rotary(x: Any, position_ids: Any) -> tuple[Any, Any]:
        angles = position_ids.float()[..., None] * inv_freq
        both = torch.cat((angles, angles), dim=-1)
        return both.cos(), both.sin()

    found = identify_rope(rotary, lengths=FAST)
    assert (found.name, found.bugs) == ("llama3", ("low_precision",)), str(found)
    assert found.config is not None
    same_parameters(found.config["rope_parameters"], ROUND_TRIPS["llama3"])
    assert found.residual > 1e-4  # the rounding, against the exact rule


def test_a_config_that_matches_no_layer() -> None:
    config = {"head_dim": 32, "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0}}
    found = identify_rope(RotaryEmbedding(32, base=500000.0), lengths=FAST, expected_config=config)
    assert found.bugs == ("config_mismatch",)
