"""`pe.rope_frequencies` against transformers' own rules, on published configurations."""

import copy
import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

import pe
from sitegen.rope import PUBLISHED, Published, frequencies_of

if TYPE_CHECKING:
    from transformers import PreTrainedConfig

transformers = pytest.importorskip("transformers")
rope_utils = pytest.importorskip("transformers.modeling_rope_utils")
llama = pytest.importorskip("transformers.models.llama.modeling_llama")


def float32_bound(base: float) -> float:
    """Relative error of transformers' float32 frequencies ``base ** (2i/d as float32)``.

    The exponent is rounded once (relative 2**-24, at most 1 in size), which moves
    the power by ``ln(base) * 2**-24``; the power, the division by the factor and
    the blend add a few roundings more.
    """
    return 2.0**-24 * (6.0 + math.log(base))


def transformers_frequencies(
    entry: Published, seq_len: int | None
) -> tuple[np.ndarray, float, "PreTrainedConfig"]:
    if "partial_rotary_factor" in entry.config:  # Phi's classes read the rotated fraction
        phi = pytest.importorskip("transformers.models.phi.modeling_phi")
        config = transformers.PhiConfig(**copy.deepcopy(entry.config))
        default = phi.PhiRotaryEmbedding.compute_default_rope_parameters
    else:
        config = transformers.LlamaConfig(**copy.deepcopy(entry.config))
        default = llama.LlamaRotaryEmbedding.compute_default_rope_parameters
    rule = config.rope_parameters["rope_type"]
    function = default if rule == "default" else rope_utils.ROPE_INIT_FUNCTIONS[rule]
    frequencies, attention_factor = function(config=config, device="cpu", seq_len=seq_len)
    return frequencies.double().numpy(), float(attention_factor), config


def lengths(entry: Published) -> list[int | None]:
    """Lengths at which the rule is compared: unset, the trained length, and beyond."""
    longest = entry.config["max_position_embeddings"]
    return [None, longest // 2, longest, 2 * longest]


def test_at_least_six_model_families_and_every_rule() -> None:
    rules = {entry.rule for entry in PUBLISHED}
    assert rules == {"default", "linear", "dynamic", "yarn", "longrope", "llama3"}
    families = {entry.model.split()[0].split("-")[0] for entry in PUBLISHED}
    assert len(families) >= 6, families


@pytest.mark.parametrize("entry", PUBLISHED, ids=[entry.model for entry in PUBLISHED])
def test_matches_transformers_on_published_configs(entry: Published) -> None:
    for seq_len in lengths(entry):
        theirs, their_factor, _ = transformers_frequencies(entry, seq_len)
        ours = frequencies_of(entry, seq_len)
        assert ours.frequencies.dtype == np.float64
        assert ours.frequencies.shape == theirs.shape
        base = float(entry.config.get("rope_theta", 10000.0))
        if entry.rule == "dynamic" and seq_len:
            base *= 4.0  # the grown base, at most (2 * 2 - 1) ** (64 / 63) here
        np.testing.assert_allclose(ours.frequencies, theirs, rtol=float32_bound(base), atol=0)
        assert ours.attention_factor == pytest.approx(their_factor, rel=1e-12)


def test_float32_bound_is_tight_enough_to_catch_a_wrong_rule() -> None:
    # The bound is 1e-6 or less: a llama3 band moved by one pair, or yarn's
    # attention factor from mscale alone, would be caught.
    assert float32_bound(1e6) < 1.3e-6
    entry = next(e for e in PUBLISHED if e.model == "Llama 3.1 8B")
    theirs, _, _ = transformers_frequencies(entry, None)
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
    # linear: every pair by the factor; dynamic: unchanged up to the trained length.
    linear = pe.rope_frequencies(16, scaling={"type": "linear", "factor": 4.0}).frequencies
    np.testing.assert_array_equal(linear, pe.frequencies(16) / 4)
    dynamic = {"type": "dynamic", "factor": 2.0}
    same = pe.rope_frequencies(16, scaling=dynamic, max_position_embeddings=100, seq_len=100)
    np.testing.assert_allclose(same.frequencies, pe.frequencies(16), rtol=1e-15)
    grown = pe.rope_frequencies(16, scaling=dynamic, max_position_embeddings=100, seq_len=200)
    # b' = b * 3 ** (16 / 14): the slowest pair is b'^(-14/16) = b^(-14/16) / 3.
    assert grown.frequencies[-1] == pytest.approx(pe.frequencies(16)[-1] / 3, rel=1e-12)


def test_partial_rotary_rotates_the_first_fraction() -> None:
    result = pe.rope_frequencies(80, partial_rotary_factor=0.4)
    np.testing.assert_allclose(
        result.frequencies, 10000.0 ** (-np.arange(0, 32, 2) / 32), rtol=1e-15
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"scaling": {"rope_type": "ntk"}}, ValueError, "rule must be one of 'default'"),
        (
            {"scaling": {"rope_type": "yarn", "type": "linear", "factor": 2}},
            ValueError,
            "two rules",
        ),
        ({"scaling": {"type": "linear", "factor": 2, "beta_fast": 3}}, ValueError, "'beta_fast'"),
        ({"scaling": {"type": "linear"}}, ValueError, "needs 'factor'"),
        (
            {"scaling": {"type": "linear", "factor": 0.5}},
            ValueError,
            r"factor'\] must be a finite number >= 1",
        ),
        ({"scaling": {"type": "linear", "factor": "2"}}, TypeError, "must be a real number"),
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
        (
            {
                "scaling": {"type": "yarn", "factor": 2, "beta_fast": 1, "beta_slow": 4},
                "max_position_embeddings": 10,
            },
            ValueError,
            "beta_fast",
        ),
        (
            {
                "scaling": {
                    "type": "llama3",
                    "factor": 8,
                    "low_freq_factor": 4,
                    "high_freq_factor": 1,
                    "original_max_position_embeddings": 8192,
                }
            },
            ValueError,
            "high_freq_factor",
        ),
        (
            {
                "scaling": {
                    "type": "longrope",
                    "short_factor": [1.0],
                    "long_factor": [1.0] * 4,
                    "original_max_position_embeddings": 8,
                    "factor": 2,
                }
            },
            ValueError,
            "one factor per rotated pair",
        ),
        ({"scaling": {"rope_theta": 500000.0}}, ValueError, "disagrees with base"),
        ({"scaling": [("type", "linear")]}, TypeError, "scaling must be a dict"),
        ({"partial_rotary_factor": 0.0}, ValueError, "partial_rotary_factor"),
        ({"partial_rotary_factor": 0.2}, ValueError, "positive even number"),
        (
            {
                "seq_len": 0,
                "scaling": {"type": "dynamic", "factor": 2},
                "max_position_embeddings": 8,
            },
            ValueError,
            "seq_len",
        ),
    ],
)
def test_errors_name_the_key_and_the_value(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        pe.rope_frequencies(8, **kwargs)
