"""M-RoPE (pe.mrope, pe.mrope_position_ids, pe.nn.MultimodalRotaryEmbedding) against transformers.

transformers' Qwen2-VL and Qwen2.5-VL are built here from tiny configurations
(random weights, nothing downloaded): their rotary embedding with
``apply_rotary_pos_emb``, ``get_rope_index`` on a prompt that mixes text, an
image and a video, and ``compute_3d_position_ids`` while decoding after it.
transformers 5 no longer has ``apply_multimodal_rotary_pos_emb`` (the rotary
module now picks each section's rows itself); the function of transformers 4
is restated below in float64 from its source, as is transformers 4's
``get_rope_index``, which continues the text after a video differently (pe's
default, ``text_after_vision="max"``; transformers 5 is ``"spatial"``).
Qwen3-VL's text rotary module (interleaved pairs) and its ``get_rope_index``
(a video split by frame, timestamps as text) are compared the same way.
"""

from __future__ import annotations

import itertools
import re
import types as types_module
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import pe
from pe.nn import MultimodalRotaryEmbedding
from pe.nn.functional import mrope_decode_position_ids, mrope_position_ids

transformers = pytest.importorskip("transformers")
qwen2_vl = pytest.importorskip("transformers.models.qwen2_vl.modeling_qwen2_vl")
qwen2_5_vl = pytest.importorskip("transformers.models.qwen2_5_vl.modeling_qwen2_5_vl")
qwen3_vl = pytest.importorskip("transformers.models.qwen3_vl.modeling_qwen3_vl")

HEAD_DIM = 16
SECTION = (2, 3, 3)
THETA = 1e6
TEXT = {
    "hidden_size": 32,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "num_hidden_layers": 1,
    "intermediate_size": 32,
    "vocab_size": 64,
    "bos_token_id": 0,
    "eos_token_id": 1,
    "rope_parameters": {
        "rope_type": "default",
        "mrope_section": list(SECTION),
        "rope_theta": THETA,
    },
}
VISION = {
    "depth": 1,
    "embed_dim": 16,
    "hidden_size": 32,
    "num_heads": 2,
    "spatial_merge_size": 2,
    "patch_size": 2,
    "temporal_patch_size": 2,
}

# text (3) · image 1x4x6 (2x3 tokens) · text (2) · video 3x4x4 (3x2x2 tokens) · text (3)
TYPES = [0, 0, 0] + [1] * 6 + [0, 0] + [2] * 12 + [0, 0, 0]
IMAGES = [[1, 4, 6]]
VIDEOS = [[3, 4, 4]]


@pytest.fixture(scope="module")
def models() -> dict[str, Any]:
    config = transformers.Qwen2VLConfig(text_config=TEXT, vision_config=VISION)
    config25 = transformers.Qwen2_5_VLConfig(
        text_config=TEXT,
        vision_config=VISION
        | {
            "tokens_per_second": 2,
            "out_hidden_size": 32,
            "intermediate_size": 32,
            "fullatt_block_indexes": [0],
            "window_size": 8,
        },
    )
    return {
        "qwen2-vl": qwen2_vl.Qwen2VLModel(config).eval(),
        "qwen2.5-vl": qwen2_5_vl.Qwen2_5_VLModel(config25).eval(),
    }


def _library_ids(model: Any, name: str, types: torch.Tensor, **kwargs: Any) -> Any:
    extra = {"second_per_grid_ts": kwargs.pop("seconds")} if "seconds" in kwargs else {}
    ids = torch.arange(types.numel()).reshape(types.shape)
    return model.get_rope_index(
        ids, types, torch.tensor(IMAGES), torch.tensor(VIDEOS), **kwargs, **extra
    )


@pytest.mark.parametrize(("name", "seconds"), [("qwen2-vl", None), ("qwen2.5-vl", [2.0])])
def test_position_ids_match_get_rope_index(
    models: dict[str, Any], name: str, seconds: list[float] | None
) -> None:
    model = models[name]
    rate = None if name == "qwen2-vl" else model.config.vision_config.tokens_per_second
    kwargs: dict[str, Any] = {} if seconds is None else {"seconds": torch.tensor(seconds)}
    expected, deltas = _library_ids(model, name, torch.tensor([TYPES]), **kwargs)
    ours = pe.mrope_position_ids(
        TYPES,
        image_grid_thw=IMAGES,
        video_grid_thw=VIDEOS,
        tokens_per_second=rate,
        second_per_grid=seconds,
        text_after_vision="spatial",  # transformers 5's rule
    )
    np.testing.assert_array_equal(ours.position_ids, expected[:, 0].numpy())
    assert ours.delta == int(deltas[0, 0])
    if name == "qwen2.5-vl":
        # frames 0, 1, 2 at 2 tokens/s and 2 s per grid step: temporal ids 4 apart
        video = ours.position_ids[0, 11:23]
        assert sorted(set(video.tolist())) == [8, 12, 16]


@pytest.mark.parametrize("name", ["qwen2-vl", "qwen2.5-vl"])
def test_batched_left_padded_ids_match_get_rope_index(models: dict[str, Any], name: str) -> None:
    model = models[name]
    rate = None if name == "qwen2-vl" else model.config.vision_config.tokens_per_second
    padded = [0, 0, *TYPES]  # two pads in front of row 1
    short = [0, 0, 0, 0] + [1] * 6 + [0] * (len(TYPES) - 8)  # row 0: text, the image, text
    types = torch.tensor([short, padded])
    mask = torch.ones_like(types)
    mask[1, :2] = 0
    images = torch.tensor(IMAGES + IMAGES)  # one per row, in batch order
    ids = torch.arange(types.numel()).reshape(types.shape)
    expected, deltas = model.get_rope_index(
        ids, types, images, torch.tensor(VIDEOS), attention_mask=mask
    )
    ours, our_deltas = mrope_position_ids(
        types,
        images,
        torch.tensor(VIDEOS),
        attention_mask=mask,
        tokens_per_second=rate,
        text_after_vision="spatial",
    )
    assert torch.equal(ours, expected)
    assert torch.equal(our_deltas, deltas)


