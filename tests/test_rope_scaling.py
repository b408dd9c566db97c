"""`pe.rope_frequencies` and `RotaryEmbedding.from_config` against transformers' own rules.

References are transformers 5 itself (the version constraints.txt pins): its
``ROPE_INIT_FUNCTIONS``, and each model's own rotary class built from a
transformers config, on published configurations (`pe._published`) and on a
seeded sweep of random valid ones.
"""

import copy
import importlib
import math
import random
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pe
from pe._config import UNSUPPORTED
from pe._published import PUBLISHED, Published
from pe._rope import ROPE_RULES
from pe.nn import NoRotation, RotaryEmbedding
from sitegen.rope import frequencies_of

transformers = pytest.importorskip("transformers")
rope_utils = pytest.importorskip("transformers.modeling_rope_utils")
llama = pytest.importorskip("transformers.models.llama.modeling_llama")
transformers_logging = pytest.importorskip("transformers.utils.logging")


@pytest.fixture(autouse=True)
def _quiet_transformers() -> Any:
    """transformers logs (does not warn) about odd keys; keep the test output readable."""
    level = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_error()
    yield
    transformers_logging.set_verbosity(level)


def float32_bound(base: float) -> float:
    """Relative error of transformers' float32 frequencies ``base ** (2i/d as float32)``.

    The exponent is rounded once (relative 2**-24, at most 1 in size), which moves
    the power by ``ln(base) * 2**-24``; the power, the division by the factor and
    the blend add a few roundings more.
    """
    return 2.0**-24 * (6.0 + math.log(base))


def transformers_config(entry: Published) -> Any:
    """The transformers config object for a published entry (its defaults, or its dict)."""
    if entry.defaults_of is not None:
        return transformers.CONFIG_MAPPING[entry.defaults_of]()
    config = copy.deepcopy(entry.config)
    if "partial_rotary_factor" in config:  # Phi's classes read the rotated fraction
        return transformers.PhiConfig(**config)
    if entry.rule == "default" and "mrope_section" in entry.scaling:
        return transformers.Qwen2VLTextConfig(**config)
    return transformers.LlamaConfig(**config)


def rotary_class(config: Any) -> Any:
    """The model's own rotary class for a transformers config (text, not vision)."""
    module = importlib.import_module(type(config).__module__.replace("configuration_", "modeling_"))
    names = [
        name
        for name in dir(module)
        if name.endswith("RotaryEmbedding") and "Vision" not in name and name[0] != "_"
    ]
    assert names, module.__name__
    return getattr(module, sorted(names, key=len)[-1] if len(names) > 1 else names[0])


def is_nested(config: Any) -> bool:
    return bool(config.nested_rope_parameter_keys(config.rope_parameters))


def reference(
    config: Any, layer_type: str | None, seq_len: int | None = None
) -> tuple[np.ndarray, float]:
    """transformers' frequencies and attention factor for one layer type of a config.

    The rules of ``ROPE_INIT_FUNCTIONS`` are called as the models call them; the
    default rule, which each model keeps on its own rotary class, is read from
    that class's buffers.
    """
    nested = is_nested(config)
    parameters = config.rope_parameters[layer_type] if nested else config.rope_parameters
    rule = parameters["rope_type"]
    if rule in rope_utils.ROPE_INIT_FUNCTIONS:
        function = rope_utils.ROPE_INIT_FUNCTIONS[rule]
        frequencies, factor = function(
            config, "cpu", seq_len=seq_len, layer_type=layer_type if nested else None
        )
        return frequencies.double().numpy(), float(factor)
    module = rotary_class(config)(config)
    prefix = f"{layer_type}_" if nested else ""
    factor = getattr(module, f"{prefix}attention_scaling", getattr(module, "attention_scaling", 1))
    return getattr(module, f"{prefix}inv_freq").double().numpy(), float(factor)


