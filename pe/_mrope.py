r"""M-RoPE (Qwen2-VL, 2.5-VL, 3-VL): one head's RoPE pairs shared among time, height and width.

M-RoPE keeps the 1-D frequencies of the whole head, $\theta_i = b^{-2i/d}$,
and gives each of the $d/2$ pairs to one axis; ``mrope_section`` says how
many pairs each axis gets (e.g. ``(16, 24, 24)`` of 64 pairs). Qwen2-VL and
Qwen2.5-VL cut the pairs into three consecutive *sections*: pairs of the first
section turn with a token's temporal position, the next with its row, the last
with its column, so the fast pairs carry time and the slow ones the two
spatial axes. Qwen3-VL *interleaves* them (``mrope_interleaved``): pair $i$
follows height when $i \equiv 1 \pmod 3$ and $i < 3 s_h$, width when
$i \equiv 2 \pmod 3$ and $i < 3 s_w$, time otherwise; with ``(24, 20, 20)``
the first 60 pairs go t, h, w, t, h, w, ... and the last four to time, so
every axis has fast and slow pairs.

Each token has three position ids. A text token has the same value on all
three, one more than the token before, so a prompt of text alone is 1-D RoPE
exactly. An image or video of ``t x h x w`` merged patches (the vision
encoder's grid divided by ``spatial_merge_size`` in height and width) lays its
tokens on the grid: every token of temporal step $f$ (one step of the grid is
``temporal_patch_size`` frames, 2 in Qwen2-VL's and Qwen2.5-VL's configs) gets the
temporal id ``start + floor(f · interval)``, its row ``start + r`` and its column
``start + c``. The interval is 1 for images and for Qwen2-VL's videos; Qwen2.5-VL
spaces the steps by real time, ``interval = tokens_per_second ·
second_per_grid``. Qwen3-VL writes a timestamp (text) before every frame of a
video, so each frame is a block of its own (``t = 1``) whose temporal id is its
start. The text after the block continues from one past the largest id of the
block (``"max"``: the Qwen2-VL paper, Qwen's code, transformers 4) or from
``start + max(h, w)`` (``"spatial"``: transformers 5); they differ only when a
video's temporal ids outrun its rows and columns. A prompt of $n$ tokens whose
largest id is $M$ leaves a *rope delta* $M + 1 - n$: the next token, the
$n$-th, takes position $n + \delta$ on all three axes, and so on while
decoding.

Everything here is numpy; the torch module and the batched builders are in
`pe.nn`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any, Literal, NamedTuple, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pe._axial import GridRope, check_sections, grid_rope_angles
from pe._validation import MAX_POSITION, check_base, check_d_model, check_offset, is_integer

__all__ = [
    "InterleavedMrope",
    "MropePositions",
    "TEXT_AFTER_VISION",
    "mrope",
    "mrope_decode_positions",
    "mrope_position_ids",
    "mrope_sequence",
]

#: How the text after an image or video continues: from one past the block's
#: largest id (the Qwen2-VL paper, Qwen's code, transformers 4: the default), or
#: from ``start + max(h, w)`` (transformers 5).
TEXT_AFTER_VISION = ("max", "spatial")


class InterleavedMrope(NamedTuple):
    r"""Frequencies of interleaved M-RoPE (Qwen3-VL) and the axis each pair follows.

    Returned by ``pe.mrope(..., interleaved=True)``. Unlike a `GridRope`, an
    axis's pairs are not consecutive, so the map from pair to axis is spelled
    out; `pe.grid_rope_angles` (which reads consecutive sections) refuses this
    type, and `angles` takes its place.

    Attributes
    ----------
    frequencies : numpy.ndarray
        float64, shape ``(pairs,)``: $b^{-2i/d}$ of each pair, in the head's order.
    sections : tuple of int
        How many pairs follow time, height and width (``mrope_section``).
    axis_of_pair : numpy.ndarray
        int64, shape ``(pairs,)``: 0 (time), 1 (height) or 2 (width) for each pair.

    Examples
    --------
    >>> import pe
    >>> rope = pe.mrope(16, (3, 3, 2), interleaved=True)
    >>> rope.axis_of_pair
    array([0, 1, 2, 0, 1, 2, 0, 1])
    >>> rope.angles([[5, 1, 2]]).round(3)  # a token at t=5, h=1, w=2
    array([[5.   , 0.316, 0.2  , 0.158, 0.01 , 0.006, 0.005, 0.   ]])
    """

    frequencies: NDArray[np.float64]
    sections: tuple[int, ...]
    axis_of_pair: NDArray[np.int64]

    def angles(self, positions: ArrayLike) -> NDArray[np.float64]:
        """Angle of every pair at each position ``(..., 3)``: its frequency times its axis's id.

        Parameters
        ----------
        positions : array_like
            Real (temporal, height, width) coordinates, shape ``(..., 3)``.

        Returns
        -------
        numpy.ndarray
            float64, shape ``(..., pairs)``: ``positions[..., axis_of_pair[i]] *
            frequencies[i]``.

        Raises
        ------
        TypeError, ValueError
            As `pe.grid_rope_angles`: a non-real array, a last dimension other
            than 3, or coordinates that are not finite or beyond ``±(2**31 - 1)``.
        """
        order = np.argsort(self.axis_of_pair, kind="stable")  # pairs grouped by axis
        grouped = grid_rope_angles(positions, GridRope(self.frequencies[order], self.sections))
        inverse = np.empty_like(order)
        inverse[order] = np.arange(order.size)
        result: NDArray[np.float64] = grouped[..., inverse]
        return result


def _interleaved_axes(sections: tuple[int, ...], pairs: int) -> NDArray[np.int64]:
    """Return the axis of each pair as transformers' Qwen3-VL text rotary module assigns it.

    transformers 5.23 (``Qwen3VLTextRotaryEmbedding.recomposition_frequencies``,
    models/qwen3_vl/modeling_qwen3_vl.py) starts from time everywhere and gives
    height the pairs ``1, 4, 7, ...`` below ``3 * sections[1]`` and width the
    pairs ``2, 5, 8, ...`` below ``3 * sections[2]``. Sections for which that
    does not give each axis its own count (more height or width pairs than
    the head has room for) are refused rather than silently cut.
    """
    if len(sections) != 3:
        raise ValueError(
            f"interleaved M-RoPE needs three sections (time, height, width); got {sections}"
        )
    index = np.arange(pairs)
    axes = np.zeros(pairs, dtype=np.int64)
    for axis in (1, 2):
        axes[(index % 3 == axis) & (index < 3 * sections[axis])] = axis
    counts = tuple(int(count) for count in np.bincount(axes, minlength=3))
    if counts != sections:
        raise ValueError(
            f"mrope_section {sections} cannot be interleaved over {pairs} pairs: height takes "
            f"pairs 1, 4, 7, ... below {3 * sections[1]} and width pairs 2, 5, 8, ... below "
            f"{3 * sections[2]}, which gives (time, height, width) {counts} pairs, as "
            "transformers' Qwen3-VL would turn them. Accepted: sections whose height and width "
            f"counts fit, 3 * height <= {pairs + 1} and 3 * width <= {pairs} (Qwen3-VL: "
            "(24, 20, 20) of 64 pairs)"
        )
    return axes


@overload
def mrope(
    head_dim: int,
    mrope_section: Sequence[int],
    *,
    base: float = ...,
    interleaved: Literal[False] = ...,
) -> GridRope: ...


@overload
def mrope(
    head_dim: int, mrope_section: Sequence[int], *, base: float = ..., interleaved: Literal[True]
) -> InterleavedMrope: ...


@overload
def mrope(
    head_dim: int, mrope_section: Sequence[int], *, base: float = ..., interleaved: bool
) -> GridRope | InterleavedMrope: ...


def mrope(
    head_dim: int,
    mrope_section: Sequence[int],
    *,
    base: float = 10000.0,
    interleaved: bool = False,
) -> GridRope | InterleavedMrope:
    r"""Frequencies of M-RoPE and the axis (time, height, width) each pair follows.

    Parameters
    ----------
    head_dim : int
        Width of each attention head; a positive even integer.
    mrope_section : sequence of int
        Pairs per axis, in the order temporal, height, width; they must sum
        to ``head_dim // 2`` (Qwen2-VL and Qwen2.5-VL: ``(16, 24, 24)`` for a
        head of 128; Qwen3-VL: ``(24, 20, 20)``).
    base : float, default 10000.0
        The base $b$ (``rope_theta``; 1e6 for Qwen2-VL and Qwen2.5-VL; read
        Qwen3-VL's from its ``config.json``).
    interleaved : bool, default False
        How the pairs are shared out (the config's ``mrope_interleaved``).
        False: consecutive sections, time first (Qwen2-VL, Qwen2.5-VL).
        True: pair by pair, as Qwen3-VL does: pair $i$ follows height if
        $i \bmod 3 = 1$ and $i < 3 s_h$, width if $i \bmod 3 = 2$ and
        $i < 3 s_w$, time otherwise.

    Returns
    -------
    GridRope or InterleavedMrope
        Frequencies $b^{-2i/d}$ for every pair, and the sections; with
        ``interleaved=True`` also the axis of every pair (`InterleavedMrope`).

    Raises
    ------
    TypeError, ValueError
        For a bad `head_dim` or `base`, sections that are not positive
        integers summing to ``head_dim // 2``, an `interleaved` that is not a
        bool, or interleaved sections whose height or width pairs would not
        fit in the head (transformers would cut them).

    Examples
    --------
    >>> import pe
    >>> rope = pe.mrope(16, (2, 3, 3), base=100.0)
    >>> rope.sections, rope.frequencies.round(3)
    ((2, 3, 3), array([1.   , 0.562, 0.316, 0.178, 0.1  , 0.056, 0.032, 0.018]))

    Qwen3-VL's arrangement: time, height and width take turns.

    >>> pe.mrope(128, (24, 20, 20), base=5e6, interleaved=True).axis_of_pair[:7]
    array([0, 1, 2, 0, 1, 2, 0])
    """
    head_dim = check_d_model(head_dim, name="head_dim")
    sections = check_sections(mrope_section, "mrope_section")
    if sum(sections) != head_dim // 2:
        raise ValueError(
            f"mrope_section {sections} holds {sum(sections)} pairs; it must sum to "
            f"head_dim // 2 = {head_dim // 2}"
        )
    if not isinstance(interleaved, (bool, np.bool_)):
        raise TypeError(f"interleaved must be True or False; got {interleaved!r}")
    base = check_base(base)
    frequencies = np.power(base, -np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    if interleaved:
        return InterleavedMrope(frequencies, sections, _interleaved_axes(sections, head_dim // 2))
    return GridRope(frequencies, sections)


class MropePositions(NamedTuple):
    """The three position ids of a prompt and the delta that decoding continues with.

    Attributes
    ----------
    position_ids : numpy.ndarray
        int64, shape ``(3, seq)``: temporal, height and width id of each token.
    delta : int
        ``position_ids.max() + 1 - seq``: the token at index ``n`` after the
        prompt takes position ``n + delta`` on every axis.

    Examples
    --------
    >>> import pe
    >>> ids, delta = pe.mrope_position_ids([0, 0, 1, 1, 1, 1, 0], image_grid_thw=[(1, 4, 4)])
    >>> ids.tolist(), delta
    ([[0, 1, 2, 2, 2, 2, 4], [0, 1, 2, 2, 3, 3, 4], [0, 1, 2, 3, 2, 3, 4]], -2)
    """

    position_ids: NDArray[np.int64]
    delta: int


def _grids(values: Any, name: str) -> list[tuple[int, int, int]]:
    """Return the (t, h, w) rows of `values`, checked."""
    if values is None:
        return []
    array = np.asarray(values)
    if array.size == 0:
        return []
    if array.ndim != 2 or array.shape[1] != 3 or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(
            f"{name} must be integer rows (t, h, w), shape (count, 3); got shape {array.shape}, "
            f"dtype {array.dtype}"
        )
    if bool(np.any(array < 1)):
        raise ValueError(f"{name} must hold positive sizes; got {array.tolist()}")
    return [(int(t), int(h), int(w)) for t, h, w in array]


def _token_types(values: Any) -> NDArray[np.int64]:
    array = np.asarray(values)
    if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
        raise ValueError(
            "token_types must be a 1-D integer sequence (0 text, 1 image, 2 video); "
            f"got shape {array.shape}, dtype {array.dtype}"
        )
    if array.size and not bool(np.all((array >= 0) & (array <= 2))):
        bad = sorted(set(array[(array < 0) | (array > 2)].tolist()))
        raise ValueError(f"token_types must hold 0 (text), 1 (image) or 2 (video); got {bad}")
    return array.astype(np.int64)


def _runs(types: NDArray[np.int64]) -> list[tuple[int, int]]:
    """Return (kind, length) of each run of equal token types."""
    if types.size == 0:
        return []
    edges = np.flatnonzero(np.diff(types)) + 1
    starts = np.concatenate(([0], edges))
    ends = np.concatenate((edges, [types.size]))
    return [(int(types[s]), int(e - s)) for s, e in zip(starts, ends, strict=True)]


class _Settings(NamedTuple):
    spatial_merge_size: int
    tokens_per_second: float | None
    text_after_vision: str
    frames_separately: bool


def _check_settings(
    spatial_merge_size: Any,
    tokens_per_second: Any,
    text_after_vision: Any,
    frames_separately: Any = False,
) -> _Settings:
    if not is_integer(spatial_merge_size) or int(spatial_merge_size) < 1:
        raise ValueError(
            f"spatial_merge_size must be a positive integer; got {spatial_merge_size!r}"
        )
    if tokens_per_second is not None:
        if isinstance(tokens_per_second, bool) or not isinstance(tokens_per_second, (int, float)):
            raise TypeError(
                f"tokens_per_second must be a number or None; got {tokens_per_second!r}"
            )
        if not math.isfinite(tokens_per_second) or tokens_per_second <= 0:
            raise ValueError(
                f"tokens_per_second must be a positive number; got {tokens_per_second!r}"
            )
        tokens_per_second = float(tokens_per_second)
    if not isinstance(text_after_vision, str) or text_after_vision not in TEXT_AFTER_VISION:
        raise ValueError(
            f"text_after_vision must be one of {', '.join(map(repr, TEXT_AFTER_VISION))}; "
            f"got {text_after_vision!r}"
        )
    if not isinstance(frames_separately, (bool, np.bool_)):
        raise TypeError(f"frames_separately must be True or False; got {frames_separately!r}")
    if frames_separately and tokens_per_second is not None:
        raise ValueError(
            "tokens_per_second is not read with frames_separately=True: each frame is then a "
            "block of one temporal step whose temporal id is its start (Qwen3-VL, whose "
            "timestamps are text). Drop tokens_per_second, or frames_separately"
        )
    return _Settings(
        int(spatial_merge_size), tokens_per_second, str(text_after_vision), bool(frames_separately)
    )


def _check_seconds_used(values: Any, settings: _Settings) -> None:
    """Refuse `second_per_grid` where nothing reads it (Qwen2-VL numbers frames 0, 1, 2)."""
    if values is not None and settings.tokens_per_second is None:
        raise ValueError(
            "second_per_grid is read only with tokens_per_second (Qwen2.5-VL); without it "
            "frames are numbered 0, 1, 2, ... (Qwen2-VL). Pass tokens_per_second, or drop "
            "second_per_grid"
        )


def _seconds(values: Any, count: int) -> list[float]:
    if values is None:
        return [1.0] * count
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    if array.size != count or not bool(np.all(np.isfinite(array) & (array >= 0))):
        raise ValueError(
            f"second_per_grid must hold one finite number >= 0 per video ({count}); "
            f"got {np.asarray(values).tolist()}"
        )
    return [float(value) for value in array]


def _split_frames(videos: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Return one ``(1, h, w)`` grid per frame of each video, in order (Qwen3-VL's split)."""
    return [(1, h, w) for t, h, w in videos for _ in range(t)]


def mrope_sequence(
    types: NDArray[np.int64],
    images: Iterator[tuple[int, int, int]],
    videos: Iterator[tuple[tuple[int, int, int], float]],
    settings: _Settings,
) -> tuple[NDArray[np.int64], int]:
    """Position ids (3, seq) and delta of one sequence, taking grids from the iterators."""
    merge = settings.spatial_merge_size
    blocks: list[NDArray[np.int64]] = []
    current = 0
    counts = {1: 0, 2: 0}
    video_label = "video frame" if settings.frames_separately else "video"
    for kind, length in _runs(types):
        if kind == 0:
            if current + length - 1 > MAX_POSITION:
                raise ValueError(
                    f"position ids reach {current + length - 1}, beyond {MAX_POSITION}"
                )
            row = np.arange(current, current + length, dtype=np.int64)
            blocks.append(np.broadcast_to(row, (3, length)))
            current += length
            continue
        label = "image" if kind == 1 else video_label
        try:
            if kind == 1:
                grid, interval = next(images), 1.0
            else:
                grid, seconds = next(videos)
                rate = settings.tokens_per_second
                interval = 1.0 if rate is None else rate * seconds
        except StopIteration:
            rows_name = (
                "image_grid_thw rows"
                if kind == 1
                else (
                    "frames in video_grid_thw"
                    if settings.frames_separately
                    else "video_grid_thw rows"
                )
            )
            raise ValueError(
                f"the prompt has more {label} runs than {rows_name} ({counts[kind]}); each run "
                f"of {label} tokens needs its (t, h, w)" + _frames_hint(kind, settings)
            ) from None
        counts[kind] += 1
        frames, height, width = grid
        if height % merge or width % merge:
            raise ValueError(
                f"{label} grid {grid}: height and width must be multiples of "
                f"spatial_merge_size={merge}"
            )
        rows, columns = height // merge, width // merge
        if length != frames * rows * columns:
            raise ValueError(
                f"a run of {length} {label} tokens does not match its grid {grid}: "
                f"t * (h / {merge}) * (w / {merge}) = {frames * rows * columns} tokens "
                "(adjacent images or videos need a text token between them)"
                + _frames_hint(kind, settings)
            )
        # The largest ids of the block, checked before the ids are made: a huge interval
        # would overflow int64 (to -2**63) in the cast below.
        last_frame = (frames - 1) * interval
        largest = current + max(rows, columns) - 1
        if not math.isfinite(last_frame) or current + last_frame > MAX_POSITION:
            raise ValueError(
                f"the temporal ids of {label} grid {grid} reach {current} + floor({frames - 1} * "
                f"{interval:g}) = {current + last_frame:.6g}, beyond {MAX_POSITION} "
                "(tokens_per_second * second_per_grid is the step between frames)"
            )
        if largest > MAX_POSITION:
            raise ValueError(f"position ids reach {largest}, beyond {MAX_POSITION}")
        temporal = np.floor(np.arange(frames, dtype=np.float64) * interval).astype(np.int64)
        t_ids, h_ids, w_ids = np.meshgrid(
            temporal,
            np.arange(rows, dtype=np.int64),
            np.arange(columns, dtype=np.int64),
            indexing="ij",
        )
        block = np.stack([t_ids.reshape(-1), h_ids.reshape(-1), w_ids.reshape(-1)]) + current
        blocks.append(block)
        if settings.text_after_vision == "spatial":
            current += max(rows, columns)
        else:
            current = int(block.max()) + 1
    if not blocks:
        return np.zeros((3, 0), dtype=np.int64), 0
    ids = np.concatenate(blocks, axis=1)
    if int(ids.max()) > MAX_POSITION:
        raise ValueError(f"position ids reach {int(ids.max())}, beyond {MAX_POSITION}")
    return ids, int(ids.max()) + 1 - int(types.size)


def _frames_hint(kind: int, settings: _Settings) -> str:
    """Say how frames are split, after an error about a run of video tokens."""
    if kind != 2:
        return ""
    if settings.frames_separately:
        return (
            "; with frames_separately=True every frame is a run of its own, as in Qwen3-VL's "
            "prompts, which put a timestamp before each frame"
        )
    return (
        "; if the prompt puts text (Qwen3-VL's timestamps) between a video's frames, pass "
        "frames_separately=True"
    )


def _video_items(
    videos: list[tuple[int, int, int]], seconds: list[float], settings: _Settings, tokens: int
) -> list[tuple[tuple[int, int, int], float]]:
    """Pair each video (or, with `frames_separately`, each frame) with its seconds per step.

    `tokens` bounds the frames: each frame takes at least one token, so more
    frames than `tokens` could never all be used, and are refused before the
    split allocates a grid per frame.
    """
    if settings.frames_separately:
        frames = sum(t for t, _, _ in videos)
        if frames > tokens:
            raise ValueError(
                f"video_grid_thw holds {frames} frames, more than the {tokens} tokens they "
                "would need at least one each of (frames_separately=True)"
            )
        return [(grid, 1.0) for grid in _split_frames(videos)]
    return list(zip(videos, seconds, strict=True))


def _check_leftovers(
    images: Iterator[Any], videos: Iterator[Any], settings: _Settings, where: str
) -> None:
    """Refuse grids that no run of the prompt (or the batch) used."""
    for label, left in (("image", images), ("video", videos)):
        remaining = sum(1 for _ in left)
        if remaining:
            what = "frame(s)" if label == "video" and settings.frames_separately else "row(s)"
            raise ValueError(
                f"{label}_grid_thw has {remaining} {what} more than {where} runs of {label} tokens"
            )


def mrope_position_ids(
    token_types: ArrayLike,
    *,
    image_grid_thw: ArrayLike | None = None,
    video_grid_thw: ArrayLike | None = None,
    spatial_merge_size: int = 2,
    tokens_per_second: float | None = None,
    second_per_grid: ArrayLike | None = None,
    text_after_vision: str = "max",
    frames_separately: bool = False,
) -> MropePositions:
    """Build the (temporal, height, width) position ids of a prompt of text, images and videos.

    Parameters
    ----------
    token_types : array_like of int
        One entry per token: 0 text, 1 image, 2 video (transformers'
        ``mm_token_type_ids``; the ``<|vision_start|>`` and ``<|vision_end|>``
        markers are text, and so are Qwen3-VL's timestamps).
    image_grid_thw, video_grid_thw : array_like, optional
        One row ``(t, h, w)`` per image or video, in prompt order: the
        vision encoder's patch grid before merging, as the processor returns
        it (one row per video also with `frames_separately`).
    spatial_merge_size : int, default 2
        Patches merged into one token along height and width.
    tokens_per_second : float, optional
        Qwen2.5-VL's temporal scale: frame ``f`` of a video gets temporal
        id ``floor(f · tokens_per_second · second_per_grid)``. ``None``
        (Qwen2-VL) numbers frames 0, 1, 2, ...
    second_per_grid : array_like, optional
        Seconds per temporal grid step of each video (``second_per_grid_ts``:
        ``temporal_patch_size / fps``); default 1.0 each.
    text_after_vision : {"max", "spatial"}, default "max"
        Where the text after an image or video continues. ``"max"``: one
        past the block's largest id, the rule of the Qwen2-VL paper
        (section 2.1), of Qwen's own code and of transformers 4, which the
        models were trained with. ``"spatial"``: ``start + max(h, w)`` after
        merging, as transformers 5 computes it. They differ only after a
        video whose temporal ids outrun its height and width.
    frames_separately : bool, default False
        Qwen3-VL: each temporal step of a video is a run of its own,
        preceded by its timestamp as text, and gets the ids of a one-frame
        grid ``(1, h, w)`` placed where its run starts (its temporal id is
        that start; the timestamps carry the time). `video_grid_thw` stays
        one row per video, as the processor returns it; pe splits it by
        frame, as transformers' ``Qwen3VLModel.get_rope_index`` does.
        `tokens_per_second` is then not read, and refused.

    Returns
    -------
    MropePositions
        ``(position_ids, delta)``: int64 ids of shape ``(3, seq)`` and the
        rope delta for decoding (`mrope_decode_positions`).

    Raises
    ------
    TypeError, ValueError
        If `token_types` holds other values than 0, 1, 2; a run of image or
        video tokens has no grid left or does not hold ``t · h · w /
        merge²`` tokens; a grid's height or width is not a multiple of the
        merge size; grids are left over; a setting is out of range; or an
        id would lie beyond ``2**31 - 1`` (checked before the ids are made).

    Examples
    --------
    Two text tokens, a 1 x 4 x 6 image (2 x 3 tokens after a 2 x 2 merge),
    then one text token:

    >>> import pe
    >>> types = [0, 0, 1, 1, 1, 1, 1, 1, 0]
    >>> ids, delta = pe.mrope_position_ids(types, image_grid_thw=[(1, 4, 6)])
    >>> ids
    array([[0, 1, 2, 2, 2, 2, 2, 2, 5],
           [0, 1, 2, 2, 2, 3, 3, 3, 5],
           [0, 1, 2, 3, 4, 2, 3, 4, 5]])
    >>> delta  # 9 tokens, largest id 5: the next token is at 9 + delta = 6
    -3

    A Qwen3-VL video of two frames of 2 x 2 tokens, each after a timestamp
    token; the grid is the processor's ``(2, 4, 4)``:

    >>> types = [0, 2, 2, 2, 2, 0, 2, 2, 2, 2]
    >>> pe.mrope_position_ids(types, video_grid_thw=[(2, 4, 4)], frames_separately=True)[0]
    array([[0, 1, 1, 1, 1, 3, 4, 4, 4, 4],
           [0, 1, 1, 2, 2, 3, 4, 4, 5, 5],
           [0, 1, 2, 1, 2, 3, 4, 5, 4, 5]])
    """
    types = _token_types(token_types)
    settings = _check_settings(
        spatial_merge_size, tokens_per_second, text_after_vision, frames_separately
    )
    images = _grids(image_grid_thw, "image_grid_thw")
    videos = _grids(video_grid_thw, "video_grid_thw")
    _check_seconds_used(second_per_grid, settings)
    seconds = _seconds(second_per_grid, len(videos))
    image_iter, video_iter = iter(images), iter(_video_items(videos, seconds, settings, types.size))
    ids, delta = mrope_sequence(types, image_iter, video_iter, settings)
    _check_leftovers(image_iter, video_iter, settings, "the prompt's")
    return MropePositions(ids, delta)


def mrope_decode_positions(delta: int, start: int, count: int = 1) -> NDArray[np.int64]:
    """Position ids of tokens generated after a multimodal prompt.

    Parameters
    ----------
    delta : int
        The prompt's rope delta (`mrope_position_ids`).
    start : int
        Index of the first new token: the number of tokens already in the
        cache (the prompt's length, then one more per generated token).
    count : int, default 1
        How many new tokens.

    Returns
    -------
    numpy.ndarray
        int64, shape ``(3, count)``: ``start + delta + k`` on all three axes.

    Raises
    ------
    TypeError, ValueError
        If an argument is not an integer, `count` is negative, or a position
        would lie beyond ``±(2**31 - 1)``.

    Examples
    --------
    >>> import pe
    >>> pe.mrope_decode_positions(-3, start=9, count=2)
    array([[6, 7],
           [6, 7],
           [6, 7]])
    """
    delta = check_offset(delta, name="delta")
    start = check_offset(start, name="start")
    if not is_integer(count) or int(count) < 0:
        raise ValueError(f"count must be a non-negative integer; got {count!r}")
    first = check_offset(start + delta, name="start + delta")
    check_offset(first + int(count), name="start + delta + count")
    row = np.arange(first, first + int(count), dtype=np.int64)
    return np.repeat(row[None, :], 3, axis=0)
