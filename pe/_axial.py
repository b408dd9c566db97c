r"""RoPE over grids: each rotated pair turns with one coordinate of a position.

1-D RoPE turns pair $i$ of a query or key at position $m$ by $m\theta_i$. On a
grid a position has several coordinates (time, row, column), and *axial* RoPE
gives each coordinate its own block of pairs: pair $i$ of the block of axis
$a$ turns by $p_a\,\theta_i$. A score between a query at $p$ and a key at $q$
then sums, block by block, terms that depend on $q_a - p_a$ only: it depends
on the offset vector $q - p$, and on nothing else.

Two ways of choosing the frequencies are in use, both described here by a
`GridRope` (the frequency of every pair, and how many consecutive pairs each
axis owns):

* *axial*: every axis has its own width $d_a$ and restarts the 1-D
  frequencies, $\theta_{a,j} = b^{-2j/d_a}$ (Flux in diffusers, EVA-02 and
  the ViTs of timm): `axial_rope`;
* *sectioned* (M-RoPE, Qwen2-VL): the 1-D frequencies of the whole head,
  $\theta_i = b^{-2i/d}$, cut into consecutive sections for time, height
  and width: `mrope` (in `pe._mrope`).

Everything here is float64; `grid_rope_angles` multiplies each pair's
frequency by its own coordinate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pe._mapping import NamedMapping
from pe._validation import (
    MAX_D_MODEL,
    MAX_POSITION,
    check_base,
    check_d_model,
    check_size,
    is_integer,
)

__all__ = [
    "GridRope",
    "GridRopePreset",
    "axial_rope",
    "check_sections",
    "grid_positions",
    "grid_rope_angles",
    "grid_rope_presets",
]


class GridRope(NamedTuple):
    """The frequencies of a grid RoPE and the axis each pair follows.

    Attributes
    ----------
    frequencies : numpy.ndarray
        float64, shape ``(pairs,)``: the angle per unit of its coordinate of
        each rotated pair, in the order of the pairs.
    sections : tuple of int
        How many consecutive pairs each axis owns, in axis order; they sum to
        ``pairs``. Pair ``i`` follows axis ``a`` when it lies in section ``a``.

    Examples
    --------
    >>> import pe
    >>> rope = pe.axial_rope((4, 4))
    >>> rope.frequencies, rope.sections
    (array([1.  , 0.01, 1.  , 0.01]), (2, 2))
    """

    frequencies: NDArray[np.float64]
    sections: tuple[int, ...]


def check_sections(values: Any, name: str, *, minimum: int = 1) -> tuple[int, ...]:
    """Return `values` as a non-empty tuple of integers ``>= minimum``."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(
            f"{name} must be a sequence of integers, e.g. (16, 56, 56); got {type(values).__name__}"
        )
    items = list(values)
    if not items:
        raise ValueError(f"{name} must name at least one axis; got an empty sequence")
    for item in items:
        if not is_integer(item):
            raise TypeError(f"{name} must hold integers; got {item!r} in {tuple(items)!r}")
        if int(item) < minimum:
            raise ValueError(f"{name} must hold integers >= {minimum}; got {tuple(items)!r}")
    return tuple(int(item) for item in items)