@pytest.mark.parametrize("name", ["qwen2-vl", "qwen2.5-vl"])
def test_decoding_after_the_prompt_matches_compute_3d_position_ids(
    models: dict[str, Any], name: str
) -> None:
    model = models[name]
    rate = None if name == "qwen2-vl" else model.config.vision_config.tokens_per_second
    types = torch.tensor([TYPES])
    input_ids = torch.zeros_like(types)
    common = {
        "image_grid_thw": torch.tensor(IMAGES),
        "video_grid_thw": torch.tensor(VIDEOS),
        "attention_mask": None,
        "mm_token_type_ids": types,
    }
    model.rope_deltas = None
    prefill = model.compute_3d_position_ids(
        input_ids=input_ids, inputs_embeds=None, past_key_values=None, **common
    )
    ours, deltas = mrope_position_ids(
        types,
        torch.tensor(IMAGES),
        torch.tensor(VIDEOS),
        tokens_per_second=rate,
        text_after_vision="spatial",
    )
    assert torch.equal(prefill, ours)

    class Cache:  # what compute_3d_position_ids reads of a KV cache
        def __init__(self, length: int) -> None:
            self.length = length

        def get_seq_length(self) -> int:
            return self.length

    for past in (len(TYPES), len(TYPES) + 4):
        step = model.compute_3d_position_ids(
            input_ids=torch.zeros(1, 2, dtype=torch.long),
            inputs_embeds=torch.zeros(1, 2, 32),
            past_key_values=Cache(past),
            **common,
        )
        assert torch.equal(step, mrope_decode_position_ids(deltas, start=past, count=2))
        np.testing.assert_array_equal(
            step[:, 0].numpy(), pe.mrope_decode_positions(int(deltas[0, 0]), past, 2)
        )


