r"""RoPE over grids in torch: axial RoPE (Flux, EVA-02) and M-RoPE (Qwen2-VL, 2.5-VL, 3-VL).

Both rotate pair $i$ of a query or key by $p_{a(i)}\,\theta_i$: its frequency
times the coordinate of the axis $a(i)$ it follows (`pe.GridRope`, or
`pe.mrope(..., interleaved=True)` for Qwen3-VL's pair-by-pair arrangement).
They reuse `RotaryEmbedding`'s table and rotation: the cached table holds
$\cos(p\,\theta_i)$ and $\sin(p\,\theta_i)$ of every pair at integer $p$ (float64
angles, rounded once), and each axis's pairs read their rows at that axis's
coordinates. Fractional coordinates (a resized grid, Flux's float ``ids``)
are computed directly in float64. Integer coordinates of any integer dtype
are read by value (as int64).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import torch
from torch import Tensor

from pe._axial import GridRope, axial_rope, grid_positions, grid_rope_presets
from pe._config import read_config
from pe._mrope import (
    InterleavedMrope,
    _check_leftovers,
    _check_seconds_used,
    _check_settings,
    _grids,
    _seconds,
    _token_types,
    _video_items,
    mrope,
    mrope_sequence,
)
from pe._rope import _rule_of, rope_frequencies
from pe._validation import MAX_POSITION, check_offset, is_integer
from pe.nn._rotary import RotaryEmbedding, _check_rotary_layout, _compiling

__all__ = [
    "AxialRotaryEmbedding",
    "MultimodalRotaryEmbedding",
    "grid_position_ids",
    "mrope_decode_position_ids",
    "mrope_position_ids",
]

_TABLE_LIMIT = 1 << 16  # integer coordinates below this are read from the table


class _GridRotary(RotaryEmbedding):
    """Shared machinery: a `RotaryEmbedding` whose pairs follow different coordinates."""

    _CONSTANTS = ("_frequencies64", "_axis_of_pair", "_pair_order", "_pair_inverse")

    def _setup(
        self,
        rope: GridRope | InterleavedMrope,
        head_dim: int,
        base: float,
        layout: str,
        *,
        rule: str = "default",
        attention_factor: float = 1.0,
    ) -> None:
        torch.nn.Module.__init__(self)
        frequencies = rope.frequencies.copy()
        frequencies.flags.writeable = False
        self.frequencies = frequencies
        self.sections = rope.sections
        self.head_dim = int(head_dim)
        self.base = float(base)
        self.layout = _check_rotary_layout(layout, "layout")
        self.rule = rule
        self.attention_factor = float(attention_factor)
        self.rotary_dim = 2 * int(frequencies.size)
        self._frequencies64 = torch.from_numpy(frequencies.copy())
        if isinstance(rope, InterleavedMrope):
            axis_of_pair = rope.axis_of_pair.astype(np.int64)
        else:
            axis_of_pair = np.repeat(np.arange(len(rope.sections)), rope.sections)
        self._axis_of_pair = torch.from_numpy(axis_of_pair.copy())
        # Pairs grouped by axis (each axis's pairs in a run, as `sections` counts them) and
        # the permutation back to the head's order: the identity when the sections are
        # consecutive, which the table path then skips.
        order = np.argsort(axis_of_pair, kind="stable")
        self._grouped = not bool(np.array_equal(order, np.arange(order.size)))
        inverse = np.empty_like(order)
        inverse[order] = np.arange(order.size)
        self._pair_order = torch.from_numpy(order.astype(np.int64))
        self._pair_inverse = torch.from_numpy(inverse.astype(np.int64))
        self._copies: dict[tuple[str, torch.device], Tensor] = {}
        self._copy_constants(torch.get_default_device())
        self._tables: dict[tuple[str, torch.dtype], Tensor] = {}
        self._recent: dict[tuple[torch.device, torch.dtype, int, int], tuple[Tensor, ...]] = {}
        self._signatures: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        edges = np.cumsum((0, *rope.sections))
        self._slices = [(int(a), int(b)) for a, b in itertools.pairwise(edges)]

    def _direct(self, positions: Tensor, dtype: torch.dtype) -> tuple[Tensor, Tensor]:
        """Return cos and sin of every pair from its own coordinate, in float64, rounded once."""
        axis = self._constant("_axis_of_pair", positions.device)
        coordinates = positions.to(torch.float64).index_select(-1, axis)
        angles = coordinates * self._constant("_frequencies64", positions.device)
        factor = self.attention_factor
        return (torch.cos(angles) * factor).to(dtype), (torch.sin(angles) * factor).to(dtype)

    def grid_cos_sin(
        self, positions: Tensor, *, dtype: torch.dtype = torch.float32
    ) -> tuple[Tensor, Tensor]:
        """Return cos and sin of every pair at `positions` (``(..., n_axes)``), ``(..., pairs)``.

        Integer coordinates (any integer dtype, read by value) in ``[0, 2**16)``
        are read from the cached table (one gather per axis); others, and
        fractional ones, are computed directly. Both are float64 angles
        rounded once to `dtype`, times the attention factor (1 but for YaRN).
        """
        positions = self._positions_tensor(positions, "positions")
        axes = len(self.sections)
        if positions.dim() == 0 or positions.shape[-1] != axes:
            raise ValueError(
                f"positions must have shape (..., {axes}), one coordinate per axis of "
                f"sections {self.sections}; got {tuple(positions.shape)}"
            )
        if _compiling() or positions.is_meta:
            return self._direct(positions, dtype)
        if positions.is_floating_point():
            if positions.numel() and not bool(torch.isfinite(positions).all()):
                raise ValueError("positions must be finite")
            low, high = (
                (float(v) for v in torch.aminmax(positions)) if positions.numel() else (0.0, 0.0)
            )
        else:
            low, high = (int(v) for v in torch.aminmax(positions)) if positions.numel() else (0, 0)
        if max(-low, high) > MAX_POSITION:
            raise ValueError(
                f"positions must lie in [-{MAX_POSITION}, {MAX_POSITION}]; "
                f"got {low if -low > high else high}"
            )
        if positions.is_floating_point() or low < 0 or high >= _TABLE_LIMIT:
            return self._direct(positions, dtype)
        table_cos, table_sin = self.table(int(high) + 1, device=positions.device, dtype=dtype)
        if not self._grouped:
            cos = [table_cos[:, a:b][positions[..., i]] for i, (a, b) in enumerate(self._slices)]
            sin = [table_sin[:, a:b][positions[..., i]] for i, (a, b) in enumerate(self._slices)]
            return torch.cat(cos, dim=-1), torch.cat(sin, dim=-1)
        # Interleaved pairs: each axis reads its rows and keeps its own pairs (grouped by
        # axis), then the pairs are put back in the head's order.
        order = self._constant("_pair_order", positions.device)
        inverse = self._constant("_pair_inverse", positions.device)
        parts = []
        for table_part in (table_cos, table_sin):
            grouped = [
                table_part[positions[..., i]].index_select(-1, order[a:b])
                for i, (a, b) in enumerate(self._slices)
            ]
            parts.append(torch.cat(grouped, dim=-1).index_select(-1, inverse))
        return parts[0], parts[1]

    @staticmethod
    def _positions_tensor(positions: Any, name: str) -> Tensor:
        """Return `positions` checked, integer dtypes as int64 (their values, never a mask).

        torch reads a uint8 index tensor as a boolean mask and refuses int8
        and int16 as indices; every integer dtype is converted here, and a
        uint64 value of ``2**63`` or more (which int64 cannot hold) is refused.
        """
        if (
            not isinstance(positions, Tensor)
            or positions.is_complex()
            or positions.dtype == torch.bool
        ):
            got = positions.dtype if isinstance(positions, Tensor) else type(positions).__name__
            raise TypeError(f"{name} must be a real tensor; got {got}")
        if positions.is_floating_point() or positions.dtype == torch.int64:
            return positions
        converted = positions.to(torch.int64)
        if (
            positions.dtype == torch.uint64
            and converted.numel()
            and not _compiling()
            and bool((converted < 0).any())
        ):
            raise ValueError(
                f"{name} of dtype torch.uint64 hold a value of 2**63 or more; positions must "
                f"lie in [-{MAX_POSITION}, {MAX_POSITION}]"
            )
        return converted

    def _shape_grid(self, positions: Tensor, x: Tensor, name: str) -> Tensor:
        """Fit axis-last positions ``(..., seq, n_axes)`` to `x` ``(..., seq, head_dim)``."""
        axes = len(self.sections)
        shape = tuple(positions.shape)
        seq = x.shape[-2]
        if positions.dim() < 2 or shape[-1] != axes or shape[-2] != seq:
            raise ValueError(
                f"{name} must have shape (..., seq={seq}, {axes}) for x of shape "
                f"{tuple(x.shape)}; got {shape}"
            )
        if positions.dim() == 2 or positions.dim() == x.dim():
            return positions
        if positions.dim() == 3 and x.dim() >= 4 and shape[0] in (1, x.shape[0]):
            return positions.reshape(shape[0], *([1] * (x.dim() - 3)), seq, axes)
        raise ValueError(
            f"{name} of shape {shape} are ambiguous for x of shape {tuple(x.shape)}: pass "
            f"(seq, {axes}), (batch, seq, {axes}) or {x.dim()} dimensions broadcastable to "
            f"{tuple(x.shape[:-1])} + ({axes},)"
        )

    def _rotate_grid(self, x: Tensor, positions: Tensor, name: str) -> Tensor:
        self._check_input(x, name)
        positions = self._positions_tensor(positions, "positions")
        positions = self._shape_grid(positions, x, "positions").to(x.device)
        compute = torch.float64 if x.dtype == torch.float64 else torch.float32
        cos, sin = self.grid_cos_sin(positions, dtype=compute)
        return self._turn_cos_sin(x, cos, sin, compute)


class AxialRotaryEmbedding(_GridRotary):
    r"""Axial RoPE: each axis of a grid position turns its own block of pairs.

    Parameters
    ----------
    axes_dim : sequence of int
        Rotated dimensions per axis, positive even integers; their sum is the
        head width (Flux: ``(16, 56, 56)``; EVA-02 base: ``(32, 32)``).
    base : float, default 10000.0
        The base $b$ of every axis (diffusers' ``theta``, timm's ``temperature``).
    layout : {"interleaved", "concatenated"}, default "interleaved"
        Which dimensions of the whole head form a pair (Flux and timm's
        default: interleaved).

    Notes
    -----
    Pairs of axis $a$ turn by $p_a\,b^{-2j/d_a}$ (`pe.axial_rope`), so the
    score of a query at $p$ and a key at $q$ depends on $q - p$ alone.
    Positions are axis-last, as Flux's ``ids``: ``(seq, n_axes)`` for every
    row, ``(batch, seq, n_axes)`` shared by the heads of a 4-D input, or one
    dimension more than the input without its last, broadcastable.

    Raises
    ------
    TypeError, ValueError
        For bad `axes_dim`, `base` or `layout`; when called, for inputs whose
        last dimension is not ``sum(axes_dim)``, positions whose shape does
        not fit, or coordinates that are not finite or beyond ``±(2**31 - 1)``.

    Examples
    --------
    >>> import torch
    >>> from pe.nn import AxialRotaryEmbedding
    >>> from pe.nn.functional import grid_position_ids
    >>> rope = AxialRotaryEmbedding.from_preset("flux")
    >>> ids = grid_position_ids((1, 2, 3))  # (index 0, row, column) of a 2 x 3 latent grid
    >>> q = k = torch.randn(1, 24, 6, 128)  # (batch, heads, tokens, head_dim)
    >>> q_rot, k_rot = rope(q, k, ids)
    >>> q_rot.shape, rope.sections
    (torch.Size([1, 24, 6, 128]), (8, 28, 28))
    """

    def __init__(
        self, axes_dim: Sequence[int], *, base: float = 10000.0, layout: str = "interleaved"
    ) -> None:
        rope = axial_rope(axes_dim, base=base)
        self._setup(rope, 2 * sum(rope.sections), base, layout)
        self.axes_dim = tuple(2 * s for s in rope.sections)

    @classmethod
    def from_preset(cls, name: str) -> AxialRotaryEmbedding:
        """Build the module from an axial preset of `pe.grid_rope_presets` (``"flux"``, ...).

        Examples
        --------
        >>> from pe.nn import AxialRotaryEmbedding
        >>> AxialRotaryEmbedding.from_preset("eva02").axes_dim
        (32, 32)
        """
        axial = [key for key, preset in grid_rope_presets.items() if preset.kind == "axial"]
        if name not in axial:
            raise ValueError(f"name must be one of {', '.join(map(repr, axial))}; got {name!r}")
        preset = grid_rope_presets[name]
        return cls(preset.widths, base=preset.base, layout=preset.layout)

    def rotate(self, x: Tensor, positions: Tensor) -> Tensor:  # type: ignore[override]
        """Rotate `x` (``(..., seq, head_dim)``) by grid `positions` (``(..., seq, n_axes)``)."""
        return self._rotate_grid(x, positions, "x")

    def forward(self, q: Tensor, k: Tensor, positions: Tensor) -> tuple[Tensor, Tensor]:  # type: ignore[override]
        """Rotate queries and keys at the same grid positions (self-attention over one sequence).

        Parameters
        ----------
        q, k : torch.Tensor
            Floating-point tensors of shape ``(..., seq, head_dim)``.
        positions : torch.Tensor
            Integer or real coordinates, ``(seq, n_axes)``, ``(batch, seq,
            n_axes)`` or broadcastable with one more dimension than ``q``
            without its last.

        Returns
        -------
        tuple of torch.Tensor
            The rotated queries and keys, in their own dtypes.
        """
        return self._rotate_grid(q, positions, "q"), self._rotate_grid(k, positions, "k")

    def extra_repr(self) -> str:
        return f"axes_dim={self.axes_dim}, base={self.base}, layout={self.layout!r}"


# Scaling rules whose frequencies do not depend on the sequence length: transformers' Qwen
# VL rotary modules compute them once from the config (``ROPE_INIT_FUNCTIONS``), as here.
# "dynamic" and "longrope" change with the length (``dynamic_rope_update``) and are refused.
_STATIC_RULES = ("default", "linear", "yarn", "llama3")


class _Scaled(NamedTuple):
    frequencies: np.ndarray
    rule: str
    attention_factor: float
    base: float


def _scaled(
    scaling: Any,
    head_dim: int,
    base: float | None,
    max_position_embeddings: int | None,
    sections: tuple[int, ...],
    interleaved: bool,
) -> _Scaled:
    """Frequencies, rule, attention factor and base of an M-RoPE ``rope_scaling`` dict."""
    if not isinstance(scaling, Mapping):
        raise TypeError(f"scaling must be a dict or None; got {type(scaling).__name__}")
    parameters = dict(scaling)
    section = parameters.pop("mrope_section", None)
    if section is not None and tuple(section) != sections:
        raise ValueError(
            f"scaling['mrope_section'] is {section!r} but mrope_section is {sections}; "
            "pass one of them"
        )
    flag = parameters.pop("mrope_interleaved", None)
    if flag is not None and (not isinstance(flag, bool) or flag != interleaved):
        raise ValueError(
            f"scaling['mrope_interleaved'] is {flag!r} but interleaved is {interleaved}; "
            "pass one of them"
        )
    rule = _rule_of(parameters, "scaling")
    if rule not in _STATIC_RULES:
        key = "rope_type" if parameters.get("rope_type") is not None else "type"
        raise ValueError(
            f"scaling[{key!r}] is {parameters[key]!r}: its frequencies depend on the sequence "
            "length or on a partial rotation, which MultimodalRotaryEmbedding does not follow. "
            f"Accepted rules: {', '.join(map(repr, _STATIC_RULES))}"
        )
    fraction = parameters.get("partial_rotary_factor")
    if fraction is not None and fraction != 1:
        raise ValueError(
            f"scaling['partial_rotary_factor'] is {fraction!r}: M-RoPE over part of the head "
            "(Qwen3.5) is not implemented; accepted: 1 or absent"
        )
    result = rope_frequencies(
        head_dim, base=base, scaling=parameters, max_position_embeddings=max_position_embeddings
    )
    theta = parameters.get("rope_theta")  # the dict's value comes first, as there
    used = float(theta if theta is not None else 10000.0 if base is None else base)
    return _Scaled(result.frequencies, rule, float(result.attention_factor), used)


class MultimodalRotaryEmbedding(_GridRotary):
    r"""M-RoPE (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): the head's pairs shared among time, height, width.

    Parameters
    ----------
    head_dim : int
        Width of each head; a positive even integer.
    mrope_section : sequence of int
        Pairs per axis (temporal, height, width), summing to ``head_dim // 2``.
    base : float, optional
        The base $b$ (``rope_theta``; 1e6 for Qwen2-VL and Qwen2.5-VL):
        ``scaling['rope_theta']`` if the dict has it, else this, else 10000.
    layout : {"concatenated", "interleaved"}, default "concatenated"
        Which dimensions form a pair: Hugging Face's Qwen models rotate
        halves (pairs ``(i, i + d/2)``).
    interleaved : bool, default False
        Which pairs follow which axis (`pe.mrope`): consecutive sections
        (Qwen2-VL, Qwen2.5-VL) or Qwen3-VL's pair-by-pair arrangement
        (``mrope_interleaved``). Not to be confused with `layout`.
    scaling : dict, optional
        A config's ``rope_scaling`` / ``rope_parameters``: its rule
        (``rope_type``) may be ``default``, ``linear``, ``yarn`` or ``llama3``
        (see `pe.rope_frequencies`), as transformers' Qwen VL rotary modules
        apply them; YaRN's attention factor multiplies cos and sin, as there.
        ``dynamic`` and ``longrope`` (which change with the length) and a
        ``partial_rotary_factor`` below 1 are refused.
    max_position_embeddings : int, optional
        The config's ``max_position_embeddings``, read by ``yarn`` (and
        ``llama3``) without ``original_max_position_embeddings``.

    Notes
    -----
    Position ids come as transformers makes them: ``(3, batch, seq)`` or
    ``(3, seq)`` integers (any integer dtype, read by value), the temporal,
    height and width id of each token
    (`pe.nn.functional.mrope_position_ids`). Plain 1-D positions ``(batch,
    seq)`` are refused rather than copied to the three axes: after an image
    or a video they are not the model's positions. For a prompt of text
    alone, pass ``positions.expand(3, -1, -1)``.

    Raises
    ------
    TypeError, ValueError
        For bad settings; when called, for inputs of the wrong width, or
        position ids without a leading axis of 3, of a non-integer dtype or
        of a shape that does not fit the inputs.

    Examples
    --------
    >>> import torch
    >>> from pe.nn import MultimodalRotaryEmbedding
    >>> from pe.nn.functional import mrope_position_ids
    >>> rope = MultimodalRotaryEmbedding(16, (2, 3, 3), base=1e6)
    >>> types = torch.tensor([[0, 0, 1, 1, 1, 1, 0]])  # text, a 2 x 2-token image, text
    >>> ids, deltas = mrope_position_ids(types, image_grid_thw=torch.tensor([[1, 4, 4]]))
    >>> ids[:, 0]
    tensor([[0, 1, 2, 2, 2, 2, 4],
            [0, 1, 2, 2, 3, 3, 4],
            [0, 1, 2, 3, 2, 3, 4]])
    >>> q = k = torch.randn(1, 2, 7, 16)
    >>> rope(q, k, ids)[0].shape
    torch.Size([1, 2, 7, 16])

    Qwen3-VL's arrangement:

    >>> rope = MultimodalRotaryEmbedding(16, (3, 3, 2), interleaved=True)
    >>> rope.interleaved, rope.mrope_section
    (True, (3, 3, 2))
    """

    def __init__(
        self,
        head_dim: int,
        mrope_section: Sequence[int],
        *,
        base: float | None = None,
        layout: str = "concatenated",
        interleaved: bool = False,
        scaling: Mapping[str, Any] | None = None,
        max_position_embeddings: int | None = None,
    ) -> None:
        rope = mrope(
            head_dim,
            mrope_section,
            base=10000.0 if base is None else base,
            interleaved=interleaved,
        )
        if scaling is None:
            scaled = _Scaled(rope.frequencies, "default", 1.0, 10000.0 if base is None else base)
        else:
            scaled = _scaled(
                scaling,
                rope.frequencies.size * 2,
                base,
                max_position_embeddings,
                rope.sections,
                bool(interleaved),
            )
            rope = rope._replace(frequencies=scaled.frequencies)
        self._setup(
            rope,
            head_dim,
            scaled.base,
            layout,
            rule=scaled.rule,
            attention_factor=scaled.attention_factor,
        )
        self.mrope_section = rope.sections
        self.interleaved = bool(interleaved)

    @classmethod
    def from_preset(cls, name: str) -> MultimodalRotaryEmbedding:
        """Build the module from an M-RoPE preset (``"qwen2-vl"``, ``"qwen2.5-vl"``).

        Examples
        --------
        >>> from pe.nn import MultimodalRotaryEmbedding
        >>> rope = MultimodalRotaryEmbedding.from_preset("qwen2-vl")
        >>> rope.head_dim, rope.mrope_section, rope.base
        (128, (16, 24, 24), 1000000.0)
        """
        kinds = [key for key, preset in grid_rope_presets.items() if preset.kind == "mrope"]
        if name not in kinds:
            raise ValueError(f"name must be one of {', '.join(map(repr, kinds))}; got {name!r}")
        preset = grid_rope_presets[name]
        return cls(preset.head_dim, preset.widths, base=preset.base, layout=preset.layout)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> MultimodalRotaryEmbedding:  # type: ignore[override]
        """Build the module from a Qwen2-VL, Qwen2.5-VL or Qwen3-VL ``config.json`` as a dict.

        The config is read by `pe.read_config`, as for `RotaryEmbedding`: the
        head width, ``rope_theta`` (in the rope dict first, as transformers 5;
        without one, the model type's default in transformers: 1e6 for
        Qwen2-VL and Qwen2.5-VL, 5e5 for Qwen3-VL), ``max_position_embeddings``,
        ``model_type``, and ``rope_scaling`` (or ``rope_parameters``) with its
        ``mrope_section``, ``mrope_interleaved`` and rule (``rope_type``:
        ``default``, ``linear``, ``yarn`` or ``llama3`` are applied, as
        transformers' Qwen VL rotary modules do; ``dynamic`` and ``longrope``
        are refused). transformers' modules do not read ``mrope_interleaved``:
        Qwen3-VL's (``model_type`` ``qwen3_vl``, ``qwen3_vl_moe``, ``qwen3_5``,
        ``qwen3_5_moe``) always interleave, and Qwen2-VL's and Qwen2.5-VL's
        never do. pe follows the model type, and the key for other types; a
        key that contradicts the model type is refused.

        Raises
        ------
        TypeError, ValueError
            For a config that is not a dict, has no ``mrope_section``, no
            head width (or a ``hidden_size`` or ``num_attention_heads`` that
            is not a positive integer), an ``mrope_interleaved`` that is not a
            bool or that contradicts ``model_type``, or a rule pe does not
            apply.

        Examples
        --------
        >>> from pe.nn import MultimodalRotaryEmbedding
        >>> config = {"hidden_size": 3584, "num_attention_heads": 28, "rope_theta": 1000000.0,
        ...           "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}
        >>> MultimodalRotaryEmbedding.from_config(config).mrope_section
        (16, 24, 24)
        >>> qwen3_vl = {"model_type": "qwen3_vl", "text_config": {
        ...     "head_dim": 128, "rope_theta": 5000000, "rope_scaling": {
        ...         "rope_type": "default", "mrope_interleaved": True,
        ...         "mrope_section": [24, 20, 20]}}}
        >>> MultimodalRotaryEmbedding.from_config(qwen3_vl).interleaved
        True
        """
        kind = read_config(config).of_type(None)
        rule_from = dict(kind.sources).get("rule", "")
        where = rule_from if rule_from.startswith("config") else "config['rope_scaling']"
        if not kind.rotated or kind.mrope is None:
            raise ValueError(
                "config needs rope_scaling (or rope_parameters) with an mrope_section; got "
                f"{kind.scaling!r}"
            )
        if kind.partial_rotary_factor not in (None, 1.0):
            raise ValueError(
                f"config's partial_rotary_factor={kind.partial_rotary_factor!r} (Qwen3.5's "
                "quarter of each head, say): pe's M-RoPE turns the whole head; refused rather "
                "than turn dimensions the model leaves alone"
            )
        sections, interleaved = kind.mrope
        try:
            return cls(
                kind.head_dim,
                sections,
                base=kind.base_beside,
                interleaved=interleaved,
                scaling=kind.scaling,
                max_position_embeddings=kind.max_position_embeddings,
            )
        except (TypeError, ValueError) as error:
            raise type(error)(str(error).replace("scaling", where, 1)) from None

    def _axis_last(self, position_ids: Tensor) -> Tensor:
        position_ids = self._positions_tensor(position_ids, "position_ids")
        if position_ids.is_floating_point():
            raise TypeError(
                f"position_ids must be an integer tensor; got dtype {position_ids.dtype}"
            )
        if position_ids.dim() not in (2, 3) or position_ids.shape[0] != 3:
            raise ValueError(
                "position_ids must have shape (3, batch, seq) or (3, seq): a temporal, height "
                f"and width id per token; got {tuple(position_ids.shape)}. 1-D positions are "
                "not M-RoPE's positions once the prompt holds an image or a video (build them "
                "with pe.nn.functional.mrope_position_ids); for text alone pass "
                "positions.expand(3, -1, -1)"
            )
        return position_ids.movedim(0, -1)

    def rotate(self, x: Tensor, position_ids: Tensor) -> Tensor:  # type: ignore[override]
        """Rotate `x` (``(..., seq, head_dim)``) by M-RoPE ids ``(3, [batch,] seq)``.

        The same ids for every head; see `forward`.
        """
        return self._rotate_grid(x, self._axis_last(position_ids), "x")

    def forward(self, q: Tensor, k: Tensor, position_ids: Tensor) -> tuple[Tensor, Tensor]:  # type: ignore[override]
        """Rotate queries and keys by their (temporal, height, width) ids.

        Parameters
        ----------
        q, k : torch.Tensor
            Floating-point tensors of shape ``(batch, heads, seq, head_dim)``
            (or ``(..., seq, head_dim)``).
        position_ids : torch.Tensor
            Integer ids of shape ``(3, batch, seq)`` or ``(3, seq)``.

        Returns
        -------
        tuple of torch.Tensor
            The rotated queries and keys, in their own dtypes.
        """
        ids = self._axis_last(position_ids)
        return self._rotate_grid(q, ids, "q"), self._rotate_grid(k, ids, "k")

    def extra_repr(self) -> str:
        text = (
            f"head_dim={self.head_dim}, mrope_section={self.mrope_section}, base={self.base}, "
            f"layout={self.layout!r}"
        )
        if self.interleaved:
            text += ", interleaved=True"
        if self.rule != "default":
            text += f", rule={self.rule!r}, attention_factor={self.attention_factor:g}"
        return text


def grid_position_ids(shape: Sequence[int], *, device: Any = None) -> Tensor:
    """Coordinates of every cell of a grid as an int64 tensor ``(prod(shape), len(shape))``.

    The torch form of `pe.grid_positions` (row-major: the last axis fastest).
    Flux's image ids are ``grid_position_ids((1, rows, columns))``: index 0,
    then row and column.

    Examples
    --------
    >>> from pe.nn.functional import grid_position_ids
    >>> grid_position_ids((1, 2, 2))
    tensor([[0, 0, 0],
            [0, 0, 1],
            [0, 1, 0],
            [0, 1, 1]])
    """
    return torch.from_numpy(grid_positions(shape)).to(device)


def _integer_tensor(value: Any, name: str, accepted: str) -> Tensor:
    """Return `value`, an integer tensor of any integer dtype, as int64 (its values).

    Floating-point, complex and bool tensors are refused (a bool is no count
    and a complex number no position); a uint64 value of ``2**63`` or more, which
    int64 cannot hold, too.
    """
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be {accepted}; got {type(value).__name__}")
    if value.is_floating_point() or value.is_complex() or value.dtype == torch.bool:
        raise TypeError(f"{name} must be {accepted}; got dtype {value.dtype}")
    converted = value.to(torch.int64)
    if value.dtype == torch.uint64 and converted.numel() and bool((converted < 0).any()):
        raise ValueError(f"{name} holds a uint64 value of 2**63 or more")
    return converted


def _as_numpy_ints(value: Any, name: str) -> Any:
    if isinstance(value, Tensor):
        return _integer_tensor(value, name, "an integer tensor").detach().cpu().numpy()
    return value


def mrope_position_ids(
    token_types: Tensor,
    image_grid_thw: Tensor | None = None,
    video_grid_thw: Tensor | None = None,
    *,
    attention_mask: Tensor | None = None,
    spatial_merge_size: int = 2,
    tokens_per_second: float | None = None,
    second_per_grid: Tensor | Sequence[float] | None = None,
    text_after_vision: str = "max",
    frames_separately: bool = False,
) -> tuple[Tensor, Tensor]:
    """M-RoPE position ids of a batch of prompts, and their rope deltas.

    The batched torch form of `pe.mrope_position_ids`, with transformers'
    arguments: grids are taken in order across the batch, padding (where
    `attention_mask` is 0) is skipped and gets id 0.

    Parameters
    ----------
    token_types : torch.Tensor
        Integer ``(batch, seq)``: 0 text, 1 image, 2 video (``mm_token_type_ids``).
    image_grid_thw, video_grid_thw : torch.Tensor, optional
        ``(count, 3)`` integer grids of every image and video of the batch,
        as the processor returns them (one row per video).
    attention_mask : torch.Tensor, optional
        ``(batch, seq)``, 1 for real tokens and 0 for padding.
    spatial_merge_size, tokens_per_second, second_per_grid : optional
        As in `pe.mrope_position_ids` (`second_per_grid`: one per video of
        the batch).
    text_after_vision : {"max", "spatial"}, default "max"
        As in `pe.mrope_position_ids`: ``"max"`` continues the text one past
        the largest id of the block before it (the rule the Qwen models were
        trained with), ``"spatial"`` from ``start + max(h, w)`` as
        transformers 5's ``get_rope_index``.
    frames_separately : bool, default False
        Qwen3-VL: every frame of a video is its own run, after its
        timestamp (text); `video_grid_thw` is split by frame here, as
        transformers' ``Qwen3VLModel.get_rope_index`` splits it.

    Returns
    -------
    tuple of torch.Tensor
        int64 ``position_ids`` ``(3, batch, seq)`` and ``rope_deltas``
        ``(batch, 1)``, on the device of `token_types`.

    Raises
    ------
    TypeError, ValueError
        As `pe.mrope_position_ids`, naming the row; and for a `token_types`
        or `attention_mask` of the wrong shape or dtype.

    Examples
    --------
    >>> import torch
    >>> from pe.nn.functional import mrope_position_ids
    >>> types = torch.tensor([[0, 1, 1, 1, 1, 0], [0, 0, 0, 0, 0, 0]])
    >>> ids, deltas = mrope_position_ids(types, torch.tensor([[1, 4, 4]]))
    >>> ids[1, 0], deltas.flatten()
    (tensor([0, 1, 1, 2, 2, 3]), tensor([-2,  0]))
    """
    if not isinstance(token_types, Tensor) or token_types.dim() != 2:
        got = tuple(token_types.shape) if isinstance(token_types, Tensor) else type(token_types)
        raise ValueError(f"token_types must be a (batch, seq) integer tensor; got {got}")
    types = _as_numpy_ints(token_types, "token_types")
    mask = None
    if attention_mask is not None:
        if not isinstance(attention_mask, Tensor) or attention_mask.shape != token_types.shape:
            got = tuple(attention_mask.shape) if isinstance(attention_mask, Tensor) else "no tensor"
            raise ValueError(
                f"attention_mask must be a tensor of the shape of token_types "
                f"{tuple(token_types.shape)}; got {got}"
            )
        mask = attention_mask.detach().cpu().numpy().astype(bool)
    settings = _check_settings(
        spatial_merge_size, tokens_per_second, text_after_vision, frames_separately
    )
    images = _grids(_as_numpy_ints(image_grid_thw, "image_grid_thw"), "image_grid_thw")
    videos = _grids(_as_numpy_ints(video_grid_thw, "video_grid_thw"), "video_grid_thw")
    seconds_values = (
        second_per_grid.detach().cpu().numpy()
        if isinstance(second_per_grid, Tensor)
        else second_per_grid
    )
    _check_seconds_used(seconds_values, settings)
    seconds = _seconds(seconds_values, len(videos))
    items = _video_items(videos, seconds, settings, int(types.size))
    image_iter, video_iter = iter(images), iter(items)
    batch, seq = types.shape
    ids = np.zeros((3, batch, seq), dtype=np.int64)
    deltas = np.zeros((batch, 1), dtype=np.int64)
    for row in range(batch):
        keep = np.ones(seq, dtype=bool) if mask is None else mask[row]
        try:
            row_ids, delta = mrope_sequence(
                _token_types(types[row][keep]), image_iter, video_iter, settings
            )
        except ValueError as error:
            raise ValueError(f"row {row}: {error}") from None
        ids[:, row, keep] = row_ids
        deltas[row, 0] = delta
    _check_leftovers(image_iter, video_iter, settings, "the batch's")
    device = token_types.device
    return torch.from_numpy(ids).to(device), torch.from_numpy(deltas).to(device)


def mrope_decode_position_ids(rope_deltas: Tensor, start: int | Tensor, count: int = 1) -> Tensor:
    """M-RoPE ids of new tokens after a multimodal prompt: ``start + delta + k`` on all three axes.

    Parameters
    ----------
    rope_deltas : torch.Tensor
        ``(batch, 1)`` integers from `mrope_position_ids` (any integer dtype).
    start : int or torch.Tensor
        Real (unpadded) tokens before the new ones: an int for the whole
        batch, or a ``(batch,)`` integer tensor.
    count : int, default 1
        How many new tokens.

    Returns
    -------
    torch.Tensor
        int64, shape ``(3, batch, count)``.

    Raises
    ------
    TypeError, ValueError
        For `rope_deltas` that is not a ``(batch, 1)`` integer tensor (bool,
        complex and floating-point dtypes are refused), a `start` of the
        wrong kind or shape, a negative `count`, or positions that would lie
        beyond ``±(2**31 - 1)`` (`pe.MAX_POSITION`; checked before anything
        is allocated).

    Examples
    --------
    >>> import torch
    >>> from pe.nn.functional import mrope_decode_position_ids
    >>> mrope_decode_position_ids(torch.tensor([[-2], [0]]), start=6)[:, :, 0]
    tensor([[4, 6],
            [4, 6],
            [4, 6]])
    """
    if not isinstance(rope_deltas, Tensor) or rope_deltas.dim() != 2 or rope_deltas.shape[1] != 1:
        got = tuple(rope_deltas.shape) if isinstance(rope_deltas, Tensor) else type(rope_deltas)
        raise ValueError(f"rope_deltas must be a (batch, 1) integer tensor; got {got}")
    deltas = _integer_tensor(rope_deltas, "rope_deltas", "a (batch, 1) integer tensor")
    if not is_integer(count) or int(count) < 0:
        raise ValueError(f"count must be a non-negative integer; got {count!r}")
    count = int(count)
    batch = rope_deltas.shape[0]
    device = rope_deltas.device
    if isinstance(start, Tensor):
        if tuple(start.shape) != (batch,):
            raise ValueError(
                f"start must be an int or a ({batch},) integer tensor; got shape "
                f"{tuple(start.shape)}, dtype {start.dtype}"
            )
        starts = _integer_tensor(start, "start", f"an int or a ({batch},) integer tensor")
        first = starts.to(device)[:, None]
        start_low, start_high = _bounds(starts)
    else:
        start_low = start_high = check_offset(start, name="start")
        first = torch.full((batch, 1), start_low, device=device, dtype=torch.long)
    delta_low, delta_high = _bounds(deltas)
    # The same limits as pe.mrope_decode_positions: start + delta and start + delta + count.
    check_offset(start_low + delta_low, name="start + delta")
    check_offset(start_high + delta_high, name="start + delta")
    check_offset(start_high + delta_high + count, name="start + delta + count")
    steps = torch.arange(count, device=device)[None, :]
    positions = first + deltas + steps  # (batch, count)
    return positions[None].expand(3, -1, -1).clone()


def _bounds(values: Tensor) -> tuple[int, int]:
    """Return the smallest and largest of int64 `values` as Python ints ((0, 0) if empty)."""
    if values.numel() == 0:
        return 0, 0
    low, high = torch.aminmax(values)
    return int(low), int(high)