def axial_rope(axes_dim: Sequence[int], *, base: float = 10000.0) -> GridRope:
    r"""Frequencies of axial RoPE: each axis restarts the 1-D frequencies over its own width.

    Parameters
    ----------
    axes_dim : sequence of int
        Rotated dimensions per axis, each a positive even integer, adding up
        to at most ``2**24`` (Flux: ``(16, 56, 56)`` for (index, row, column); a
        2-D ViT with head width $d$: ``(d/2, d/2)`` for (row, column)).
    base : float, default 10000.0
        The base $b$ (``theta`` in diffusers, ``temperature`` in timm).

    Returns
    -------
    GridRope
        Frequencies $b^{-2j/d_a}$, $j = 0 \dots d_a/2 - 1$, axis after axis;
        sections ``d_a / 2``.

    Raises
    ------
    TypeError, ValueError
        If `axes_dim` is not a non-empty sequence of positive even integers
        adding up to at most ``2**24``, or `base` is not a finite number above 1.

    Examples
    --------
    >>> import pe
    >>> rope = pe.axial_rope((16, 56, 56))  # Flux
    >>> rope.sections, rope.frequencies.shape
    ((8, 28, 28), (64,))
    >>> float(rope.frequencies[8]), float(rope.frequencies[7]) == 10000 ** (-14 / 16)
    (1.0, True)
    """
    dims = check_sections(axes_dim, "axes_dim")
    for index, dim in enumerate(dims):
        if dim % 2 or dim > MAX_D_MODEL:  # the message names the entry (built only here)
            check_d_model(dim, name=f"axes_dim[{index}]")
    if sum(dims) > MAX_D_MODEL:
        raise ValueError(
            f"axes_dim must add up to at most {MAX_D_MODEL:,} (2**24) rotated dimensions; "
            f"its {len(dims):,} entries add up to {sum(dims):,}"
        )
    base = check_base(base)
    blocks = [np.power(base, -np.arange(0, dim, 2, dtype=np.float64) / dim) for dim in dims]
    return GridRope(np.concatenate(blocks), tuple(dim // 2 for dim in dims))


def grid_rope_angles(positions: ArrayLike, rope: GridRope) -> NDArray[np.float64]:
    r"""Angle of every rotated pair at each position: its frequency times its own coordinate.

    Parameters
    ----------
    positions : array_like
        Real coordinates of shape ``(..., n_axes)``, one column per axis of
        `rope` (Flux's ``ids``: (index, row, column) of each token). Integers
        are exact; fractional coordinates (a resized grid) are allowed.
    rope : GridRope
        From `axial_rope`, `mrope` or a preset's ``rope()``.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(..., pairs)``: ``positions[..., a] * frequencies[i]``
        for each pair ``i`` of section ``a``.

    Raises
    ------
    TypeError, ValueError
        If `rope` is not a `GridRope`, `positions` is not a real array whose
        last dimension is the number of axes, a coordinate is not finite
        or beyond ``±(2**31 - 1)``, or the angles would hold more than ``2**31``
        values (checked before any is computed).

    Examples
    --------
    >>> import pe
    >>> rope = pe.axial_rope((4, 4))
    >>> pe.grid_rope_angles([[2, 3]], rope)  # row 2, column 3
    array([[2.  , 0.02, 3.  , 0.03]])
    """
    if not isinstance(rope, GridRope):
        raise TypeError(
            f"rope must be a GridRope (pe.axial_rope, pe.mrope); got {type(rope).__name__}"
        )
    array = np.asarray(positions)
    if array.dtype == np.bool_ or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise TypeError(f"positions must be a real array; got dtype {array.dtype}")
    axes = len(rope.sections)
    if array.ndim == 0 or array.shape[-1] != axes:
        raise ValueError(
            f"positions must have shape (..., {axes}): one coordinate per axis of "
            f"sections {rope.sections}; got shape {array.shape}"
        )
    check_size(
        (*array.shape[:-1], sum(rope.sections)),
        name=f"the angles of positions of shape {array.shape}",
        hint="Pass fewer positions at a time",
    )
    coordinates = array.astype(np.float64)
    if coordinates.size:
        if not bool(np.all(np.isfinite(coordinates))):
            bad = coordinates[~np.isfinite(coordinates)].flat[0]
            raise ValueError(f"positions must be finite; got {bad!r}")
        largest = float(np.max(np.abs(coordinates)))
        if largest > MAX_POSITION:
            raise ValueError(
                f"positions must lie in [-{MAX_POSITION}, {MAX_POSITION}]; got {largest:g}"
            )
    axis_of_pair = np.repeat(np.arange(axes), rope.sections)
    return coordinates[..., axis_of_pair] * rope.frequencies


def grid_positions(shape: Sequence[int]) -> NDArray[np.int64]:
    """Coordinates of every cell of a grid, in row-major order (the last axis fastest).

    Parameters
    ----------
    shape : sequence of int
        The grid's size along each axis, e.g. ``(rows, columns)`` or
        ``(frames, rows, columns)``; positive integers.

    Returns
    -------
    numpy.ndarray
        int64, shape ``(prod(shape), len(shape))``: row ``k`` holds the
        coordinates of the ``k``-th cell, as patches are flattened into
        tokens.

    Raises
    ------
    TypeError, ValueError
        If `shape` is not a non-empty sequence of positive integers, or the
        coordinates would hold more than ``2**31`` values (``prod(shape) *
        len(shape)``; checked before any is built).

    Examples
    --------
    >>> import pe
    >>> pe.grid_positions((2, 3)).tolist()
    [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    """
    sizes = check_sections(shape, "shape")
    check_size(
        (math.prod(sizes), len(sizes)),
        name=f"the coordinates of a grid of shape {sizes}",
        hint="Ask for a smaller shape",
    )
    coordinates = np.empty((*sizes, len(sizes)), dtype=np.int64)
    for axis, size in enumerate(sizes):  # each axis's index, broadcast over the others
        along = [1] * len(sizes)
        along[axis] = size
        coordinates[..., axis] = np.arange(size, dtype=np.int64).reshape(along)
    return coordinates.reshape(-1, len(sizes))


@dataclass(frozen=True)
class GridRopePreset:
    """A model's grid RoPE settings, where they were read, and what checks them.

    Attributes
    ----------
    name : str
        The key in `grid_rope_presets`.
    kind : {"axial", "mrope"}
        Which frequency rule (`axial_rope` or `mrope`).
    widths : tuple of int
        ``axes_dim`` (rotated dimensions per axis) for ``"axial"``;
        ``mrope_section`` (pairs per axis) for ``"mrope"``.
    head_dim : int
        Width of each attention head.
    base : float
        The base $b$.
    layout : {"interleaved", "concatenated"}
        Which dimensions form a pair (as `pe.nn.RotaryEmbedding`'s layouts).
    models : str
        The models that use these settings.
    source : str
        Where each setting was read (library file and version, or config).
    library : str
        The Python package that defines it, which the tests run.
    checked_against : str
        The functions or modules of `library` the tests compare with.
    spatial_merge_size, tokens_per_second : int or None
        For M-RoPE, the position-id settings (`pe.mrope_position_ids`).

    Examples
    --------
    >>> import pe
    >>> flux = pe.grid_rope_presets["flux"]
    >>> flux.widths, flux.base, flux.layout
    ((16, 56, 56), 10000.0, 'interleaved')
    >>> flux.rope().sections
    (8, 28, 28)
    """

    name: str
    kind: str
    widths: tuple[int, ...]
    head_dim: int
    base: float
    layout: str
    models: str
    source: str
    library: str
    checked_against: str
    spatial_merge_size: int | None = None
    tokens_per_second: int | None = None

    def rope(self) -> GridRope:
        """Return the preset's frequencies and sections."""
        if self.kind == "axial":
            return axial_rope(self.widths, base=self.base)
        from pe._mrope import mrope

        return mrope(self.head_dim, self.widths, base=self.base)


#: Grid RoPE settings of real models, each compared with its library in the tests:
#: a read-only mapping (a missing name raises `KeyError` listing the names).
grid_rope_presets: Mapping[str, GridRopePreset] = NamedMapping(
    {
        "flux": GridRopePreset(
            name="flux",
            kind="axial",
            widths=(16, 56, 56),
            head_dim=128,
            base=10000.0,
            layout="interleaved",
            models="FLUX.1 [dev] and [schnell] (text ids (0, 0, 0); image ids (0, row, column))",
            source=(
                "diffusers 0.42.1, models/transformers/transformer_flux.py: "
                "FluxTransformer2DModel(axes_dims_rope=(16, 56, 56)) builds "
                "FluxPosEmbed(theta=10000, axes_dim=axes_dims_rope)"
            ),
            library="diffusers",
            checked_against="FluxPosEmbed, get_1d_rotary_pos_embed and apply_rotary_emb",
        ),
        "eva02": GridRopePreset(
            name="eva02",
            kind="axial",
            widths=(32, 32),
            head_dim=64,
            base=10000.0,
            layout="interleaved",
            models="EVA-02 ViTs in timm (eva02_base_patch14_224 and the other EVA-02 sizes)",
            source=(
                "timm 1.0.31, models/eva.py: Eva(use_rot_pos_emb=True) with rope_type='cat' builds "
                "RotaryEmbeddingCat(dim=head_dim, in_pixels=False, temperature=10000); "
                "layers/pos_embed_sincos.py gives each of (row, column) dim/4 bands"
            ),
            library="timm",
            checked_against=(
                "RotaryEmbeddingCat (in_pixels=False) and apply_rot_embed_cat, loaded without "
                "timm's package initialiser"
            ),
        ),
        "qwen2-vl-vision": GridRopePreset(
            name="qwen2-vl-vision",
            kind="axial",
            widths=(40, 40),
            head_dim=80,
            base=10000.0,
            layout="concatenated",
            models=(
                "the vision encoder of Qwen2-VL (its patches' (row, column), in 2 x 2 merge blocks)"
            ),
            source=(
                "transformers 5.23, models/qwen2_vl: Qwen2VLVisionRotaryEmbedding "
                "(compute_axial_rope_parameters: head_dim // 2 per axis, rope_theta 10000), "
                "Qwen2VLVisionConfig embed_dim 1280 and num_heads 16"
            ),
            library="transformers",
            checked_against=(
                "Qwen2VLVisionRotaryEmbedding and apply_rotary_pos_emb_vision at the ids of "
                "get_vision_position_ids"
            ),
        ),
        "qwen2-vl": GridRopePreset(
            name="qwen2-vl",
            kind="mrope",
            widths=(16, 24, 24),
            head_dim=128,
            base=1000000.0,
            layout="concatenated",
            models="Qwen2-VL-2B, -7B, -72B (Qwen/Qwen2-VL-7B-Instruct config.json)",
            source=(
                "transformers 5.23, models/qwen2_vl: Qwen2VLTextConfig default_theta 1e6, "
                "rope_parameters['mrope_section'] default [16, 24, 24], "
                "Qwen2VLVisionConfig.spatial_merge_size 2"
            ),
            library="transformers",
            checked_against=(
                "Qwen2VLRotaryEmbedding, apply_rotary_pos_emb, "
                "Qwen2VLModel.get_rope_index and compute_3d_position_ids"
            ),
            spatial_merge_size=2,
        ),
        "qwen2.5-vl": GridRopePreset(
            name="qwen2.5-vl",
            kind="mrope",
            widths=(16, 24, 24),
            head_dim=128,
            base=1000000.0,
            layout="concatenated",
            models="Qwen2.5-VL-3B, -7B, -72B (Qwen/Qwen2.5-VL-7B-Instruct config.json)",
            source=(
                "transformers 5.23, models/qwen2_5_vl (same sections and base as Qwen2-VL); "
                "tokens_per_second 2 from the checkpoints' vision_config (transformers' "
                "class default is 4)"
            ),
            library="transformers",
            checked_against=(
                "Qwen2_5_VLRotaryEmbedding, apply_rotary_pos_emb, "
                "Qwen2_5_VLModel.get_rope_index and compute_3d_position_ids"
            ),
            spatial_merge_size=2,
            tokens_per_second=2,
        ),
    },
    what="grid RoPE preset",
    home=("pe._axial", "grid_rope_presets"),
)