def _reference_cos_sin(position_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """transformers 4's M-RoPE in float64, from its source (apply_multimodal_rotary_pos_emb).

    cos of the doubled head (d values) for each of the three position rows,
    then chunks of mrope_section * 2 taken in turn from rows 0, 1, 2, 0, 1, 2.
    """
    inverse = 1.0 / THETA ** (np.arange(0, HEAD_DIM, 2) / HEAD_DIM)
    angles = position_ids[..., None].astype(np.float64) * inverse  # (3, batch, seq, d/2)
    doubled = np.concatenate((angles, angles), axis=-1)
    edges = np.cumsum((0, *(SECTION * 2)))
    chunks = [doubled[i % 3][..., a:b] for i, (a, b) in enumerate(itertools.pairwise(edges))]
    chosen = np.concatenate(chunks, axis=-1)
    return np.cos(chosen), np.sin(chosen)


def test_table_is_float64_rounded_once() -> None:
    rope = MultimodalRotaryEmbedding(HEAD_DIM, SECTION, base=THETA)
    ids, _ = mrope_position_ids(
        torch.tensor([TYPES]), torch.tensor(IMAGES), torch.tensor(VIDEOS), tokens_per_second=2
    )
    cos, sin = rope.grid_cos_sin(ids.movedim(0, -1), dtype=torch.float64)
    ref_cos, ref_sin = _reference_cos_sin(ids.numpy())
    half = HEAD_DIM // 2
    np.testing.assert_allclose(cos.numpy(), ref_cos[..., :half], atol=1e-15, rtol=0)
    np.testing.assert_allclose(sin.numpy(), ref_sin[..., :half], atol=1e-15, rtol=0)
    cos32, _ = rope.grid_cos_sin(ids.movedim(0, -1))
    assert cos32.dtype == torch.float32
    assert torch.equal(cos32, cos.float())  # rounded once from float64


@pytest.mark.parametrize("name", ["qwen2-vl", "qwen2.5-vl"])
def test_rotation_matches_transformers(models: dict[str, Any], name: str) -> None:
    model = models[name]
    rate = None if name == "qwen2-vl" else 2
    ids, _ = mrope_position_ids(
        torch.tensor([TYPES] * 2),
        torch.tensor(IMAGES * 2),
        torch.tensor(VIDEOS * 2),
        tokens_per_second=rate,
    )
    torch.manual_seed(0)
    q, k = torch.randn(2, 2, len(TYPES), HEAD_DIM), torch.randn(2, 1, len(TYPES), HEAD_DIM)
    cos, sin = model.language_model.rotary_emb(q, ids)
    expected = qwen2_vl.apply_rotary_pos_emb(q, k, cos, sin)
    rope = MultimodalRotaryEmbedding(HEAD_DIM, SECTION, base=THETA)
    got = rope(q, k, ids)
    for ours, theirs in zip(got, expected, strict=True):
        torch.testing.assert_close(ours, theirs, atol=2e-6, rtol=1e-5)
    # ... and against transformers 4's formula in float64 (the exact rotation)
    ref_cos, ref_sin = _reference_cos_sin(ids.numpy())
    x = q.double().numpy()
    half = HEAD_DIM // 2
    turned = np.concatenate((-x[..., half:], x[..., :half]), axis=-1)
    exact = x * ref_cos[:, None] + turned * ref_sin[:, None]
    np.testing.assert_allclose(got[0].double().numpy(), exact, atol=5e-7, rtol=0)


def test_presets_are_the_library_defaults() -> None:
    text = transformers.Qwen2VLConfig().text_config
    preset = pe.grid_rope_presets["qwen2-vl"]
    # the sections default inside the rotary module when a config has none
    assert tuple(qwen2_vl.Qwen2VLRotaryEmbedding(text).mrope_section) == preset.widths
    assert text.rope_parameters["rope_theta"] == preset.base
    assert text.hidden_size // text.num_attention_heads == preset.head_dim
    vision = transformers.Qwen2VLConfig().vision_config
    assert vision.spatial_merge_size == preset.spatial_merge_size
    qwen25 = pe.grid_rope_presets["qwen2.5-vl"]
    assert (qwen25.widths, qwen25.base, qwen25.head_dim) == (
        preset.widths,
        preset.base,
        preset.head_dim,
    )
    rope = MultimodalRotaryEmbedding.from_preset("qwen2.5-vl")
    np.testing.assert_allclose(
        rope.frequencies, 1e6 ** (-np.arange(0, 128, 2) / 128), rtol=1e-15, atol=0
    )


def _transformers4_ids(types: list[int], rate: float | None) -> np.ndarray:
    """Restate transformers 4's get_rope_index (Qwen2.5-VL): text resumes past the block's max."""
    ids: list[list[int]] = []
    images, videos = iter(IMAGES), iter(VIDEOS)
    index, current = 0, 0
    while index < len(types):
        kind = types[index]
        if kind == 0:
            ids.append([current] * 3)
            current += 1
            index += 1
            continue
        t, h, w = next(images) if kind == 1 else next(videos)
        step = 0.0 if kind == 1 else (1.0 if rate is None else rate * 1.0)
        block = [
            [current + int(f * step), current + r, current + c]
            for f in range(t)
            for r in range(h // 2)
            for c in range(w // 2)
        ]
        ids.extend(block)
        current = max(max(row) for row in block) + 1
        index += len(block)
    result: np.ndarray = np.array(ids, dtype=np.int64).T
    return result


@pytest.mark.parametrize("rate", [None, 2.0, 8.0])
def test_text_after_vision_max_is_transformers_4(rate: float | None) -> None:
    ours = pe.mrope_position_ids(
        TYPES,
        image_grid_thw=IMAGES,
        video_grid_thw=VIDEOS,
        tokens_per_second=rate,
        text_after_vision="max",
    )
    np.testing.assert_array_equal(ours.position_ids, _transformers4_ids(TYPES, rate))
    default = pe.mrope_position_ids(
        TYPES, image_grid_thw=IMAGES, video_grid_thw=VIDEOS, tokens_per_second=rate
    )
    np.testing.assert_array_equal(default.position_ids, ours.position_ids)  # "max" is the default
    spatial = pe.mrope_position_ids(
        TYPES,
        image_grid_thw=IMAGES,
        video_grid_thw=VIDEOS,
        tokens_per_second=rate,
        text_after_vision="spatial",
    )
    # the two agree until the text after the video; 3 frames outrun its 2 x 2 tokens
    np.testing.assert_array_equal(spatial.position_ids[:, :23], ours.position_ids[:, :23])
    assert spatial.position_ids[0, 23] == 10
    assert ours.position_ids[0, 23] == 8 + (2 if rate is None else int(2 * rate)) + 1
    # after an image (one frame) they always agree
    spatial_image, max_image = (
        pe.mrope_position_ids(
            TYPES[:11], image_grid_thw=IMAGES, tokens_per_second=rate, text_after_vision=rule
        ).position_ids
        for rule in ("spatial", "max")
    )
    np.testing.assert_array_equal(spatial_image, max_image)


def test_text_after_a_long_video_by_hand() -> None:
    """The Qwen2-VL paper's rule (section 2.1), worked by hand: text resumes at the max id + 1.

    Two text tokens, then a Qwen2.5-VL video of 3 frames of 2 x 2 tokens at 2
    tokens per second and 1 s per frame (temporal steps of 2), then two text
    tokens. The video starts at 2: frames at t = 2, 4, 6; rows and columns 2, 3.
    "max": the text resumes at 6 + 1 = 7. "spatial": at 2 + max(2, 2) = 4, ids
    that the video's second frame already holds.
    """
    types = [0, 0] + [2] * 12 + [0, 0]
    frames = [2] * 4 + [4] * 4 + [6] * 4
    rows = [2, 2, 3, 3] * 3
    columns = [2, 3, 2, 3] * 3
    expected = {
        "max": np.array([[0, 1, *frames, 7, 8], [0, 1, *rows, 7, 8], [0, 1, *columns, 7, 8]]),
        "spatial": np.array([[0, 1, *frames, 4, 5], [0, 1, *rows, 4, 5], [0, 1, *columns, 4, 5]]),
    }
    for rule, ids in expected.items():
        ours = pe.mrope_position_ids(
            types,
            video_grid_thw=[(3, 4, 4)],
            tokens_per_second=2,
            second_per_grid=[1.0],
            text_after_vision=rule,
        )
        np.testing.assert_array_equal(ours.position_ids, ids)
        assert ours.delta == int(ids.max()) + 1 - len(types)
        batched, deltas = mrope_position_ids(
            torch.tensor([types]),
            video_grid_thw=torch.tensor([[3, 4, 4]]),
            tokens_per_second=2,
            second_per_grid=[1.0],
            text_after_vision=rule,
        )
        np.testing.assert_array_equal(batched[:, 0].numpy(), ids)
        assert int(deltas[0, 0]) == ours.delta
    default = pe.mrope_position_ids(
        types, video_grid_thw=[(3, 4, 4)], tokens_per_second=2, second_per_grid=[1.0]
    )
    np.testing.assert_array_equal(default.position_ids, expected["max"])


def test_text_alone_is_plain_rope() -> None:
    ids, delta = pe.mrope_position_ids([0] * 5)
    np.testing.assert_array_equal(ids, np.tile(np.arange(5), (3, 1)))
    assert delta == 0
    rope = MultimodalRotaryEmbedding(HEAD_DIM, SECTION, base=THETA)
    plain = pe.nn.RotaryEmbedding(HEAD_DIM, base=THETA, layout="concatenated")
    x = torch.randn(1, 2, 5, HEAD_DIM)
    torch.testing.assert_close(
        rope.rotate(x, torch.from_numpy(ids)), plain.rotate(x), atol=0, rtol=0
    )


def test_one_dimensional_positions_are_refused() -> None:
    rope = MultimodalRotaryEmbedding(HEAD_DIM, SECTION)
    q = torch.randn(1, 2, 4, HEAD_DIM)
    with pytest.raises(ValueError, match=r"position_ids must have shape \(3, batch, seq\)"):
        rope(q, q, torch.arange(4)[None])
    with pytest.raises(TypeError, match="position_ids must be an integer tensor"):
        rope(q, q, torch.zeros(3, 1, 4))
    with pytest.raises(ValueError, match=r"positions must have shape \(\.\.\., seq=4, 3\)"):
        rope(q, q, torch.zeros(3, 1, 5, dtype=torch.long))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"token_types": [0, 1, 1, 0], "image_grid_thw": [(1, 4, 4)]}, "run of 2 image tokens"),
        ({"token_types": [0, 1, 1, 1, 1]}, "more image runs than image_grid_thw rows"),
        ({"token_types": [0, 0], "image_grid_thw": [(1, 4, 4)]}, "1 row\\(s\\) more"),
        ({"token_types": [0, 3]}, "0 \\(text\\), 1 \\(image\\) or 2 \\(video\\)"),
        (
            {"token_types": [1] * 3, "image_grid_thw": [(1, 2, 6)], "spatial_merge_size": 4},
            "multiples of spatial_merge_size=4",
        ),
        ({"token_types": [0], "text_after_vision": "text"}, "text_after_vision must be one of"),
        ({"token_types": [0], "tokens_per_second": -1.0}, "tokens_per_second must be"),
        (
            {
                "token_types": [2] * 4,
                "video_grid_thw": [(1, 4, 4)],
                "second_per_grid": [1, 2],
                "tokens_per_second": 2,
            },
            "one finite number >= 0 per video",
        ),
        ({"token_types": [[0, 1]]}, "token_types must be a 1-D integer sequence"),
        ({"token_types": [0], "second_per_grid": [1.0]}, "read only with tokens_per_second"),
    ],
)
def test_bad_prompts_raise_clear_errors(kwargs: dict[str, Any], message: str) -> None:
    types = kwargs.pop("token_types")
    with pytest.raises(ValueError, match=message):
        pe.mrope_position_ids(types, **kwargs)


