r"""M-RoPE (Qwen2-VL, Qwen2.5-VL): one head's RoPE pairs shared out among time, height and width.

M-RoPE keeps the 1-D frequencies of the whole head, $\theta_i = b^{-2i/d}$,
and cuts the $d/2$ pairs into three consecutive *sections*
(``mrope_section``, e.g. ``(16, 24, 24)`` of 64 pairs): pairs of the first
section turn with a token's temporal position, the next with its row, the
last with its column. The fast pairs therefore carry time and the slow ones
the two spatial axes.

Each token has three position ids. A text token has the same value on all
three, one more than the token before, so a prompt of text alone is 1-D RoPE
exactly. An image or video of ``t x h x w`` merged patches (the vision
encoder's grid divided by ``spatial_merge_size`` in height and width) lays its
tokens on the grid: every token of frame $f$ gets the temporal id
``start + floor(f · interval)``, its row ``start + r`` and its column
``start + c``. The interval is 1 for images and for Qwen2-VL's videos; Qwen2.5-VL
spaces frames by real time, ``interval = tokens_per_second ·
second_per_grid``. The text after the block continues from
``start + max(h, w)`` (transformers 5) or from one past the largest id of the
block (transformers 4 and the Qwen2-VL release; they differ only when a video's
temporal ids outrun its rows and columns). A prompt of $n$ tokens whose largest
id is $M$ leaves a *rope delta* $M + 1 - n$: the next token, the $n$-th,
takes position $n + \delta$ on all three axes, and so on while decoding.

Everything here is numpy; the torch module and the batched builders are in
`pe.nn`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pe._axial import GridRope, check_sections
from pe._validation import MAX_POSITION, check_base, check_d_model, check_offset, is_integer

__all__ = [
    "MropePositions",
    "TEXT_AFTER_VISION",
    "mrope",
    "mrope_decode_positions",
    "mrope_position_ids",
    "mrope_sequence",
]

#: How the text after an image or video continues: from ``start + max(h, w)``
#: (transformers 5) or from one past the block's largest id (transformers 4,
#: Qwen's release).
TEXT_AFTER_VISION = ("spatial", "max")


def mrope(head_dim: int, mrope_section: Sequence[int], *, base: float = 10000.0) -> GridRope:
    r"""Frequencies and sections of M-RoPE: the head's 1-D frequencies, cut into (t, h, w).

    Parameters
    ----------
    head_dim : int
        Width of each attention head; a positive even integer.
    mrope_section : sequence of int
        Pairs per axis, in the order temporal, height, width; they must sum
        to ``head_dim // 2`` (Qwen2-VL and Qwen2.5-VL: ``(16, 24, 24)`` for a
        head of 128).
    base : float, default 10000.0
        The base $b$ (``rope_theta``; 1e6 for Qwen2-VL and Qwen2.5-VL).

    Returns
    -------
    GridRope
        Frequencies $b^{-2i/d}$ for every pair, and the sections.

    Raises
    ------
    TypeError, ValueError
        For a bad `head_dim` or `base`, or sections that are not positive
        integers summing to ``head_dim // 2``.

    Examples
    --------
    >>> import pe
    >>> rope = pe.mrope(16, (2, 3, 3), base=100.0)
    >>> rope.sections, rope.frequencies.round(3)
    ((2, 3, 3), array([1.   , 0.562, 0.316, 0.178, 0.1  , 0.056, 0.032, 0.018]))
    """
    head_dim = check_d_model(head_dim, name="head_dim")
    sections = check_sections(mrope_section, "mrope_section")
    if sum(sections) != head_dim // 2:
        raise ValueError(
            f"mrope_section {sections} holds {sum(sections)} pairs; it must sum to "
            f"head_dim // 2 = {head_dim // 2}"
        )
    base = check_base(base)
    frequencies = np.power(base, -np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
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


def _check_settings(
    spatial_merge_size: Any, tokens_per_second: Any, text_after_vision: Any
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
    if text_after_vision not in TEXT_AFTER_VISION:
        raise ValueError(
            f"text_after_vision must be one of {', '.join(map(repr, TEXT_AFTER_VISION))}; "
            f"got {text_after_vision!r}"
        )
    return _Settings(int(spatial_merge_size), tokens_per_second, str(text_after_vision))


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
    for kind, length in _runs(types):
        if kind == 0:
            row = np.arange(current, current + length, dtype=np.int64)
            blocks.append(np.broadcast_to(row, (3, length)))
            current += length
            continue
        label = "image" if kind == 1 else "video"
        try:
            if kind == 1:
                grid, interval = next(images), 1.0
            else:
                grid, seconds = next(videos)
                rate = settings.tokens_per_second
                interval = 1.0 if rate is None else rate * seconds
        except StopIteration:
            raise ValueError(
                f"the prompt has more {label} runs than {label}_grid_thw rows "
                f"({counts[kind]}); each run of {label} tokens needs its (t, h, w)"
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
            )
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


def mrope_position_ids(
    token_types: ArrayLike,
    *,
    image_grid_thw: ArrayLike | None = None,
    video_grid_thw: ArrayLike | None = None,
    spatial_merge_size: int = 2,
    tokens_per_second: float | None = None,
    second_per_grid: ArrayLike | None = None,
    text_after_vision: str = "spatial",
) -> MropePositions:
    """Build the (temporal, height, width) position ids of a prompt of text, images and videos.

    Parameters
    ----------
    token_types : array_like of int
        One entry per token: 0 text, 1 image, 2 video (transformers'
        ``mm_token_type_ids``; the ``<|vision_start|>`` and ``<|vision_end|>``
        markers are text).
    image_grid_thw, video_grid_thw : array_like, optional
        One row ``(t, h, w)`` per image or video, in prompt order: the
        vision encoder's patch grid before merging, as the processor returns
        it.
    spatial_merge_size : int, default 2
        Patches merged into one token along height and width.
    tokens_per_second : float, optional
        Qwen2.5-VL's temporal scale: frame ``f`` of a video gets temporal
        id ``floor(f · tokens_per_second · second_per_grid)``. ``None``
        (Qwen2-VL) numbers frames 0, 1, 2, ...
    second_per_grid : array_like, optional
        Seconds per temporal grid step of each video (``second_per_grid_ts``:
        ``temporal_patch_size / fps``); default 1.0 each.
    text_after_vision : {"spatial", "max"}, default "spatial"
        Where the text after an image or video continues: ``start + max(h,
        w)`` after merging (transformers 5), or one past the block's largest
        id (transformers 4 and Qwen's release). They differ only after a
        video whose temporal ids outrun its height and width.

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
        merge size; grids are left over; or a setting is out of range.

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
    """
    types = _token_types(token_types)
    settings = _check_settings(spatial_merge_size, tokens_per_second, text_after_vision)
    images = _grids(image_grid_thw, "image_grid_thw")
    videos = _grids(video_grid_thw, "video_grid_thw")
    _check_seconds_used(second_per_grid, settings)
    seconds = _seconds(second_per_grid, len(videos))
    image_iter, video_iter = iter(images), iter(list(zip(videos, seconds, strict=True)))
    ids, delta = mrope_sequence(types, image_iter, video_iter, settings)
    for label, left in (("image", image_iter), ("video", video_iter)):
        remaining = sum(1 for _ in left)
        if remaining:
            raise ValueError(
                f"{label}_grid_thw has {remaining} row(s) more than the prompt's runs of "
                f"{label} tokens"
            )
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
