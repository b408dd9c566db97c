r"""Rotary position embedding (RoPE): rotate queries and keys by their positions.

RoPE (Su et al., 2021) applies the rotation of the sinusoidal encoding (the
rotation chapter of the guide) to the queries and keys themselves: pair $i$
of a vector at position $m$ is turned by the angle $m\theta_i$, with
$\theta_i = b^{-2i/d}$ as in the sinusoidal encoding. Since rotations compose,
$\langle R_m q, R_n k\rangle = \langle q, R_{n-m} k\rangle$: the score depends on
the positions only through $n - m$.

Two layouts are in use, named as the sinusoidal table's layouts in `pe`
(`pe.convert_layout`): *interleaved* pairs dimensions $(2i, 2i+1)$ (RoFormer,
GPT-J); *concatenated* pairs $(i, i + d/2)$ (GPT-NeoX, LLaMA; Hugging Face's
``rotate_half``, and ``"half"`` in pe 0.1.0). They are the same rotation after
a fixed permutation of the head dimensions (`convert_rotary_layout`).

Long contexts change the frequencies by a scaling rule (`pe.rope_frequencies`):
the module takes the same ``scaling`` dict as a model's ``config.json``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from pe._deprecation import deprecated
from pe._layout import layout_permutation
from pe._rope import _base, _rule_of, layer_parameters, rope_frequencies
from pe._validation import MAX_POSITION, check_d_model, check_offset, is_integer
from pe.nn._common import check_layout_choice

__all__ = ["RotaryEmbedding", "convert_rotary_layout"]

_LAYOUTS = ("interleaved", "concatenated")


def _check_rotary_layout(value: Any, name: str) -> str:
    """Return the layout `value` names, accepting pe 0.1.0's ``"half"`` with a warning."""
    if isinstance(value, str) and value == "half":
        deprecated(f"{name}='half'", f"{name}='concatenated' (the same layout)", stacklevel=4)
        value = "concatenated"
    return check_layout_choice(value, name, _LAYOUTS)


def convert_rotary_layout(x: Tensor, source: str, target: str) -> Tensor:
    """Reorder the last dimension of queries, keys (or projection rows) between layouts.

    ``interleaved`` pairs dimensions ``(2i, 2i + 1)``; ``concatenated`` pairs
    ``(i, i + d/2)``, the words `pe.convert_layout` uses for the same orders.
    Converting both queries and keys leaves every attention score unchanged; for
    a model's weights, permute the output rows of the query and key projections.

    Parameters
    ----------
    x : torch.Tensor
        Any tensor with at least one dimension; the last one is reordered.
    source, target : {"interleaved", "concatenated"}
        The layouts to convert from and to (``"half"``, pe 0.1.0's name for
        ``"concatenated"``, still works with a `DeprecationWarning`).

    Returns
    -------
    torch.Tensor
        A new tensor of the same shape, dtype and device.

    Raises
    ------
    TypeError, ValueError
        For an `x` that is not a tensor of at least one dimension, or an
        unknown layout.

    Examples
    --------
    >>> import torch
    >>> from pe.nn.functional import convert_rotary_layout
    >>> convert_rotary_layout(torch.arange(6.0), "interleaved", "concatenated")
    tensor([0., 2., 4., 1., 3., 5.])
    """
    if not isinstance(x, Tensor) or x.dim() == 0:
        got = "a 0-d tensor" if isinstance(x, Tensor) else type(x).__name__
        raise TypeError(f"x must be a tensor with at least one dimension; got {got}")
    source = _check_rotary_layout(source, "source")
    target = _check_rotary_layout(target, "target")
    perm = layout_permutation(x.shape[-1], source, target)  # type: ignore[arg-type]
    return x[..., torch.from_numpy(np.asarray(perm)).to(x.device)]


_TABLE_MIN = 256  # shortest table kept; tables grow to the next power of two
_TABLE_DIRECT = 1 << 16  # positions above this, and sparse, are computed directly


def _compiling() -> bool:
    """Tell whether dynamo or torch.export is tracing (no cache, no host sync then)."""
    return bool(torch.compiler.is_compiling() or torch.compiler.is_exporting())