def test_mrope_checks_its_sections() -> None:
    with pytest.raises(ValueError, match=r"must sum to head_dim // 2 = 8"):
        pe.mrope(16, (2, 3, 2))
    with pytest.raises(TypeError, match="mrope_section must be a sequence"):
        pe.mrope(16, 8)  # type: ignore[call-overload]  # wrong on purpose
    with pytest.raises(ValueError, match="row 1"):
        mrope_position_ids(torch.tensor([[0, 0], [1, 1]]), torch.tensor([[1, 2, 2]]))


@pytest.mark.parametrize("backend", ["aot_eager"])
def test_compiles_with_fullgraph(backend: str) -> None:
    torch._dynamo.reset()
    rope = MultimodalRotaryEmbedding(HEAD_DIM, SECTION, base=THETA)
    ids, _ = mrope_position_ids(
        torch.tensor([TYPES] * 2), torch.tensor(IMAGES * 2), torch.tensor(VIDEOS * 2)
    )
    q, k = torch.randn(2, 2, len(TYPES), HEAD_DIM), torch.randn(2, 1, len(TYPES), HEAD_DIM)
    compiled = torch.compile(rope, fullgraph=True, backend=backend)
    for ours, eager in zip(compiled(q, k, ids), rope(q, k, ids), strict=True):
        torch.testing.assert_close(ours, eager, atol=1e-6, rtol=1e-6)
    # the traced angles are the cached table's, bit for bit
    table = torch.compile(rope.grid_cos_sin, fullgraph=True, backend=backend)
    axis_last = ids.movedim(0, -1)
    for ours, eager in zip(table(axis_last), rope.grid_cos_sin(axis_last), strict=True):
        assert torch.equal(ours, eager)


def test_exports() -> None:
    rope = MultimodalRotaryEmbedding.from_config(
        {"head_dim": HEAD_DIM, "rope_theta": THETA, "rope_scaling": {"mrope_section": SECTION}}
    )
    ids, _ = mrope_position_ids(torch.tensor([TYPES]), torch.tensor(IMAGES), torch.tensor(VIDEOS))
    q, k = torch.randn(1, 2, len(TYPES), HEAD_DIM), torch.randn(1, 1, len(TYPES), HEAD_DIM)
    program = torch.export.export(rope, (q, k, ids))
    for ours, eager in zip(program.module()(q, k, ids), rope(q, k, ids), strict=True):
        torch.testing.assert_close(ours, eager, atol=1e-6, rtol=1e-6)


def test_claims_of_the_page() -> None:
    """grids/rotary.md: M-RoPE's width pairs are all slower than its height pairs."""
    rope = pe.grid_rope_presets["qwen2-vl"].rope()
    time, height, width = np.split(2 * np.pi / rope.frequencies, np.cumsum(rope.sections)[:-1])
    assert width.min() > height.max() > time.max()
    assert width.min() > 1000  # columns of any image the model sees: a width pair barely turns


# --- random prompts against the library -------------------------------------------------------

_VISION = st.tuples(
    st.sampled_from([1, 2]),  # 1 image, 2 video
    st.integers(1, 3),  # frames (images use 1)
    st.integers(1, 3),  # merged rows
    st.integers(1, 3),  # merged columns
)
_SEGMENTS = st.lists(st.one_of(st.integers(1, 3), _VISION), min_size=1, max_size=6)


def _prompt(segments: list[Any]) -> tuple[list[int], list[list[int]], list[list[int]]]:
    """Token types and grids of a prompt: text runs and vision runs, text between runs."""
    types: list[int] = []
    images: list[list[int]] = []
    videos: list[list[int]] = []
    for segment in segments:
        if isinstance(segment, int):
            types += [0] * segment
            continue
        kind, frames, rows, columns = segment
        frames = 1 if kind == 1 else frames
        if types and types[-1] != 0:
            types.append(0)  # a vision-end marker between two runs
        types += [kind] * (frames * rows * columns)
        (images if kind == 1 else videos).append([frames, 2 * rows, 2 * columns])
    return types, images, videos


@given(
    segments=_SEGMENTS,
    rate=st.sampled_from([None, 1, 2, 3]),
    seconds=st.sampled_from([0.5, 1.0, 2.0]),
)
@settings(max_examples=40, deadline=None)
def test_random_prompts_match_get_rope_index(
    segments: list[Any], rate: int | None, seconds: float
) -> None:
    types, images, videos = _prompt(segments)
    model_class = qwen2_vl.Qwen2VLModel if rate is None else qwen2_5_vl.Qwen2_5_VLModel
    vision = {"spatial_merge_size": 2, "tokens_per_second": rate}
    holder = types_module.SimpleNamespace(
        config=types_module.SimpleNamespace(vision_config=types_module.SimpleNamespace(**vision))
    )
    holder.get_vision_position_ids = model_class.get_vision_position_ids.__get__(holder)
    extra = {} if rate is None else {"second_per_grid_ts": torch.tensor([seconds] * len(videos))}
    tensor = torch.tensor([types])
    expected, delta = model_class.get_rope_index(
        holder,
        torch.zeros_like(tensor),
        tensor,
        torch.tensor(images) if images else None,
        torch.tensor(videos) if videos else None,
        **extra,
    )
    ours = pe.mrope_position_ids(
        types,
        image_grid_thw=images or None,
        video_grid_thw=videos or None,
        tokens_per_second=rate,
        second_per_grid=[seconds] * len(videos) if rate is not None else None,
        text_after_vision="spatial",
    )
    np.testing.assert_array_equal(ours.position_ids, expected[:, 0].numpy())
    assert ours.delta == int(delta[0, 0])
    text = np.asarray(types) == 0
    assert np.all(ours.position_ids[:, text] == ours.position_ids[0, text])  # 1-D on text


