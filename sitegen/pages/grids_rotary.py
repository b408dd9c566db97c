"""The rotary-positions-on-grids page (grids/rotary.md): presets, a mixed prompt, decoding.

Every table is computed from `pe` while the site is built: the pair arrangements
of Qwen2-VL and Qwen3-VL, a worked prompt, and the two rules for the text after
a video on one prompt. `library_agreement` also runs transformers, diffusers and
timm (loaded as the tests load it) on the same inputs and reports the largest
difference.
"""

from __future__ import annotations

import math
import types
from importlib import metadata
from typing import Any

import numpy as np

import pe
from sitegen.cache import cached_markdown
from sitegen.markdown import significant, table
from sitegen.timm_files import load_timm_module

AXIS_NAMES = {
    "flux": ("index", "row", "column"),
    "eva02": ("row", "column"),
    "qwen2-vl-vision": ("row", "column"),
}
MROPE_AXES = ("time", "height", "width")

#: The small prompt worked by hand: text, an image, text, a video, text.
PROMPT_TYPES = [0, 0] + [1] * 4 + [0] + [2] * 8 + [0, 0]
PROMPT_IMAGES = [(1, 4, 4)]  # one frame of 4 x 4 patches: 2 x 2 tokens after merging
PROMPT_VIDEOS = [(2, 4, 4)]  # two temporal steps of 4 x 4 patches: 2 x 2 x 2 tokens
PROMPT_SECONDS = [1.0]  # Qwen2.5-VL: 2 frames per step at 2 frames per second

KIND = {0: "text", 1: "image", 2: "video"}

#: The prompt that shows the two rules for the text after a video: two text tokens, a
#: Qwen2.5-VL video of 3 temporal steps of 4 x 4 patches (2 x 2 tokens each) at 2 tokens per
#: second and 1 s per step (its temporal ids outrun its rows and columns), two text tokens.
RULE_TYPES = [0, 0] + [2] * 12 + [0, 0]
RULE_VIDEOS = [(3, 4, 4)]
RULE_SECONDS = [1.0]
RULE_RATE = 2
#: Who uses each rule, as the page cites them.
RULES = {
    "max": "the Qwen2-VL paper, Qwen's code, transformers 4; pe's default",
    "spatial": "transformers 5",
}

#: The two arrangements of M-RoPE's pairs, on the sections of Qwen2-VL and Qwen3-VL.
ARRANGEMENTS = (
    ("Qwen2-VL, Qwen2.5-VL", (16, 24, 24), False),
    ("Qwen3-VL", (24, 20, 20), True),
)


def _axis_names(preset: pe.GridRopePreset) -> tuple[str, ...]:
    return AXIS_NAMES.get(preset.name, MROPE_AXES)


def presets_table() -> str:
    """One row per preset: rule, widths per axis, head width, base, layout."""
    rows = []
    for preset in pe.grid_rope_presets.values():
        rope = preset.rope()
        names = _axis_names(preset)
        split = ", ".join(
            f"{name} {2 * pairs}" for name, pairs in zip(names, rope.sections, strict=True)
        )
        rows.append(
            [
                f"`{preset.name}`",
                "axial" if preset.kind == "axial" else "M-RoPE",
                split,
                preset.head_dim,
                f"{preset.base:,.0f}",
                preset.layout,
            ]
        )
    headers = ["preset", "rule", "rotated dimensions per axis", "head", "base", "layout"]
    return table(headers, rows, align="lllrrl")


def axis_wavelengths() -> str:
    """List the shortest and longest wavelength each axis gets, in positions."""
    rows = []
    for preset in pe.grid_rope_presets.values():
        if preset.name == "qwen2.5-vl":
            continue  # the same frequencies as qwen2-vl
        rope = preset.rope()
        edges = np.cumsum((0, *rope.sections))
        for name, start, stop in zip(_axis_names(preset), edges[:-1], edges[1:], strict=True):
            wavelengths = 2 * math.pi / rope.frequencies[start:stop]
            rows.append(
                [
                    f"`{preset.name}`",
                    name,
                    f"{start}–{stop - 1}",
                    significant(wavelengths.min()),
                    significant(wavelengths.max()),
                ]
            )
    headers = ["preset", "axis", "pairs", "shortest wavelength", "longest wavelength"]
    return table(headers, rows, align="llrrr")


