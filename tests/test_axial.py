"""Axial RoPE (pe.axial_rope, pe.nn.AxialRotaryEmbedding) against diffusers and timm.

diffusers 0.42.1 is imported: Flux's ``FluxPosEmbed`` with its published
``axes_dim`` (16, 56, 56) and theta 10000, ``get_1d_rotary_pos_embed`` and
``apply_rotary_emb``. timm 1.0.31 is installed without its dependencies and
``import timm`` fails here (its ``__init__`` needs torchvision), so its
``layers/pos_embed_sincos.py`` is loaded from the installed package with
importlib under stub parent packages whose ``__path__`` points at the
installed folders; ``timm/__init__.py`` never runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import pytest
import torch

import pe
from pe.nn import AxialRotaryEmbedding
from pe.nn.functional import grid_position_ids
from sitegen.timm_files import load_timm_module

embeddings = pytest.importorskip("diffusers.models.embeddings")
transformer_flux = pytest.importorskip("diffusers.models.transformers.transformer_flux")


def _load_timm_pos_embed() -> Any:
    """Load timm.layers.pos_embed_sincos from the installed files, without timm/__init__.py."""
    try:
        return load_timm_module("layers.pos_embed_sincos")
    except ModuleNotFoundError as error:
        if error.name != "timm":
            raise
        pytest.skip("timm is not installed")


@pytest.fixture(scope="module")
def timm_pos_embed() -> Any:
    return _load_timm_pos_embed()


def _reference_angles(positions: np.ndarray, axes_dim: tuple[int, ...], base: float) -> np.ndarray:
    """Axial angles in float64 from the formula: axis a's pair j turns by p_a / base**(2j/d_a)."""
    columns = []
    for axis, dim in enumerate(axes_dim):
        for j in range(dim // 2):
            columns.append(positions[:, axis].astype(np.float64) / base ** (2.0 * j / dim))
    return np.stack(columns, axis=-1)


def _flux_ids(rows: int, columns: int, text: int) -> torch.Tensor:
    """Flux's ids: text tokens (0, 0, 0), then (0, row, column) of each latent patch."""
    return torch.cat(
        (torch.zeros(text, 3, dtype=torch.long), grid_position_ids((1, rows, columns)))
    )


def test_flux_cos_sin_match_flux_pos_embed() -> None:
    preset = pe.grid_rope_presets["flux"]
    ids = _flux_ids(3, 5, text=4)
    library = transformer_flux.FluxPosEmbed(theta=10000, axes_dim=list(preset.widths))
    cos, sin = library(ids.float())
    rope = AxialRotaryEmbedding.from_preset("flux")
    ours_cos, ours_sin = rope.grid_cos_sin(ids)
    # Flux repeats each pair's value on its two (interleaved) dimensions
    assert torch.equal(cos[:, 0::2], cos[:, 1::2])
    torch.testing.assert_close(ours_cos, cos[:, 0::2], atol=6e-8, rtol=0)
    torch.testing.assert_close(ours_sin, sin[:, 0::2], atol=6e-8, rtol=0)


def test_flux_rotation_matches_apply_rotary_emb() -> None:
    ids = _flux_ids(2, 3, text=2)
    cos, sin = transformer_flux.FluxPosEmbed(theta=10000, axes_dim=[16, 56, 56])(ids.float())
    torch.manual_seed(1)
    q = torch.randn(1, 3, ids.shape[0], 128)  # (batch, heads, tokens, head_dim)
    expected = embeddings.apply_rotary_emb(q, (cos, sin), use_real=True, use_real_unbind_dim=-1)
    rope = AxialRotaryEmbedding.from_preset("flux")
    torch.testing.assert_close(rope.rotate(q, ids), expected, atol=1e-6, rtol=1e-6)


def test_flux_image_ids_are_the_pipelines() -> None:
    pipeline = pytest.importorskip("diffusers.pipelines.flux.pipeline_flux")
    ids = pipeline.FluxPipeline._prepare_latent_image_ids(1, 4, 6, "cpu", torch.float32)
    np.testing.assert_array_equal(ids.numpy(), pe.grid_positions((1, 4, 6)).astype(np.float32))


@pytest.mark.parametrize("interleave", [True, False])
def test_one_axis_is_get_1d_rotary_pos_embed(interleave: bool) -> None:
    positions = np.arange(0, 40, 3)
    cos, sin = embeddings.get_1d_rotary_pos_embed(
        24,
        positions,
        theta=500.0,
        use_real=True,
        repeat_interleave_real=interleave,
        freqs_dtype=torch.float64,
    )
    angles = pe.grid_rope_angles(positions[:, None], pe.axial_rope((24,), base=500.0))
    widened = np.repeat(angles, 2, axis=-1) if interleave else np.concatenate([angles] * 2, -1)
    np.testing.assert_allclose(cos.numpy(), np.cos(widened), atol=6e-8, rtol=0)
    np.testing.assert_allclose(sin.numpy(), np.sin(widened), atol=6e-8, rtol=0)


def test_angles_and_table_are_float64_rounded_once() -> None:
    axes = (16, 56, 56)
    positions = np.concatenate([pe.grid_positions((2, 7, 9)), [[5, 300, 70000]]])
    expected = _reference_angles(positions, axes, 10000.0)
    got = pe.grid_rope_angles(positions, pe.axial_rope(axes))
    np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)
    rope = AxialRotaryEmbedding(axes)
    cos, sin = rope.grid_cos_sin(torch.from_numpy(positions), dtype=torch.float64)
    # float64 frequencies differ in their last bit: about 1e-16 of angles up to 70000
    np.testing.assert_allclose(cos.numpy(), np.cos(expected), atol=1e-10, rtol=0)
    cos32, sin32 = rope.grid_cos_sin(torch.from_numpy(positions))
    assert torch.equal(cos32, cos.float())
    assert torch.equal(sin32, sin.float())
    # the float path (fractional coordinates) gives the same numbers on whole ones
    cos_f, _ = rope.grid_cos_sin(torch.from_numpy(positions).double())
    assert torch.equal(cos_f, cos32)