# --- Qwen3-VL: interleaved pairs, videos split by frame ----------------------------------------

Q3_HEAD_DIM = 32
Q3_SECTION = (6, 5, 5)  # 16 pairs: t, h, w, t, h, w, ... over the first 15, then t
Q3_THETA = 5e6
# text (3) · image 1x4x6 (2x3 tokens) · text (2) · a video of 3 frames of 4x4 patches (2x2
# tokens each), each frame after its timestamp and <vision_start> (2 text tokens) and before
# <vision_end> (1) · text (3)
Q3_TYPES = [0, 0, 0] + [1] * 6 + [0, 0] + ([0, 0] + [2] * 4 + [0]) * 3 + [0, 0, 0]
Q3_VIDEOS = [[3, 4, 4]]  # one row per video, as the processor returns it


def _qwen3_text_config() -> Any:
    return transformers.Qwen3VLTextConfig(
        hidden_size=64,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=Q3_HEAD_DIM,
        num_hidden_layers=1,
        intermediate_size=32,
        vocab_size=64,
        rope_parameters={
            "rope_type": "default",
            "mrope_section": list(Q3_SECTION),
            "rope_theta": Q3_THETA,
            "mrope_interleaved": True,
        },
    )


def _qwen3_rope_index(types: torch.Tensor, **kwargs: Any) -> Any:
    """transformers' Qwen3VLModel.get_rope_index, called on a stand-in that holds its settings."""
    holder = types_module.SimpleNamespace(
        config=types_module.SimpleNamespace(
            vision_config=types_module.SimpleNamespace(spatial_merge_size=2)
        )
    )
    holder.get_vision_position_ids = qwen3_vl.Qwen3VLModel.get_vision_position_ids.__get__(holder)
    get_rope_index: Any = qwen3_vl.Qwen3VLModel.get_rope_index
    return get_rope_index(
        holder,
        torch.zeros_like(types),
        types,
        torch.tensor(IMAGES * types.shape[0]),
        torch.tensor(Q3_VIDEOS * types.shape[0]),
        **kwargs,
    )


def test_interleaved_pairs_are_transformers_qwen3_vl() -> None:
    """pe.mrope(interleaved=True)'s axis of each pair, against Qwen3-VL's recomposition."""
    for head_dim, section in ((128, (24, 20, 20)), (Q3_HEAD_DIM, Q3_SECTION), (16, (3, 3, 2))):
        rope = pe.mrope(head_dim, section, base=Q3_THETA, interleaved=True)
        module = types_module.SimpleNamespace(mrope_section=list(section))
        pairs = head_dim // 2
        tagged = torch.arange(3.0)[:, None].expand(3, pairs).clone()  # row a holds a
        axes = qwen3_vl.Qwen3VLTextRotaryEmbedding.recomposition_frequencies(module, tagged)
        np.testing.assert_array_equal(rope.axis_of_pair, axes[:pairs].long().numpy())
        assert tuple(np.bincount(rope.axis_of_pair, minlength=3)) == section
        np.testing.assert_allclose(
            rope.frequencies, Q3_THETA ** (-np.arange(0, head_dim, 2) / head_dim), rtol=1e-15
        )
    # by hand for Qwen3-VL's checkpoints: 20 turns of (t, h, w), then 4 more time pairs
    qwen3 = pe.mrope(128, (24, 20, 20), base=Q3_THETA, interleaved=True)
    assert qwen3.axis_of_pair.tolist() == [0, 1, 2] * 20 + [0] * 4
    # the default arrangement is still Qwen2-VL's consecutive sections
    assert isinstance(pe.mrope(128, (24, 20, 20)), pe.GridRope)


@pytest.mark.parametrize(
    ("head_dim", "section", "counts"),
    [(16, (2, 3, 3), "(3, 3, 2)"), (32, (4, 6, 6), "(6, 5, 5)"), (32, (5, 5, 6), "(6, 5, 5)")],
)
def test_interleaved_sections_that_do_not_fit_are_refused(
    head_dim: int, section: tuple[int, ...], counts: str
) -> None:
    # transformers would silently give height or width fewer pairs than the section asks for
    with pytest.raises(ValueError, match=rf"gives \(time, height, width\) {re.escape(counts)}"):
        pe.mrope(head_dim, section, interleaved=True)
    with pytest.raises(ValueError, match="cannot be interleaved"):
        MultimodalRotaryEmbedding(head_dim, section, interleaved=True)
    with pytest.raises(TypeError, match="interleaved must be True or False"):
        pe.mrope(16, (3, 3, 2), interleaved="yes")  # type: ignore[call-overload]


def test_interleaved_angles_by_hand() -> None:
    rope = pe.mrope(16, (3, 3, 2), base=100.0, interleaved=True)
    positions = np.array([[7, 2, 5], [0, 1, 3]])
    axes = [0, 1, 2, 0, 1, 2, 0, 1]
    expected = np.array(
        [[row[axes[i]] * 100.0 ** (-2 * i / 16) for i in range(8)] for row in positions]
    )
    np.testing.assert_allclose(rope.angles(positions), expected, rtol=1e-15, atol=0)
    with pytest.raises(TypeError, match="must be a GridRope"):
        pe.grid_rope_angles(positions, rope)  # type: ignore[arg-type]