# Keys that hold RoPE settings, and the keys under which a wrapper config (multimodal,
# retrieval, omni) keeps the language model whose settings they are.
_ROPE_KEYS = ("rope_parameters", "rope_scaling", "rope_theta")
_WRAPPERS = ("text_config", "vlm_config", "thinker_config")


def _language_config(config: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return `config`, or the language model's config inside a wrapper without RoPE settings."""
    if not any(key in config for key in _ROPE_KEYS):
        for key in _WRAPPERS:
            if isinstance(config.get(key), Mapping):
                return _language_config(config[key])
    return config


def _holders(config: Mapping[str, Any]) -> list[str]:
    """Name the sub-configs that hold RoPE settings (an encoder and a decoder, say)."""
    return [
        f"config[{key!r}]"
        for key, value in config.items()
        if isinstance(value, Mapping) and any(name in value for name in _ROPE_KEYS)
    ]


def _positive_int(config: Mapping[str, Any], key: str) -> int:
    value = config[key]
    if not is_integer(value):
        raise TypeError(
            f"config[{key!r}] must be a positive integer; got {value!r} "
            f"(type {type(value).__name__})"
        )
    if int(value) < 1:
        raise ValueError(f"config[{key!r}] must be a positive integer; got {int(value)}")
    return int(value)


def _config_head_dim(config: Mapping[str, Any], layer_type: str | None) -> tuple[int, str]:
    """Return the head width transformers reads, and where it was read.

    ``head_dim``, else DeepSeek's rotated part (``qk_rope_head_dim``, which
    transformers' DeepSeek configs copy into ``head_dim``), else
    ``hidden_size // num_attention_heads``; a layer type's own ``head_dim`` in
    ``per_layer_config`` (Gemma 4's global layers) comes first.
    """
    overrides = config.get("per_layer_config")
    kinds = config.get("layer_types")
    if layer_type is not None and isinstance(overrides, Mapping) and isinstance(kinds, list):
        for key, override in overrides.items():
            index = int(key) if isinstance(key, str) and key.isdigit() else key
            if (
                is_integer(index)
                and 0 <= index < len(kinds)
                and kinds[index] == layer_type
                and isinstance(override, Mapping)
                and override.get("head_dim") is not None
            ):
                where = f"config['per_layer_config'][{key!r}]['head_dim']"
                return check_d_model(override["head_dim"], name=where), where
    for key in ("head_dim", "qk_rope_head_dim"):
        if config.get(key) is not None:
            return check_d_model(config[key], name=f"config[{key!r}]"), f"config[{key!r}]"
    if "hidden_size" not in config or "num_attention_heads" not in config:
        holders = _holders(config)
        if holders and not any(key in config for key in _ROPE_KEYS):
            raise ValueError(
                f"config has no RoPE settings of its own; {', '.join(holders)} "
                f"{'holds' if len(holders) == 1 else 'hold'} some: pass the one you mean"
            )
        raise ValueError(
            "config needs head_dim, or hidden_size and num_attention_heads; got keys "
            f"{sorted(map(str, config))}"
        )
    hidden = _positive_int(config, "hidden_size")
    heads = _positive_int(config, "num_attention_heads")
    where = f"hidden_size // num_attention_heads = {hidden} // {heads}"
    if hidden < heads:
        raise ValueError(
            f"config's head width {where} is 0; hidden_size must be at least num_attention_heads"
        )
    return check_d_model(hidden // heads, name=f"the head width {where}"), where


def _fraction_for(rotated: Any, head_dim: int) -> float:
    """Return the fraction whose truncated product with `head_dim` is exactly `rotated`.

    ``rotated / head_dim`` can round below the ratio (60 / 88), and
    ``int(88 * (60 / 88))`` is then 59: step up to the next float until the
    product truncates to the width asked for.
    """
    if not is_integer(rotated) or isinstance(rotated, bool):
        raise TypeError(
            f"config['rotary_dim'] must be a positive even integer; got {rotated!r} "
            f"(type {type(rotated).__name__})"
        )
    width = int(rotated)
    if width < 2 or width % 2 or width > head_dim:
        raise ValueError(
            f"config['rotary_dim'] must be a positive even integer up to head_dim={head_dim}; "
            f"got {width}"
        )
    fraction = width / head_dim
    while int(head_dim * fraction) < width:
        fraction = math.nextafter(fraction, 2.0)
    return fraction


class RotaryEmbedding(nn.Module):
    r"""Rotate queries and keys by their positions, with any RoPE scaling rule.

    Parameters
    ----------
    head_dim : int
        Size of each head's query and key vectors; a positive even integer.
    base : float, optional
        The base $b$ of the frequencies $\theta_i = b^{-2i/d}$ (``rope_theta``):
        ``scaling['rope_theta']`` if the dict has it, else this, else 10000.
    layout : {"interleaved", "concatenated"}, default "interleaved"
        Which dimensions form a rotated pair (see `convert_rotary_layout`);
        Hugging Face's Llama-style models use ``"concatenated"`` (``"half"``
        in pe 0.1.0, still accepted with a `DeprecationWarning`).
    scaling : dict, optional
        A config's ``rope_scaling`` / ``rope_parameters`` dict: see
        `pe.rope_frequencies` for the rules and their keys.
    max_position_embeddings : int, optional
        The config's ``max_position_embeddings``, read by the ``dynamic`` and
        ``longrope`` rules (and ``yarn`` without
        ``original_max_position_embeddings``).
    partial_rotary_factor : float, optional
        Fraction of each head that is rotated: the first
        ``int(head_dim * partial_rotary_factor)`` dimensions; the rest pass
        through unchanged. ``scaling['partial_rotary_factor']`` comes first;
        default 1.0.
    seq_len : int, optional
        The length the frequencies are fixed for, read by the two rules that
        depend on the length (``dynamic``, ``longrope``); default
        `max_position_embeddings`. See Notes.

    Attributes
    ----------
    frequencies : numpy.ndarray
        float64 frequencies of the rotated pairs (read-only).
    attention_factor : float
        The factor cos and sin are multiplied by.
    rotary_dim : int
        Number of rotated dimensions.

    Notes
    -----
    *The table.* cos and sin (times the attention factor) are computed in
    float64 from integer positions and rounded once to float32 (float64 for
    float64 inputs): within half a float32 unit of the exact value at any
    position. The table is kept per device and dtype and grows, to the next
    power of two, when a longer sequence arrives; it is a plain attribute,
    not a buffer, so ``module.to(torch.bfloat16)`` cannot round the
    frequencies. The rotation is done in float32 and the result cast back to
    the input's dtype. Under ``torch.compile`` and ``torch.export`` the same
    float64 formula runs inside the graph instead of a table lookup.

    *Position ids.* For a tensor of shape ``(..., seq, head_dim)``:
    ``(seq,)`` applies to every row; a tensor with one dimension fewer than
    the input is broadcast against its shape without the last dimension;
    ``(batch, seq)`` with a 4-D or wider input is read as one row per batch
    entry, shared by every head (Hugging Face's convention). Any other shape
    is ambiguous and raises.

    *Length-dependent rules.* Transformers recomputes ``dynamic`` and
    ``longrope`` frequencies from the longest position of each call, so keys
    cached during a short prefill were rotated with other frequencies than
    the queries of a later, longer call. Here the frequencies are fixed when
    the module is built (from `seq_len`), so a prompt processed at once and
    the same prompt decoded token by token give the same scores.

    Raises
    ------
    TypeError, ValueError
        At construction, for a `head_dim` that is not a positive even integer,
        a `base` that is not a finite number greater than 1, an unknown
        `layout`, or a bad `scaling` (see `pe.rope_frequencies`). When called,
        for queries or keys that are not floating-point tensors of shape
        ``(..., seq, head_dim)``, an `offset` that is not an integer,
        non-integer positions, positions beyond ``±(2**31 - 1)``, or positions
        of an ambiguous shape.

    Examples
    --------
    >>> import torch
    >>> from pe.nn import RotaryEmbedding
    >>> rope = RotaryEmbedding(head_dim=8)
    >>> q, k = torch.randn(2, 4, 10, 8), torch.randn(2, 4, 10, 8)  # (batch, heads, seq, dim)
    >>> q_rot, k_rot = rope(q, k)
    >>> q_rot.shape
    torch.Size([2, 4, 10, 8])

    Llama 3.1's scaling, from its config:

    >>> llama31 = {"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000.0,
    ...            "max_position_embeddings": 131072,
    ...            "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
    ...                             "high_freq_factor": 4.0,
    ...                             "original_max_position_embeddings": 8192}}
    >>> rope = RotaryEmbedding.from_config(llama31)
    >>> rope.rule, rope.layout, rope.rotary_dim, rope.attention_factor
    ('llama3', 'concatenated', 128, 1.0)
    """

    def __init__(
        self,
        head_dim: int,
        *,
        base: float | None = None,
        layout: str = "interleaved",
        scaling: Mapping[str, Any] | None = None,
        max_position_embeddings: int | None = None,
        partial_rotary_factor: float | None = None,
        seq_len: int | None = None,
    ) -> None:
        super().__init__()
        result = rope_frequencies(
            head_dim,
            base=base,
            scaling=scaling,
            max_position_embeddings=max_position_embeddings,
            seq_len=seq_len if seq_len is not None else max_position_embeddings,
            partial_rotary_factor=partial_rotary_factor,
        )
        parameters, _ = layer_parameters(scaling)  # flat: rope_frequencies took it
        self.head_dim = int(head_dim)
        theta = parameters.get("rope_theta")  # the dict's value comes first, as there
        self.base = float(theta if theta is not None else 10000.0 if base is None else base)
        self.layout = _check_rotary_layout(layout, "layout")
        self.rule = _rule_of(parameters, "scaling")
        if self.rule == "dynamic" and seq_len is None:
            warnings.warn(
                "rule 'dynamic' depends on the sequence length and seq_len was not given: the "
                f"frequencies are fixed for max_position_embeddings={max_position_embeddings}, "
                "where dynamic NTK leaves them unscaled. Pass seq_len= the longest length the "
                "module will serve",
                UserWarning,
                stacklevel=2,
            )
        frequencies = result.frequencies
        frequencies.flags.writeable = False
        self.frequencies = frequencies
        self.attention_factor = float(result.attention_factor)
        self.rotary_dim = 2 * int(frequencies.size)
        # float64 on the CPU, never a buffer: .to(dtype) must not round it.
        self._frequencies64 = torch.from_numpy(frequencies.copy())
        self._tables: dict[tuple[str, torch.dtype], tuple[Tensor, Tensor]] = {}

    @classmethod
    def from_config(
        cls,
        config: Mapping[str, Any],
        *,
        layout: str = "concatenated",
        seq_len: int | None = None,
        layer_type: str | None = None,
    ) -> RotaryEmbedding:
        """Build the module from a model's ``config.json`` (as a dict), as transformers 5 reads it.

        Reads ``rope_scaling`` or ``rope_parameters`` (flat, or nested by layer
        type), ``rope_theta`` and ``partial_rotary_factor`` (inside that dict
        first, as transformers 5 reads them, else at the top level; a
        disagreement between the two gives a warning),
        ``max_position_embeddings``, ``original_max_position_embeddings``
        (Phi-3 keeps it at the top level, where it wins for a flat dict), the
        head width (``head_dim``, or ``qk_rope_head_dim``, DeepSeek's rotated
        part, or ``hidden_size // num_attention_heads``; a layer
        type's own ``head_dim`` in ``per_layer_config`` first) and GPT-NeoX's
        ``rotary_pct`` or GPT-J's ``rotary_dim``. A config without RoPE
        settings of its own that wraps a language model (``text_config``,
        ``vlm_config``, ``thinker_config``) is read there. Other keys are
        ignored.

        Parameters
        ----------
        config : mapping
            The configuration, e.g. ``json.load`` of a ``config.json`` or a
            transformers config's ``to_dict()``.
        layout : {"concatenated", "interleaved"}, default "concatenated"
            Hugging Face's Llama-style models rotate halves.
        seq_len : int, optional
            As in the constructor. A ``dynamic`` config without it gives
            unscaled frequencies, with a warning.
        layer_type : str, optional
            Which layers' RoPE to build (``"full_attention"``,
            ``"sliding_attention"``...): required when ``rope_parameters`` is
            nested by layer type (Gemma 3 and later); with a flat dict it
            must be one of the config's ``layer_types``, if it lists them.

        Returns
        -------
        RotaryEmbedding

        Raises
        ------
        TypeError, ValueError
            If `config` is not a mapping, has no head width (or a head width,
            ``hidden_size`` or ``num_attention_heads`` that is not a positive
            integer), a nested ``rope_parameters`` and no `layer_type`, or RoPE
            settings that are invalid (see `pe.rope_frequencies`).

        Examples
        --------
        >>> from pe.nn import RotaryEmbedding
        >>> phi2 = {"hidden_size": 2560, "num_attention_heads": 32, "partial_rotary_factor": 0.4}
        >>> RotaryEmbedding.from_config(phi2).rotary_dim
        32
        >>> gemma3 = {"head_dim": 256, "layer_types": ["sliding_attention", "full_attention"],
        ...           "rope_parameters": {
        ...               "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
        ...               "full_attention": {"rope_type": "linear", "factor": 8.0,
        ...                                  "rope_theta": 1000000.0}}}
        >>> rope = RotaryEmbedding.from_config(gemma3, layer_type="full_attention")
        >>> rope.rule, rope.base
        ('linear', 1000000.0)
        """
        if not isinstance(config, Mapping):
            raise TypeError(f"config must be a dict; got {type(config).__name__}")
        config = _language_config(config)
        key = "rope_scaling" if config.get("rope_scaling") else "rope_parameters"
        raw = config.get(key) or {}
        if not isinstance(raw, Mapping):
            raise TypeError(f"config[{key!r}] must be a dict; got {type(raw).__name__}")
        try:
            parameters, _ = layer_parameters(raw, layer_type)
        except (TypeError, ValueError) as error:
            raise type(error)(str(error).replace("scaling", f"config[{key!r}]", 1)) from None
        kinds = config.get("layer_types")
        if (
            layer_type is not None
            and parameters is raw
            and isinstance(kinds, list)
            and layer_type not in kinds
        ):
            raise ValueError(
                f"layer_type={layer_type!r} is not one of the config's layer_types "
                f"({', '.join(map(repr, dict.fromkeys(kinds)))})"
            )
        head_dim, _ = _config_head_dim(config, layer_type)
        fraction = config.get("partial_rotary_factor")
        if fraction is None and config.get("rotary_pct") is not None:
            fraction = config["rotary_pct"]
        if fraction is None and config.get("rotary_dim") is not None:
            fraction = _fraction_for(config["rotary_dim"], head_dim)
        scaling = dict(parameters)
        rule = scaling.get("rope_type") or scaling.get("type") or "default"
        original = config.get("original_max_position_embeddings")
        if original is not None and parameters is raw and rule in ("yarn", "longrope", "llama3"):
            scaling["original_max_position_embeddings"] = original  # Phi-3: the top level wins
        # Beside a dict nested by layer type, rope_theta is only the default of the entries
        # that lack one (transformers' setdefault), so a different value is no disagreement.
        nested = parameters is not raw
        base = config.get("rope_theta")
        if base is not None:
            base = _base(base, "config['rope_theta']")
        return cls(
            head_dim,
            base=None if nested and "rope_theta" in parameters else base,
            layout=layout,
            scaling=scaling or None,
            max_position_embeddings=config.get("max_position_embeddings"),
            partial_rotary_factor=fraction,
            seq_len=seq_len,
        )

    # --8<-- [start:table]
    def _cos_sin(self, positions: Tensor, dtype: torch.dtype) -> tuple[Tensor, Tensor]:
        """Compute cos and sin (times the attention factor) of integer `positions`.

        Angles are float64 products of an integer and a float64 frequency;
        cos and sin are float64, rounded once to `dtype`: exactly rounded but
        for a float64 error far below float32's.
        """
        frequencies = self._frequencies64.to(positions.device)
        angles = positions.to(torch.float64).unsqueeze(-1) * frequencies  # (..., rotary_dim / 2)
        cos = (torch.cos(angles) * self.attention_factor).to(dtype)
        sin = (torch.sin(angles) * self.attention_factor).to(dtype)
        return cos, sin

    def table(
        self, length: int, *, device: Any = None, dtype: Any = torch.float32
    ) -> tuple[Tensor, Tensor]:
        """Return cos and sin of positions ``0 .. length - 1``, from the cache.

        Returns views of the cached table, of shape ``(length, rotary_dim // 2)``;
        the cache (one per device and dtype) grows to the next power of two.
        """
        device = torch.device("cpu") if device is None else torch.device(device)
        key = (str(device), dtype)
        cached = self._tables.get(key)
        if cached is None or cached[0].shape[0] < length:
            size = max(_TABLE_MIN, 1 << max(0, int(length) - 1).bit_length())
            cached = self._cos_sin(torch.arange(size, device=device), dtype)
            self._tables[key] = cached
        return cached[0][:length], cached[1][:length]

    # --8<-- [end:table]

    def rotate(self, x: Tensor, *, offset: int = 0, positions: Tensor | None = None) -> Tensor:
        """Rotate `x` (``(..., seq, head_dim)``) by positions ``offset + 0, 1, ...``.

        `positions`, if given, replaces them: integers of shape ``(seq,)``,
        ``(batch, seq)`` or one dimension fewer than `x` (see Notes of the
        class).
        """
        return self._rotate(x, "x", offset=offset, positions=positions)

    def _check_input(self, x: Tensor, name: str) -> None:
        if not isinstance(x, Tensor) or not x.is_floating_point() or x.dim() < 2:
            got = type(x).__name__
            if isinstance(x, Tensor):
                got = f"shape {tuple(x.shape)}, {x.dtype}"
            raise TypeError(
                f"{name} must be a floating-point tensor of shape (..., seq, head_dim); got {got}"
            )
        if x.shape[-1] != self.head_dim:
            raise ValueError(
                f"{name} must have last dimension head_dim={self.head_dim}; "
                f"got shape {tuple(x.shape)}"
            )

    def _shape_positions(self, positions: Tensor, x: Tensor, name: str) -> Tensor:
        """Apply the documented rule: positions broadcastable to ``x.shape[:-1]``."""
        if (
            not isinstance(positions, Tensor)
            or positions.is_floating_point()
            or positions.is_complex()
            or positions.dtype == torch.bool
        ):
            got = positions.dtype if isinstance(positions, Tensor) else type(positions).__name__
            raise TypeError(f"{name} positions must be an integer tensor; got {got}")
        seq = x.shape[-2]
        leading = x.dim() - 1
        shape = tuple(positions.shape)
        if positions.dim() >= 1 and shape[-1] != seq:
            raise ValueError(
                f"{name} positions must end in the sequence length {seq}; got shape {shape}"
            )
        if positions.dim() == 1 or positions.dim() == leading:
            return positions
        if positions.dim() == 2 and x.dim() >= 4 and shape[0] in (1, x.shape[0]):
            # (batch, seq): one row per batch entry, shared by the heads
            return positions.reshape(shape[0], *([1] * (x.dim() - 3)), seq)
        raise ValueError(
            f"{name} positions of shape {shape} are ambiguous for {name} of shape "
            f"{tuple(x.shape)}: pass (seq,), (batch, seq) with batch = {x.shape[0]}, "
            f"or {leading} dimensions broadcastable to {tuple(x.shape[:-1])}"
        )

    def _rotate(
        self, x: Tensor, name: str, *, offset: int = 0, positions: Tensor | None = None
    ) -> Tensor:
        self._check_input(x, name)
        compute = torch.float64 if x.dtype == torch.float64 else torch.float32
        compiling = _compiling()
        if positions is None:
            start = check_offset(offset)
            if compiling or start < 0:
                cos, sin = self._cos_sin(
                    torch.arange(start, start + x.shape[-2], device=x.device), compute
                )
            else:
                cos, sin = self.table(start + x.shape[-2], device=x.device, dtype=compute)
                cos, sin = cos[start:], sin[start:]
        else:
            positions = self._shape_positions(positions, x, name).to(x.device)
            if compiling or positions.is_meta:
                # Traced, or on the meta device (shapes only): no value can be read.
                cos, sin = self._cos_sin(positions, compute)
            else:
                low, high = (
                    (int(v) for v in torch.aminmax(positions)) if positions.numel() else (0, 0)
                )
                if max(-low, high) > MAX_POSITION:
                    raise ValueError(
                        f"{name} positions must lie in [-{MAX_POSITION}, {MAX_POSITION}]; "
                        f"got {low if -low > high else high}"
                    )
                if low < 0 or high >= max(_TABLE_DIRECT, 4 * positions.numel()):
                    # Negative or far-apart positions: compute them, keep no huge table.
                    cos, sin = self._cos_sin(positions, compute)
                else:
                    table_cos, table_sin = self.table(high + 1, device=x.device, dtype=compute)
                    cos, sin = table_cos[positions], table_sin[positions]
        return self._turn(x, cos, sin, compute, compiling)

    # --8<-- [start:rotate]
    def _turn(
        self, x: Tensor, cos: Tensor, sin: Tensor, compute: torch.dtype, compiling: bool
    ) -> Tensor:
        """Turn each rotated pair (first, second) of `x` by the angle whose cos, sin are given."""
        values = x.to(compute)
        half = self.rotary_dim // 2
        if self.layout == "interleaved":
            first, second = (
                values[..., 0 : self.rotary_dim : 2],
                values[..., 1 : self.rotary_dim : 2],
            )
        else:
            first, second = values[..., :half], values[..., half : self.rotary_dim]
        if compiling or (torch.is_grad_enabled() and x.requires_grad):
            # Traceable and differentiable: four products, one kernel after compilation.
            turned_first = first * cos - second * sin
            turned_second = first * sin + second * cos
            if self.layout == "interleaved":
                turned = torch.stack((turned_first, turned_second), dim=-1).flatten(-2)
            else:
                turned = torch.cat((turned_first, turned_second), dim=-1)
            out = torch.cat((turned, values[..., self.rotary_dim :]), dim=-1)
            return out.to(x.dtype)
        # Eager inference: write each half once, straight into the result.
        out = torch.empty(values.shape, dtype=compute, device=x.device)
        if self.layout == "interleaved":
            out_first, out_second = (
                out[..., 0 : self.rotary_dim : 2],
                out[..., 1 : self.rotary_dim : 2],
            )
        else:
            out_first, out_second = out[..., :half], out[..., half : self.rotary_dim]
        torch.mul(first, cos, out=out_first)
        out_first.addcmul_(second, sin, value=-1.0)
        torch.mul(second, cos, out=out_second)
        out_second.addcmul_(first, sin)
        if self.rotary_dim < self.head_dim:
            out[..., self.rotary_dim :] = values[..., self.rotary_dim :]
        return out.to(x.dtype)

    # --8<-- [end:rotate]

    def forward(
        self,
        q: Tensor,
        k: Tensor,
        *,
        q_positions: Tensor | None = None,
        k_positions: Tensor | None = None,
        offset: int = 0,
    ) -> tuple[Tensor, Tensor]:
        """Rotate queries and keys; positions default to ``offset + 0 .. seq-1`` for each.

        Parameters
        ----------
        q, k : torch.Tensor
            Floating-point tensors of shape ``(..., seq, head_dim)``; the
            sequence lengths of the two may differ.
        q_positions, k_positions : torch.Tensor, optional
            Integer positions within ``±(2**31 - 1)``, of shape ``(seq,)``,
            ``(batch, seq)`` (shared by every head) or one dimension fewer
            than the tensor, broadcastable to its shape without the last
            dimension.
        offset : int, default 0
            First position of both, where positions are not given (the
            number of cached tokens, when decoding).

        Returns
        -------
        tuple of torch.Tensor
            The rotated queries and keys, in their own dtypes.

        Raises
        ------
        TypeError, ValueError
            Naming `q` or `k` for a tensor of the wrong kind or width, or for
            positions out of range or of an ambiguous shape.
        """
        return (
            self._rotate(q, "q", offset=offset, positions=q_positions),
            self._rotate(k, "k", offset=offset, positions=k_positions),
        )

    def extra_repr(self) -> str:
        return (
            f"head_dim={self.head_dim}, base={self.base}, layout={self.layout!r}, "
            f"rule={self.rule!r}, rotary_dim={self.rotary_dim}, "
            f"attention_factor={self.attention_factor!r}"
        )
