import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from reference import rope_rotation as reference_rotation
from torch.jit._trace import TracerWarning

from pe._published import by_model
from pe.nn import RotaryEmbedding
from pe.nn.functional import convert_rotary_layout


def scores(rope: RotaryEmbedding, q: torch.Tensor, k: torch.Tensor, m: int, n: int) -> float:
    """q at position m against k at position n, after rotation."""
    q_rot = rope.rotate(q[None, :], positions=torch.tensor([m]))[0]
    k_rot = rope.rotate(k[None, :], positions=torch.tensor([n]))[0]
    return float(q_rot.double() @ k_rot.double())


def relative_property_gap(rope: RotaryEmbedding, head_dim: int = 16, seed: int = 0) -> float:
    """Largest change of the score when both positions move by the same amount."""
    torch.manual_seed(seed)
    q, k = torch.randn(head_dim), torch.randn(head_dim)
    gaps = []
    for m, n in [(0, 5), (3, 1), (10, 10), (40, 7)]:
        base = scores(rope, q, k, m, n)
        for shift in (1, 17, 1000):
            gaps.append(abs(scores(rope, q, k, m + shift, n + shift) - base))
    return max(gaps)


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_scores_depend_only_on_the_offset(layout: str) -> None:
    assert relative_property_gap(RotaryEmbedding(16, layout=layout)) < 1e-4


class SwappedSignRotary(RotaryEmbedding):
    """A wrong RoPE: one sine with the wrong sign (a reflection, not a rotation)."""

    def rotate(
        self, x: torch.Tensor, *, offset: int = 0, positions: torch.Tensor | None = None
    ) -> torch.Tensor:
        table = __import__("pe.nn.functional", fromlist=["sinusoidal"]).sinusoidal(
            positions, self.head_dim
        )
        sin, cos = table[..., 0::2], table[..., 1::2]
        first, second = x[..., 0::2], x[..., 1::2]
        out = torch.stack((first * cos + second * sin, first * sin + second * cos), dim=-1)
        return out.flatten(-2)


def test_the_property_check_catches_a_sign_error() -> None:
    assert relative_property_gap(SwappedSignRotary(16)) > 0.1


def test_rotation_preserves_norms_and_position_zero_is_identity() -> None:
    rope = RotaryEmbedding(32, layout="concatenated")
    x = torch.randn(3, 50, 32)
    rotated = rope.rotate(x)
    torch.testing.assert_close(rotated.norm(dim=-1), x.norm(dim=-1))
    torch.testing.assert_close(rotated[:, 0], x[:, 0])


def test_first_pair_turns_by_the_position() -> None:
    rope = RotaryEmbedding(4)
    x = torch.tensor([[1.0, 0.0, 1.0, 0.0]])
    out = rope.rotate(x, positions=torch.tensor([3]))
    torch.testing.assert_close(out[0, :2], torch.tensor([math.cos(3.0), math.sin(3.0)]))


def test_the_two_layouts_give_equal_scores_after_conversion() -> None:
    torch.manual_seed(1)
    q, k = torch.randn(2, 4, 9, 32), torch.randn(2, 4, 9, 32)
    inter = RotaryEmbedding(32, layout="interleaved")
    half = RotaryEmbedding(32, layout="concatenated")
    q_i, k_i = inter(q, k)
    q_h, k_h = half(
        convert_rotary_layout(q, "interleaved", "concatenated"),
        convert_rotary_layout(k, "interleaved", "concatenated"),
    )
    torch.testing.assert_close(
        q_i @ k_i.transpose(-1, -2), q_h @ k_h.transpose(-1, -2), atol=1e-5, rtol=1e-5
    )
    torch.testing.assert_close(
        convert_rotary_layout(q_h, "concatenated", "interleaved"), q_i, atol=1e-6, rtol=1e-6
    )


def test_half_layout_matches_llama_in_transformers() -> None:
    llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    torch.manual_seed(2)
    head_dim, seq = 64, 40
    q, k = torch.randn(1, 3, seq, head_dim), torch.randn(1, 3, seq, head_dim)
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2).double() / head_dim))
    angles = torch.arange(seq).double()[:, None] * inv_freq[None, :]
    emb = torch.cat((angles, angles), dim=-1)[None]
    q_ref, k_ref = llama.apply_rotary_pos_emb(q.double(), k.double(), emb.cos(), emb.sin())
    q_ours, k_ours = RotaryEmbedding(head_dim, layout="concatenated")(q, k)
    torch.testing.assert_close(q_ours.double(), q_ref, atol=2e-6, rtol=0)
    torch.testing.assert_close(k_ours.double(), k_ref, atol=2e-6, rtol=0)


