import math

import pytest
import torch

from pe.nn import RotaryEmbedding, convert_rotary_layout


def scores(rope, q, k, m, n):
    """q at position m against k at position n, after rotation."""
    q_rot = rope.rotate(q[None, :], positions=torch.tensor([m]))[0]
    k_rot = rope.rotate(k[None, :], positions=torch.tensor([n]))[0]
    return float(q_rot.double() @ k_rot.double())


def relative_property_gap(rope, head_dim=16, seed=0):
    """Largest change of the score when both positions move by the same amount."""
    torch.manual_seed(seed)
    q, k = torch.randn(head_dim), torch.randn(head_dim)
    gaps = []
    for m, n in [(0, 5), (3, 1), (10, 10), (40, 7)]:
        base = scores(rope, q, k, m, n)
        for shift in (1, 17, 1000):
            gaps.append(abs(scores(rope, q, k, m + shift, n + shift) - base))
    return max(gaps)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_scores_depend_only_on_the_offset(layout):
    assert relative_property_gap(RotaryEmbedding(16, layout=layout)) < 1e-4


class SwappedSignRotary(RotaryEmbedding):
    """A wrong RoPE: one sine with the wrong sign (a reflection, not a rotation)."""

    def rotate(self, x, *, offset=0, positions=None):
        table = __import__("pe.nn", fromlist=["sinusoidal"]).sinusoidal(positions, self.head_dim)
        sin, cos = table[..., 0::2], table[..., 1::2]
        first, second = x[..., 0::2], x[..., 1::2]
        out = torch.stack((first * cos + second * sin, first * sin + second * cos), dim=-1)
        return out.flatten(-2)


def test_the_property_check_catches_a_sign_error():
    assert relative_property_gap(SwappedSignRotary(16)) > 0.1


def test_rotation_preserves_norms_and_position_zero_is_identity():
    rope = RotaryEmbedding(32, layout="half")
    x = torch.randn(3, 50, 32)
    rotated = rope.rotate(x)
    torch.testing.assert_close(rotated.norm(dim=-1), x.norm(dim=-1))
    torch.testing.assert_close(rotated[:, 0], x[:, 0])


def test_first_pair_turns_by_the_position():
    rope = RotaryEmbedding(4)
    x = torch.tensor([[1.0, 0.0, 1.0, 0.0]])
    out = rope.rotate(x, positions=torch.tensor([3]))
    torch.testing.assert_close(out[0, :2], torch.tensor([math.cos(3.0), math.sin(3.0)]))


def test_the_two_layouts_give_equal_scores_after_conversion():
    torch.manual_seed(1)
    q, k = torch.randn(2, 4, 9, 32), torch.randn(2, 4, 9, 32)
    inter = RotaryEmbedding(32, layout="interleaved")
    half = RotaryEmbedding(32, layout="half")
    q_i, k_i = inter(q, k)
    q_h, k_h = half(
        convert_rotary_layout(q, "interleaved", "half"),
        convert_rotary_layout(k, "interleaved", "half"),
    )
    torch.testing.assert_close(
        q_i @ k_i.transpose(-1, -2), q_h @ k_h.transpose(-1, -2), atol=1e-5, rtol=1e-5
    )
    torch.testing.assert_close(
        convert_rotary_layout(q_h, "half", "interleaved"), q_i, atol=1e-6, rtol=1e-6
    )


def test_half_layout_matches_llama_in_transformers():
    llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    torch.manual_seed(2)
    head_dim, seq = 64, 40
    q, k = torch.randn(1, 3, seq, head_dim), torch.randn(1, 3, seq, head_dim)
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2).double() / head_dim))
    angles = torch.arange(seq).double()[:, None] * inv_freq[None, :]
    emb = torch.cat((angles, angles), dim=-1)[None]
    q_ref, k_ref = llama.apply_rotary_pos_emb(q.double(), k.double(), emb.cos(), emb.sin())
    q_ours, k_ours = RotaryEmbedding(head_dim, layout="half")(q, k)
    torch.testing.assert_close(q_ours.double(), q_ref, atol=2e-6, rtol=0)
    torch.testing.assert_close(k_ours.double(), k_ref, atol=2e-6, rtol=0)


def test_interleaved_layout_matches_gptj_in_transformers():
    gptj = pytest.importorskip("transformers.models.gptj.modeling_gptj")
    torch.manual_seed(3)
    head_dim, seq = 32, 30
    x = torch.randn(1, seq, 2, head_dim)  # GPT-J: (batch, seq, heads, dim)
    table = gptj.create_sinusoidal_positions(seq, head_dim)
    sin, cos = table[None, :, : head_dim // 2], table[None, :, head_dim // 2 :]
    reference = gptj.apply_rotary_pos_emb(x, sin, cos)
    ours = RotaryEmbedding(head_dim).rotate(x.transpose(1, 2)).transpose(1, 2)
    torch.testing.assert_close(ours, reference, atol=1e-5, rtol=0)


def test_dtype_is_kept_and_long_positions_are_accurate():
    rope = RotaryEmbedding(8)
    x = torch.randn(5, 8, dtype=torch.bfloat16)
    assert rope.rotate(x).dtype == torch.bfloat16
    far = rope.rotate(torch.ones(1, 8), positions=torch.tensor([10_000_000]))
    angle = torch.tensor(10_000_000.0, dtype=torch.float64)
    expected_first = math.cos(float(angle)) - math.sin(float(angle))
    assert abs(float(far[0, 0]) - expected_first) < 1e-6


def test_errors():
    with pytest.raises(ValueError, match="head_dim"):
        RotaryEmbedding(7)
    with pytest.raises(ValueError, match="layout must be one of 'interleaved', 'half'"):
        RotaryEmbedding(8, layout="neox")
    with pytest.raises(ValueError, match="last dimension head_dim=8"):
        RotaryEmbedding(8).rotate(torch.zeros(3, 6))
    with pytest.raises(ValueError, match="source must be one of"):
        convert_rotary_layout(torch.zeros(4), "pairs", "half")


def test_checkpoint_conversion_permutes_each_heads_projection_rows():
    torch.manual_seed(4)
    heads, head_dim, d_model, seq = 3, 8, 24, 7
    w_q, w_k = torch.randn(heads * head_dim, d_model), torch.randn(heads * head_dim, d_model)
    x = torch.randn(seq, d_model)

    def per_head_rows(weight):  # (heads * head_dim, d) -> rows of each head reordered
        rows = weight.view(heads, head_dim, d_model).transpose(1, 2)
        return convert_rotary_layout(rows, "interleaved", "half").transpose(1, 2).reshape_as(weight)

    # The same reordering written as a reshape: pairs (2i, 2i+1) -> halves (i, i + d/2).
    reshaped = w_q.view(heads, head_dim // 2, 2, d_model).transpose(1, 2).reshape_as(w_q)
    torch.testing.assert_close(per_head_rows(w_q), reshaped)

    def scores(w_q, w_k, layout):
        rope = RotaryEmbedding(head_dim, layout=layout)
        q = (x @ w_q.T).view(seq, heads, head_dim).transpose(0, 1)
        k = (x @ w_k.T).view(seq, heads, head_dim).transpose(0, 1)
        q, k = rope(q, k)
        return q @ k.transpose(-1, -2)

    torch.testing.assert_close(
        scores(w_q, w_k, "interleaved"),
        scores(per_head_rows(w_q), per_head_rows(w_k), "half"),
        atol=1e-4,
        rtol=1e-5,
    )