def test_qwen3_vl_ids_match_get_rope_index() -> None:
    types = torch.tensor([Q3_TYPES])
    expected, deltas = _qwen3_rope_index(types)
    ours = pe.mrope_position_ids(
        Q3_TYPES, image_grid_thw=IMAGES, video_grid_thw=Q3_VIDEOS, frames_separately=True
    )
    np.testing.assert_array_equal(ours.position_ids, expected[:, 0].numpy())
    assert ours.delta == int(deltas[0, 0])
    # each frame is a one-step block: its temporal id is where its run starts (the
    # timestamps carry the time), and its rows and columns start there too
    ids = ours.position_ids
    for start in (13, 20, 27):  # the three runs of 4 video tokens
        frame = ids[:, start : start + 4]
        assert set(frame[0].tolist()) == {int(ids[0, start - 1]) + 1}
        assert frame[1].min() == frame[2].min() == frame[0, 0]
    # the two text rules agree on one-step blocks
    spatial = pe.mrope_position_ids(
        Q3_TYPES,
        image_grid_thw=IMAGES,
        video_grid_thw=Q3_VIDEOS,
        frames_separately=True,
        text_after_vision="spatial",
    )
    np.testing.assert_array_equal(spatial.position_ids, ids)
    # batched and left-padded: grids in batch order, one row per video
    padded = [0, 0, *Q3_TYPES]
    short = [0] * 4 + [1] * 6 + [0] * 4 + [2] * 4 + [0] + [2] * 4 + [0] + [2] * 4 + [0] * 9
    batch = torch.tensor([short, padded])
    mask = torch.ones_like(batch)
    mask[1, :2] = 0
    expected, deltas = _qwen3_rope_index(batch, attention_mask=mask)
    batched, our_deltas = mrope_position_ids(
        batch,
        torch.tensor(IMAGES * 2),
        torch.tensor(Q3_VIDEOS * 2),
        attention_mask=mask,
        frames_separately=True,
    )
    assert torch.equal(batched, expected)
    assert torch.equal(our_deltas, deltas)


def test_frames_separately_explains_a_mismatch() -> None:
    with pytest.raises(ValueError, match="pass frames_separately=True"):
        pe.mrope_position_ids(Q3_TYPES, image_grid_thw=IMAGES, video_grid_thw=Q3_VIDEOS)
    together = [0, 0] + [2] * 12 + [0]  # three frames in one run: Qwen2-VL's prompt
    with pytest.raises(ValueError, match="every frame is a run of its own"):
        pe.mrope_position_ids(together, video_grid_thw=Q3_VIDEOS, frames_separately=True)
    with pytest.raises(ValueError, match="tokens_per_second is not read"):
        pe.mrope_position_ids(
            together, video_grid_thw=Q3_VIDEOS, frames_separately=True, tokens_per_second=2
        )
    with pytest.raises(ValueError, match=r"holds 1000000000 frames, more than the 15 tokens"):
        pe.mrope_position_ids(together, video_grid_thw=[(10**9, 4, 4)], frames_separately=True)
    with pytest.raises(TypeError, match="frames_separately must be True or False"):
        pe.mrope_position_ids(together, frames_separately="yes")  # type: ignore[arg-type]


def test_qwen3_vl_rotation_matches_transformers() -> None:
    text = _qwen3_text_config()
    ids, _ = mrope_position_ids(
        torch.tensor([Q3_TYPES] * 2),
        torch.tensor(IMAGES * 2),
        torch.tensor(Q3_VIDEOS * 2),
        frames_separately=True,
    )
    torch.manual_seed(0)
    seq = len(Q3_TYPES)
    q, k = torch.randn(2, 2, seq, Q3_HEAD_DIM), torch.randn(2, 1, seq, Q3_HEAD_DIM)
    cos, sin = qwen3_vl.Qwen3VLTextRotaryEmbedding(text)(q, ids)
    expected = qwen3_vl.apply_rotary_pos_emb(q, k, cos, sin)
    whole = transformers.Qwen3VLConfig(text_config=text.to_dict()).to_dict()
    without_key = {**whole, "text_config": {**whole["text_config"]}}
    without_key["text_config"]["rope_parameters"] = {
        key: value
        for key, value in whole["text_config"]["rope_parameters"].items()
        if key != "mrope_interleaved"
    }
    for config in (whole, without_key):  # the key, or Qwen3-VL's model_type alone
        rope = MultimodalRotaryEmbedding.from_config(config)
        assert rope.interleaved
        assert rope.base == Q3_THETA
        for ours, theirs in zip(rope(q, k, ids), expected, strict=True):
            torch.testing.assert_close(ours, theirs, atol=2e-6, rtol=1e-5)
    # ... and a float64 rotation written out from the pair -> axis map by hand
    axes = np.array([0, 1, 2] * 5 + [0])
    inverse = Q3_THETA ** (-np.arange(0, Q3_HEAD_DIM, 2) / Q3_HEAD_DIM)
    angles = ids.numpy()[axes, :, :].transpose(1, 2, 0) * inverse  # (batch, seq, pairs)
    x = q.double().numpy()
    half = Q3_HEAD_DIM // 2
    first, second = x[..., :half], x[..., half:]
    cos64, sin64 = np.cos(angles)[:, None], np.sin(angles)[:, None]
    exact = np.concatenate((first * cos64 - second * sin64, first * sin64 + second * cos64), -1)
    np.testing.assert_allclose(rope.rotate(q, ids).double().numpy(), exact, atol=5e-7, rtol=0)
    # Qwen2-VL's consecutive sections turn the same pairs by other ids: not Qwen3-VL
    sectioned = MultimodalRotaryEmbedding(Q3_HEAD_DIM, Q3_SECTION, base=Q3_THETA)
    assert not torch.allclose(sectioned.rotate(q, ids), expected[0], atol=1e-3)


def test_from_config_refuses_an_arrangement_the_model_does_not_use() -> None:
    qwen3 = _qwen3_text_config().to_dict()
    qwen3["rope_parameters"] = {**qwen3["rope_parameters"], "mrope_interleaved": False}
    with pytest.raises(ValueError, match="'qwen3_vl_text' always interleaves"):
        MultimodalRotaryEmbedding.from_config(qwen3)
    sections = {"mrope_section": list(SECTION), "mrope_interleaved": True}
    qwen2 = {"model_type": "qwen2_vl", "head_dim": HEAD_DIM, "rope_scaling": sections}
    with pytest.raises(ValueError, match="'qwen2_vl' never interleaves"):
        MultimodalRotaryEmbedding.from_config(qwen2)
    sections["mrope_interleaved"] = "true"  # the dict qwen2["rope_scaling"] holds
    with pytest.raises(TypeError, match=r"\['mrope_interleaved'\] must be true or false"):
        MultimodalRotaryEmbedding.from_config(qwen2)
    # another model type: the key decides
    interleaved = {"mrope_section": list(Q3_SECTION), "mrope_interleaved": True}
    other = {"head_dim": Q3_HEAD_DIM, "rope_parameters": interleaved}
    assert MultimodalRotaryEmbedding.from_config(other).interleaved
    interleaved["mrope_interleaved"] = False  # the dict other["rope_parameters"] holds
    assert not MultimodalRotaryEmbedding.from_config(other).interleaved


# --- scaling rules in from_config -------------------------------------------------------------