def test_score_depends_only_on_the_2d_offset() -> None:
    rope = AxialRotaryEmbedding((8, 8))
    torch.manual_seed(2)
    q, k = torch.randn(1, 16, dtype=torch.float64), torch.randn(1, 16, dtype=torch.float64)

    def score(p: tuple[int, int], s: tuple[int, int]) -> float:
        q_rot = rope.rotate(q, torch.tensor([p]))
        k_rot = rope.rotate(k, torch.tensor([s]))
        return float((q_rot * k_rot).sum())

    base = score((2, 3), (5, 1))
    for shift in ((1, 0), (0, 7), (11, 4)):
        moved = score((2 + shift[0], 3 + shift[1]), (5 + shift[0], 1 + shift[1]))
        assert moved == pytest.approx(base, abs=1e-12)
    assert score((2, 3), (1, 5)) != pytest.approx(base, abs=1e-3)  # other offset, other score


def test_eva02_matches_timm_rotary_embedding_cat(timm_pos_embed: Any) -> None:
    preset = pe.grid_rope_presets["eva02"]
    timm_rope = timm_pos_embed.RotaryEmbeddingCat(
        dim=preset.head_dim, in_pixels=False, temperature=preset.base, feat_shape=[3, 4]
    )
    embed = timm_rope.get_embed()  # (tokens, 2 * head_dim): sin, then cos
    sin, cos = embed.chunk(2, dim=-1)
    rope = AxialRotaryEmbedding.from_preset("eva02")
    positions = grid_position_ids((3, 4))
    ours_cos, ours_sin = rope.grid_cos_sin(positions)
    torch.testing.assert_close(ours_cos, cos[:, 0::2], atol=2e-7, rtol=0)
    torch.testing.assert_close(ours_sin, sin[:, 0::2], atol=2e-7, rtol=0)
    torch.manual_seed(3)
    x = torch.randn(2, 12, preset.head_dim)
    expected = timm_pos_embed.apply_rot_embed_cat(x, embed)
    torch.testing.assert_close(rope.rotate(x, positions), expected, atol=1e-6, rtol=1e-6)


