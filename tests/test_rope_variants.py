"""The partial-rotary, MLA and NoPE page's numbers against independent references.

References: float64 formulas written out here (cosines for the rotated pairs,
the cache counts of DeepSeek-V2's Table 1, the 1/(t+1) share of uniform
causal attention, Llama 4's temperature formula), and transformers' own
configuration classes for the configurations read from their defaults.
"""

import math

import numpy as np
import pytest
import torch

from pe._published import by_model
from sitegen.pages import rope_variants as page


def test_partial_rotary_counts_are_int_of_head_size_times_fraction() -> None:
    expected = {
        "GPT-NeoX-20B": (6144 // 64, int(96 * 0.25)),
        "GPT-J-6B": (4096 // 16, 64),
        "Phi-2": (2560 // 32, int(80 * 0.4)),
        "StableLM 3B 4E1T": (2560 // 32, int(80 * 0.25)),
        "GLM-4": (128, int(128 * 0.5)),
    }
    rows = {
        row["model"]: (row["rope"].head_dim, row["rope"].rotary_dim) for row in page.partial_rows()
    }
    assert rows == expected


def test_partial_rotary_configs_match_transformers_defaults() -> None:
    transformers = pytest.importorskip("transformers")
    neox = transformers.GPTNeoXConfig()
    assert neox.hidden_size == page.GPT_NEOX_20B["config"]["hidden_size"]
    assert neox.num_attention_heads == page.GPT_NEOX_20B["config"]["num_attention_heads"]
    assert neox.rope_parameters["partial_rotary_factor"] == 0.25
    gptj = transformers.GPTJConfig()
    assert (gptj.n_embd, gptj.n_head, gptj.rotary_dim) == (4096, 16, 64)


def test_self_match_scores_follow_the_cosine_sums() -> None:
    # Independent: rotate x by hand (interleaved pairs, θ_i = 10000^(-2i/d_r)) and dot.
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(1, 64, generator=generator, dtype=torch.float64).numpy()[0]
    norm = float(x @ x)

    def score(offset: int, rotated: int) -> float:
        total = float(x[rotated:] @ x[rotated:])
        for i in range(rotated // 2):
            theta = 10000.0 ** (-2 * i / rotated)
            pair = x[2 * i] ** 2 + x[2 * i + 1] ** 2
            total += pair * math.cos(offset * theta)
        return total / norm

    for offset, full, partial, rot, rest in page.self_match_scores():
        assert full == pytest.approx(score(offset, 64), abs=1e-12)
        assert partial == pytest.approx(score(offset, 16), abs=1e-12)
        assert rest == pytest.approx(float(x[16:] @ x[16:]) / norm, abs=1e-12)
        assert rot + rest == pytest.approx(partial, abs=1e-12)


def test_mla_cache_counts_follow_deepseek_v2_table_1() -> None:
    for name in page.MLA_CONFIGS:
        cache = page.cache_per_token(name)
        c = page.MLA_CONFIGS[name]
        assert cache["mla"] == 512 + 64
        assert cache["mha"] == 2 * c["num_attention_heads"] * 128
        assert cache["gqa"] == 2 * 8 * 128
        # The paper: MLA's cache equals GQA's with 2.25 groups (d_c = 4 d_h, d_h^R = d_h / 2).
        assert cache["groups_equivalent"] == pytest.approx((4 * 128 + 128 / 2) / (2 * 128))
        assert cache["groups_equivalent"] == 2.25


def test_mla_shapes_of_deepseek_v3() -> None:
    shapes = page.mla_shapes("DeepSeek-V3")
    assert shapes["down_kv"] == (7168, 576)
    assert shapes["up_k"] == (512, 128 * 128)
    assert shapes["up_q"] == (1536, 128 * 192)
    assert page.mla_shapes("DeepSeek-V2-Lite")["down_q"] is None


def test_mla_configs_agree_with_transformers_deepseek_v3_defaults() -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.DeepseekV3Config()
    ours = page.MLA_CONFIGS["DeepSeek-V3"]
    for key in (
        "hidden_size",
        "num_hidden_layers",
        "num_attention_heads",
        "kv_lora_rank",
        "q_lora_rank",
        "qk_nope_head_dim",
        "qk_rope_head_dim",
        "v_head_dim",
    ):
        assert getattr(config, key) == ours[key], key


def test_absorption_exact_without_rope_and_decoupled_broken_with_rope() -> None:
    result = page.absorption()
    assert result["no_rope"] < 1e-12
    assert result["decoupled"] < 1e-12
    assert result["rope"] > 0.1 * result["scale"]


def test_absorbed_matrix_would_have_to_depend_on_the_offset() -> None:
    # Independent: W_Q^T R_δ W_K differs between offsets for random W (hand-built rotation).
    rng = np.random.default_rng(1)
    w_q, w_k = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))

    def rotation(offset: int) -> np.ndarray:
        out = np.zeros((4, 4))
        for i in range(2):
            angle = offset * 10000.0 ** (-2 * i / 4)
            c, s = math.cos(angle), math.sin(angle)
            out[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[c, -s], [s, c]]
        return out

    assert np.abs(w_q.T @ rotation(1) @ w_k - w_q.T @ rotation(2) @ w_k).max() > 0.1


def test_causal_nope_output_shares_follow_one_over_t_plus_one() -> None:
    share = page.bos_share()
    positions = np.arange(len(share))
    # Near-uniform weights, plus the random tokens' own projections on the first one,
    # whose mean over 400 sequences wanders by a few hundredths at most.
    assert np.all(np.abs(share - 1.0 / (positions + 1)) < 0.1 / np.sqrt(positions + 1))
    assert share[0] == pytest.approx(1.0, abs=1e-12)


def test_uniform_causal_average_shrinks_like_one_over_t() -> None:
    # The hand-derived identity behind the page: the mean of t + 1 iid N(0, I_d) vectors
    # has E|o|^2 = d / (t + 1). Checked here by a separate simulation.
    rng = np.random.default_rng(5)
    d, length, runs = 16, 32, 4000
    values = rng.standard_normal((runs, length, d))
    means = np.cumsum(values, axis=1) / np.arange(1, length + 1)[None, :, None]
    measured = (means**2).sum(axis=-1).mean(axis=0)
    np.testing.assert_allclose(measured, d / np.arange(1, length + 1), rtol=0.1)


def test_probe_reads_position_with_the_mask_and_not_without() -> None:
    causal, mutual = page.probe_scores()
    assert causal > 0.8
    assert mutual < 0.1
    read = page.probe(causal=True)["median"]
    assert all(abs(read[t] - t) <= 0.25 * t + 0.5 for t in (1, 2, 4, 8, 16))


def test_attention_without_mask_is_permutation_equivariant() -> None:
    check = page.permutation_check()
    assert check["bidirectional"] < 1e-12
    assert check["causal"] > 0.1


def test_nope_layers_match_transformers_configs() -> None:
    transformers = pytest.importorskip("transformers")
    llama4 = transformers.Llama4TextConfig()
    smol = transformers.SmolLM3Config()
    assert page.rope_flags(48, 4) == list(llama4.no_rope_layers)
    assert page.rope_flags(36, 4) == list(smol.no_rope_layers)
    assert llama4.num_hidden_layers == page.LLAMA4_SCOUT["num_hidden_layers"]
    assert smol.num_hidden_layers == page.SMOLLM3["num_hidden_layers"]
    for key in ("floor_scale", "attn_scale", "attention_chunk_size", "attn_temperature_tuning"):
        assert getattr(llama4, key) == page.LLAMA4_SCOUT[key], key
    # transformers gives the RoPE layers (flag 1) chunked attention, the NoPE layers full.
    assert [t == "chunked_attention" for t in llama4.layer_types] == [
        bool(f) for f in llama4.no_rope_layers
    ]


def test_nope_layer_indices_are_every_fourth() -> None:
    flags = page.rope_flags(48, 4)
    assert [i for i, f in enumerate(flags) if not f] == list(range(3, 48, 4))


def test_llama4_temperature_formula() -> None:
    for position, expected in (
        (0, 1.0),
        (8190, 1.0),
        (8191, 1 + 0.1 * math.log(2)),
        (65535, 1 + 0.1 * math.log(9)),
        (1048575, 1 + 0.1 * math.log(129)),
    ):
        assert page.llama4_temperature(position) == pytest.approx(expected, abs=1e-15)


def test_llama4_temperature_matches_transformers_attention() -> None:
    pytest.importorskip("transformers")
    from transformers.models.llama4 import modeling_llama4

    config = modeling_llama4.Llama4TextConfig(
        hidden_size=8,
        num_attention_heads=1,
        num_key_value_heads=1,
        head_dim=8,
        num_hidden_layers=4,
        floor_scale=2,
        attn_scale=0.5,
        intermediate_size=8,
        intermediate_size_mlp=8,
    )
    config._attn_implementation = "eager"
    layer = modeling_llama4.Llama4TextAttention(config, layer_idx=3)  # a NoPE layer
    assert not layer.use_rope
    captured: dict[str, torch.Tensor] = {}
    original = modeling_llama4.eager_attention_forward

    def spy(module, query, key, value, *args, **kwargs):  # type: ignore[no-untyped-def]
        captured["query"] = query
        return original(module, query, key, value, *args, **kwargs)

    modeling_llama4.eager_attention_forward = spy
    try:
        hidden = torch.ones(1, 6, 8)
        layer(hidden, position_embeddings=None, attention_mask=None)
    finally:
        modeling_llama4.eager_attention_forward = original
    plain = layer.q_proj(hidden).view(1, 6, 1, 8).transpose(1, 2)
    ratio = (captured["query"] / plain)[0, 0, :, 0]
    expected = [page.llama4_temperature(p, floor_scale=2, attn_scale=0.5) for p in range(6)]
    np.testing.assert_allclose(ratio.detach().numpy(), expected, rtol=1e-6)


def test_top_weight_is_the_softmax_weight() -> None:
    logits = np.zeros(1000)
    logits[0] = 8.0
    for scale in (1.0, 1.5):
        weights = np.exp(scale * logits) / np.exp(scale * logits).sum()
        assert page.top_weight(1000, 8.0, scale) == pytest.approx(weights[0], rel=1e-12)


def test_tables_render() -> None:
    for function in (
        page.partial_table,
        page.self_match_table,
        page.mla_shape_table,
        page.cache_table,
        page.sequence_cache_table,
        page.absorption_table,
        page.nope_probe_table,
        page.permutation_table,
        page.nope_layers_table,
        page.temperature_table,
    ):
        text = function()
        lines = text.splitlines()
        assert lines[1].startswith("| ")
        widths = {line.count(" | ") for line in lines}
        assert len(widths) == 1, function.__name__


def test_mla_head_sizes_agree_with_transformers_deepseek_v2_and_pe_published() -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.DeepseekV2Config()
    for name in ("DeepSeek-V2", "DeepSeek-V2-Lite"):
        ours = page.MLA_CONFIGS[name]
        for key in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"):
            assert getattr(config, key) == ours[key], (name, key)
    lite = by_model("DeepSeek-V2-Lite").config
    assert lite["hidden_size"] == page.MLA_CONFIGS["DeepSeek-V2-Lite"]["hidden_size"]
    assert (
        lite["num_attention_heads"] == page.MLA_CONFIGS["DeepSeek-V2-Lite"]["num_attention_heads"]
    )
    assert by_model("DeepSeek-V3").config["num_attention_heads"] == 128