def prompt_ids(model: str, rule: str = "max") -> pe.MropePositions:
    """Return the worked prompt's ids under `model`'s settings ("qwen2-vl" or "qwen2.5-vl")."""
    preset = pe.grid_rope_presets[model]
    return pe.mrope_position_ids(
        PROMPT_TYPES,
        image_grid_thw=PROMPT_IMAGES,
        video_grid_thw=PROMPT_VIDEOS,
        spatial_merge_size=preset.spatial_merge_size or 2,
        tokens_per_second=preset.tokens_per_second,
        second_per_grid=PROMPT_SECONDS if preset.tokens_per_second else None,
        text_after_vision=rule,
    )


def mixed_prompt_table() -> str:
    """Each token of the worked prompt with its (t, h, w) ids under both models."""
    qwen2 = prompt_ids("qwen2-vl").position_ids
    qwen25 = prompt_ids("qwen2.5-vl").position_ids
    rows = []
    for index, kind in enumerate(PROMPT_TYPES):
        rows.append(
            [
                index,
                KIND[kind],
                ", ".join(str(int(v)) for v in qwen2[:, index]),
                ", ".join(str(int(v)) for v in qwen25[:, index]),
            ]
        )
    headers = ["token", "kind", "Qwen2-VL (t, h, w)", "Qwen2.5-VL (t, h, w)"]
    return table(headers, rows, align="rlll")


def _describe_pairs(indices: list[int]) -> str:
    """Write pair indices compactly: consecutive runs as a range, steps of 3 with an ellipsis."""
    parts: list[str] = []
    start = 0
    while start < len(indices):
        step = indices[start + 1] - indices[start] if start + 1 < len(indices) else 1
        end = start
        while end + 1 < len(indices) and indices[end + 1] - indices[end] == step:
            end += 1
        if end - start >= 2 and step == 1:
            parts.append(f"{indices[start]}–{indices[end]}")
        elif end - start >= 2:
            parts.append(f"{indices[start]}, {indices[start + 1]}, …, {indices[end]}")
        else:
            end = start  # a pair or two: listed one by one
            parts.append(str(indices[start]))
        start = end + 1
    return ", ".join(parts)


def arrangement_table() -> str:
    """Which pairs follow which axis, consecutive (Qwen2-VL) and interleaved (Qwen3-VL)."""
    rows = []
    for models, sections, interleaved in ARRANGEMENTS:
        rope = pe.mrope(128, sections, interleaved=interleaved)
        axes = (
            np.repeat(np.arange(3), rope.sections)
            if isinstance(rope, pe.GridRope)
            else rope.axis_of_pair
        )
        for axis, name in enumerate(MROPE_AXES):
            pairs = np.flatnonzero(axes == axis).tolist()
            rows.append(
                [
                    models,
                    "interleaved" if interleaved else "consecutive",
                    name,
                    len(pairs),
                    _describe_pairs(pairs),
                    pairs[0],
                    pairs[-1],
                ]
            )
    headers = ["models", "arrangement", "axis", "pairs", "which", "fastest", "slowest"]
    return table(headers, rows, align="lllrlrr")


def rule_ids(rule: str) -> pe.MropePositions:
    """Return the ids of the rule prompt (text, a long video, text) under `rule`."""
    return pe.mrope_position_ids(
        RULE_TYPES,
        video_grid_thw=RULE_VIDEOS,
        tokens_per_second=RULE_RATE,
        second_per_grid=RULE_SECONDS,
        text_after_vision=rule,
    )


def _video_temporal_ids(ids: np.ndarray) -> set[int]:
    return {int(v) for v, kind in zip(ids[0], RULE_TYPES, strict=True) if kind == 2}


def text_rules_table() -> str:
    """Each token of the rule prompt with its (t, h, w) ids under "max" and under "spatial"."""
    ids = {rule: rule_ids(rule).position_ids for rule in RULES}
    held = _video_temporal_ids(ids["spatial"])
    after = max(index for index, kind in enumerate(RULE_TYPES) if kind == 2)
    rows = []
    for index, kind in enumerate(RULE_TYPES):
        note = ""
        if kind == 0 and index > after and int(ids["spatial"][0, index]) in held:
            note = "a temporal id a frame of the video holds"
        rows.append(
            [
                index,
                KIND[kind],
                ", ".join(str(int(v)) for v in ids["max"][:, index]),
                ", ".join(str(int(v)) for v in ids["spatial"][:, index]),
                note,
            ]
        )
    headers = ["token", "kind", '`"max"` (t, h, w)', '`"spatial"` (t, h, w)', '`"spatial"`: note']
    return table(headers, rows, align="rllll")