def test_interleaved_layout_matches_gptj_in_transformers() -> None:
    gptj = pytest.importorskip("transformers.models.gptj.modeling_gptj")
    torch.manual_seed(3)
    head_dim, seq = 32, 30
    x = torch.randn(1, seq, 2, head_dim)  # GPT-J: (batch, seq, heads, dim)
    table = gptj.create_sinusoidal_positions(seq, head_dim)
    sin, cos = table[None, :, : head_dim // 2], table[None, :, head_dim // 2 :]
    reference = gptj.apply_rotary_pos_emb(x, sin, cos)
    ours = RotaryEmbedding(head_dim).rotate(x.transpose(1, 2)).transpose(1, 2)
    torch.testing.assert_close(ours, reference, atol=1e-5, rtol=0)


def test_dtype_is_kept_and_long_positions_are_accurate() -> None:
    rope = RotaryEmbedding(8)
    x = torch.randn(5, 8, dtype=torch.bfloat16)
    assert rope.rotate(x).dtype == torch.bfloat16
    far = rope.rotate(torch.ones(1, 8), positions=torch.tensor([10_000_000]))
    angle = torch.tensor(10_000_000.0, dtype=torch.float64)
    expected_first = math.cos(float(angle)) - math.sin(float(angle))
    assert abs(float(far[0, 0]) - expected_first) < 1e-6


def test_errors() -> None:
    with pytest.raises(ValueError, match="head_dim"):
        RotaryEmbedding(7)
    with pytest.raises(ValueError, match="layout must be one of 'interleaved', 'concatenated'"):
        RotaryEmbedding(8, layout="neox")
    with pytest.raises(ValueError, match="last dimension head_dim=8"):
        RotaryEmbedding(8).rotate(torch.zeros(3, 6))
    with pytest.raises(ValueError, match="source must be one of"):
        convert_rotary_layout(torch.zeros(4), "pairs", "concatenated")


def test_the_old_layout_name_half_warns_and_means_concatenated() -> None:
    q = torch.randn(2, 5, 8, generator=torch.Generator().manual_seed(0))
    with pytest.warns(DeprecationWarning, match=r"layout='half' .* use layout='concatenated'"):
        old = RotaryEmbedding(8, layout="half")
    assert old.layout == "concatenated"
    new = RotaryEmbedding(8, layout="concatenated")
    torch.testing.assert_close(old.rotate(q), new.rotate(q), rtol=0, atol=0)
    with pytest.warns(DeprecationWarning, match=r"target='half' .* use target='concatenated'"):
        moved = convert_rotary_layout(torch.arange(6.0), "interleaved", "half")
    assert moved.tolist() == [0.0, 2.0, 4.0, 1.0, 3.0, 5.0]  # pairs (0, 1), (2, 3), (4, 5) split


def test_checkpoint_conversion_permutes_each_heads_projection_rows() -> None:
    torch.manual_seed(4)
    heads, head_dim, d_model, seq = 3, 8, 24, 7
    w_q, w_k = torch.randn(heads * head_dim, d_model), torch.randn(heads * head_dim, d_model)
    x = torch.randn(seq, d_model)

    def per_head_rows(
        weight: torch.Tensor,
    ) -> torch.Tensor:  # (heads * head_dim, d) -> rows of each head reordered
        rows = weight.view(heads, head_dim, d_model).transpose(1, 2)
        return (
            convert_rotary_layout(rows, "interleaved", "concatenated")
            .transpose(1, 2)
            .reshape_as(weight)
        )

    # The same reordering written as a reshape: pairs (2i, 2i+1) -> halves (i, i + d/2).
    reshaped = w_q.view(heads, head_dim // 2, 2, d_model).transpose(1, 2).reshape_as(w_q)
    torch.testing.assert_close(per_head_rows(w_q), reshaped)

    def scores(w_q: torch.Tensor, w_k: torch.Tensor, layout: str) -> torch.Tensor:
        rope = RotaryEmbedding(head_dim, layout=layout)
        q: torch.Tensor = (x @ w_q.T).view(seq, heads, head_dim).transpose(0, 1)
        k: torch.Tensor = (x @ w_k.T).view(seq, heads, head_dim).transpose(0, 1)
        q, k = rope(q, k)
        return q @ k.transpose(-1, -2)

    torch.testing.assert_close(
        scores(w_q, w_k, "interleaved"),
        scores(per_head_rows(w_q), per_head_rows(w_k), "concatenated"),
        atol=1e-4,
        rtol=1e-5,
    )


# --- scaling, the cached table, position ids, compile ------------------------------------

# The published configuration, defined once for the page and the tests.
LLAMA31 = by_model("Llama 3.1 8B").config


def test_table_is_within_half_a_float32_unit_of_mpmath() -> None:
    mpmath = pytest.importorskip("mpmath")
    rope = RotaryEmbedding.from_config(LLAMA31)
    positions = torch.tensor([0, 1, 1857, 100_000, 2**20 - 1])
    cos, sin = rope._cos_sin(positions, torch.float32)
    worst = 0.0
    for row, p in enumerate(positions.tolist()):
        for i in (0, 1, 17, 40, 63):
            angle = mpmath.mpf(p) * mpmath.mpf(float(rope.frequencies[i]))
            worst = max(worst, abs(float(cos[row, i]) - float(mpmath.cos(angle))))
            worst = max(worst, abs(float(sin[row, i]) - float(mpmath.sin(angle))))
    assert worst <= 2**-25  # half a float32 unit at 1.0


def test_table_is_cached_per_device_and_dtype_and_grows_by_powers_of_two() -> None:
    rope = RotaryEmbedding(8)
    x = torch.randn(1, 300, 8)
    rope.rotate(x)
    table = rope._tables[("cpu", torch.float32)]
    assert table.shape == (512, 4)  # interleaved: one complex cos + i sin per pair
    rope.rotate(x, offset=100)  # fits: the same table object
    assert rope._tables[("cpu", torch.float32)] is table
    rope.rotate(x.double())
    assert set(rope._tables) == {("cpu", torch.float32), ("cpu", torch.float64)}
    rope.rotate(x, offset=300)  # 600 positions, 300 of them asked for: grows
    assert rope._tables[("cpu", torch.float32)].shape == (1024, 4)
    cos, _sin = rope.table(1024)
    assert cos.data_ptr() == rope._tables[("cpu", torch.float32)].data_ptr()  # a view


def test_casting_the_module_does_not_round_the_frequencies() -> None:
    rope = RotaryEmbedding.from_config(LLAMA31).to(torch.bfloat16)
    assert rope._frequencies64.dtype == torch.float64
    assert list(rope.buffers()) == []


@pytest.mark.parametrize(
    "config_name", ["Qwen2.5 7B Instruct", "Phi-3.5 mini instruct", "Llama 3.1 8B", "Phi-2"]
)
def test_matches_transformers_rotary_module_end_to_end(config_name: str) -> None:
    llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    rope_utils = pytest.importorskip("transformers.modeling_rope_utils")
    from test_rope_scaling import reference, transformers_config

    entry = by_model(config_name)
    rope = RotaryEmbedding.from_config(entry.config, seq_len=4300)  # Phi-3.5: the long factors
    seq = 300
    positions = torch.arange(4000, 4000 + seq)  # Phi-3.5: past 4096, the long factors
    inv_freq, attention = reference(
        transformers_config(entry), None, entry.config["max_position_embeddings"]
    )
    angles = positions.double()[:, None] * torch.from_numpy(inv_freq)[None, :]
    emb = torch.cat((angles, angles), dim=-1)[None]
    cos, sin = emb.cos() * attention, emb.sin() * attention
    torch.manual_seed(5)
    q, k = torch.randn(1, 2, seq, rope.head_dim), torch.randn(1, 2, seq, rope.head_dim)
    rotated = rope.rotary_dim
    q_ref, k_ref = llama.apply_rotary_pos_emb(
        q[..., :rotated].double(), k[..., :rotated].double(), cos, sin
    )
    q_ours, k_ours = rope(q, k, q_positions=positions, k_positions=positions)
    # Their frequencies are float32: at position 4300 the angle can differ by 4300 * 1e-6 * theta.
    tolerance = 4300 * 1.3e-6 * 4 + 1e-5
    torch.testing.assert_close(q_ours[..., :rotated].double(), q_ref, atol=tolerance, rtol=0)
    torch.testing.assert_close(k_ours[..., :rotated].double(), k_ref, atol=tolerance, rtol=0)
    torch.testing.assert_close(q_ours[..., rotated:], q[..., rotated:], atol=0, rtol=0)
    assert rope_utils  # the rule functions were the reference


def test_attention_factor_scales_every_rotated_vector() -> None:
    yarn = {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 256}
    rope = RotaryEmbedding(32, scaling=yarn)
    x = torch.randn(3, 40, 32)
    expected = (1 + 0.1 * math.log(16.0)) * x.norm(dim=-1)
    torch.testing.assert_close(rope.rotate(x).norm(dim=-1), expected)


def test_partial_rotary_rotates_the_first_dimensions_only() -> None:
    torch.manual_seed(6)
    partial = RotaryEmbedding(80, layout="concatenated", partial_rotary_factor=0.4)
    full = RotaryEmbedding(32, layout="concatenated")
    x = torch.randn(2, 9, 80)
    out = partial.rotate(x, offset=7)
    torch.testing.assert_close(out[..., :32], full.rotate(x[..., :32], offset=7), atol=0, rtol=0)
    torch.testing.assert_close(out[..., 32:], x[..., 32:], atol=0, rtol=0)


def test_batch_seq_position_ids_are_shared_by_the_heads_even_when_batch_equals_heads() -> None:
    torch.manual_seed(7)
    rope = RotaryEmbedding(16, layout="concatenated")
    batch = heads = 3
    x = torch.randn(batch, heads, 5, 16)
    positions = torch.tensor([[0, 1, 2, 3, 4], [10, 11, 12, 13, 14], [100, 101, 102, 103, 104]])
    out = rope.rotate(x, positions=positions)
    for b in range(batch):  # row b of the batch: every head at positions[b]
        torch.testing.assert_close(
            out[b], rope.rotate(x[b], positions=positions[b]), atol=0, rtol=0
        )
    # Broadcasting (batch, seq) against (heads, seq), the old behaviour, is another result:
    wrong = torch.stack([rope.rotate(x[:, h], positions=positions[h]) for h in range(heads)], dim=1)
    assert (out - wrong).abs().max() > 0.1
    # The full broadcast shape says the same thing explicitly.
    torch.testing.assert_close(rope.rotate(x, positions=positions[:, None, :]), out, atol=0, rtol=0)


@pytest.mark.parametrize(
    ("x_shape", "positions_shape", "message"),
    [
        ((2, 3, 5, 8), (4, 5), "ambiguous"),
        ((2, 3, 4, 5, 8), (2, 3, 5), "ambiguous"),
        ((2, 5, 8), (5, 2), "end in the sequence length 5"),
        ((5, 8), (2, 5), "ambiguous"),
    ],
)
def test_ambiguous_position_shapes_raise(
    x_shape: tuple[int, ...], positions_shape: tuple[int, ...], message: str
) -> None:
    rope = RotaryEmbedding(8)
    with pytest.raises(ValueError, match=message):
        rope.rotate(torch.zeros(x_shape), positions=torch.zeros(positions_shape, dtype=torch.long))


def test_float_positions_raise() -> None:
    with pytest.raises(TypeError, match="integer tensor"):
        RotaryEmbedding(8).rotate(torch.zeros(5, 8), positions=torch.arange(5.0))


def test_from_config_reads_published_configs() -> None:
    from sitegen.rope import frequencies_of

    phi = by_model("Phi-3.5 mini instruct")
    rope = RotaryEmbedding.from_config(phi.config, seq_len=131072)
    long = frequencies_of(phi, 131072)
    np.testing.assert_array_equal(rope.frequencies, long.frequencies)
    assert rope.attention_factor == long.attention_factor
    deepseek = RotaryEmbedding.from_config(
        {**by_model("DeepSeek-V3").config, "qk_rope_head_dim": 64}
    )
    assert deepseek.rotary_dim == 64
    neox = RotaryEmbedding.from_config(
        {"hidden_size": 512, "num_attention_heads": 8, "rotary_pct": 0.25}
    )
    assert neox.rotary_dim == 16
    transformers5 = {
        "head_dim": 64,
        "rope_parameters": {"rope_type": "default", "rope_theta": 123456.0},
    }
    assert RotaryEmbedding.from_config(transformers5).base == 123456.0
    with pytest.raises(ValueError, match="head_dim, or hidden_size"):
        RotaryEmbedding.from_config({"rope_theta": 10000.0})


# --8<-- [start:decode]
def prefill_and_decode_scores(
    rope: RotaryEmbedding, q: torch.Tensor, k: torch.Tensor, prompt: int
) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """Scores of every query against every key: all at once, and one token at a time."""
    q_all, k_all = rope(q, k)
    at_once = q_all @ k_all.transpose(-1, -2)
    keys = [rope.rotate(k[..., :prompt, :])]  # the prefill fills the cache
    rows = [rope.rotate(q[..., :prompt, :]) @ keys[0].transpose(-1, -2)]
    for t in range(prompt, q.shape[-2]):  # then one token at a time, offset = cached length
        q_t, k_t = rope(q[..., t : t + 1, :], k[..., t : t + 1, :], offset=t)
        keys.append(k_t)
        rows.append(q_t @ torch.cat(keys, dim=-2).transpose(-1, -2))
    return at_once, rows


# --8<-- [end:decode]


def test_dynamic_scaling_is_the_same_in_prefill_and_in_decoding() -> None:
    torch.manual_seed(8)
    config = {
        "head_dim": 32,
        "num_attention_heads": 2,
        "max_position_embeddings": 16,
        "rope_scaling": {"type": "dynamic", "factor": 4.0},
    }
    rope = RotaryEmbedding.from_config(config, seq_len=64)
    q, k = torch.randn(1, 2, 40, 32), torch.randn(1, 2, 40, 32)
    at_once, rows = prefill_and_decode_scores(rope, q, k, prompt=10)
    for t, row in enumerate(rows[1:], start=10):
        torch.testing.assert_close(row[..., 0, :], at_once[..., t, : t + 1], atol=1e-5, rtol=1e-5)

    # The other choice (transformers'): frequencies from the length of each call.
    def per_call(length: int) -> RotaryEmbedding:
        return RotaryEmbedding.from_config(config, seq_len=length)

    grown = per_call(40)
    q_all, k_all = grown(q, k)
    keys = per_call(10).rotate(k[..., :10, :])  # cached at prefill, with the frequencies for 10
    q_last = grown.rotate(q[..., 39:40, :], offset=39)
    mismatch = (
        q_last @ keys.transpose(-1, -2) - (q_all @ k_all.transpose(-1, -2))[..., 39:40, :10]
    ).abs()
    assert mismatch.max() > 0.5


def test_left_padding_and_a_cache_offset_give_the_prefill_scores() -> None:
    from pe.nn.functional import position_ids

    torch.manual_seed(9)
    rope = RotaryEmbedding.from_config(LLAMA31 | {"head_dim": 16})
    ids = torch.tensor([[0, 0, 5, 6, 7, 8], [5, 6, 7, 8, 9, 10]])  # row 0 left-padded (pad id 0)
    positions = position_ids(ids, pad_id=0)
    q, k = torch.randn(2, 4, 6, 16), torch.randn(2, 4, 6, 16)
    q_all, k_all = rope(q, k, q_positions=positions, k_positions=positions)
    # Prefill the first 5 tokens, then decode the 6th at its own position per row.
    cache = rope.rotate(k[..., :5, :], positions=positions[:, :5])
    step = positions[:, 5:]
    q_t, k_t = rope(q[..., 5:, :], k[..., 5:, :], q_positions=step, k_positions=step)
    decoded = q_t @ torch.cat((cache, k_t), dim=-2).transpose(-1, -2)
    torch.testing.assert_close(
        decoded, (q_all @ k_all.transpose(-1, -2))[..., 5:, :], atol=1e-5, rtol=1e-5
    )


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_compiles_with_fullgraph(backend: str) -> None:
    torch._dynamo.reset()
    rope = RotaryEmbedding(
        16,
        layout="concatenated",
        scaling={"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64},
        partial_rotary_factor=0.5,
    )
    q, k = torch.randn(2, 3, 10, 16), torch.randn(2, 3, 10, 16)
    positions = torch.arange(10).repeat(2, 1) + torch.tensor([[0], [5]])
    compiled = torch.compile(rope, fullgraph=True, backend=backend)
    for kwargs in ({"q_positions": positions, "k_positions": positions}, {"offset": 3}):
        expected = rope(q, k, **kwargs)
        got = compiled(q, k, **kwargs)
        for ours, reference in zip(got, expected, strict=True):
            torch.testing.assert_close(ours, reference, atol=1e-6, rtol=1e-6)


def test_exports() -> None:
    rope = RotaryEmbedding.from_config(LLAMA31 | {"head_dim": 16})
    q, k = torch.randn(1, 2, 7, 16), torch.randn(1, 2, 7, 16)
    positions = torch.arange(3, 10)[None]
    program = torch.export.export(
        rope, (q, k), {"q_positions": positions, "k_positions": positions}
    )
    got = program.module()(q, k, q_positions=positions, k_positions=positions)
    expected = rope(q, k, q_positions=positions, k_positions=positions)
    for ours, reference in zip(got, expected, strict=True):
        torch.testing.assert_close(ours, reference, atol=1e-6, rtol=1e-6)


def test_gradients_flow_and_match_the_inference_path() -> None:
    torch.manual_seed(10)
    rope = RotaryEmbedding(16, layout="concatenated", partial_rotary_factor=0.5)
    x = torch.randn(2, 5, 16, requires_grad=True)
    out = rope.rotate(x, offset=3)
    with torch.no_grad():
        torch.testing.assert_close(out, rope.rotate(x, offset=3), atol=1e-6, rtol=1e-6)
    out.square().sum().backward()
    # A rotation keeps norms, so the gradient of |Rx|^2 is 2x.
    torch.testing.assert_close(x.grad, 2 * x.detach(), atol=1e-5, rtol=1e-5)


def test_meta_tensors_give_meta_results_without_reading_values() -> None:
    """On the meta device only shapes exist: no position may be read (no .item())."""
    rope = RotaryEmbedding(16, layout="concatenated")
    q = torch.empty(2, 3, 5, 16, device="meta")
    positions = torch.arange(5, device="meta")
    for rotated in (
        rope(q, q)[0],
        rope(q, q, offset=7)[1],
        rope.rotate(q, positions=positions),
        rope.rotate(q, positions=positions.expand(2, 5)),
    ):
        assert rotated.is_meta
        assert rotated.shape == q.shape


# --- hostile input and the cost of a call (issue 22) ----------------------------------


@pytest.mark.parametrize(
    "dtype",
    [
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.uint8,
        torch.uint16,
        torch.uint32,
        torch.uint64,
    ],
)
def test_positions_of_every_integer_dtype_are_positions(dtype: torch.dtype) -> None:
    """uint8 once indexed as a boolean mask (rotating by 0, 1, 2, 3); int8 raised IndexError."""
    rope = RotaryEmbedding(8)
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(1))
    got = rope.rotate(x, positions=torch.tensor([3, 3, 3, 3], dtype=dtype))
    expected = reference_rotation(x, np.full(4, 3), "interleaved", 8)
    np.testing.assert_allclose(got.double().numpy(), expected, atol=1e-6)


def test_negative_small_and_huge_unsigned_positions() -> None:
    rope = RotaryEmbedding(8, layout="concatenated")
    x = torch.randn(3, 8, generator=torch.Generator().manual_seed(2))
    got = rope.rotate(x, positions=torch.tensor([-3, 0, 100], dtype=torch.int8))
    expected = reference_rotation(x, np.array([-3, 0, 100]), "concatenated", 8)
    np.testing.assert_allclose(got.double().numpy(), expected, atol=1e-6)
    huge = torch.tensor([0, 2**63 + 5, 1], dtype=torch.uint64)  # wraps negative as int64
    with pytest.raises(ValueError, match=r"positions must lie in .* got 9223372036854775813"):
        rope.rotate(x, positions=huge)


def test_convert_rotary_layout_leaves_the_unrotated_part_of_a_partial_head_alone() -> None:
    """Phi-2 style heads rotate a prefix: only its pairs move, and scores stay the same."""
    torch.manual_seed(3)
    interleaved = RotaryEmbedding(16, layout="interleaved", partial_rotary_factor=0.5)
    concatenated = RotaryEmbedding(16, layout="concatenated", partial_rotary_factor=0.5)
    q, k = torch.randn(2, 6, 16, dtype=torch.float64), torch.randn(2, 6, 16, dtype=torch.float64)

    def move(x: torch.Tensor) -> torch.Tensor:
        return convert_rotary_layout(x, "interleaved", "concatenated", rotary_dim=8)

    torch.testing.assert_close(move(q)[..., 8:], q[..., 8:], rtol=0, atol=0)
    before = interleaved.rotate(q) @ interleaved.rotate(k).transpose(-1, -2)
    after = concatenated.rotate(move(q)) @ concatenated.rotate(move(k)).transpose(-1, -2)
    torch.testing.assert_close(after, before, rtol=1e-12, atol=1e-12)
    # The whole-head conversion is not the same thing for a partial head.
    wrong = convert_rotary_layout(q, "interleaved", "concatenated")
    assert (wrong - move(q)).abs().max() > 0.1
    back = convert_rotary_layout(move(q), "concatenated", "interleaved", rotary_dim=8)
    torch.testing.assert_close(back, q, rtol=0, atol=0)


@pytest.mark.parametrize(
    ("rotary_dim", "error"),
    [(0, ValueError), (3, ValueError), (18, ValueError), (4.0, TypeError), (True, TypeError)],
)
def test_convert_rotary_layout_checks_rotary_dim(rotary_dim: Any, error: type) -> None:
    with pytest.raises(error, match="rotary_dim must be a positive even integer"):
        convert_rotary_layout(
            torch.zeros(2, 16), "interleaved", "concatenated", rotary_dim=rotary_dim
        )


def test_table_refuses_bad_lengths_dtypes_and_devices() -> None:
    rope = RotaryEmbedding(8)
    with pytest.raises(ValueError, match="length must be a non-negative integer; got -5"):
        rope.table(-5)
    with pytest.raises(TypeError, match="length must be a non-negative integer"):
        rope.table(2.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"dtype must be a floating-point torch dtype.*int32"):
        rope.table(10, dtype=torch.int32)
    with pytest.raises(TypeError, match="device must name a torch device; got 'gpu0'"):
        rope.table(10, device="gpu0")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="device 'cuda' is not available here"):
            rope.table(10, device="cuda")
    with pytest.raises(ValueError, match="would have shape"):
        RotaryEmbedding(128).table(2**31 - 1)  # refused before allocating 1 TiB
    assert rope._tables == {}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_table_values_are_the_formula_rounded_once(layout: str, dtype: torch.dtype) -> None:
    rope = RotaryEmbedding(12, layout=layout, partial_rotary_factor=2 / 3)
    cos, sin = rope.table(300, dtype=dtype)
    assert cos.shape == sin.shape == (300, 4)
    assert cos.dtype == dtype
    # The frequencies themselves are checked against the formula and transformers elsewhere.
    np.testing.assert_allclose(rope.frequencies, 10000.0 ** (-2.0 * np.arange(4) / 8), rtol=1e-15)
    angles = np.arange(300)[:, None] * rope.frequencies
    for got, exact in ((cos, np.cos(angles)), (sin, np.sin(angles))):
        rounded = torch.from_numpy(exact).to(dtype)  # float64 rounded once to the dtype
        # float64: torch's and numpy's cos may differ by one unit in the last place.
        ulp = 2**-52 if dtype == torch.float64 else 0.0
        torch.testing.assert_close(got, rounded, rtol=0, atol=ulp)


def test_offset_and_positions_together_are_refused() -> None:
    rope = RotaryEmbedding(8)
    x = torch.zeros(4, 8)
    with pytest.raises(ValueError, match="give either offset or x positions, not both"):
        rope.rotate(x, offset=3, positions=torch.arange(4))
    with pytest.raises(ValueError, match="give either offset or k positions, not both"):
        rope(x, x, k_positions=torch.arange(4), offset=2)


def test_positions_of_a_shape_that_does_not_broadcast_or_on_meta_are_named() -> None:
    rope = RotaryEmbedding(8)
    x = torch.zeros(2, 3, 4, 8)
    with pytest.raises(ValueError, match=r"x positions of shape \(3, 3, 4\) are ambiguous"):
        rope.rotate(x, positions=torch.zeros(3, 3, 4, dtype=torch.long))
    with pytest.raises(ValueError, match="x positions are on the meta device"):
        rope.rotate(x, positions=torch.arange(4, device="meta"))


def test_a_far_decode_step_computes_its_row_and_keeps_no_table() -> None:
    """One token at 2**20 once built a 1 GiB table (6.7 s); now it costs one row."""
    rope = RotaryEmbedding(128)
    token = torch.randn(1, 4, 1, 128, generator=torch.Generator().manual_seed(6))
    got = rope.rotate(token, offset=2**20)
    assert all(table.shape[0] <= 256 for table in rope._tables.values())
    expected = reference_rotation(token, np.array([2**20]), "interleaved", 128)
    np.testing.assert_allclose(got.double().numpy(), expected, atol=2e-6)
    same = rope.rotate(token, positions=torch.tensor([2**20]))
    torch.testing.assert_close(same, got, rtol=0, atol=0)
    # A chunk far out (300 positions at 5,000) is computed for itself too: a table
    # would hold 8,192 rows, more than four times what was asked for.
    chunk = torch.randn(300, 128, generator=torch.Generator().manual_seed(7))
    got = rope.rotate(chunk, offset=5000)
    assert all(table.shape[0] <= 256 for table in rope._tables.values())
    expected = reference_rotation(chunk, np.arange(5000, 5300), "interleaved", 128)
    np.testing.assert_allclose(got.double().numpy(), expected, atol=2e-6)
    # A prefill from 0 builds the table, and the decode steps after it read it.
    rope.rotate(torch.randn(1000, 128))
    assert rope._tables[("cpu", torch.float32)].shape[0] == 1024


# torch's first jvp loads its decompositions through torch.jit.script, which warns (torch 2.13).
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_vmap_and_jvp_give_the_rotation(layout: str) -> None:
    """The rotation is linear, so its jvp in any direction is the rotated direction."""
    rope = RotaryEmbedding(16, layout=layout, partial_rotary_factor=0.5)
    x = torch.randn(3, 5, 16, generator=torch.Generator().manual_seed(8))
    direction = torch.randn(3, 5, 16, generator=torch.Generator().manual_seed(9))
    batched = torch.func.vmap(lambda row: rope.rotate(row, offset=2))(x)
    torch.testing.assert_close(batched, rope.rotate(x, offset=2))
    value, tangent = torch.func.jvp(lambda t: rope.rotate(t, offset=2), (x,), (direction,))[:2]
    torch.testing.assert_close(value, rope.rotate(x, offset=2))
    torch.testing.assert_close(tangent, rope.rotate(direction, offset=2))
    expected = reference_rotation(direction, np.arange(2, 7), layout, 8)
    np.testing.assert_allclose(tangent.double().numpy(), expected, atol=1e-5)


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_strided_and_half_precision_inputs_match_the_formula(layout: str) -> None:
    """Views the complex path cannot read (odd strides) and bfloat16 take the other paths."""
    rope = RotaryEmbedding(8, layout=layout)
    wide = torch.randn(5, 9, generator=torch.Generator().manual_seed(10))
    odd = wide[:, 1:]  # storage offset 1: no complex view
    expected = reference_rotation(odd, np.arange(3, 8), layout, 8)
    np.testing.assert_allclose(rope.rotate(odd, offset=3).double().numpy(), expected, atol=1e-6)
    half = rope.rotate(odd.bfloat16(), offset=3)
    assert half.dtype == torch.bfloat16
    np.testing.assert_allclose(half.double().numpy(), expected, atol=0.05)


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_a_decoding_step_turns_q_and_k_together_with_the_same_result(layout: str) -> None:
    """forward turns a small q and k as one tensor: the same values, each contiguous."""
    rope = RotaryEmbedding(16, layout=layout, partial_rotary_factor=0.5)
    q = torch.randn(3, 4, 1, 16, generator=torch.Generator().manual_seed(11))
    k = torch.randn(3, 2, 1, 16, generator=torch.Generator().manual_seed(12))
    q_rot, k_rot = rope(q, k, offset=4000)
    assert q_rot.is_contiguous()
    assert k_rot.is_contiguous()
    torch.testing.assert_close(q_rot, rope.rotate(q, offset=4000), rtol=0, atol=0)
    torch.testing.assert_close(k_rot, rope.rotate(k, offset=4000), rtol=0, atol=0)
    expected = reference_rotation(k, np.array([4000]), layout, 8)
    np.testing.assert_allclose(k_rot.double().numpy(), expected, atol=2e-6)


def _message(call: Callable[[RotaryEmbedding], object], rope: RotaryEmbedding) -> tuple[type, str]:
    """The type and text of the error `call` raises for `rope`."""
    with pytest.raises((TypeError, ValueError)) as caught:
        call(rope)
    return caught.type, str(caught.value)


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_a_decoding_loop_after_its_first_step_gives_the_formula(layout: str) -> None:
    """Steps after the first skip the checks (its signature is kept) and read new rows each time."""
    rope = RotaryEmbedding(16, layout=layout, partial_rotary_factor=0.5)
    generator = torch.Generator().manual_seed(13)
    for batch in (1, 3):  # batch 1 is joined along the heads, batch 3 as rows
        for step in range(4):
            q = torch.randn(batch, 4, 1, 16, generator=generator)
            k = torch.randn(batch, 2, 1, 16, generator=generator)
            q_rot, k_rot = rope(q, k, offset=4000 + step)
            assert q_rot.shape == q.shape
            assert k_rot.shape == k.shape
            assert q_rot.is_contiguous()
            assert k_rot.is_contiguous()
            for x, turned in ((q, q_rot), (k, k_rot)):
                expected = reference_rotation(x, np.array([4000 + step]), layout, 8)
                np.testing.assert_allclose(turned.double().numpy(), expected, atol=2e-6)
            single = rope.rotate(q, offset=17 + step)  # the one-tensor path keeps its own
            expected = reference_rotation(q, np.array([17 + step]), layout, 8)
            np.testing.assert_allclose(single.double().numpy(), expected, atol=2e-6)
    assert len(rope._signatures) == 4  # two pairs and two single tensors


def test_a_kept_signature_still_refuses_bad_calls_with_the_same_words() -> None:
    """What changes between calls of one signature is still checked, and named as before."""
    q, k = torch.randn(1, 4, 1, 8), torch.randn(1, 2, 1, 8)
    bad_calls: list[Callable[[RotaryEmbedding], object]] = [
        lambda rope: rope(q, k, offset=2**31),
        lambda rope: rope(q, k, offset=1.5),
        lambda rope: rope(q, k, offset=True),
        lambda rope: rope(q[..., :6], k),
        lambda rope: rope(q, k.int()),
        lambda rope: rope(q, k, offset=3, k_positions=torch.tensor([3])),
        lambda rope: rope.rotate(q, offset=-(2**31)),
        lambda rope: rope.rotate(q.double()[..., :4]),
    ]
    for layout in ("interleaved", "concatenated"):
        fresh, used = RotaryEmbedding(8, layout=layout), RotaryEmbedding(8, layout=layout)
        used(q, k, offset=5)
        used.rotate(q, offset=5)
        for call in bad_calls:
            assert _message(call, used) == _message(call, fresh)
    assert _message(bad_calls[0], used) == (
        ValueError,
        f"offset must lie in [-{2**31 - 1}, {2**31 - 1}]; got {2**31}",
    )


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_a_kept_signature_leaves_autograd_and_transforms_their_own_path() -> None:
    """After an inference call, the same shapes with gradients or under vmap still work."""
    rope = RotaryEmbedding(8, layout="concatenated")
    q, k = torch.randn(1, 4, 1, 8), torch.randn(1, 2, 1, 8)
    with torch.inference_mode():
        rope(q, k, offset=9)
        rope.rotate(q, offset=9)
    leaf = q.clone().requires_grad_(True)
    q_rot, _ = rope(leaf, k, offset=9)
    (q_rot * q).sum().backward()  # d/dq <R q, q0> = R^T q0
    assert leaf.grad is not None
    expected = reference_rotation(q, np.array([-9]), "concatenated", 8)
    np.testing.assert_allclose(leaf.grad.double().numpy(), expected, atol=1e-6)
    batched = torch.func.vmap(lambda row: rope.rotate(row, offset=9))(q)
    np.testing.assert_allclose(
        batched.double().numpy(),
        reference_rotation(q, np.array([9]), "concatenated", 8),
        atol=1e-6,
    )


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_empty_inputs_give_empty_results_on_every_call(layout: str) -> None:
    rope = RotaryEmbedding(4, layout=layout)
    for _ in range(2):  # the second call takes the path of a kept signature
        assert rope.rotate(torch.zeros(1, 0, 4), offset=3).shape == (1, 0, 4)
        q_rot, k_rot = rope(torch.zeros(0, 2, 1, 4), torch.zeros(0, 1, 1, 4), offset=3)
        assert q_rot.shape == (0, 2, 1, 4)
        assert k_rot.shape == (0, 1, 1, 4)


@pytest.mark.parametrize(
    ("shape", "fraction", "dtype"),
    [
        ((2, 5, 40, 16), None, torch.float32),  # heads in groups of 2, rows in chunks of 16
        ((1, 3, 300, 16), None, torch.float32),  # a last group of one head, a last short chunk
        ((1, 2, 300, 16), None, torch.float32),  # both heads in every chunk
        ((3, 70, 24), 0.5, torch.float32),  # partial rotary: the rest passes through
        ((2, 4, 90, 16), None, torch.float16),  # turned in float32, returned in float16
        ((2, 4, 90, 16), None, torch.float64),
    ],
)
def test_large_concatenated_inputs_turned_in_chunks_match_the_formula(
    monkeypatch: pytest.MonkeyPatch,
    shape: tuple[int, ...],
    fraction: float | None,
    dtype: torch.dtype,
) -> None:
    """A large concatenated input is turned a chunk at a time (pe.nn._rotary._chunk_bytes);
    with the chunk made small, these inputs take that path, chunk edges included."""
    from pe.nn import _rotary

    monkeypatch.setattr(_rotary, "_chunk_bytes", lambda: 2048)  # 32 rows of 16 float32 values
    monkeypatch.setenv("PE_KERNELS", "0")  # not the C loop (tests/test_cpu_kernel.py)
    calls: list[int] = []
    chunks = _rotary._turn_concatenated_in_chunks

    def counted(*args: Any) -> torch.Tensor:
        calls.append(1)
        return chunks(*args)

    monkeypatch.setattr(_rotary, "_turn_concatenated_in_chunks", counted)
    rope = RotaryEmbedding(shape[-1], layout="concatenated", partial_rotary_factor=fraction)
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(3)).to(dtype)
    got = rope.rotate(x, offset=5)
    assert calls == [1]
    assert got.dtype == dtype
    assert got.shape == x.shape
    positions = np.arange(5, 5 + shape[-2])
    expected = reference_rotation(x, positions, "concatenated", rope.rotary_dim)
    tolerance = {torch.float16: 2e-3, torch.float32: 1e-5, torch.float64: 1e-12}[dtype]
    np.testing.assert_allclose(got.double().numpy(), expected, atol=tolerance * 8)
    q, k = rope(x, x[:1], offset=5)  # the module's forward takes the same path
    np.testing.assert_allclose(q.double().numpy(), expected, atol=tolerance * 8)
    np.testing.assert_allclose(k.double().numpy(), expected[:1], atol=tolerance * 8)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("fraction", [1.0, 0.5])