_RULES = {
    "yarn": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 128},
    "linear": {"rope_type": "linear", "factor": 4.0},
    "llama3": {
        "rope_type": "llama3",
        "factor": 4.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 128,
    },
}


@pytest.mark.parametrize("rule", list(_RULES))
def test_scaling_rules_match_transformers(rule: str) -> None:
    """transformers' Qwen2-VL rotary module applies the config's rule (ROPE_INIT_FUNCTIONS)."""
    parameters = _RULES[rule] | {"mrope_section": list(SECTION), "rope_theta": THETA}
    config = transformers.Qwen2VLConfig(
        text_config=TEXT | {"rope_parameters": parameters, "max_position_embeddings": 512},
        vision_config=VISION,
    )
    rotary = qwen2_vl.Qwen2VLRotaryEmbedding(config.text_config)
    if rule == "yarn":  # 0.1 ln(factor) + 1 on cos and sin
        assert rotary.attention_scaling == pytest.approx(0.1 * np.log(4.0) + 1)
    rope = MultimodalRotaryEmbedding.from_config(config.to_dict())
    assert rope.rule == rule
    assert rope.attention_factor == pytest.approx(rotary.attention_scaling, rel=1e-12)
    np.testing.assert_allclose(rope.frequencies, rotary.inv_freq.double().numpy(), rtol=1e-6)
    ids, _ = mrope_position_ids(torch.tensor([TYPES]), torch.tensor(IMAGES), torch.tensor(VIDEOS))
    torch.manual_seed(1)
    q, k = torch.randn(1, 2, len(TYPES), HEAD_DIM), torch.randn(1, 1, len(TYPES), HEAD_DIM)
    cos, sin = rotary(q, ids)
    expected = qwen2_vl.apply_rotary_pos_emb(q, k, cos, sin)
    for ours, theirs in zip(rope(q, k, ids), expected, strict=True):
        torch.testing.assert_close(ours, theirs, atol=3e-6, rtol=1e-5)
    # the scaled pairs turn more slowly than the default rule's: the rule is applied
    plain = MultimodalRotaryEmbedding(HEAD_DIM, SECTION, base=THETA)
    assert rope.frequencies[-1] < plain.frequencies[-1] / 2


@pytest.mark.parametrize(
    ("scaling", "message"),
    [
        ({"rope_type": "dynamic", "factor": 2.0}, r"\['rope_type'\] is 'dynamic'"),
        (
            {
                "type": "longrope",
                "short_factor": [1.0] * 8,
                "long_factor": [2.0] * 8,
                "original_max_position_embeddings": 4096,
            },
            r"\['type'\] is 'longrope'",
        ),
        ({"rope_type": "default", "partial_rotary_factor": 0.5}, "partial_rotary_factor"),
        ({"rope_type": "yarn"}, "factor"),
    ],
)
def test_rules_that_are_not_applied_are_refused(scaling: dict[str, Any], message: str) -> None:
    config = {
        "head_dim": HEAD_DIM,
        "max_position_embeddings": 512,
        "rope_scaling": scaling | {"mrope_section": list(SECTION)},
    }
    with pytest.raises(ValueError, match=message) as error:
        MultimodalRotaryEmbedding.from_config(config)
    assert "config['rope_scaling']" in str(error.value)


# --- hostile calls ----------------------------------------------------------------------------

_INTEGER_DTYPES = [
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.uint16,
    torch.uint32,
    torch.uint64,
]


def test_every_integer_dtype_is_read_by_value() -> None:
    """uint8 indices are a mask to torch, int8 and int16 no index at all: all read as values."""
    mrope_module = MultimodalRotaryEmbedding(HEAD_DIM, SECTION, base=THETA)
    axial = pe.nn.AxialRotaryEmbedding((4, 6, 6))
    ids, _ = mrope_position_ids(torch.tensor([TYPES]), torch.tensor(IMAGES), torch.tensor(VIDEOS))
    grid = pe.nn.functional.grid_position_ids((1, 3, 4)) + 2
    torch.manual_seed(2)
    x = torch.randn(1, 2, len(TYPES), HEAD_DIM)
    y = torch.randn(1, 2, 12, 16)
    reference = mrope_module.rotate(x, ids), axial.rotate(y, grid)
    for dtype in _INTEGER_DTYPES:
        assert torch.equal(mrope_module.rotate(x, ids.to(dtype)), reference[0]), dtype
        assert torch.equal(mrope_module(x, x, ids.to(dtype))[0], reference[0]), dtype
        assert torch.equal(axial.rotate(y, grid.to(dtype)), reference[1]), dtype
        cos, _ = axial.grid_cos_sin(grid.to(dtype))
        assert torch.equal(cos, axial.grid_cos_sin(grid)[0]), dtype
    huge = torch.full((3, 1, len(TYPES)), 2**63, dtype=torch.uint64)
    with pytest.raises(ValueError, match=r"dtype torch\.uint64 hold a value of 2\*\*63"):
        mrope_module.rotate(x, huge)
    for bad in (ids.bool(), ids.to(torch.complex64)):
        with pytest.raises(TypeError, match="must be a real tensor"):
            mrope_module.rotate(x, bad)


@pytest.mark.parametrize("rate", [1e300, 1e19, 3e9])
def test_a_huge_tokens_per_second_is_refused(rate: float) -> None:
    # 1e19: floor(2 * rate) overflowed int64 to -2**63; 1e300: to inf before that
    with pytest.raises(ValueError, match="the temporal ids of video grid"):
        pe.mrope_position_ids(
            TYPES, image_grid_thw=IMAGES, video_grid_thw=VIDEOS, tokens_per_second=rate
        )
    with pytest.raises(ValueError, match="row 0: the temporal ids"):
        mrope_position_ids(
            torch.tensor([TYPES]),
            torch.tensor(IMAGES),
            torch.tensor(VIDEOS),
            tokens_per_second=rate,
        )
    # one frame never reads the step: a large rate is harmless there
    ids = pe.mrope_position_ids([0, 2, 2, 2, 2], video_grid_thw=[(1, 4, 4)], tokens_per_second=rate)
    assert ids.position_ids.min() >= 0