def test_eva02_fine_tuned_at_another_resolution(timm_pos_embed: Any) -> None:
    """EVA's rescaling: a 3 x 4 grid read as the 16 x 16 grid of pretraining (fractional)."""
    timm_rope = timm_pos_embed.RotaryEmbeddingCat(
        dim=64, in_pixels=False, feat_shape=[3, 4], ref_feat_shape=[16, 16]
    )
    sin, cos = timm_rope.get_embed().chunk(2, dim=-1)
    scaled = grid_position_ids((3, 4)).double() * torch.tensor([16 / 3, 16 / 4])
    ours_cos, ours_sin = AxialRotaryEmbedding((32, 32)).grid_cos_sin(scaled)
    # timm computes these angles (up to 12) in float32: about 1e-6 from float64
    torch.testing.assert_close(ours_cos, cos[:, 0::2], atol=2e-6, rtol=0)
    torch.testing.assert_close(ours_sin, sin[:, 0::2], atol=2e-6, rtol=0)


def test_flux_preset_is_the_library_default() -> None:
    import inspect

    signature = inspect.signature(transformer_flux.FluxTransformer2DModel.__init__)
    assert tuple(signature.parameters["axes_dims_rope"].default) == (16, 56, 56)
    assert pe.grid_rope_presets["flux"].widths == (16, 56, 56)
    assert sum(pe.grid_rope_presets["flux"].widths) == pe.grid_rope_presets["flux"].head_dim


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: pe.axial_rope((16, 7)), ValueError, "positive even integer"),
        (lambda: pe.axial_rope(()), ValueError, "at least one axis"),
        (
            lambda: pe.axial_rope("16"),  # type: ignore[arg-type]
            TypeError,
            "sequence of integers",
        ),
        (
            lambda: pe.grid_rope_angles([[1, 2]], pe.axial_rope((4, 4, 4))),
            ValueError,
            r"shape \(\.\.\., 3\)",
        ),
        (lambda: pe.grid_rope_angles([[1.0, np.nan]], pe.axial_rope((4, 4))), ValueError, "finite"),
        (
            lambda: pe.grid_rope_angles([[1, 2]], (4, 4)),  # type: ignore[arg-type]
            TypeError,
            "must be a GridRope",
        ),
        (lambda: pe.grid_positions((2, 0)), ValueError, "integers >= 1"),
        (
            lambda: AxialRotaryEmbedding((4, 4)).rotate(torch.zeros(3, 10), torch.zeros(3, 2)),
            ValueError,
            "last dimension head_dim=8",
        ),
        (
            lambda: AxialRotaryEmbedding((4, 4)).rotate(torch.zeros(3, 8), torch.zeros(3, 3)),
            ValueError,
            r"shape \(\.\.\., seq=3, 2\)",
        ),
        (
            lambda: AxialRotaryEmbedding((4, 4)).rotate(torch.zeros(3, 8), torch.zeros(3)),
            ValueError,
            r"shape \(\.\.\., seq=3, 2\)",
        ),
        (
            lambda: AxialRotaryEmbedding((4, 4)).grid_cos_sin(torch.tensor([[0.0, np.inf]])),
            ValueError,
            "finite",
        ),
        (lambda: AxialRotaryEmbedding.from_preset("qwen2-vl"), ValueError, "'flux', 'eva02'"),
    ],
)
def test_bad_input_raises_clear_errors(call: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()


def test_batched_positions_are_shared_by_heads() -> None:
    rope = AxialRotaryEmbedding((4, 4))
    x = torch.randn(2, 3, 5, 8)
    positions = torch.stack([grid_position_ids((1, 5))[:, [0, 1]] + shift for shift in (0, 7)])
    batched = rope.rotate(x, positions)
    for row in range(2):
        assert torch.equal(batched[row], rope.rotate(x[row], positions[row]))


@pytest.mark.parametrize(
    ("backend", "dtype"), [("eager", torch.long), ("aot_eager", torch.float32)]
)
def test_compiles_with_fullgraph(backend: str, dtype: torch.dtype) -> None:
    torch._dynamo.reset()
    rope = AxialRotaryEmbedding.from_preset("flux")
    ids = _flux_ids(2, 3, text=2).to(dtype)
    q, k = torch.randn(1, 2, 8, 128), torch.randn(1, 2, 8, 128)
    compiled = torch.compile(rope, fullgraph=True, backend=backend)
    for ours, eager in zip(compiled(q, k, ids), rope(q, k, ids), strict=True):
        torch.testing.assert_close(ours, eager, atol=1e-6, rtol=1e-6)
    table = torch.compile(rope.grid_cos_sin, fullgraph=True, backend=backend)
    for ours, eager in zip(table(ids), rope.grid_cos_sin(ids), strict=True):
        assert torch.equal(ours, eager)


def test_exports() -> None:
    rope = AxialRotaryEmbedding.from_preset("eva02")
    positions = grid_position_ids((3, 4))
    q, k = torch.randn(1, 2, 12, 64), torch.randn(1, 2, 12, 64)
    program = torch.export.export(rope, (q, k, positions))
    for ours, eager in zip(program.module()(q, k, positions), rope(q, k, positions), strict=True):
        torch.testing.assert_close(ours, eager, atol=1e-6, rtol=1e-6)


def test_flux_values_are_bit_equal_to_diffusers() -> None:
    """grids/rotary.md: diffusers computes Flux's angles in float64 and rounds once, as pe."""
    ids = _flux_ids(8, 8, text=4)
    cos, sin = transformer_flux.FluxPosEmbed(theta=10000, axes_dim=[16, 56, 56])(ids.float())
    ours_cos, ours_sin = AxialRotaryEmbedding.from_preset("flux").grid_cos_sin(ids)
    assert torch.equal(ours_cos, cos[:, 0::2])
    assert torch.equal(ours_sin, sin[:, 0::2])


def test_meta_gradients_and_low_precision_inputs() -> None:
    rope = AxialRotaryEmbedding((4, 4))
    ids = grid_position_ids((2, 3))
    meta = rope.rotate(torch.empty(2, 6, 8, device="meta"), ids.to("meta"))
    assert meta.is_meta
    assert meta.shape == (2, 6, 8)
    x = torch.randn(2, 6, 8, requires_grad=True)
    rope.rotate(x, ids).square().sum().backward()
    # a rotation keeps norms, so the gradient of |Rx|^2 is 2x
    assert x.grad is not None
    torch.testing.assert_close(x.grad, 2 * x.detach(), atol=1e-5, rtol=1e-5)
    half = rope.rotate(x.detach().bfloat16(), ids)
    assert half.dtype == torch.bfloat16
    torch.testing.assert_close(half.float(), rope.rotate(x.detach(), ids), atol=3e-2, rtol=3e-2)


def test_qwen2_vl_vision_encoder_matches_transformers() -> None:
    """Qwen2-VL's vision tower: axial RoPE over (row, column), halves layout (transformers)."""
    transformers = pytest.importorskip("transformers")
    qwen2_vl = pytest.importorskip("transformers.models.qwen2_vl.modeling_qwen2_vl")
    vision_utils = pytest.importorskip("transformers.vision_utils")
    config = transformers.Qwen2VLConfig().vision_config  # the library's defaults
    preset = pe.grid_rope_presets["qwen2-vl-vision"]
    assert config.embed_dim // config.num_heads == preset.head_dim
    assert config.rope_parameters["rope_theta"] == preset.base
    library = qwen2_vl.Qwen2VLVisionRotaryEmbedding(config)
    ids = vision_utils.get_vision_position_ids(torch.tensor([[1, 4, 6], [2, 6, 4]]), 2)
    cos, sin = library(torch.zeros(1), ids)  # (patches, head_dim): halves layout
    rope = AxialRotaryEmbedding.from_preset("qwen2-vl-vision")
    ours_cos, ours_sin = rope.grid_cos_sin(ids)
    half = preset.head_dim // 2
    assert torch.equal(cos[:, :half], cos[:, half:])
    torch.testing.assert_close(ours_cos, cos[:, :half], atol=2e-7, rtol=0)
    torch.testing.assert_close(ours_sin, sin[:, :half], atol=2e-7, rtol=0)
    torch.manual_seed(4)
    q, k = torch.randn(len(ids), 2, preset.head_dim), torch.randn(len(ids), 2, preset.head_dim)
    expected = qwen2_vl.apply_rotary_pos_emb_vision(q, k, cos, sin)
    got = rope(q.transpose(0, 1), k.transpose(0, 1), ids)  # (heads, patches, head_dim)
    for ours, theirs in zip(got, expected, strict=True):
        torch.testing.assert_close(ours.transpose(0, 1), theirs, atol=1e-6, rtol=1e-6)


# --- limits ---------------------------------------------------------------------------
def test_many_axes_cost_no_message_per_axis(monkeypatch: pytest.MonkeyPatch) -> None:
    """axial_rope formatted every axis into a message for each axis: 8,000 axes took 9 s."""
    import pe._axial
    from pe._validation import check_d_model as real  # the check pe._axial imports

    written: list[int] = []

    def counting(value: object, *, name: str = "d_model") -> int:
        written.append(len(name))
        return real(value, name=name)

    monkeypatch.setattr(pe._axial, "check_d_model", counting)
    rope = pe.axial_rope((2, 4) * 2000)
    assert sum(written) <= 100 * 4000  # a message per axis would be 4,000 x 24,000 characters
    assert rope.sections == (1, 2) * 2000
    # Each axis restarts the frequencies: 1 for a width of 2; 1 and 10000**-0.5 for 4.
    np.testing.assert_array_equal(rope.frequencies[:3], [1.0, 1.0, 0.01])
    with pytest.raises(ValueError, match=r"axes_dim\[3\] must be a positive even integer"):
        pe.axial_rope((2, 4, 6, 7))


def test_grid_limits_are_checked_before_building() -> None:
    from allocation import headroom

    calls: list[tuple[Callable[[], object], str]] = [
        # 2**31 cells of two coordinates: 32 GiB of int64 (and as much again for meshgrid)
        (lambda: pe.grid_positions((2**16, 2**15)), r"grid of shape \(65536, 32768\)"),
        (lambda: pe.axial_rope((2**24, 2**24)), "axes_dim must add up to at most 16,777,216"),
        (
            lambda: pe.grid_rope_angles(
                np.broadcast_to([1, 2], (2**26, 2)), pe.axial_rope((64, 64))
            ),
            r"the angles of positions of shape \(67108864, 2\)",
        ),
    ]
    for call, words in calls:
        with headroom(), pytest.raises(ValueError, match=words):
            call()
    # An integer array is read as a sequence of int; the annotation names only the sequence.
    coordinates = pe.grid_positions(cast("Sequence[int]", np.array([2, 1, 3], dtype=np.uint8)))
    assert coordinates.dtype == np.int64
    assert coordinates.tolist() == [
        [0, 0, 0],
        [0, 0, 1],
        [0, 0, 2],
        [1, 0, 0],
        [1, 0, 1],
        [1, 0, 2],
    ]