def test_the_accelerator_path_for_half_precision_rounds_as_the_cpu_path(
    dtype: torch.dtype, fraction: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU, half-precision concatenated pairs skip the float32 copies; same bits."""
    import pe.nn._rotary as rotary_module

    torch.manual_seed(7)
    rope = RotaryEmbedding(64, layout="concatenated", partial_rotary_factor=fraction)
    q = torch.randn(2, 4, 37, 64).to(dtype)
    k = torch.randn(2, 2, 37, 64).to(dtype)
    step_q, step_k = torch.randn(1, 4, 1, 64).to(dtype), torch.randn(1, 2, 1, 64).to(dtype)
    expected = [*rope(q, k, offset=900), *rope(step_q, step_k, offset=5000)]
    # The float32 formula, rounded once: what both paths must give.
    reference = [
        rope.rotate(x.float(), offset=o).to(dtype)
        for x, o in ((q, 900), (k, 900), (step_q, 5000), (step_k, 5000))
    ]
    monkeypatch.setattr(rotary_module, "_mixes_dtypes", lambda device: True)
    got = [*rope(q, k, offset=900), *rope(step_q, step_k, offset=5000)]
    for a, b, c in zip(got, expected, reference, strict=True):
        assert a.dtype == dtype
        assert torch.equal(a, b)
        assert torch.equal(a, c)


def test_a_large_input_compiled_on_the_cpu_computes_cos_and_sin_once_in_one_node() -> None:
    """Inlined, compiled cos/sin in float64 run again for every head (1.7x slower prefill)."""
    torch._dynamo.reset()
    rope = RotaryEmbedding.from_config(LLAMA31 | {"head_dim": 64})
    graphs: list[torch.fx.GraphModule] = []

    def keep(graph: torch.fx.GraphModule, inputs: object) -> Any:
        graphs.append(graph)
        return graph.forward

    compiled = torch.compile(rope, fullgraph=True, backend=keep)
    large = torch.randn(1, 8, 160, 64), torch.randn(1, 2, 160, 64)  # q over _FUSED values
    step = torch.randn(1, 8, 1, 64), torch.randn(1, 2, 1, 64)  # a decoding step
    for (q, k), offset in ((large, 7), (step, 3000)):
        for ours, reference in zip(
            compiled(q, k, offset=offset), rope(q, k, offset=offset), strict=True
        ):
            torch.testing.assert_close(ours, reference, atol=1e-6, rtol=1e-6)
    opaque = torch.ops.pe.rope_cos_sin.default
    counts = [sum(node.target is opaque for node in g.graph.nodes) for g in graphs]
    # q's rows as one node (k, under the threshold, keeps plain operations); none for a step.
    assert counts == [1, 0]


def test_a_triton_kernel_that_cannot_run_here_warns_once_and_gives_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where Triton is installed but cannot compile or launch (no C compiler for its
    launcher, say), the rotation warns once and keeps to torch's operations."""
    from pe.nn import _kernels

    def broken(*args: Any, **kwargs: Any) -> torch.Tensor:
        raise RuntimeError("Failed to find C compiler")

    monkeypatch.setattr(_kernels, "_launch", broken)
    monkeypatch.setattr(_kernels, "_FAILED", [])
    monkeypatch.setattr(_kernels, "available", lambda: True)
    assert _kernels.wanted(torch.bfloat16, interleaved=False)
    assert not _kernels.wanted(torch.float32, interleaved=True)  # one complex product already
    assert not _kernels.wanted(torch.float64, interleaved=False)
    x, cos = torch.zeros(1, 2, 4, 8), torch.zeros(4, 4)
    with pytest.warns(RuntimeWarning, match="Failed to find C compiler.*torch's operations"):
        assert _kernels._run(x, cos, cos, 8, interleaved=False) is None
    assert not _kernels.wanted(torch.bfloat16, interleaved=False)  # not tried again


def test_layouts_given_as_arrays_or_lists_are_named_type_errors() -> None:
    """An array was compared with the choices element by element: numpy's 'truth value is
    ambiguous' for two elements, and a one-element array passed, stored as the text
    "['interleaved']"."""
    from pe.nn import AxialRotaryEmbedding

    not_strings: list[Any] = [
        np.array(["interleaved"]),
        np.array(["interleaved", "concatenated"]),
        ["interleaved"],
    ]
    words = "must be one of 'interleaved', 'concatenated'; got"
    for layout in not_strings:
        with pytest.raises(TypeError, match=f"^layout {words}"):
            RotaryEmbedding(8, layout=layout)
        with pytest.raises(TypeError, match=f"^layout {words}"):
            AxialRotaryEmbedding((4, 4), layout=layout)
        with pytest.raises(TypeError, match=f"^source {words}"):
            convert_rotary_layout(torch.zeros(4), layout, "concatenated")
        with pytest.raises(TypeError, match=f"^target {words}"):
            convert_rotary_layout(torch.zeros(4), "interleaved", layout)
    assert RotaryEmbedding(8, layout=np.str_("concatenated")).layout == "concatenated"


@pytest.mark.parametrize("layout", ["concatenated", "interleaved"])
def test_torch_jit_trace_records_the_rotation_of_any_length(layout: str) -> None:
    """torch.jit.trace takes the traceable path (as torch.compile does): no frozen table rows."""
    rope = RotaryEmbedding(8, layout=layout)
    q = torch.randn(1, 2, 5, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TracerWarning)  # shape checks become constants
        warnings.simplefilter("ignore", DeprecationWarning)  # torch 2.13 deprecates jit.trace
        traced = torch.jit.trace(rope, (q, q))  # type: ignore[no-untyped-call]
    for length in (5, 9):
        x = torch.randn(1, 2, length, 8)
        expected = reference_rotation(x, np.arange(length), layout, 8)
        got, _ = traced(x, x)
        np.testing.assert_allclose(got.numpy(), expected, atol=2e-6)  # float32, as traced