def test_decode_position_ids_refuses_what_it_cannot_hold() -> None:
    deltas = torch.tensor([[-2], [0]])
    for bad in (deltas.bool(), deltas.to(torch.complex64), deltas.double()):
        with pytest.raises(TypeError, match="rope_deltas must be a \\(batch, 1\\) integer tensor"):
            mrope_decode_position_ids(bad, 0)
    with pytest.raises(ValueError, match=r"start \+ delta \+ count must lie in"):
        mrope_decode_position_ids(deltas, 0, 2**40)  # refused before allocating 2**40 ids
    with pytest.raises(ValueError, match=r"start \+ delta must lie in"):
        mrope_decode_position_ids(torch.tensor([[2**62]]), 0)  # ids near 4.6e18 before
    with pytest.raises(ValueError, match=r"start \+ delta must lie in"):
        mrope_decode_position_ids(torch.tensor([[-(2**31)]]), torch.tensor([0]))
    with pytest.raises(TypeError, match="start must be"):
        mrope_decode_position_ids(deltas, torch.tensor([True, False]))
    with pytest.raises(ValueError, match="count must be a non-negative integer"):
        mrope_decode_position_ids(deltas, 0, True)
    for dtype in _INTEGER_DTYPES:
        values = torch.tensor([[3], [0]]).to(dtype)
        got = mrope_decode_position_ids(values, torch.tensor([5, 6]).to(dtype), 2)
        assert got.dtype == torch.int64
        assert got[0].tolist() == [[8, 9], [6, 7]], dtype
    # the numpy twin refuses the same
    with pytest.raises(ValueError, match=r"start \+ delta \+ count must lie in"):
        pe.mrope_decode_positions(0, 0, 2**40)


def _qwen3_prompt(segments: list[Any]) -> tuple[list[int], list[list[int]], list[list[int]]]:
    """Token types and grids of a Qwen3-VL prompt: a timestamp token before every frame."""
    types: list[int] = []
    images: list[list[int]] = []
    videos: list[list[int]] = []
    for segment in segments:
        if isinstance(segment, int):
            types += [0] * segment
            continue
        kind, frames, rows, columns = segment
        if kind == 1:
            types += [0, *[1] * (rows * columns)]
            images.append([1, 2 * rows, 2 * columns])
            continue
        for _ in range(frames):
            types += [0, *[2] * (rows * columns)]  # "<t seconds>", then the frame
        videos.append([frames, 2 * rows, 2 * columns])
    return types, images, videos


@given(segments=_SEGMENTS, rule=st.sampled_from(["max", "spatial"]))
@settings(max_examples=25, deadline=None)
def test_random_qwen3_prompts_match_get_rope_index(segments: list[Any], rule: str) -> None:
    types, images, videos = _qwen3_prompt(segments)
    holder = types_module.SimpleNamespace(
        config=types_module.SimpleNamespace(
            vision_config=types_module.SimpleNamespace(spatial_merge_size=2)
        )
    )
    holder.get_vision_position_ids = qwen3_vl.Qwen3VLModel.get_vision_position_ids.__get__(holder)
    tensor = torch.tensor([types])
    get_rope_index: Any = qwen3_vl.Qwen3VLModel.get_rope_index
    expected, delta = get_rope_index(
        holder,
        torch.zeros_like(tensor),
        tensor,
        torch.tensor(images) if images else None,
        torch.tensor(videos) if videos else None,
    )
    ours = pe.mrope_position_ids(
        types,
        image_grid_thw=images or None,
        video_grid_thw=videos or None,
        frames_separately=True,
        text_after_vision=rule,  # the same ids: every block is one frame
    )
    np.testing.assert_array_equal(ours.position_ids, expected[:, 0].numpy())
    assert ours.delta == int(delta[0, 0])


def test_a_config_without_rope_theta_takes_the_model_types_default() -> None:
    """transformers fills a missing rope_theta with each config class's default_theta."""
    for model_type, config_class in (
        ("qwen2_vl_text", transformers.Qwen2VLTextConfig),
        ("qwen2_5_vl_text", transformers.Qwen2_5_VLTextConfig),
        ("qwen3_vl_text", transformers.Qwen3VLTextConfig),
    ):
        config = {
            "model_type": model_type,
            "head_dim": HEAD_DIM,
            "rope_parameters": {"rope_type": "default", "mrope_section": [3, 3, 2]},
        }
        expected = config_class(**config).rope_parameters["rope_theta"]
        assert MultimodalRotaryEmbedding.from_config(config).base == expected
    plain = {"head_dim": HEAD_DIM, "rope_parameters": {"mrope_section": list(SECTION)}}
    assert MultimodalRotaryEmbedding.from_config(plain).base == 10000.0


def test_from_config_names_a_head_count_or_width_it_cannot_divide() -> None:
    """hidden_size // num_attention_heads was a bare ZeroDivisionError for zero heads."""
    rope = {"mrope_section": [16, 24, 24]}
    bad: list[tuple[dict[str, Any], type[Exception], str]] = [
        (
            {"hidden_size": 3584, "num_attention_heads": 0},
            ValueError,
            r"config\['num_attention_heads'\] must be a positive integer; got 0",
        ),
        (
            {"hidden_size": 3584, "num_attention_heads": "28"},
            TypeError,
            r"config\['num_attention_heads'\] must be a positive integer; got '28' \(type str\)",
        ),
        (
            {"hidden_size": None, "num_attention_heads": 28},
            TypeError,
            r"config\['hidden_size'\] must be a positive integer; got None",
        ),
        (
            {"hidden_size": 16, "num_attention_heads": 28},
            ValueError,
            r"head width hidden_size // num_attention_heads = 16 // 28 is 0",
        ),
        (
            {"hidden_size": 30, "num_attention_heads": 2},
            ValueError,
            r"the head width hidden_size // num_attention_heads = 30 // 2 must be a positive even",
        ),
    ]
    for sizes, error, words in bad:
        with pytest.raises(error, match=words):
            MultimodalRotaryEmbedding.from_config({**sizes, "rope_scaling": rope})
        inner = words.replace(r"config\[", r"config\['text_config'\]\[", 1)
        with pytest.raises(error, match=inner):  # read from text_config, and named there
            MultimodalRotaryEmbedding.from_config({"text_config": {**sizes, "rope_scaling": rope}})
    # A float is refused even when whole, as transformers' typed config fields refuse it.
    config = {"hidden_size": 3584.0, "num_attention_heads": 28, "rope_scaling": rope}
    with pytest.raises(TypeError, match=r"config\['hidden_size'\] must be a positive integer"):
        MultimodalRotaryEmbedding.from_config(config)