def text_rules_summary() -> str:
    """Per rule: where the text after the video starts, the delta, the generated positions."""
    rows = []
    length = len(RULE_TYPES)
    for rule, who in RULES.items():
        ids, delta = rule_ids(rule)
        held = _video_temporal_ids(ids)
        text_after = [
            int(ids[0, index])
            for index in range(length)
            if RULE_TYPES[index] == 0 and index > RULE_TYPES.index(2)
        ]
        following = pe.mrope_decode_positions(delta, length, 3)[0]
        rows.append(
            [
                f'`"{rule}"`',
                who,
                ", ".join(map(str, text_after)),
                sum(1 for value in text_after if value in held),
                int(ids.max()),
                delta,
                ", ".join(str(int(v)) for v in following),
            ]
        )
    headers = [
        "text_after_vision",
        "used by",
        "text after the video at",
        "of them on a frame's temporal id",
        "largest id",
        "delta",
        "generated tokens at",
    ]
    return table(headers, rows, align="llcrrrl")


def _rotate(vectors: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Turn pairs (i, i + d/2) of `vectors` (n, d) by `angles` (n, d/2): the concatenated layout."""
    half = angles.shape[-1]
    first, second = vectors[:, :half], vectors[:, half:]
    cos, sin = np.cos(angles), np.sin(angles)
    return np.concatenate((first * cos - second * sin, first * sin + second * cos), axis=-1)


def _attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    logits = q @ k.T / math.sqrt(q.shape[-1])
    causal = np.triu(np.ones(logits.shape, dtype=bool), k=1)
    logits = np.where(causal, -np.inf, logits)
    weights = np.exp(logits - logits.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights, weights @ v


FLAT_TEXT_BEFORE, FLAT_GRID, FLAT_TEXT_AFTER = 4, (1, 32, 32), 8
FLAT_SEEDS = 16


def flat_positions_effect() -> str:
    """Measure what 1-D positions do to M-RoPE: where text lands, and one head's attention.

    A Qwen2-VL head (128 wide, sections 16/24/24, base 1e6); a prompt of 4 text
    tokens, a 1 x 32 x 32 image (16 x 16 = 256 tokens) and 8 text tokens. The
    right ids come from `pe.mrope_position_ids`; the wrong ones are 0 .. n-1 on
    every axis, which is what transformers' rotary module makes of a
    ``(batch, seq)`` position tensor (it expands it to the three axes without a
    word). Queries, keys and values are Gaussian (one head, causal attention,
    `FLAT_SEEDS` seeds): the numbers measure how far the two position schemes
    move attention, not what a trained model would answer.
    """
    preset = pe.grid_rope_presets["qwen2-vl"]
    rope = preset.rope()
    before, grid, after = FLAT_TEXT_BEFORE, FLAT_GRID, FLAT_TEXT_AFTER
    tokens = grid[0] * (grid[1] // 2) * (grid[2] // 2)
    types = [0] * before + [1] * tokens + [0] * after
    right, _ = pe.mrope_position_ids(types, image_grid_thw=[grid])
    flat = np.tile(np.arange(len(types)), (3, 1))
    right_angles = pe.grid_rope_angles(right.T, rope)
    flat_angles = pe.grid_rope_angles(flat.T, rope)
    last = len(types) - 1
    variation, output_error = [], []
    image = slice(before, before + tokens)
    for seed in range(FLAT_SEEDS):
        rng = np.random.default_rng(seed)
        q, k, v = (rng.standard_normal((len(types), preset.head_dim)) for _ in range(3))
        w_right, o_right = _attention(_rotate(q, right_angles), _rotate(k, right_angles), v)
        w_flat, o_flat = _attention(_rotate(q, flat_angles), _rotate(k, flat_angles), v)
        variation.append(0.5 * np.abs(w_right - w_flat).sum(axis=-1)[image].mean())
        output_error.append(
            np.linalg.norm(o_flat[image] - o_right[image]) / np.linalg.norm(o_right[image])
        )
    columns = grid[2] // 2

    def offset(ids: np.ndarray, first: int, second: int) -> str:
        return "(" + ", ".join(str(int(v)) for v in ids[:, second] - ids[:, first]) + ")"

    below = before + columns  # the image token under the image's first token
    rows: list[list[object]] = [
        ["first text token after the image", int(right[0, before + tokens]), before + tokens],
        ["last token of the prompt", int(right[0, last]), last],
        [
            "offset (t, h, w) from an image token to its right-hand neighbour",
            offset(right, before, before + 1),
            offset(flat, before, before + 1),
        ],
        [
            "offset (t, h, w) from an image token to the one below it",
            offset(right, before, below),
            offset(flat, before, below),
        ],
        [
            "image tokens: mean total-variation distance between their attention rows",
            "",
            f"{np.mean(variation):.2f}",
        ],
        [
            "image tokens: relative change of the attention output",
            "",
            f"{np.mean(output_error):.2f}",
        ],
    ]
    return table(["", "3-D ids (right)", "1-D ids (wrong)"], rows, align="lrr")


# --- the libraries, run at build time on the same inputs --------------------------------------


def _largest(ours: Any, theirs: Any) -> float:
    return float(np.abs(np.asarray(ours, np.float64) - np.asarray(theirs, np.float64)).max())


@cached_markdown
def library_agreement() -> str:
    """Run each library on the worked inputs and report the largest difference from `pe`."""
    import torch
    from diffusers.models.transformers.transformer_flux import FluxPosEmbed
    from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import Qwen2_5_VLModel
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLModel

    from pe.nn import AxialRotaryEmbedding, MultimodalRotaryEmbedding

    rows = []
    flux = pe.grid_rope_presets["flux"]
    ids = torch.cat(
        (torch.zeros(4, 3, dtype=torch.long), torch.from_numpy(pe.grid_positions((1, 8, 8))))
    )
    cos, _ = FluxPosEmbed(theta=int(flux.base), axes_dim=list(flux.widths))(ids.float())
    ours, _ = AxialRotaryEmbedding.from_preset("flux").grid_cos_sin(ids)
    rows.append(
        [
            "`flux`",
            f"diffusers {metadata.version('diffusers')}",
            "`FluxPosEmbed(theta=10000, axes_dim=[16, 56, 56])`",
            "cos of 4 text and 8 × 8 image ids",
            _largest(ours, cos[:, 0::2]),
        ]
    )
    eva = pe.grid_rope_presets["eva02"]
    sincos = load_timm_module("layers.pos_embed_sincos")
    embed = sincos.RotaryEmbeddingCat(
        dim=eva.head_dim, in_pixels=False, temperature=eva.base, feat_shape=[16, 16]
    ).get_embed()
    timm_cos = embed.chunk(2, dim=-1)[1][:, 0::2]
    grid = torch.from_numpy(pe.grid_positions((16, 16)))
    ours, _ = AxialRotaryEmbedding.from_preset("eva02").grid_cos_sin(grid)
    rows.append(
        [
            "`eva02`",
            f"timm {metadata.version('timm')}",
            "`RotaryEmbeddingCat(dim=64, in_pixels=False)`",
            "cos of a 16 × 16 grid",
            _largest(ours, timm_cos),
        ]
    )
    for name, model_class in (("qwen2-vl", Qwen2VLModel), ("qwen2.5-vl", Qwen2_5_VLModel)):
        preset = pe.grid_rope_presets[name]
        holder = types.SimpleNamespace(
            config=types.SimpleNamespace(
                vision_config=types.SimpleNamespace(
                    spatial_merge_size=preset.spatial_merge_size,
                    tokens_per_second=preset.tokens_per_second,
                )
            )
        )
        holder.get_vision_position_ids = model_class.get_vision_position_ids.__get__(holder)
        types_tensor = torch.tensor([PROMPT_TYPES])
        extra = (
            {"second_per_grid_ts": torch.tensor(PROMPT_SECONDS)} if preset.tokens_per_second else {}
        )
        get_rope_index: Any = model_class.get_rope_index  # called on a stand-in model
        theirs, delta = get_rope_index(
            holder,
            torch.zeros_like(types_tensor),
            types_tensor,
            torch.tensor(PROMPT_IMAGES),
            torch.tensor(PROMPT_VIDEOS),
            **extra,
        )
        mine = prompt_ids(name, "spatial")  # transformers 5's rule for the text after a video
        same = bool(np.array_equal(theirs[:, 0].numpy(), mine.position_ids))
        same &= int(delta[0, 0]) == mine.delta
        rows.append(
            [
                f"`{name}`",
                f"transformers {metadata.version('transformers')}",
                f"`{model_class.__name__}.get_rope_index`",
                'ids and delta of the worked prompt (`text_after_vision="spatial"`)',
                "identical" if same else "DIFFERENT",
            ]
        )
    from transformers import Qwen2VLConfig, Qwen2VLTextConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding

    text_config = Qwen2VLTextConfig()  # the library's defaults: head 128, base 1e6
    ids = torch.from_numpy(prompt_ids("qwen2-vl", "spatial").position_ids)[:, None]  # (3, 1, seq)
    rotary: Any = Qwen2VLRotaryEmbedding  # typed for the whole config; it reads the text part
    theirs_cos, _ = rotary(text_config)(torch.zeros(1), ids)
    ours_cos, _ = MultimodalRotaryEmbedding.from_preset("qwen2-vl").grid_cos_sin(ids.movedim(0, -1))
    rows.append(
        [
            "`qwen2-vl`",
            f"transformers {metadata.version('transformers')}",
            "`Qwen2VLRotaryEmbedding(Qwen2VLTextConfig())`",
            "cos at the worked prompt's ids",
            _largest(ours_cos, theirs_cos[..., : ours_cos.shape[-1]]),
        ]
    )
    rows.extend(_qwen3_vl_agreement())
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLVisionRotaryEmbedding
    from transformers.vision_utils import get_vision_position_ids

    vision: Any = Qwen2VLVisionRotaryEmbedding
    patches = get_vision_position_ids(torch.tensor(PROMPT_IMAGES), 2)
    theirs_cos, _ = vision(Qwen2VLConfig().vision_config)(torch.zeros(1), patches)
    ours_cos, _ = AxialRotaryEmbedding.from_preset("qwen2-vl-vision").grid_cos_sin(patches)
    rows.append(
        [
            "`qwen2-vl-vision`",
            f"transformers {metadata.version('transformers')}",
            "`Qwen2VLVisionRotaryEmbedding(Qwen2VLConfig().vision_config)`",
            "cos at the worked image's patches",
            _largest(ours_cos, theirs_cos[:, : ours_cos.shape[-1]]),
        ]
    )
    headers = ["preset", "library", "function", "compared", "largest difference"]
    return table(headers, rows, align="llllr", formats=[None, None, None, None, "e1"])


#: Qwen3-VL's version of the worked prompt: each video frame after a timestamp and
#: <|vision_start|> (two text tokens) and before <|vision_end|> (one).
QWEN3_TYPES = [0, 0] + [1] * 4 + [0] + ([0, 0] + [2] * 4 + [0]) * PROMPT_VIDEOS[0][0] + [0, 0]


def qwen3_prompt_ids() -> pe.MropePositions:
    """Return the ids of the Qwen3-VL prompt (the processor's grids, frames split by pe)."""
    return pe.mrope_position_ids(
        QWEN3_TYPES,
        image_grid_thw=PROMPT_IMAGES,
        video_grid_thw=PROMPT_VIDEOS,
        frames_separately=True,
    )


def _qwen3_vl_agreement() -> list[list[object]]:
    """Qwen3-VL's get_rope_index and text rotary module against pe, on `QWEN3_TYPES`."""
    import torch
    from transformers import Qwen3VLTextConfig
    from transformers.models.qwen3_vl.modeling_qwen3_vl import (
        Qwen3VLModel,
        Qwen3VLTextRotaryEmbedding,
    )

    from pe.nn import MultimodalRotaryEmbedding

    version = f"transformers {metadata.version('transformers')}"
    holder = types.SimpleNamespace(
        config=types.SimpleNamespace(vision_config=types.SimpleNamespace(spatial_merge_size=2))
    )
    holder.get_vision_position_ids = Qwen3VLModel.get_vision_position_ids.__get__(holder)
    types_tensor = torch.tensor([QWEN3_TYPES])
    get_rope_index: Any = Qwen3VLModel.get_rope_index  # called on a stand-in model
    theirs, delta = get_rope_index(
        holder,
        torch.zeros_like(types_tensor),
        types_tensor,
        torch.tensor(PROMPT_IMAGES),
        torch.tensor(PROMPT_VIDEOS),
    )
    mine = qwen3_prompt_ids()
    same = bool(np.array_equal(theirs[:, 0].numpy(), mine.position_ids))
    same &= int(delta[0, 0]) == mine.delta
    text_config = Qwen3VLTextConfig(
        rope_parameters={
            "rope_type": "default",
            "mrope_section": [24, 20, 20],
            "mrope_interleaved": True,
        }
    )  # the library's defaults otherwise: head 128, its default base
    ids = torch.from_numpy(mine.position_ids)[:, None]
    theirs_cos, _ = Qwen3VLTextRotaryEmbedding(text_config)(torch.zeros(1), ids)
    rope = MultimodalRotaryEmbedding.from_config(text_config.to_dict())
    ours_cos, _ = rope.grid_cos_sin(ids.movedim(0, -1))
    return [
        [
            "Qwen3-VL",
            version,
            "`Qwen3VLModel.get_rope_index`",
            "ids and delta of a prompt with an image and a 2-frame video",
            "identical" if same else "DIFFERENT",
        ],
        [
            "Qwen3-VL",
            version,
            "`Qwen3VLTextRotaryEmbedding` (interleaved, `mrope_section` [24, 20, 20])",
            "cos at that prompt's ids",
            _largest(ours_cos, theirs_cos[..., : ours_cos.shape[-1]]),
        ],
    ]