def lengths(entry: Published) -> list[int | None]:
    """Lengths at which the rule is compared: unset, zero, the trained length, and beyond."""
    longest = entry.config["max_position_embeddings"]
    return [None, 0, longest // 2, longest, 2 * longest]


def bound(entry: Published, seq_len: int | None) -> float:
    base = float(entry.scaling.get("rope_theta", entry.config.get("rope_theta", 10000.0)))
    if entry.rule == "dynamic" and seq_len:
        base *= 4.0  # the grown base, at most (2 * 2 - 1) ** (64 / 63) here
    return float32_bound(base)


def first_rotated(config: dict[str, Any], layer_type: str | None) -> int | None:
    """The first rotated layer (of `layer_type`), where the config leaves some unrotated."""
    kinds = pe.read_config(config).kinds
    if all(kind.rotated for kind in kinds):
        return None
    return next(
        kind.layers[0]
        for kind in kinds
        if kind.rotated and layer_type in (None, kind.kind) and kind.layers
    )


def quiet(function: Any, *args: Any, **kwargs: Any) -> Any:
    """Call, accepting pe's warnings about keys read outside the rule (checked elsewhere)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*(read by transformers outside|does not read)")
        return function(*args, **kwargs)


def test_every_rule_of_the_pinned_transformers_is_implemented() -> None:
    # Fails when the pinned transformers gains a rule that pe lacks (or loses one).
    assert set(ROPE_RULES) == set(rope_utils.ROPE_INIT_FUNCTIONS) | {"default"}


def test_docs_list_exactly_the_rules_implemented() -> None:
    from sitegen import rope

    listed = rope.rules_table()
    for rule in ROPE_RULES:
        assert f"`{rule}`" in listed
        assert f"``{rule}``" in (pe.rope_frequencies.__doc__ or "")
        assert f"\n{rule} " in (pe._rope.__doc__ or "")
    assert listed.count("\n| `") == len(ROPE_RULES)


def test_at_least_twelve_model_families_and_every_rule() -> None:
    rules = {entry.rule for entry in PUBLISHED}
    assert rules == set(ROPE_RULES)
    families = {entry.family for entry in PUBLISHED}
    assert len(families) >= 12, families
    assert all(entry.source for entry in PUBLISHED)


@pytest.mark.parametrize(
    "entry",
    [entry for entry in PUBLISHED if entry.defaults_of],
    ids=lambda entry: entry.model,
)
def test_entries_read_from_transformers_defaults_hold_those_defaults(entry: Published) -> None:
    saved = transformers.CONFIG_MAPPING[entry.defaults_of]().to_dict()
    for key, value in entry.config.items():
        if key == "layer_types":
            assert set(value) <= set(saved[key]), key
        elif key == "per_layer_config":
            for index, override in value.items():
                layer_type = value and entry.config["layer_types"][int(index)]
                real = [
                    saved["per_layer_config"][k]
                    for k in saved["per_layer_config"]
                    if saved["layer_types"][int(k)] == layer_type
                ]
                assert real
                assert all(item == override for item in real)
        else:
            assert saved[key] == value, key


@pytest.mark.parametrize("entry", PUBLISHED, ids=[entry.model for entry in PUBLISHED])
def test_matches_transformers_on_published_configs(entry: Published) -> None:
    config = transformers_config(entry)
    layer_type = entry.layer_type
    for seq_len in lengths(entry):
        theirs, their_factor = reference(config, layer_type, seq_len)
        ours = frequencies_of(entry, seq_len)
        assert ours.frequencies.dtype == np.float64
        assert ours.frequencies.shape == theirs.shape
        np.testing.assert_allclose(ours.frequencies, theirs, rtol=bound(entry, seq_len), atol=0)
        assert ours.attention_factor == pytest.approx(their_factor, rel=1e-12)
        if entry.rule in ("dynamic", "longrope") and not seq_len:
            continue  # from_config warns then (test_..._without_seq_len_warns_naming_seq_len)
        module = quiet(
            RotaryEmbedding.from_config,
            config.to_dict(),
            layer_type=layer_type,
            layer=first_rotated(config.to_dict(), layer_type),
            seq_len=seq_len if seq_len else None,
        )
        np.testing.assert_allclose(
            module.frequencies, theirs, rtol=bound(entry, seq_len or 1), atol=0
        )
        assert module.attention_factor == pytest.approx(their_factor, rel=1e-12)


def test_float32_bound_is_tight_enough_to_catch_a_wrong_rule() -> None:
    # The bound is 1e-6 or less: a llama3 band moved by one pair, or yarn's
    # attention factor from mscale alone, would be caught.
    assert float32_bound(1e6) < 1.3e-6
    entry = next(e for e in PUBLISHED if e.model == "Llama 3.1 8B")
    theirs, _ = reference(transformers_config(entry), None)
    scaling = dict(entry.config["rope_scaling"], high_freq_factor=4.5)
    wrong = pe.rope_frequencies(128, base=500000.0, scaling=scaling).frequencies
    assert np.max(np.abs(wrong / theirs - 1)) > 1e-3


def test_hand_derived_values() -> None:
    # llama3 with Llama 3.1's numbers: a wavelength under 8192/4 = 2048 is kept,
    # one over 8192 slows by exactly 8.
    plain = pe.rope_frequencies(128, base=500000.0).frequencies
    scaling = {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    }
    scaled = pe.rope_frequencies(128, base=500000.0, scaling=scaling).frequencies
    wavelength = 2 * np.pi / plain
    assert np.array_equal(scaled[wavelength < 2048], plain[wavelength < 2048])
    assert np.array_equal(scaled[wavelength > 8192], plain[wavelength > 8192] / 8)
    middle = (wavelength >= 2048) & (wavelength <= 8192)
    assert middle.any()
    assert np.all((scaled[middle] < plain[middle]) & (scaled[middle] > plain[middle] / 8))
    # YaRN's attention factor 0.1 ln(s) + 1; LongRoPE's sqrt(1 + ln s / ln L).
    yarn = {"type": "yarn", "factor": 16.0, "original_max_position_embeddings": 2048}
    assert pe.rope_frequencies(64, scaling=yarn).attention_factor == pytest.approx(
        1 + 0.1 * math.log(16.0)
    )
    deepseek = dict(yarn, mscale=0.707, mscale_all_dim=1.0)
    assert pe.rope_frequencies(64, scaling=deepseek).attention_factor == pytest.approx(
        (1 + 0.0707 * math.log(16.0)) / (1 + 0.1 * math.log(16.0))
    )
    longrope = {
        "type": "longrope",
        "short_factor": [1.0] * 4,
        "long_factor": [2.0] * 4,
        "original_max_position_embeddings": 4096,
    }
    result = pe.rope_frequencies(8, scaling=longrope, max_position_embeddings=131072)
    assert result.attention_factor == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))
    np.testing.assert_array_equal(result.frequencies, pe.frequencies(8))
    long = pe.rope_frequencies(8, scaling=longrope, max_position_embeddings=131072, seq_len=4097)
    np.testing.assert_array_equal(long.frequencies, pe.frequencies(8) / 2)
    # seq_len=0 means no length, as in transformers: the short factors.
    zero = pe.rope_frequencies(8, scaling=longrope, max_position_embeddings=131072, seq_len=0)
    np.testing.assert_array_equal(zero.frequencies, pe.frequencies(8))
    # linear: every pair by the factor; dynamic: unchanged up to the trained length.
    linear = pe.rope_frequencies(16, scaling={"type": "linear", "factor": 4.0}).frequencies
    np.testing.assert_array_equal(linear, pe.frequencies(16) / 4)
    dynamic = {"type": "dynamic", "factor": 2.0}
    same = pe.rope_frequencies(16, scaling=dynamic, max_position_embeddings=100, seq_len=100)
    np.testing.assert_allclose(same.frequencies, pe.frequencies(16), rtol=1e-15)
    grown = pe.rope_frequencies(16, scaling=dynamic, max_position_embeddings=100, seq_len=200)
    # b' = b * 3 ** (16 / 14): the slowest pair is b'^(-14/16) = b^(-14/16) / 3.
    assert grown.frequencies[-1] == pytest.approx(pe.frequencies(16)[-1] / 3, rel=1e-12)
    # proportional (Gemma 4): exponents over the whole head, the last pairs still.
    gemma4 = {"rope_type": "proportional", "partial_rotary_factor": 0.25}
    result = pe.rope_frequencies(16, base=100.0, scaling=gemma4)
    np.testing.assert_allclose(result.frequencies, [1.0, 100.0 ** (-2 / 16), 0, 0, 0, 0, 0, 0])


def test_partial_rotary_rotates_the_first_fraction() -> None:
    result = pe.rope_frequencies(80, partial_rotary_factor=0.4)
    np.testing.assert_allclose(
        result.frequencies, 10000.0 ** (-np.arange(0, 32, 2) / 32), rtol=1e-15
    )


# --- a seeded sweep of random valid configurations, every rule ---------------------------


def random_parameters(rule: str, rng: random.Random, dim: int) -> dict[str, Any]:
    parameters: dict[str, Any] = {"rope_type": rule, "rope_theta": 10 ** rng.uniform(2, 7)}
    if rule in ("linear", "dynamic", "yarn", "llama3"):
        parameters["factor"] = rng.choice([1.0, 2.0, 4.0, rng.uniform(1, 64)])
    if rule in ("yarn", "longrope", "llama3"):
        parameters["original_max_position_embeddings"] = rng.choice([256, 2048, 4096, 8192])
    if rule == "yarn":
        if rng.random() < 0.3:
            parameters["attention_factor"] = rng.uniform(0.5, 2)
        elif rng.random() < 0.5:
            parameters["mscale"], parameters["mscale_all_dim"] = rng.uniform(0.5, 1.5), 1.0
        parameters["beta_fast"] = rng.uniform(8, 64)
        parameters["beta_slow"] = rng.uniform(0.5, 4)
        parameters["truncate"] = rng.random() < 0.5
    if rule == "longrope":
        parameters["short_factor"] = [rng.uniform(1, 3) for _ in range(dim // 2)]
        parameters["long_factor"] = [rng.uniform(1, 64) for _ in range(dim // 2)]
        if rng.random() < 0.5:
            parameters["factor"] = rng.uniform(1, 32)
    if rule == "llama3":
        parameters["low_freq_factor"] = rng.uniform(0.5, 2)
        parameters["high_freq_factor"] = parameters["low_freq_factor"] + rng.uniform(0.5, 6)
    if rule == "proportional":
        parameters["partial_rotary_factor"] = rng.choice([0.25, 0.5, 1.0, rng.random()])
        parameters["factor"] = rng.choice([1.0, rng.uniform(1, 8)])
    return parameters


@pytest.mark.parametrize("rule", list(ROPE_RULES))
def test_random_valid_configurations_match_transformers(rule: str) -> None:
    rng = random.Random(f"rope-{rule}")
    for _ in range(12):
        head_dim = rng.choice([16, 32, 64, 80, 96, 128, 256])
        heads = rng.choice([2, 4, 8])
        parameters = random_parameters(rule, rng, head_dim)
        longest = rng.choice([1024, 4096, 32768, 131072])
        config = transformers.LlamaConfig(
            hidden_size=head_dim * heads,
            num_attention_heads=heads,
            num_key_value_heads=heads,
            head_dim=head_dim,
            max_position_embeddings=longest,
            rope_parameters=copy.deepcopy(parameters),
        )
        for seq_len in (None, 0, longest // 3, 3 * longest):
            theirs, their_factor = reference(config, None, seq_len)
            ours = pe.rope_frequencies(
                head_dim, scaling=parameters, max_position_embeddings=longest, seq_len=seq_len
            )
            grown = 1 + parameters.get("factor", 1) * 3 if rule == "dynamic" else 1
            tolerance = 1.5 * float32_bound(parameters["rope_theta"] * grown**1.2)
            np.testing.assert_allclose(ours.frequencies, theirs, rtol=tolerance, atol=0)
            assert ours.attention_factor == pytest.approx(their_factor, rel=1e-12)
            if seq_len:
                module = RotaryEmbedding.from_config(config.to_dict(), seq_len=seq_len)
                np.testing.assert_array_equal(module.frequencies, ours.frequencies)
                assert module.attention_factor == ours.attention_factor


def test_random_nested_configurations_match_transformers() -> None:
    gemma3 = pytest.importorskip("transformers.models.gemma3.configuration_gemma3")
    rng = random.Random("rope-nested")
    for _ in range(8):
        head_dim = rng.choice([32, 64, 128, 256])
        nested = {
            kind: random_parameters(rng.choice(["default", "linear", "yarn", "llama3"]), rng, 0)
            for kind in ("sliding_attention", "full_attention")
        }
        for parameters in nested.values():  # a nested truncate is ignored by transformers
            parameters.pop("truncate", None)  # (test_nested_yarn_truncate_warns)
        config = gemma3.Gemma3TextConfig(
            head_dim=head_dim,
            num_hidden_layers=2,
            layer_types=["sliding_attention", "full_attention"],
            max_position_embeddings=131072,
            rope_parameters=copy.deepcopy(nested),
        )
        saved = config.to_dict()
        for kind in nested:
            theirs, their_factor = reference(config, kind, None)
            ours = pe.rope_frequencies(
                head_dim,
                scaling=saved["rope_parameters"],
                layer_type=kind,
                max_position_embeddings=131072,
            )
            module = RotaryEmbedding.from_config(saved, layer_type=kind)
            tolerance = 1.5 * float32_bound(nested[kind]["rope_theta"])
            np.testing.assert_allclose(ours.frequencies, theirs, rtol=tolerance, atol=0)
            np.testing.assert_array_equal(module.frequencies, ours.frequencies)
            assert (
                module.attention_factor
                == ours.attention_factor
                == pytest.approx(their_factor, rel=1e-12)
            )


# --- configs saved by transformers 5, one family of each shape -----------------------------

#: transformers config types whose ``to_dict()`` covers each way RoPE settings are saved:
#: flat (llama, qwen3), flat with partial rotary (stablelm, glm4), yarn with keys read
#: elsewhere (ministral3, mistral4: llama_4_scaling_beta), llama3 (apertus), yarn with
#: truncate (gpt_oss), head_dim left None (hunyuan_v1_dense), DeepSeek's rotated part
#: (deepseek_v3), nested by layer type (gemma3_text, olmo3, modernbert), nested with a
#: per-layer head width and proportional (gemma4_text, lfm3), nested with a layer type
#: without RoPE (beam), nested under labels other than the layer types (deepseek_v4),
#: nested with more entries than layer types (mellum), and multimodal configs that keep
#: the language model's under text_config (qwen2_vl, llama4).
SAVED_FAMILIES = [
    "llama", "qwen3", "stablelm", "glm4", "ministral3", "mistral4", "apertus", "gpt_oss",
    "hunyuan_v1_dense", "deepseek_v3", "gemma3_text", "olmo3", "modernbert", "gemma4_text",
    "lfm3", "beam", "deepseek_v4", "mellum", "qwen2_vl", "llama4",
]  # fmt: skip


@pytest.mark.parametrize("family", SAVED_FAMILIES)
def test_configs_saved_by_transformers_5_load(family: str) -> None:
    config = transformers.CONFIG_MAPPING[family]()
    saved = config.to_dict()
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    parameters = text.rope_parameters
    nested = text.nested_rope_parameter_keys(parameters)
    if family in UNSUPPORTED:
        with pytest.raises(ValueError, match=re.escape(UNSUPPORTED[family][:40])):
            RotaryEmbedding.from_config(saved)
        return
    for layer_type in nested or [None]:
        if layer_type is not None and parameters[layer_type] is None:
            unrotated = RotaryEmbedding.from_config(saved, layer_type=layer_type)
            assert isinstance(unrotated, NoRotation)
            assert "is null: these layers have no RoPE" in unrotated.reason
            continue
        module = quiet(
            RotaryEmbedding.from_config,
            saved,
            layer_type=layer_type,
            layer=first_rotated(saved, layer_type),
        )
        theirs, their_factor = reference(text, layer_type)
        base = (parameters[layer_type] if layer_type else parameters)["rope_theta"]
        np.testing.assert_allclose(module.frequencies, theirs, rtol=float32_bound(base), atol=0)
        assert module.attention_factor == pytest.approx(their_factor, rel=1e-12)


# --- refusals, warnings, and hostile calls -------------------------------------------------


def transformers_verdict(parameters: dict[str, Any], **config: Any) -> str:
    """What transformers does with a RoPE dict: 'raises', 'warns' (logs) or 'accepts'."""
    import logging

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("transformers.modeling_rope_utils")
    handler = Keep(level=logging.WARNING)
    logger.addHandler(handler)
    level = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_warning()
    try:
        settings = {"hidden_size": 64, "num_attention_heads": 1, "head_dim": 64} | config
        built = transformers.LlamaConfig(rope_parameters=copy.deepcopy(parameters), **settings)
        reference(built, None, settings.get("max_position_embeddings", 2048) * 2)
    except Exception:
        return "raises"
    finally:
        logger.removeHandler(handler)
        transformers_logging.set_verbosity(level)
    return "warns" if records else "accepts"


REFUSALS: list[tuple[dict[str, Any], dict[str, Any], type[Exception], str]] = [
    ({"rope_type": "ntk"}, {}, ValueError, "rule must be one of 'default'"),
    ({"rope_type": "linear"}, {}, ValueError, "needs 'factor'"),
    (
        {"rope_type": "linear", "factor": 0.5},
        {},
        ValueError,
        r"factor'\] must be a finite number >= 1",
    ),
    ({"rope_type": "linear", "factor": "2"}, {}, TypeError, "must be a real number"),
    (
        {"rope_type": "yarn", "factor": 2, "beta_fast": 1, "beta_slow": 4},
        {},
        ValueError,
        "beta_fast",
    ),
    ({"rope_type": "yarn", "factor": 2, "beta_fast": -3}, {}, ValueError, "beta_fast"),
    (
        {
            "rope_type": "llama3",
            "factor": 8,
            "low_freq_factor": 4,
            "high_freq_factor": 1,
            "original_max_position_embeddings": 8192,
        },
        {},
        ValueError,
        "high_freq_factor",
    ),
    (
        {
            "rope_type": "longrope",
            "short_factor": [1.0],
            "long_factor": [1.0] * 4,
            "original_max_position_embeddings": 8,
            "factor": 2,
        },
        {"head_dim": 8},
        ValueError,
        "one factor per rotated pair",
    ),
    (
        {
            "rope_type": "longrope",
            "short_factor": [1.0] * 4,
            "long_factor": [1.0] * 4,
            "original_max_position_embeddings": 1,
            "factor": 2,
        },
        {"head_dim": 8},
        ValueError,
        "original_max_position_embeddings'] must be at least 2",
    ),
    ({"rope_type": "dynamic", "factor": 2}, {"head_dim": 2}, ValueError, "more than 2"),
]


@pytest.mark.parametrize(("parameters", "config", "error", "message"), REFUSALS)
def test_every_refusal_is_one_transformers_refuses_or_warns_about(
    parameters: dict[str, Any], config: dict[str, Any], error: type[Exception], message: str
) -> None:
    head_dim = config.get("head_dim", 64)
    fraction = config.get("partial_rotary_factor")
    with pytest.raises(error, match=message):
        pe.rope_frequencies(
            head_dim,
            scaling=parameters,
            max_position_embeddings=2048,
            partial_rotary_factor=fraction,
        )
    if fraction is not None:
        parameters = parameters | {"partial_rotary_factor": fraction}
    verdict = transformers_verdict(parameters, head_dim=head_dim, max_position_embeddings=2048)
    assert verdict in ("raises", "warns"), verdict


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"scaling": {"rope_type": "yarn", "type": "linear", "factor": 2}},
            ValueError,
            "two rules",
        ),
        (
            {"scaling": {"type": "dynamic", "factor": 2}},
            ValueError,
            "needs max_position_embeddings",
        ),
        (
            {"scaling": {"type": "yarn", "factor": 2}},
            ValueError,
            "original_max_position_embeddings",
        ),
        ({"scaling": [("type", "linear")]}, TypeError, "scaling must be a dict"),
        ({"partial_rotary_factor": 0.0}, ValueError, "partial_rotary_factor"),
        # Wider than the head: transformers builds the frequencies, then fails in the model.
        ({"partial_rotary_factor": 1.5}, ValueError, r"partial_rotary_factor must lie in \(0, 1\]"),
        ({"partial_rotary_factor": 0.1}, ValueError, "positive even number"),
        ({"seq_len": -1}, ValueError, "seq_len must be a non-negative integer"),
        ({"base": 10**400}, ValueError, "base must be a finite .* too large"),
        ({"scaling": {"rope_theta": 10**400}}, ValueError, r"rope_theta'\] must be a finite"),
        (
            {"scaling": {"type": "linear", "factor": 10**400}},
            ValueError,
            r"factor'\] must be a finite number >= 1; got an integer of about 401 digits",
        ),
        ({"scaling": {"rope_type": ["yarn"]}}, TypeError, r"rope_type'\] must be a rule name"),
        ({"scaling": {1: "linear"}}, TypeError, "scaling must have string keys"),
        (
            {
                "scaling": {
                    "type": "longrope",
                    "short_factor": ["1"] * 4,
                    "long_factor": [1] * 4,
                    "original_max_position_embeddings": 8,
                    "factor": 2,
                }
            },
            TypeError,
            r"short_factor'\] must be a list of numbers; it holds '1'",
        ),
        (
            {
                "scaling": {"type": "dynamic", "factor": 1e300},
                "max_position_embeddings": 8,
                "seq_len": 16,
            },
            ValueError,
            r"factor'\]=1e\+300 at seq_len=16 grows the base past the largest float",
        ),
        ({"scaling": {"rope_type": "axial"}}, ValueError, "2-D rotary embedding"),
        (
            {"scaling": {"full_attention": {"rope_type": "default"}}},
            ValueError,
            "pass layer_type=",
        ),
        (
            {"scaling": {"full_attention": None}, "layer_type": "full_attention"},
            ValueError,
            "no rotary embedding",
        ),
        (
            {"scaling": {"full_attention": {}}, "layer_type": "sliding_attention"},
            ValueError,
            "layer_type='sliding_attention' is not in scaling",
        ),
        ({"layer_type": 3}, TypeError, "layer_type must be a string"),
    ],
)
def test_errors_name_the_key_and_the_value(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        pe.rope_frequencies(8, **kwargs)


def test_yarn_beta_of_zero_is_read_as_transformers_reads_it_with_a_warning() -> None:
    scaling = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
    plain = pe.rope_frequencies(64, scaling=scaling)
    for key, default in (("beta_fast", 32), ("beta_slow", 1)):
        with pytest.warns(UserWarning, match=rf"'{key}'\]=0 is read as {default}"):
            zero = pe.rope_frequencies(64, scaling=scaling | {key: 0})
        np.testing.assert_array_equal(zero.frequencies, plain.frequencies)
        config = transformers.LlamaConfig(
            head_dim=64,
            hidden_size=64,
            num_attention_heads=1,
            rope_parameters=scaling | {key: 0},
        )
        theirs, _ = reference(config, None)
        np.testing.assert_allclose(zero.frequencies, theirs, rtol=float32_bound(10000.0))


def test_llama3_with_equal_band_factors_gives_transformers_step_with_a_warning() -> None:
    scaling = {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 2.0,
        "high_freq_factor": 2.0,
        "original_max_position_embeddings": 8192,
    }
    with pytest.warns(UserWarning, match="high_freq_factor == low_freq_factor"):
        ours = pe.rope_frequencies(128, base=500000.0, scaling=scaling)
    config = transformers.LlamaConfig(
        head_dim=128,
        hidden_size=128,
        num_attention_heads=1,
        rope_parameters=scaling | {"rope_theta": 500000.0},
        max_position_embeddings=131072,
    )
    theirs, _ = reference(config, None)
    assert np.all(np.isfinite(theirs))
    np.testing.assert_allclose(ours.frequencies, theirs, rtol=float32_bound(500000.0))
    plain = pe.rope_frequencies(128, base=500000.0).frequencies
    assert set(np.round(plain / ours.frequencies, 12)) == {1.0, 8.0}


def test_keys_read_elsewhere_are_accepted_and_named() -> None:
    ministral = next(entry for entry in PUBLISHED if entry.model == "Ministral 3 8B")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = RotaryEmbedding.from_config(ministral.config)
    messages = " ".join(str(w.message) for w in caught)
    assert "'llama_4_scaling_beta'" not in messages  # read: the queries' temperature
    scaling = ministral.config["rope_parameters"]
    assert isinstance(module, RotaryEmbedding)
    assert module.query_temperature == (
        scaling["llama_4_scaling_beta"],
        scaling["original_max_position_embeddings"],
        0,
    )
    assert "'max_position_embeddings'" in messages  # unknown to the rule, as to transformers
    qwen2_vl = next(entry for entry in PUBLISHED if entry.model == "Qwen2-VL text model")
    with pytest.warns(UserWarning, match="'mrope_section'.*three positions are equal"):
        module = RotaryEmbedding.from_config(qwen2_vl.config)
    assert module.rule == "default"


def test_nested_yarn_truncate_warns() -> None:
    nested = {
        "full_attention": {
            "rope_type": "yarn",
            "factor": 8.0,
            "original_max_position_embeddings": 4096,
            "truncate": False,
        }
    }
    with pytest.warns(UserWarning, match="truncates every nested yarn entry"):
        nested_result = pe.rope_frequencies(64, scaling=nested, layer_type="full_attention")
    flat = pe.rope_frequencies(64, scaling=nested["full_attention"])
    np.testing.assert_array_equal(nested_result.frequencies, flat.frequencies)


def test_theta_given_twice_uses_the_dict_as_transformers_does() -> None:
    parameters = {"rope_type": "default", "rope_theta": 500000.0}
    config = {"head_dim": 64, "rope_theta": 10000.0, "rope_parameters": parameters}
    with pytest.warns(UserWarning, match=r"rope_theta'\]=500000.0 and base=10000.0 disagree"):
        module = RotaryEmbedding.from_config(config)
    with pytest.warns(UserWarning, match="disagree"):
        direct = pe.rope_frequencies(64, base=10000.0, scaling=parameters)
    theirs = transformers.LlamaConfig(
        hidden_size=64, num_attention_heads=1, **copy.deepcopy(config)
    ).rope_parameters["rope_theta"]
    assert module.base == theirs == 500000.0
    np.testing.assert_array_equal(module.frequencies, direct.frequencies)
    np.testing.assert_array_equal(direct.frequencies, pe.rope_frequencies(64, base=5e5).frequencies)


def test_dynamic_without_seq_len_warns_naming_seq_len() -> None:
    config = {
        "head_dim": 64,
        "max_position_embeddings": 4096,
        "rope_scaling": {"type": "dynamic", "factor": 4.0},
    }
    with pytest.warns(UserWarning, match="seq_len was not given.*unscaled"):
        module = RotaryEmbedding.from_config(config)
    np.testing.assert_allclose(module.frequencies, pe.frequencies(64), rtol=1e-15)


def test_longrope_without_seq_len_warns_and_turns_by_the_short_factors() -> None:
    phi35 = next(entry for entry in PUBLISHED if entry.model == "Phi-3.5 mini instruct")
    config = transformers_config(phi35)
    with pytest.warns(UserWarning, match="longrope.*seq_len was not given.*short factors"):
        module = RotaryEmbedding.from_config(config.to_dict())
    theirs, factor = reference(config, None, None)  # transformers' frequencies before a call
    assert module.attention_factor == pytest.approx(factor, rel=1e-12)
    np.testing.assert_allclose(module.frequencies, theirs, rtol=bound(phi35, None), atol=0)
    saved = config.to_dict()
    long = pe.rope_frequencies(
        96, scaling=saved["rope_parameters"], max_position_embeddings=131072, seq_len=131072
    )
    assert np.max(np.abs(module.frequencies / long.frequencies - 1)) > 1  # not the long set


def test_every_rotary_width_up_to_512_is_read_exactly() -> None:
    from pe._config import _fraction_for

    for head_dim in range(2, 513, 2):
        for rotated in range(2, head_dim + 1, 2):
            fraction = _fraction_for(rotated, head_dim)
            assert int(head_dim * fraction) == rotated
            assert fraction <= 1.0
    module = RotaryEmbedding.from_config({"head_dim": 88, "rotary_dim": 60})
    assert module.rotary_dim == 60


def test_odd_rotated_widths_round_up_as_in_transformers() -> None:
    # GLM-4.5's transformers defaults: head 4096 // 96 = 42, half rotated: 21 dimensions,
    # which transformers turns as 11 pairs with exponents 2i / 21.
    config = transformers.CONFIG_MAPPING["glm4_moe"]()
    theirs, _ = reference(config, None)
    module = RotaryEmbedding.from_config(config.to_dict())
    assert module.rotary_dim == 22
    np.testing.assert_allclose(module.frequencies, theirs, rtol=float32_bound(10000.0), atol=0)
    np.testing.assert_allclose(module.frequencies, 10000.0 ** (-np.arange(0, 21, 2) / 21))
    with pytest.raises(ValueError, match="transformers fails on an odd width"):
        pe.rope_frequencies(
            42,
            partial_rotary_factor=0.5,
            scaling={"rope_type": "yarn", "factor": 2.0},
            max_position_embeddings=4096,
        )


def test_wrapped_language_configs_are_read_inside() -> None:
    inner = {"head_dim": 64, "rope_parameters": {"rope_type": "default", "rope_theta": 5e5}}
    for wrapper in ("text_config", "vlm_config", "thinker_config"):
        module = RotaryEmbedding.from_config({"hidden_size": 8, wrapper: inner})
        assert module.base == 5e5
    with pytest.raises(ValueError, match=r"config\['encoder'\], config\['decoder'\] hold some"):
        RotaryEmbedding.from_config({"encoder": inner, "decoder": inner})
    # A length saved as a float (MusicFlamingo's 1200.0) reads as the integer.
    saved = {
        "head_dim": 64,
        "max_position_embeddings": 1200.0,
        "rope_scaling": {"rope_type": "dynamic", "factor": 2.0},
    }
    assert RotaryEmbedding.from_config(saved, seq_len=2400).frequencies[-1] < 1e-4


@pytest.mark.parametrize(
    ("config", "error", "message"),
    [
        (
            {"hidden_size": 64, "num_attention_heads": 0},
            ValueError,
            r"config\['num_attention_heads'\] must be a positive integer; got 0",
        ),
        (
            {"hidden_size": "64", "num_attention_heads": 4},
            TypeError,
            r"config\['hidden_size'\] must be a positive integer; got '64'",
        ),
        ({"hidden_size": 2, "num_attention_heads": 4}, ValueError, "head width .* is 0"),
        ({"head_dim": 88, "rotary_dim": 61}, ValueError, r"config\['rotary_dim'\]"),
        (
            {"head_dim": 64, "rope_parameters": [1]},
            TypeError,
            r"config\['rope_parameters'\] must be a dict",
        ),
        (
            {"head_dim": 64, "rope_parameters": {"full_attention": {}}},
            ValueError,
            "holds one RoPE dict per layer type",
        ),
        (
            {"head_dim": 64, "layer_types": ["full_attention"]},
            ValueError,
            "is not a layer type of this config",
        ),
    ],
)
def test_from_config_names_the_bad_key(
    config: dict[str, Any], error: type[Exception], message: str
) -> None:
    layer_type = "sliding_attention" if "layer_types" in config else None
    with pytest.raises(error, match=message):
        RotaryEmbedding.from_config(config, layer_type=layer_type)


def test_ntk_aware_base_against_the_formula_pair_by_pair() -> None:
    import mpmath

    mpmath.mp.dps = 30
    for base, factor, dim in ((10000.0, 8.0, 128), (500000.0, 4.0, 64), (10000.0, 2.5, 6)):
        new_base = pe.ntk_aware_base(base, factor, dim)
        # θ'_i = b^(-2i/d) · s^(-2i/(d-2)): pair 0 kept, the last pair divided by s exactly.
        expected = [
            mpmath.mpf(base) ** (-2 * mpmath.mpf(i) / dim)
            * mpmath.mpf(factor) ** (-2 * mpmath.mpf(i) / (dim - 2))
            for i in range(dim // 2)
        ]
        got = pe.rope_frequencies(dim, base=new_base).frequencies
        assert got == pytest.approx([float(value) for value in expected], rel=1e-13)
        assert got[0] == 1.0
        plain = pe.rope_frequencies(dim, base=base).frequencies
        assert plain[-1] / got[-1] == pytest.approx(factor, rel=1e-13)
    assert pe.ntk_aware_base(10000.0, 1.0, 128) == 10000.0


def test_ntk_aware_base_is_the_dynamic_base_at_the_length_where_alpha_equals_s() -> None:
    # transformers' dynamic rule: alpha = s·n/L - (s - 1), which is s at n = L(2s - 1)/s.
    transformers_rope = importlib.import_module("transformers.modeling_rope_utils")
    from transformers import LlamaConfig

    config = LlamaConfig(
        hidden_size=256,
        num_attention_heads=4,
        max_position_embeddings=512,
        rope_parameters={"rope_type": "dynamic", "factor": 4.0, "rope_theta": 10000.0},
    )
    inv_freq, _ = transformers_rope._compute_dynamic_ntk_parameters(config, seq_len=896)
    static = pe.rope_frequencies(64, base=pe.ntk_aware_base(10000.0, 4.0, 64)).frequencies
    assert static == pytest.approx(inv_freq.double().numpy(), rel=2e-6)


@pytest.mark.parametrize(
    ("arguments", "error", "words"),
    [
        ((1.0, 2.0, 64), ValueError, "base"),
        ((10000.0, 0.5, 64), ValueError, "factor"),
        ((10000.0, float("nan"), 64), ValueError, "factor"),
        ((10000.0, "2", 64), TypeError, "factor"),
        ((10000.0, 2.0, 2), ValueError, "dim must be an even integer of at least 4"),
        ((10000.0, 2.0, 63), ValueError, "dim"),
        ((10000.0, 2.0, 64.5), TypeError, "dim"),
        ((1e300, 1e300, 64), ValueError, "too large"),
    ],
)
def test_ntk_aware_base_refusals_name_the_parameter(
    arguments: tuple[Any, Any, Any], error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=words):
        pe.ntk_aware_base(*arguments)


def test_scaling_page_scores_are_those_of_rotated_queries_and_keys() -> None:
    import torch

    from sitegen.pages import rope_scaling

    q, k = rope_scaling.random_pairs()
    rope = RotaryEmbedding(rope_scaling.HEAD_DIM)
    offsets = np.array([0, 1, 7, 4095, 4096, 30000])
    got = rope_scaling.scores(rope_scaling.plain(), offsets)
    for column, offset in enumerate(offsets):
        # One position per sample: shape (samples, seq = 1, head_dim).
        rotated_q = rope.rotate(torch.from_numpy(q[:, None]), offset=int(offset))[:, 0].numpy()
        rotated_k = rope.rotate(torch.from_numpy(k[:, None]), offset=0)[:, 0].numpy()
        expected = (rotated_q * rotated_k).sum(axis=1) / math.sqrt(rope_scaling.HEAD_DIM)
        assert got[column] == pytest.approx(expected, abs=1e-10)


def test_scaling_page_counts_against_hand_derived_values() -> None:
    from sitegen.pages import rope_scaling

    # Pair i never completes a turn in 4096 positions when 4096·10000^(-i/64) < 2π,
    # i.e. i > 64·log10(4096/2π)/4: the pairs from floor of that + 1 to 63.
    slow = 63 - math.floor(16 * math.log10(4096 / (2 * math.pi)))
    assert rope_scaling.trained_turns() == slow
    assert all(band.pairs_past_arc == slow for band in rope_scaling.failure())
    assert [band.offsets_outside > 0 for band in rope_scaling.failure()] == [True] * 4
    effects = {name: rope_scaling.effect(*rule) for name, rule in rope_scaling.rules().items()}
    assert effects["none"].pairs_past_arc == slow
    assert effects["none"].near_change == 0
    # Linear: (8L)·θ/8 = L·θ exactly, nothing past its arc; pair 0 at 1/8.
    assert effects["linear (PI)"].pairs_past_arc == 0
    assert effects["linear (PI)"].fastest == pytest.approx(1 / 8, abs=1e-15)
    # NTK-aware: the last pair lands exactly on its arc, the other slow pairs pass it.
    assert effects["NTK-aware (static)"].pairs_past_arc == slow - 1
    assert effects["YaRN"].attention_factor == pytest.approx(0.1 * math.log(8) + 1, abs=1e-15)
    new_base, first, last = rope_scaling.ntk_ends()
    assert new_base == pytest.approx(10000 * 8 ** (128 / 126), rel=1e-14)
    assert first == 1.0
    assert last == pytest.approx(8.0, rel=1e-13)
    text = (Path(__file__).resolve().parents[1] / "docs/beyond/rope-scaling.md").read_text()
    for name in ("failure_table", "rules_table"):
        assert f"rope_scaling.{name}()" in text
