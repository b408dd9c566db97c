r"""A model's ``config.json``, read as the model reads it: what each layer's positions get.

A published configuration spreads its RoPE settings over many keys, and a
model family's configuration class in transformers translates some of them
before any rotary module sees them: Gemma 3 keeps the sliding layers' base in
``rope_local_base_freq``, ModernBERT keeps two bases under names of its own,
Llama 4 and SmolLM3 list the layers that are not rotated at all, Cohere 2
rotates its sliding-window layers only, OLMo 3 scales its full-attention
layers only. This module is the one place in pe where each such key's meaning
is decided: `read_config` turns a raw dict (``json.load`` of the file, no
transformers needed) into one `LayerRope` per kind of layer, and
`pe.nn.RotaryEmbedding.from_config` builds its module from that.

The rule is that no key that changes positions is ignored: every key in
`POSITION_KEYS` is either read with transformers' meaning or refused with an
error that names it, and a key that looks like a position setting but is not
in the table is refused too (`tests/test_configs.py` checks that the table
covers every configuration class of the pinned transformers that has RoPE
settings, and compares every file of ``configs/`` with transformers' own
rotary modules, layer type by layer type).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pe._families import CONFIG_CLASSES, FAMILIES, NO_ROPE, TRANSFORMERS_VERSION, Family
from pe._rope import (
    _READ_ELSEWHERE,
    RopeFrequencies,
    _base,
    _length,
    _number,
    _show,
    layer_parameters,
    rope_frequencies,
)
from pe._stack import outside_stacklevel
from pe._validation import check_d_model, is_integer

__all__ = [
    "POSITION_KEYS",
    "LayerRope",
    "ModelRope",
    "PositionKey",
    "read_config",
]


@dataclass(frozen=True)
class PositionKey:
    """What pe does with one key of a ``config.json`` that can change positions.

    ``read`` is True when pe reads the key with transformers' meaning (given in
    ``meaning``), False when it refuses a file that sets it (``meaning`` then
    says why); ``families`` names the transformers model types that use it.

    Examples
    --------
    >>> import pe
    >>> key = pe.POSITION_KEYS["rope_local_base_freq"]
    >>> key.read, key.families
    (True, ('gemma3_text', 'gemma3n_text'))
    >>> pe.POSITION_KEYS["layer_rope_theta"].read
    False
    """

    read: bool
    meaning: str
    families: tuple[str, ...] = ()


def _key(meaning: str, *families: str) -> PositionKey:
    return PositionKey(True, meaning, families)


def _refused(meaning: str, *families: str) -> PositionKey:
    return PositionKey(False, meaning, families)


#: Every top-level key of a ``config.json`` that can change how positions are
#: encoded, with what pe does with it. Keys inside ``rope_scaling`` /
#: ``rope_parameters`` are the rules' own (`pe._rope.ROPE_RULES`).
POSITION_KEYS: dict[str, PositionKey] = {
    # The RoPE dict and its two settings that may sit beside it.
    "rope_scaling": _key("the RoPE dict (rule and its parameters), transformers 4's name"),
    "rope_parameters": _key("the RoPE dict, flat or one per layer type (transformers 5)"),
    "rope_theta": _key("the base b of theta_i = b^(-2i/d); inside the RoPE dict it comes first"),
    "rotary_emb_base": _key("the base, under the name Persimmon and StableLM 1 used", "stablelm"),
    "rope_local_base_freq": _key(
        "the base of the sliding-window layers (default rule); rope_scaling then applies to "
        "the full-attention layers only",
        "gemma3_text",
        "gemma3n_text",
    ),
    "global_rope_theta": _key("the base of the full-attention layers", "modernbert"),
    "local_rope_theta": _key("the base of the sliding-window layers", "modernbert"),
    "max_position_embeddings": _key("the trained (or served) length L that rules read"),
    "original_max_position_embeddings": _key(
        "the pre-training length of a yarn, longrope or llama3 rule; at the top level it wins "
        "over the one in the RoPE dict",
        "phi3",
        "phimoe",
    ),
    # Which dimensions are turned.
    "head_dim": _key("the width of each head"),
    "hidden_size": _key("with num_attention_heads, the head width when head_dim is absent"),
    "num_attention_heads": _key("with hidden_size, the head width when head_dim is absent"),
    "qk_rope_head_dim": _key("the rotated part of each head (MLA)", "deepseek_v2", "deepseek_v3"),
    "partial_rotary_factor": _key("the fraction of each head that is rotated"),
    "rotary_pct": _key("the fraction of each head that is rotated (GPT-NeoX's name)", "gpt_neox"),
    "rope_pct": _key("the fraction of each head that is rotated (StableLM 1's name)", "stablelm"),
    "rotary_dim": _key("the number of rotated dimensions of each head (GPT-J's)", "gptj"),
    "global_head_dim": _key("the head width of the full-attention layers", "gemma4_text"),
    "per_layer_config": _key("settings of single layers; pe reads their head_dim", "gemma4_text"),
    "compress_rope_theta": _key(
        "the base of DeepSeek-V4's compressed branches (rope_parameters['compress'])",
        "deepseek_v4",
    ),
    # Which layers are of which type, and which are not rotated.
    "layer_types": _key("the attention type of each layer, which picks its RoPE entry"),
    "num_hidden_layers": _key("the number of layers (for layer types and NoPE patterns)"),
    "sliding_window_pattern": _key(
        "every n-th layer is full attention, the others sliding (when layer_types is absent)",
        "gemma3_text",
        "cohere2",
    ),
    "global_attn_every_n_layers": _key(
        "layers 0, n, 2n... are full attention, the others sliding", "modernbert"
    ),
    "no_rope_layers": _key("one entry per layer: 1 rotates it, 0 leaves it unrotated (NoPE)"),
    "no_rope_layer_interval": _key(
        "without no_rope_layers, every n-th layer is unrotated", "llama4_text", "smollm3"
    ),
    # How the pairs are laid out.
    "rope_interleave": _key(
        "the checkpoint's rotated dimensions are interleaved pairs (2i, 2i + 1)", "deepseek_v3"
    ),
    "full_attention_interval": _key(
        "every n-th layer is full attention, the others linear attention (no RoPE)",
        "qwen3_next",
        "qwen3_5_text",
    ),
    # Keys of families whose positions pe does not build: refused where they are set.
    "layer_rope_theta": _refused("a base per layer (0: no RoPE)", "granite_swa", "muse_spark"),
    "partial_rotary_factors": _refused("a rotated share per layer", "step3p5"),
    "rope_scaling_layers": _refused("scales only the listed layers", "molmo2"),
    "swa_rope_theta": _refused("the base of the sliding-window layers", "dots3_note"),
    "swa_qk_rope_head_dim": _refused("the rotated width of sliding layers", "dots3_note"),
    "swa_head_dim": _refused("the head width of sliding layers", "inkling"),
    "prefix_dense_sliding_window_pattern": _refused("which layers rotate", "cohere2_moe"),
    "use_mem_rope": _refused("RoPE in the shared attention blocks only", "zamba2"),
    "use_rotary_embedding": _refused("a speech model's own rotary switch", "clvp"),
    "rotary_value": _refused("RoFormer also turns the values", "roformer"),
    "rotary_embedding_base": _refused("a speech conformer's rotary base", "wav2vec2-conformer"),
    "position_embeddings_type": _refused("a speech conformer's position kind", "wav2vec2-bert"),
    "left_max_position_embeddings": _refused("a conformer's relative window", "wav2vec2-bert"),
    "right_max_position_embeddings": _refused("a conformer's relative window", "wav2vec2-bert"),
    "t2u_max_position_embeddings": _refused("a speech decoder's length", "seamless_m4t"),
    "pad_head_dim_to_multiple_of": _refused("pads each head, moving the rotated part", "moonshine"),
    "cross_head_dim": _refused("Dia's cross-attention head width", "dia"),
    **dict.fromkeys(
        (
            "memory_attention_rope_dropout",
            "memory_attention_rope_feat_sizes",
            "memory_attention_rope_k_sizes",
        ),
        _refused("SAM 2's 2-D rotary memory attention (an image model)", "sam2_video"),
    ),
    **dict.fromkeys(
        (
            "num_spatial_rope_pairs_per_axis",
            "num_uid_rope_pairs",
            "spatial_rope_base_frequency",
            "uid_rope_base_frequency",
        ),
        _refused(
            "ESMFold 2's rotary embedding of residues and space (a protein model)", "esmfold2"
        ),
    ),
    # Read by the model outside the rotation: refused, since pe's module would differ.
    "attn_temperature_tuning": _key(
        "Llama 4 multiplies the queries of its unrotated layers at position p by "
        "1 + attn_scale * ln(1 + floor((p + 1) / floor_scale)); pe's NoRotation does too",
        "llama4_text",
    ),
    "attn_scale": _key("the slope of Llama 4's query temperature", "llama4_text"),
    "floor_scale": _key("the step of Llama 4's query temperature", "llama4_text"),
    "position_embedding_type": _refused(
        "selects absolute, relative or rotary position embeddings in BERT-style models; pe "
        "reads RoPE settings only where RoPE is the model's encoding",
    ),
}

# A key whose name looks like a position setting but is not in POSITION_KEYS is refused;
# these names match the pattern and change nothing about positions.
NOT_POSITIONAL: dict[str, str] = {
    "sliding_window": "the width of a sliding-window mask, not a position setting",
    "use_sliding_window": "whether the sliding-window mask is used, not a position setting",
    "max_window_layers": "which layers use the sliding-window mask (Qwen 2), not RoPE",
    "attention_chunk_size": "the width of Llama 4's chunked attention mask, not RoPE",
    "use_qk_norm": "a norm on queries and keys, not on positions",
    "interleave_moe_layer_step": "which layers are mixture-of-experts layers",
    "qk_nope_head_dim": "the unrotated part of each head's queries and keys (MLA): not rotated",
    "v_head_dim": "the width of the values",
    "indexer_rope_interleave": "the pair layout of a sparse-attention indexer's own scoring "
    "heads (GLM-5, DeepSeek-V3.2), not of the attention's queries and keys",
    "index_head_dim": "the head width of a sparse-attention indexer, not of the attention",
    "use_mrope": "not read by transformers 5 (an early Qwen 2 key)",
    "_sliding_window_pattern": "transformers' saved copy of sliding_window_pattern; the "
    "layer_types saved beside it are what is read",
    "cross_layer_interval": "which layers get gated cross-attention to images (IDEFICS)",
    "indexer_head_dim": "the head width of a sparse-attention indexer, not of the attention",
    "linear_head_dim": "the head width of linear-attention layers, which have no RoPE",
    "linear_key_head_dim": "the key width of linear-attention layers, which have no RoPE",
    "linear_value_head_dim": "the value width of linear-attention layers",
    "mamba_head_dim": "the head width of Mamba layers, which have no RoPE",
    "mlp_layer_types": "the kind of each layer's MLP (dense or mixture of experts)",
    "mtp_layer_types": "the layers of a multi-token-prediction head",
    "mtp_mlp_layer_types": "the MLPs of a multi-token-prediction head",
    "moe_layer_interval": "which layers are mixture-of-experts layers",
    "num_position_embeddings": "the size of a vision tower's learned position table",
    "position_embedding_size": "the size of a vision or audio tower's learned position table",
    "perceiver_resampler_attention_head_dim": "the head width of an image resampler",
    "resampler_head_dim": "the head width of an image resampler",
    "qk_head_dim": "the whole query/key head of MLA; the rotated part is qk_rope_head_dim",
}

_POSITIONAL_NAME = re.compile(
    r"rope|rotary|theta|base_freq|nope|mrope|partial_rotary|position_emb|interleav|head_dim"
    r"|window_pattern|attn_every|attention_interval|layer_interval|layer_types"
)

# Wrappers that keep the language model's settings in a sub-config (multimodal, omni).
_WRAPPERS = ("text_config", "language_config", "llm_config", "thinker_config", "vlm_config")
_ROPE_HOLDERS = ("rope_parameters", "rope_scaling", "rope_theta")


@dataclass(frozen=True)
class LayerRope:
    r"""What the positions of one kind of layer get.

    Attributes
    ----------
    kind : str
        The layer type (``"full_attention"``, ``"sliding_attention"``...) or
        ``"all"`` for a config without layer types.
    layers : tuple of int
        The indices of the layers of this kind (empty when the config does not
        say how many layers it has).
    rotated : bool
        False for layers without RoPE (NoPE): their queries and keys are not
        turned at all.
    head_dim : int
        The width of each head.
    scaling : dict
        The flat RoPE dict of these layers, as `pe.rope_frequencies` reads it
        (``rope_type``, ``rope_theta``, the rule's parameters); empty when not
        rotated.
    base_beside : float or None
        The base the config sets beside the dict (``rope_theta`` at the top
        level), read where the dict has none.
    partial_rotary_factor : float or None
        The fraction of each head that is rotated, where the config sets one.
    layout : {"concatenated", "interleaved"}
        Which dimensions form a pair in the model's checkpoint.
    max_position_embeddings : int or None
        The config's ``max_position_embeddings``.
    sources : tuple of (str, str)
        Each setting and the key it was read from.
    reason : str
        For a layer without RoPE, why (naming the key); empty otherwise.
    temperature : (float, float, int) or None
        A query temperature ``(scale, step, shift)``: queries at position $p$
        are multiplied by $1 + \mathrm{scale}\,\ln(1 + \lfloor (p +
        \mathrm{shift})/\mathrm{step}\rfloor)$ (Llama 4's unrotated layers:
        ``(attn_scale, floor_scale, 1)``; Ministral 3 and Mistral 4:
        ``(llama_4_scaling_beta, original_max_position_embeddings, 0)``).

    mrope : (tuple of int, bool) or None
        Multimodal RoPE's ``mrope_section`` and whether its pairs are dealt out
        to time, height and width in turn (Qwen3-VL) rather than in
        consecutive sections (Qwen2-VL, Qwen2.5-VL); None without M-RoPE.

    Examples
    --------
    >>> import pe
    >>> llama4 = {"model_type": "llama4_text", "head_dim": 128, "num_hidden_layers": 4,
    ...           "rope_theta": 500000.0, "no_rope_layers": [1, 1, 1, 0]}
    >>> nope = pe.read_config(llama4).layer(3)
    >>> nope.rotated, nope.rule, nope.reason
    (False, 'none', "config['no_rope_layers'] is 0 for these layers: not rotated (NoPE)")
    >>> nope.temperature  # Llama 4 scales these layers' queries instead
    (0.1, 8192.0, 1)
    """

    kind: str
    layers: tuple[int, ...]
    rotated: bool
    head_dim: int
    scaling: dict[str, Any] = field(default_factory=dict)
    base_beside: float | None = None
    partial_rotary_factor: float | None = None
    layout: str = "concatenated"
    max_position_embeddings: int | None = None
    sources: tuple[tuple[str, str], ...] = ()
    reason: str = ""
    temperature: tuple[float, float, int] | None = None
    mrope: tuple[tuple[int, ...], bool] | None = None

    @property
    def rule(self) -> str:
        """The scaling rule's name; ``"none"`` for a layer without RoPE."""
        if not self.rotated:
            return "none"
        name = self.scaling.get("rope_type") or self.scaling.get("type") or "default"
        return "default" if name == "mrope" else str(name)

    @property
    def base(self) -> float:
        """The base $b$ (``rope_theta``); 10000 where the config sets none."""
        value = self.scaling.get("rope_theta", self.base_beside)
        return 10000.0 if value is None else float(value)

    @property
    def trained_length(self) -> int | None:
        """The pre-training length (``original_max_position_embeddings``, else the longest)."""
        original = self.scaling.get("original_max_position_embeddings")
        if original is not None and self.rule in ("yarn", "longrope", "llama3"):
            return int(original)
        if self.rule == "dynamic" or original is None:
            return self.max_position_embeddings
        return int(original)


@dataclass(frozen=True)
class ModelRope:
    """A model's positions, layer kind by layer kind, as `read_config` reads them.

    Attributes
    ----------
    model_type : str or None
        The config's ``model_type`` (of its language model, for a wrapper).
    where : str
        Where the settings were read: ``"config"`` or a sub-config such as
        ``"config['text_config']"``.
    num_layers : int or None
        ``num_hidden_layers``.
    kinds : tuple of LayerRope
        One entry per kind of layer: per layer type, split into rotated and
        unrotated layers where the config leaves some unrotated.

    Examples
    --------
    >>> import pe
    >>> olmo3 = {"model_type": "olmo3", "hidden_size": 4096, "num_attention_heads": 32,
    ...          "num_hidden_layers": 8, "rope_theta": 500000.0,
    ...          "rope_scaling": {"rope_type": "yarn", "factor": 8.0,
    ...                           "original_max_position_embeddings": 8192}}
    >>> model = pe.read_config(olmo3)
    >>> model.summary()
    'sliding_attention layers 0-2, 4-6: default; full_attention layers 3, 7: yarn'
    >>> model.of_type("sliding_attention").base, model.layer(7).rule
    (500000.0, 'yarn')
    """

    model_type: str | None
    where: str
    num_layers: int | None
    kinds: tuple[LayerRope, ...]

    def layer(self, index: int) -> LayerRope:
        """Return what layer `index` gets (negative indices count from the end)."""
        if not is_integer(index):
            raise TypeError(f"layer must be an integer; got {_show(index)}")
        count = self.num_layers
        if count is None or not any(kind.layers for kind in self.kinds):
            if len(self.kinds) == 1:
                return self.kinds[0]
            raise ValueError(
                f"layer={int(index)}: the config does not say how many layers it has, and its "
                "layers differ; pass layer_type= instead"
            )
        position = int(index) + count if int(index) < 0 else int(index)
        for kind in self.kinds:
            if position in kind.layers:
                return kind
        raise ValueError(f"layer must lie in [-{count}, {count - 1}]; got {int(index)}")

    def of_type(self, layer_type: str | None) -> LayerRope:
        """Return what the layers of `layer_type` get; ``None`` when every layer gets the same."""
        if layer_type is not None and not isinstance(layer_type, str):
            raise TypeError(
                f"layer_type must be a string such as 'full_attention'; got {_show(layer_type)}"
            )
        names = ", ".join(map(repr, dict.fromkeys(kind.kind for kind in self.kinds)))
        if len(self.kinds) == 1 and self.kinds[0].kind == "all":
            return self.kinds[0]  # no layer types: every layer, of whatever type, gets this
        if layer_type is None and not any(kind.layers for kind in self.kinds):
            raise ValueError(
                f"the config holds one RoPE dict per layer type ({names}) and lists no layers; "
                "pass layer_type= one of them"
            )
        if layer_type is None:
            first = self.kinds[0]
            if all(_same_positions(first, kind) for kind in self.kinds[1:]):
                return first
            raise ValueError(
                f"the layers of this config differ in their positions ({self.summary()}); "
                f"pass layer_type= one of {names}, or layer= an index"
            )
        matches = [kind for kind in self.kinds if kind.kind == layer_type]
        if not matches:
            raise ValueError(
                f"layer_type={layer_type!r} is not a layer type of this config: {names}"
            )
        if len(matches) > 1:
            raise ValueError(
                f"layers of type {layer_type!r} differ: {self.summary()}; pass layer= an index"
            )
        return matches[0]

    def select(self, layer: int | None = None, layer_type: str | None = None) -> LayerRope:
        """Return what layer `layer` gets, else what the layers of `layer_type` get."""
        if layer is None:
            return self.of_type(layer_type)
        kind = self.layer(layer)
        if layer_type is not None and kind.kind != layer_type:
            raise ValueError(
                f"layer={layer} is of type {kind.kind!r}, not layer_type={layer_type!r}"
            )
        return kind

    def summary(self) -> str:
        """One phrase per kind: its layers and whether they are rotated."""
        parts = []
        for kind in self.kinds:
            which = _ranges(kind.layers) if kind.layers else "all layers"
            parts.append(f"{kind.kind} {which}: {kind.rule}")
        return "; ".join(parts)


def _same_positions(first: LayerRope, second: LayerRope) -> bool:
    """Tell whether two kinds of layer get the same positions (rotated alike)."""
    return (
        first.rotated
        and second.rotated
        and (first.head_dim, first.layout, first.partial_rotary_factor, first.base_beside)
        == (second.head_dim, second.layout, second.partial_rotary_factor, second.base_beside)
        and first.scaling == second.scaling
    )


def spans(indices: tuple[int, ...] | list[int]) -> str:
    """Write layer indices compactly, runs as ranges: ``0-4, 6, 8-9``."""
    if not indices:
        return ""
    runs: list[list[int]] = [[indices[0], indices[0]]]
    for index in indices[1:]:
        if index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs)


def _ranges(indices: tuple[int, ...]) -> str:
    return ("layer " if len(indices) == 1 else "layers ") + spans(indices)


# --- reading -----------------------------------------------------------------------------


def _warn(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=outside_stacklevel())


def _as_mapping(config: Any) -> Mapping[str, Any]:
    """Accept a dict, or a transformers config object (read through its ``to_dict()``)."""
    if isinstance(config, Mapping):
        return config
    to_dict = getattr(config, "to_dict", None)
    if callable(to_dict):
        result = to_dict()
        if isinstance(result, Mapping):
            return result
    raise TypeError(
        "config must be a dict (json.load of a config.json) or a transformers config object; "
        f"got {type(config).__name__}"
    )


def language_config(config: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    """Return the config that holds the language model's settings, and its name in messages."""
    where = "config"
    while not any(key in config for key in _ROPE_HOLDERS):
        for key in _WRAPPERS:
            inner = config.get(key)
            if isinstance(inner, Mapping):
                config, where = inner, f"{where}[{key!r}]"
                break
        else:
            return config, where
    return config, where


def _holders(config: Mapping[str, Any]) -> list[str]:
    """Name the sub-configs that hold RoPE settings (an encoder and a decoder, say)."""
    return [
        f"config[{key!r}]"
        for key, value in config.items()
        if isinstance(value, Mapping) and any(name in value for name in _ROPE_HOLDERS)
    ]


def _positive_int(config: Mapping[str, Any], key: str, where: str) -> int:
    """Return a size as an int; a float is refused, as transformers' typed fields refuse it."""
    value = config[key]
    if not is_integer(value):
        raise TypeError(
            f"{where}[{key!r}] must be a positive integer; got {_show(value)} "
            f"(type {type(value).__name__})"
        )
    if int(value) < 1:
        raise ValueError(f"{where}[{key!r}] must be a positive integer; got {int(value)}")
    return int(value)


def _check_keys(config: Mapping[str, Any], where: str, *, aliases: set[str]) -> None:
    """Refuse keys that change positions and that pe does not read, naming each.

    `aliases` are the names under which the family's class reads a size (read, so kept).
    """
    for key in config:
        if not isinstance(key, str):
            raise TypeError(f"{where} must have string keys (as a config.json has); got {key!r}")
        entry = POSITION_KEYS.get(key)
        if entry is not None:
            if not entry.read and config[key] not in (None, False):
                raise ValueError(
                    f"{where}[{key!r}]={_show(config[key])}: {entry.meaning}; pe refuses this "
                    "config rather than give positions the model does not use"
                )
            continue
        if key in NOT_POSITIONAL or key in _WRAPPERS or key in aliases:
            continue
        if not _POSITIONAL_NAME.search(key):
            continue
        raise ValueError(
            f"{where}[{key!r}]={_show(config[key])} looks like a position setting that pe does "
            "not know; pe refuses it rather than ignore it. If it does not change positions, "
            "remove it from the dict"
        )


def _head_dim(config: Mapping[str, Any], where: str) -> tuple[int, str]:
    """Return the head width transformers reads, and the key it came from."""
    for key in ("head_dim", "qk_rope_head_dim"):
        if config.get(key) is not None:
            name = f"{where}[{key!r}]"
            return check_d_model(config[key], name=name), name
    if "hidden_size" not in config or "num_attention_heads" not in config:
        holders = _holders(config)
        if holders and not any(key in config for key in _ROPE_HOLDERS):
            raise ValueError(
                f"{where} has no RoPE settings of its own; {', '.join(holders)} "
                f"{'holds' if len(holders) == 1 else 'hold'} some: pass the one you mean"
            )
        raise ValueError(
            f"{where} needs head_dim, or hidden_size and num_attention_heads; got keys "
            f"{sorted(map(str, config))}"
        )
    hidden = _positive_int(config, "hidden_size", where)
    heads = _positive_int(config, "num_attention_heads", where)
    name = f"hidden_size // num_attention_heads = {hidden} // {heads}"
    if hidden < heads:
        raise ValueError(
            f"{where}'s head width {name} is 0; hidden_size must be at least num_attention_heads"
        )
    return check_d_model(hidden // heads, name=f"the head width {name}"), name


def _fraction_for(rotated: Any, head_dim: int, name: str = "config['rotary_dim']") -> float:
    """Return the fraction whose truncated product with `head_dim` is exactly `rotated`.

    ``rotated / head_dim`` can round below the ratio (60 / 88), and
    ``int(88 * (60 / 88))`` is then 59: step up to the next float until the
    product truncates to the width asked for.
    """
    if not is_integer(rotated):
        raise TypeError(
            f"{name} must be a positive even integer; got {_show(rotated)} "
            f"(type {type(rotated).__name__})"
        )
    width = int(rotated)
    if width < 2 or width % 2 or width > head_dim:
        raise ValueError(
            f"{name} must be a positive even integer up to head_dim={head_dim}; got {width}"
        )
    fraction = width / head_dim
    while int(head_dim * fraction) < width:
        fraction = math.nextafter(fraction, 2.0)
    return fraction


def _pattern_types(count: int, every: Any, name: str, *, first: bool) -> list[str]:
    """Layer types from 'every n-th layer is full attention' (the n-th, or the 0th, n-th...)."""
    if not is_integer(every) or int(every) < 1:
        raise ValueError(f"{name} must be a positive integer; got {_show(every)}")
    n, shift = int(every), 0 if first else 1
    return ["full_attention" if (i + shift) % n == 0 else "sliding_attention" for i in range(count)]


@dataclass
class _Reading:
    """A config on its way to `ModelRope`: the shape transformers' config classes give it."""

    config: Mapping[str, Any]
    where: str
    model_type: str | None
    layer_types: list[str] | None = None
    layer_types_from: str = ""
    rope: dict[str, Any] = field(default_factory=dict)  # flat, or one entry per layer type
    rope_from: str = ""
    unrotated: dict[int, str] = field(default_factory=dict)  # layer index -> why
    unrotated_types: dict[str, str] = field(default_factory=dict)  # layer type -> why
    temperature: tuple[float, float, int] | None = None  # Llama 4's, on unrotated layers
    family: Family | None = None
    default_base: float | None = None  # the family's base, for a file without one
    default_fraction: float | None = None  # the family's rotated share, for a file without one
    unrotated_all: str = ""  # why no layer is rotated, for a family that rotates none
    defaulted: set[str] = field(default_factory=set)  # keys filled from the class's defaults
    head_dims: dict[str, tuple[int, str]] = field(default_factory=dict)  # layer type -> width
    layout: tuple[str, str] = ("concatenated", "transformers' Llama-style rotate_half")
    notes: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # type -> sources

    def note(self, layer_type: str, setting: str, source: str) -> None:
        self.notes.setdefault(layer_type, []).append((setting, source))

    @property
    def num_layers(self) -> int | None:
        if self.config.get("num_hidden_layers") is None:
            return None
        return _positive_int(self.config, "num_hidden_layers", self.where)

    def key(self, name: str) -> str:
        return f"{self.where}[{name!r}]"


def _nested_dict(reading: _Reading, entries: dict[str, dict[str, Any]], source: str) -> None:
    reading.rope = {kind: dict(entry) for kind, entry in entries.items()}
    reading.rope_from = source


def _two_bases(
    reading: _Reading, full: tuple[str, float], sliding: tuple[str, float], *, scaled: str
) -> None:
    """Gemma 3 and ModernBERT: one base per attention type, from keys of their own.

    `scaled` says which layer types a flat ``rope_scaling`` applies to (``"full"`` or
    ``"both"``). A ``rope_parameters`` already nested by layer type is read as saved.
    """
    config = reading.config
    raw = config.get("rope_scaling") or config.get("rope_parameters")
    if isinstance(raw, Mapping) and raw and set(raw) <= {"full_attention", "sliding_attention"}:
        return  # transformers 5's own nested form: read by the generic path
    flat = dict(raw) if isinstance(raw, Mapping) else {}
    entries: dict[str, dict[str, Any]] = {
        "full_attention": {"rope_type": "default"},
        "sliding_attention": {"rope_type": "default"},
    }
    entries["full_attention"].update(flat)
    if scaled == "both":
        entries["sliding_attention"].update(flat)
    for kind, (key, default) in (("full_attention", full), ("sliding_attention", sliding)):
        if "rope_theta" in entries[kind]:
            reading.note(kind, "base", f"{reading.rope_from}['rope_theta']")
            continue
        value = config.get(key)
        entries[kind]["rope_theta"] = default if value is None else value
        reading.note(kind, "base", reading.key(key) if value is not None else "the class's default")
    source = reading.rope_from
    _nested_dict(reading, entries, source)
    if flat:
        reading.note("full_attention", "rule", source)
        if scaled == "both":
            reading.note("sliding_attention", "rule", source)


def _gemma3(reading: _Reading) -> None:
    """Gemma 3 and 3n: rope_theta and rope_scaling for full attention, rope_local_base_freq else."""
    config = reading.config
    if reading.layer_types is None and reading.num_layers is not None:
        if reading.model_type == "gemma3n_text":  # a fixed pattern: every 5th layer full
            reading.layer_types = _pattern_types(reading.num_layers, 5, "", first=False)
            reading.layer_types_from = "Gemma 3n's fixed pattern (every 5th layer full)"
        else:
            pattern = config.get("sliding_window_pattern", 6)
            reading.layer_types = _pattern_types(
                reading.num_layers, pattern, reading.key("sliding_window_pattern"), first=False
            )
            reading.layer_types_from = (
                reading.key("sliding_window_pattern")
                if "sliding_window_pattern" in config
                else "Gemma 3's default pattern (every 6th layer full)"
            )
    _two_bases(
        reading,
        ("rope_theta", 1_000_000.0),
        ("rope_local_base_freq", 10_000.0),
        scaled="full",
    )


def _modernbert(reading: _Reading) -> None:
    config = reading.config
    if reading.layer_types is None and reading.num_layers is not None:
        every = config.get("global_attn_every_n_layers", 3)
        reading.layer_types = _pattern_types(
            reading.num_layers, every, reading.key("global_attn_every_n_layers"), first=True
        )
        reading.layer_types_from = reading.key("global_attn_every_n_layers")
    _two_bases(
        reading,
        ("global_rope_theta", 160_000.0),
        ("local_rope_theta", 10_000.0),
        scaled="both",
    )


def _olmo3(reading: _Reading) -> None:
    """OLMo 3: rope_theta and a flat rope_scaling go to the full-attention layers only.

    The sliding-window layers keep the class's default rule and base (500000): transformers'
    converter takes rope_theta for the full-attention entry before the sliding one reads it.
    """
    config = reading.config
    if reading.layer_types is None and reading.num_layers is not None:
        reading.layer_types = _pattern_types(reading.num_layers, 4, "OLMo 3's pattern", first=False)
        reading.layer_types_from = "OLMo 3's fixed pattern (every 4th layer full)"
    raw = reading.rope
    if raw and set(raw) <= {"full_attention", "sliding_attention"}:
        return  # transformers 5's own nested form
    entries: dict[str, dict[str, Any]] = {
        "sliding_attention": {"rope_type": "default", "rope_theta": 500000.0},
        "full_attention": {"rope_type": "default", **raw},
    }
    if "rope_theta" not in entries["full_attention"]:
        entries["full_attention"]["rope_theta"] = config.get("rope_theta", 500000.0)
        reading.note("full_attention", "base", reading.key("rope_theta"))
    reading.note("sliding_attention", "base", "OLMo 3's default for sliding layers (500000)")
    source = reading.rope_from
    _nested_dict(reading, entries, source)
    if raw:
        reading.note("full_attention", "rule", source)


def _sliding_only(reading: _Reading) -> None:
    """Families that rotate their sliding-window layers only (Cohere 2, Flint, AFMoE, EXAONE 4).

    With ``sliding_window`` null, Cohere 2 and Flint rotate no layer, while EXAONE 4 and
    Kolibri rotate every layer; AFMoE decides by the layer type alone.
    """
    config, family = reading.config, str(reading.model_type)
    patterns = {
        "cohere2": ("sliding_window_pattern", 4),
        "afmoe": ("global_attn_every_n_layers", 4),
        "exaone4": ("sliding_window_pattern", 4),
        "exaone_moe": ("sliding_window_pattern", 4),
        "kolibri1": ("", 5),  # fixed: every 5th layer full
    }
    if reading.layer_types is None and reading.num_layers is not None:
        if family not in patterns:
            raise ValueError(
                f"{reading.key('layer_types')} is missing: model type {family!r} derives its "
                "layer types by a rule of its own, and pe needs them listed"
            )
        key, default = patterns[family]
        pattern = config.get(key, default) if key else default
        unread = family.startswith("exaone") and config.get("sliding_window") is None
        if isinstance(pattern, str) or unread:
            raise ValueError(
                f"{reading.key('layer_types')} is missing and {reading.key(key)}={_show(pattern)} "
                f"does not give them as transformers' {family!r} class reads it; list layer_types"
            )
        name = reading.key(key) if key else f"{family}'s pattern"
        reading.layer_types = _pattern_types(reading.num_layers, pattern, name, first=False)
        reading.layer_types_from = name if key in config else f"{family}'s default pattern"
    window = config.get("sliding_window")
    if family in ("exaone4", "exaone_moe", "kolibri1") and window is None:
        return  # every layer rotated
    why = f"model type {family!r} rotates its sliding-window layers only"
    for kind in set(reading.layer_types or []) - {"sliding_attention"}:
        reading.unrotated_types[kind] = why
    if family in ("cohere2", "flint") and window is None:
        reading.unrotated_types["sliding_attention"] = (
            f"{reading.key('sliding_window')} is null: model type {family!r} then rotates no layer"
        )


def _no_rope_layers(reading: _Reading) -> None:
    """Llama 4 and SmolLM3: ``no_rope_layers[i]`` is 1 for a rotated layer, 0 for NoPE."""
    config = reading.config
    count = reading.num_layers
    flags = config.get("no_rope_layers")
    if flags:
        source = reading.key("no_rope_layers")
        why = f"{source} is 0 for these layers: not rotated (NoPE)"
        if not isinstance(flags, list) or any(flag not in (0, 1) for flag in flags):
            raise ValueError(
                f"{source} must be a list of 0 and 1, one per layer; got {_show(flags)}"
            )
        if count is not None and len(flags) != count:
            raise ValueError(
                f"{source} has {len(flags)} entries for {count} layers (num_hidden_layers)"
            )
    elif count is not None:
        every = config.get("no_rope_layer_interval", 4)
        source = (
            reading.key("no_rope_layer_interval")
            if "no_rope_layer_interval" in config
            else "no_rope_layers absent: the class's default interval 4"
        )
        if not is_integer(every) or int(every) < 1:
            raise ValueError(
                f"{reading.key('no_rope_layer_interval')} must be a positive integer; got "
                f"{_show(every)}"
            )
        flags = [int((i + 1) % int(every) != 0) for i in range(count)]
        n = int(every)
        why = f"{source}: layers {n - 1}, {2 * n - 1}, {3 * n - 1}... are not rotated (NoPE)"
    else:
        return
    for index, flag in enumerate(flags):
        if not flag:
            reading.unrotated[index] = why
    if reading.model_type in ("llama4_text", "llama4") and config.get(
        "attn_temperature_tuning", True
    ):
        scale = _number(config.get("attn_scale", 0.1), reading.key("attn_scale"), minimum=0.0)
        step = _number(config.get("floor_scale", 8192), reading.key("floor_scale"), minimum=1.0)
        reading.temperature = (scale, step, 1)
    if reading.model_type == "llama4_text" and reading.layer_types is None:
        reading.layer_types = ["chunked_attention" if flag else "full_attention" for flag in flags]
        reading.layer_types_from = source
    if reading.model_type == "smollm3" and reading.layer_types is None:
        sliding = bool(config.get("use_sliding_window"))
        reading.layer_types = [
            "sliding_attention" if flag and sliding else "full_attention" for flag in flags
        ]
        reading.layer_types_from = source


def _gpt_neox(reading: _Reading) -> None:
    """GPT-NeoX: the base is rotary_emb_base and the rotated share rotary_pct (0.25 by default).

    Its configuration class reads neither rope_theta nor a top-level partial_rotary_factor.
    """
    config = reading.config
    for key in ("rope_theta", "partial_rotary_factor"):
        if key in config:
            raise ValueError(
                f"{reading.key(key)}: model type {reading.model_type!r} does not read this key "
                f"(transformers takes {'rotary_emb_base' if key == 'rope_theta' else 'rotary_pct'}"
                " instead); remove it or use the key the model reads"
            )
    reading.default_base = 10000.0


def _phi3(reading: _Reading) -> None:
    """Phi-3: the rule names 'su' and 'yarn' mean longrope (transformers renames them)."""
    for key in ("rope_type", "type"):
        if reading.rope.get(key) in ("su", "yarn"):
            reading.rope = {**reading.rope, key: "longrope"}
            reading.note(
                "all", "rule", f"{reading.rope_from}[{key!r}] (Phi-3 reads it as longrope)"
            )


def _forced_half(reading: _Reading) -> None:
    """Bamba rotates half of each head whatever the file says."""
    for key in ("partial_rotary_factor",):
        if reading.config.get(key) not in (None, 0.5):
            raise ValueError(
                f"{reading.key(key)}={_show(reading.config[key])}: model type "
                f"{reading.model_type!r} rotates half of each head whatever this key says"
            )
    reading.default_fraction = 0.5


def _gemma4(reading: _Reading) -> None:
    config = reading.config
    if "global_head_dim" in config and "per_layer_config" not in config:
        width = check_d_model(config["global_head_dim"], name=reading.key("global_head_dim"))
        reading.head_dims["full_attention"] = (width, reading.key("global_head_dim"))


def _deepseek_v4(reading: _Reading) -> None:
    """DeepSeek-V4: RoPE dicts under the labels 'main' and 'compress', not per layer type."""
    rope = reading.rope
    compress = rope.get("compress") if _is_nested(rope) else None
    if not isinstance(compress, Mapping) or "rope_theta" not in compress:
        raise ValueError(
            f"{reading.key('compress_rope_theta')}: DeepSeek-V4 turns its compressed attention "
            "branches with a RoPE dict of their own, which transformers builds from this key and "
            "rope_scaling; pe reads that dict only as transformers 5 saves it "
            "(rope_parameters = {'main': {...}, 'compress': {...}}): save the config with "
            "transformers first"
        )
    reading.layer_types = None  # the labels, not the layer types, pick the dict


def _hybrid(reading: _Reading) -> None:
    """Hybrid models: their linear-attention or convolution layers have no RoPE.

    Qwen3-Next and Qwen3.5 make every n-th layer full attention
    (``full_attention_interval``, 4 by default), MiniMax every other one; LFM2 lists
    its attention layers in ``full_attn_idxs``.
    """
    config, family, count = reading.config, str(reading.model_type), reading.num_layers
    if reading.layer_types is not None or count is None:
        return
    if family == "minimax":
        reading.layer_types = [
            "full_attention" if (i + 1) % 2 else "linear_attention" for i in range(count)
        ]
        reading.layer_types_from = "MiniMax's fixed pattern (every other layer full)"
    elif family in ("lfm2", "lfm2_moe"):
        listed = config.get("full_attn_idxs")
        if not isinstance(listed, list):
            raise ValueError(f"{reading.key('full_attn_idxs')} must list the attention layers")
        reading.layer_types = ["full_attention" if i in listed else "conv" for i in range(count)]
        reading.layer_types_from = reading.key("full_attn_idxs")
    elif family in ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text", "qwen4_exp_text"):
        every = config.get("full_attention_interval", 4)
        name = reading.key("full_attention_interval")
        kinds = _pattern_types(count, every, name, first=False)
        full = "indexed_attention" if family == "qwen4_exp_text" else "full_attention"
        reading.layer_types = [full if k == "full_attention" else "linear_attention" for k in kinds]
        reading.layer_types_from = (
            name if "full_attention_interval" in config else (f"{family}'s default interval 4")
        )
    else:
        raise ValueError(
            f"{reading.key('layer_types')} is missing: model type {family!r} mixes attention "
            "layers with layers that have none, by a rule pe does not repeat; list layer_types"
        )


def _never(reading: _Reading) -> None:
    """Kimi Linear and GLM-5-Next: attention without rotation in every layer."""
    why = f"model type {reading.model_type!r} rotates no layer (its attention has no RoPE)"
    reading.unrotated_all = why


def _falcon(reading: _Reading) -> None:
    if reading.config.get("alibi"):
        raise ValueError(
            f"{reading.key('alibi')} is true: this Falcon adds ALiBi biases instead of rotating; "
            "use pe.nn.ALiBi"
        )


def _unused_rotary_dim(reading: _Reading) -> None:
    """MiniMax and MiniMax-M3-VL keep a rotary_dim that their models do not read."""
    if "rotary_dim" in reading.config:
        reading.config = {k: v for k, v in reading.config.items() if k != "rotary_dim"}
        reading.note("all", "rotary_dim", f"{reading.key('rotary_dim')} is not read by this model")


def _minimax(reading: _Reading) -> None:
    _unused_rotary_dim(reading)
    _hybrid(reading)


#: Model types whose positions follow rules pe does not implement, and why: refused by name.
UNSUPPORTED: dict[str, str] = {
    **dict.fromkeys(
        ("step3p5", "step3p5_text", "step3p7", "step3p7_text"),
        "takes rope_theta and partial_rotary_factors as lists with one value per layer",
    ),
    "ultrabert": "takes rope_theta as a list, one base per layer",
    **dict.fromkeys(
        (
            "granite_swa",
            "granitemoe_swa",
            "muse_glimmer",
            "muse_glimmer_text",
            "muse_spark",
            "muse_spark_text",
        ),
        "sets a base per layer in layer_rope_theta (0 for a layer without RoPE)",
    ),
    **dict.fromkeys(
        ("dots3_note", "dots3_note_text"),
        "gives its sliding-window layers their own head widths and base (swa_* keys)",
    ),
    **dict.fromkeys(
        ("mistral_large4", "mistral_large4_text"),
        "widens the unrotated part of the head in its NoPE layers and rotates only the queries "
        "of layers that share another layer's keys",
    ),
    "cohere2_moe": "rotates by rules of its own (force_rope, prefix_dense_sliding_window_pattern) "
    "and does not read rope_scaling",
    **dict.fromkeys(
        ("molmo2", "molmo2_text"),
        "scales only the layers listed in rope_scaling_layers and leaves the others unscaled",
    ),
    "phimoe": "scales cos and sin by short_mscale or long_mscale after the length of each call "
    "and always turns by short_factor",
    "nanochat": "turns by -theta (its rotate_half returns (x2, -x1))",
    "deepseek_v4": "rotates the last channels of each head, and its compressed branches by a "
    "RoPE dict of their own",
    "zamba2": "rotates only in its shared attention blocks, and only with use_mem_rope",
    "granitemoehybrid": "rotates only where position_embedding_type is 'rope', in the attention "
    "layers its layers_block_type picks",
    **dict.fromkeys(
        ("t5gemma2", "t5gemma2_text", "t5gemma2_decoder"),
        "keeps an encoder and a decoder with RoPE settings of their own",
    ),
}

# Keys of the RoPE dict that transformers reads outside the rule and that change the
# attention by position: refused (the others, mrope_section..., are read by pe.mrope).
_POSITIONS_ELSEWHERE = ("alpha", "short_mscale", "long_mscale")

# Model types whose text rotary module in transformers 5.23 always deals M-RoPE's pairs out
# to time, height and width in turn (``recomposition_frequencies`` of models/qwen3_vl,
# qwen3_vl_moe, qwen3_5, qwen3_5_moe), and those that always cut them into consecutive
# sections (models/qwen2_vl, qwen2_5_vl). Neither reads ``mrope_interleaved``: a config whose
# key says otherwise is refused; for other model types the key decides.
_MROPE_INTERLEAVED = frozenset(
    f"{name}{suffix}"
    for name in ("qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe")
    for suffix in ("", "_text")
)
_MROPE_SECTIONED = frozenset(
    f"{name}{suffix}" for name in ("qwen2_vl", "qwen2_5_vl") for suffix in ("", "_text")
)


def _mrope(
    scaling: Mapping[str, Any], entry: str, model_type: str | None
) -> tuple[tuple[int, ...], bool] | None:
    """Return M-RoPE's sections and arrangement, as the model type's module reads them."""
    if "mrope_section" not in scaling:
        return None
    sections = scaling["mrope_section"]
    if isinstance(sections, (str, bytes)) or not isinstance(sections, (list, tuple)):
        raise TypeError(
            f"{entry}['mrope_section'] must be a list of integers; got {_show(sections)}"
        )
    if not all(is_integer(value) for value in sections):
        raise TypeError(f"{entry}['mrope_section'] must hold integers; got {_show(sections)}")
    flag = scaling.get("mrope_interleaved")
    if flag is not None and not isinstance(flag, bool):
        raise TypeError(f"{entry}['mrope_interleaved'] must be true or false; got {_show(flag)}")
    if model_type in _MROPE_INTERLEAVED or model_type in _MROPE_SECTIONED:
        expected = model_type in _MROPE_INTERLEAVED
        if flag is not None and flag != expected:
            raise ValueError(
                f"{entry}['mrope_interleaved'] is {flag} but model_type {model_type!r} "
                f"{'always' if expected else 'never'} interleaves in transformers (which does "
                "not read the key); fix the config, or drop model_type to follow the key"
            )
        return tuple(int(value) for value in sections), expected
    return tuple(int(value) for value in sections), bool(flag)


# Layer types without softmax attention: nothing to rotate.
_NO_ATTENTION = frozenset({"linear_attention", "conv", "mamba"})


#: The families whose configuration class translates keys of their own.
_TRANSLATIONS: dict[str, Callable[[_Reading], None]] = {
    "gemma3_text": _gemma3,
    "gemma3": _gemma3,
    "gemma3n_text": _gemma3,
    "gpt_neox": _gpt_neox,
    "gpt_neox_japanese": _gpt_neox,
    "phi3": _phi3,
    "phi4_multimodal": _phi3,
    "bamba": _forced_half,
    "falcon": _falcon,
    "minimax": _minimax,
    "lfm2": _hybrid,
    "lfm2_moe": _hybrid,
    "qwen3_next": _hybrid,
    "qwen3_5_text": _hybrid,
    "qwen3_5_moe_text": _hybrid,
    "qwen4_exp_text": _hybrid,
    "bailing_hybrid": _hybrid,
    "olmo_hybrid": _hybrid,
    "minimax_m3_vl_text": _unused_rotary_dim,
    "kimi_linear": _never,
    "glm5_next_text": _never,
    "glm5_next": _never,
    "modernbert": _modernbert,
    "olmo3": _olmo3,
    "llama4_text": _no_rope_layers,
    "llama4": _no_rope_layers,
    "smollm3": _no_rope_layers,
    "cohere2": _sliding_only,
    "flint": _sliding_only,
    "afmoe": _sliding_only,
    "exaone4": _sliding_only,
    "exaone_moe": _sliding_only,
    "kolibri1": _sliding_only,
    "gemma4_text": _gemma4,
    "gemma4": _gemma4,
    "deepseek_v4": _deepseek_v4,
}


def _per_layer_head_dims(reading: _Reading) -> dict[int, tuple[int, str]]:
    """Gemma 4's ``per_layer_config``: a head width for single layers."""
    overrides = reading.config.get("per_layer_config")
    if not isinstance(overrides, Mapping):
        return {}
    widths = {}
    for key, override in overrides.items():
        index = int(key) if isinstance(key, str) and key.isdigit() else key
        if not (is_integer(index) and isinstance(override, Mapping)):
            continue
        if override.get("head_dim") is not None:
            name = f"{reading.key('per_layer_config')}[{key!r}]['head_dim']"
            width = check_d_model(override["head_dim"], name=name)
            widths[int(index)] = (width, f"{reading.key('per_layer_config')}[layer]['head_dim']")
    return widths


def read_config(config: Any) -> ModelRope:
    """Read a model's configuration as the model reads it: the positions of each kind of layer.

    Parameters
    ----------
    config : mapping or transformers config
        ``json.load`` of a ``config.json``, or a transformers configuration
        object (read through its ``to_dict()``). A wrapper whose language model
        sits in ``text_config`` (or ``language_config``, ``llm_config``,
        ``thinker_config``, ``vlm_config``) is read there.

    Returns
    -------
    ModelRope
        One `LayerRope` per kind of layer.

    Raises
    ------
    TypeError, ValueError
        Naming the key: a key that changes positions and that pe refuses (see
        `POSITION_KEYS`), an unknown key that looks like a position setting, a
        missing head width, or RoPE settings that `pe.rope_frequencies`
        refuses.

    Examples
    --------
    >>> import pe
    >>> gemma3 = {"model_type": "gemma3_text", "head_dim": 256, "num_hidden_layers": 6,
    ...           "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
    ...           "rope_scaling": {"rope_type": "linear", "factor": 8.0}}
    >>> for kind in pe.read_config(gemma3).kinds:
    ...     print(kind.kind, kind.layers, kind.rule, kind.base)
    sliding_attention (0, 1, 2, 3, 4) default 10000.0
    full_attention (5,) linear 1000000.0
    """
    outer = _as_mapping(config)
    text, where = language_config(outer)
    model_type = text.get("model_type", outer.get("model_type"))
    if model_type is not None and not isinstance(model_type, str):
        raise TypeError(f"{where}['model_type'] must be a string; got {_show(model_type)}")
    family = _family(model_type, text if text is not outer else outer, where)
    _check_keys(text, where, aliases={raw for raw, _ in family.aliases} if family else set())
    reading = _Reading(text, where, model_type)
    reading.family = family
    if reading.family is not None and model_type not in FAMILIES:
        reading.model_type = model_type = reading.family.text
    if reading.family is not None:
        # Sizes under the names the class reads them by (GPT-J's n_embd), then the sizes the
        # file leaves to its class's defaults.
        renamed = {name: text[raw] for raw, name in reading.family.aliases if raw in text}
        filled = {k: v for k, v in reading.family.fields if {**text, **renamed}.get(k) is None}
        reading.config = {**text, **renamed, **filled}
        reading.defaulted = set(filled)
    kinds = text.get("layer_types")
    if kinds is not None:
        if not isinstance(kinds, list) or not all(isinstance(kind, str) for kind in kinds):
            raise TypeError(f"{reading.key('layer_types')} must be a list of strings")
        reading.layer_types = list(kinds)
        reading.layer_types_from = reading.key("layer_types")
    key = "rope_scaling" if text.get("rope_scaling") else "rope_parameters"
    raw = text.get(key) or {}
    if not isinstance(raw, Mapping):
        raise TypeError(f"{reading.key(key)} must be a dict; got {type(raw).__name__}")
    reading.rope, reading.rope_from = dict(raw), reading.key(key)
    translate = _TRANSLATIONS.get(str(model_type))
    if translate is not None:
        translate(reading)
    _family_defaults(reading, translated=translate is not None)
    return _assemble(reading)


def _family(model_type: Any, config: Mapping[str, Any], where: str) -> Family | None:
    """Return the model type's defaults; refuse types without 1-D RoPE, warn for unknown ones."""
    if model_type is None:
        return None
    if model_type in UNSUPPORTED:
        raise ValueError(
            f"{where}['model_type']={model_type!r}: this model type {UNSUPPORTED[model_type]}, "
            "which pe does not repeat; pe refuses it rather than give positions the model does "
            "not use"
        )
    if model_type in FAMILIES:
        family = FAMILIES[model_type]
        if family.rule == "axial":
            raise ValueError(
                f"{where}['model_type']={model_type!r} is a vision encoder whose rotary "
                "embedding turns image patches by row and column (transformers' 'axial' rule), "
                "not a rule of 1-D positions: use pe.nn.AxialRotaryEmbedding"
            )
        return family
    if model_type in NO_ROPE:
        raise ValueError(
            f"{where}['model_type']={model_type!r}: transformers {TRANSFORMERS_VERSION}'s "
            "configuration class for it has no RoPE settings (the model has no rotary embedding, "
            "or one with a fixed rule of its own), so pe has nothing to read"
        )
    auto = config.get("auto_map")
    named = auto.get("AutoConfig") if isinstance(auto, Mapping) else None
    cls = named.rsplit(".", 1)[-1] if isinstance(named, str) else None
    if cls in CONFIG_CLASSES:
        _warn(
            f"{where}['model_type']={model_type!r} is not a model type of transformers; its "
            f"auto_map names {cls}, so it is read as transformers' {CONFIG_CLASSES[cls]!r} "
            "reads it (the remote code it loads is not checked)"
        )
        return FAMILIES[CONFIG_CLASSES[cls]]
    _warn(
        f"{where}['model_type']={model_type!r} is not a model type pe knows (nor transformers "
        f"{TRANSFORMERS_VERSION}); read with the rules every family shares: halves layout, the "
        "whole head rotated, base 10000 where the file sets none. Check its modeling code"
    )
    return None


def _family_defaults(reading: _Reading, *, translated: bool) -> None:
    """Fill in what the file leaves out, as the family's configuration class does."""
    family, config = reading.family, reading.config
    _read_interleave(reading)
    if family is None:
        return
    if isinstance(family.base, tuple):
        defaults = dict(family.base)
        holds = _is_nested(reading.rope)
        if not translated and not holds:
            if reading.rope or "rope_theta" in config:
                key = reading.rope_from if reading.rope else reading.key("rope_theta")
                raise ValueError(
                    f"{key}: model type {reading.model_type!r} keeps one RoPE dict per layer "
                    f"type ({', '.join(map(repr, defaults))}), and pe does not know how its "
                    "configuration class shares a flat setting among them; save the config "
                    "with transformers 5 (which writes the nested form) and read that"
                )
            reading.rope = {kind: {"rope_type": "default", "rope_theta": base}
                            for kind, base in defaults.items()}  # fmt: skip
            reading.rope_from = f"model type {reading.model_type}'s defaults"
        elif holds:
            for kind, entry in reading.rope.items():
                if isinstance(entry, Mapping) and "rope_theta" not in entry and kind in defaults:
                    reading.rope[kind] = {**entry, "rope_theta": defaults[kind]}
                    reading.note(kind, "base", f"model type {reading.model_type}'s default")
    elif family.preset is not None and not reading.rope:
        reading.rope = dict(family.preset)
        reading.rope_from = f"model type {reading.model_type}'s built-in rule"
        if "rope_theta" in config:
            _warn(
                f"{reading.key('rope_theta')} is not read: a {reading.model_type!r} config "
                "without rope_parameters gets its class's built-in rule and base "
                f"({family.rule}, base {dict(family.preset).get('rope_theta')}), as in "
                "transformers"
            )
    elif "rope_theta" not in config and "rotary_emb_base" not in config:
        reading.default_base = family.base
    if family.fraction is not None and not any(
        name in config for name in ("partial_rotary_factor", "rotary_pct", "rope_pct", "rotary_dim")
    ):
        reading.default_fraction = family.fraction
    if family.interleave is not None and config.get("rope_interleave", family.interleave):
        where = (
            reading.key("rope_interleave")
            if "rope_interleave" in config
            else f"rope_interleave, true by default for model type {reading.model_type!r}"
        )
        reading.layout = ("interleaved", where)
    elif family.layout is not None:
        reading.layout = (family.layout, f"model type {reading.model_type}'s modeling code")
    else:
        _warn(
            f"pe could not find the pair layout of model type {reading.model_type!r} in "
            "transformers' modeling code; halves (concatenated) is assumed: pass layout= if "
            "the model turns interleaved pairs"
        )


def _read_interleave(reading: _Reading) -> None:
    """``rope_interleave``: read where the model reads it, refused where it would be ignored.

    A config without a model type is read as the key says. A family whose configuration
    class has the attribute (DeepSeek-V3 and its kin) reads it in its attention; any
    other family's modeling code never looks at it, so a value that contradicts the
    pairs that code turns is refused rather than silently dropped (transformers drops it).
    """
    config, family = reading.config, reading.family
    if "rope_interleave" not in config:
        return
    value = config["rope_interleave"]
    if not isinstance(value, bool):
        raise TypeError(
            f"{reading.key('rope_interleave')} must be true or false; got {_show(value)}"
        )
    if family is None:
        layout = "interleaved" if value else "concatenated"
        reading.layout = (layout, reading.key("rope_interleave"))
        return
    if family.interleave is not None:
        return  # read with the family's default in _family_defaults
    turned = family.layout or "concatenated"
    if value != (turned == "interleaved"):
        raise ValueError(
            f"{reading.key('rope_interleave')} is {str(value).lower()}, but model type "
            f"{reading.model_type!r} does not read rope_interleave: its attention turns "
            f"{turned} pairs whatever the key says (transformers ignores it); drop the key "
            "(and pass layout= to RotaryEmbedding.from_config if your own code turns the "
            "other pairs)"
        )


def _is_nested(rope: Mapping[str, Any]) -> bool:
    return (
        bool(rope)
        and not {"rope_type", "type"} & set(rope)
        and all(value is None or isinstance(value, Mapping) for value in rope.values())
    )


def _assemble(reading: _Reading) -> ModelRope:
    config, where = reading.config, reading.where
    count = reading.num_layers
    types = reading.layer_types
    if types is not None and count is not None and len(types) != count:
        raise ValueError(
            f"{reading.layer_types_from} has {len(types)} entries for {count} layers "
            "(num_hidden_layers)"
        )
    head_dim, head_from = _head_dim(config, where)
    used = re.findall(r"\['(\w+)'\]|(hidden_size)|(num_attention_heads)", head_from)
    if any(name in reading.defaulted for match in used for name in match):
        head_from += f" (model type {reading.model_type}'s defaults)"
    per_layer = _per_layer_head_dims(reading)
    nested = _is_nested(reading.rope)

    def unrotated_because(kind: str, index: int | None) -> str:
        if reading.unrotated_all:
            return reading.unrotated_all
        if kind in _NO_ATTENTION:
            return f"layers of type {kind!r} have no softmax attention: no queries and keys to turn"
        if index is not None and index in reading.unrotated:
            return reading.unrotated[index]
        if kind in reading.unrotated_types:
            return reading.unrotated_types[kind]
        if nested and kind in reading.rope and reading.rope[kind] is None:
            return f"{reading.rope_from}[{kind!r}] is null: these layers have no RoPE"
        if nested and kind not in reading.rope:
            return f"{reading.rope_from} has no entry for {kind!r}: these layers have no RoPE"
        return ""

    # Group the layers by what they get: (layer type, why unrotated, head width) -> indices.
    groups: dict[tuple[str, str, int, str], list[int]] = {}
    layers = len(types) if types is not None else count
    # A dict nested by labels without layer types (DeepSeek-V4) is read label by label.
    for index in range(0 if nested and types is None else layers or 0):
        kind = types[index] if types is not None else "all"
        width, width_from = per_layer.get(index, reading.head_dims.get(kind, (head_dim, head_from)))
        why = unrotated_because(kind, index)
        key = (kind, why, width, width_from)
        groups.setdefault(key, []).append(index)
    if not groups:  # no layer count: one entry per layer type the RoPE dict names
        for kind in list(reading.rope) if nested else ["all"]:
            width, width_from = reading.head_dims.get(kind, (head_dim, head_from))
            groups[(kind, unrotated_because(kind, None), width, width_from)] = []

    fraction: Any = reading.default_fraction
    fraction_from = f"model type {reading.model_type}'s default" if fraction is not None else ""
    for name in ("partial_rotary_factor", "rotary_pct", "rope_pct"):
        if config.get(name) is not None:
            fraction, fraction_from = config[name], reading.key(name)
            break
    base_name = "rope_theta" if "rope_theta" in config else "rotary_emb_base"
    base = config.get(base_name)
    if base is None and reading.default_base is not None:
        base, base_name = reading.default_base, ""
    original = config.get("original_max_position_embeddings")
    longest = config.get("max_position_embeddings")
    if longest is not None:  # a length saved as a float (MusicFlamingo's 1200.0) is read
        longest = _length(longest, reading.key("max_position_embeddings"))

    result = []
    for (kind, why, width, width_from), indices in groups.items():
        sources = [("head width", width_from)]
        if kind != "all":
            sources.append(("layer type", reading.layer_types_from or reading.rope_from))
        if why:
            reason = next((reading.unrotated[i] for i in indices if i in reading.unrotated), why)
            if reading.temperature is not None:
                sources.append(("query temperature", reading.key("attn_temperature_tuning")))
            result.append(
                LayerRope(kind, tuple(indices), False, width, layout=reading.layout[0],
                          max_position_embeddings=longest, sources=tuple(sources), reason=reason,
                          temperature=reading.temperature)
            )  # fmt: skip
            continue
        try:
            flat, flat_from = layer_parameters(reading.rope, kind if nested else None)
        except ValueError as error:
            raise ValueError(str(error).replace("scaling", reading.rope_from, 1)) from None
        entry = reading.rope_from + flat_from[len("scaling") :]
        scaling = dict(flat)
        temperature = None
        beta = scaling.pop("llama_4_scaling_beta", None)
        if beta is not None:  # Ministral 3, Mistral 4: a query temperature after RoPE
            length = scaling.get("original_max_position_embeddings")
            if length is None:
                raise ValueError(
                    f"{entry}['llama_4_scaling_beta'] needs {entry}"
                    "['original_max_position_embeddings'], the step of its query temperature"
                )
            temperature = (
                _number(beta, f"{entry}['llama_4_scaling_beta']", minimum=0.0),
                float(_number(length, f"{entry}['original_max_position_embeddings']", minimum=1.0)),
                0,
            )
            sources.append(("query temperature", f"{entry}['llama_4_scaling_beta']"))
        for name in _POSITIONS_ELSEWHERE:
            if scaling.get(name):
                raise ValueError(
                    f"{entry}[{name!r}]={_show(scaling[name])}: {_READ_ELSEWHERE[name]}; pe "
                    "refuses this config rather than give positions the model does not use"
                )
        notes = dict(reading.notes.get(kind, []))
        rule = scaling.get("rope_type") or scaling.get("type") or "default"
        sources.append(("rule", notes.get("rule", entry if rule != "default" else "default")))
        # Beside a nested dict, rope_theta is only a default for the entries; a family's
        # default base is no disagreement with the dict's own.
        beside = None if nested or (not base_name and "rope_theta" in scaling) else base
        if beside is not None and base_name:
            beside = _base(beside, reading.key(base_name))
        if "rope_theta" in scaling:
            sources.append(("base", notes.get("base", f"{entry}['rope_theta']")))
        elif base is not None:
            beside = _base(base, reading.key(base_name)) if base_name else base
            family_default = f"model type {reading.model_type}'s default"
            sources.append(("base", reading.key(base_name) if base_name else family_default))
        else:
            sources.append(("base", "default 10000"))
        if original is not None and rule in ("yarn", "longrope", "llama3") and not nested:
            scaling["original_max_position_embeddings"] = original  # Phi-3: the top level wins
            sources.append(("original length", reading.key("original_max_position_embeddings")))
        share = fraction
        share_from = fraction_from
        if share is not None and not fraction_from.startswith(reading.where):
            share = share if "partial_rotary_factor" not in scaling else None  # the dict's wins
        if share is None and config.get("rotary_dim") is not None:
            share = _fraction_for(config["rotary_dim"], width, reading.key("rotary_dim"))
            share_from = reading.key("rotary_dim")
        if "partial_rotary_factor" in scaling:
            sources.append(("rotated fraction", f"{entry}['partial_rotary_factor']"))
        elif share is not None:
            sources.append(("rotated fraction", share_from))
        sources.append(("layout", reading.layout[1]))
        result.append(
            LayerRope(kind, tuple(indices), True, width, scaling, beside,
                      None if share is None else float(share), reading.layout[0], longest,
                      tuple(sources), temperature=temperature,
                      mrope=_mrope(scaling, entry, reading.model_type))
        )  # fmt: skip
    # Check every rotated kind now, so that a bad file is refused whichever layer is asked for.
    for layer_rope in result:
        if layer_rope.rotated:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the module built from it warns
                    frequencies_of(layer_rope)
            except (TypeError, ValueError) as error:
                text = str(error).replace("scaling", reading.rope_from, 1)
                raise type(error)(text) from None
    return ModelRope(reading.model_type, where, layers, tuple(result))


def frequencies_of(kind: LayerRope, seq_len: int | None = None) -> RopeFrequencies:
    """Return `pe.rope_frequencies` of one kind of layer (its checks and warnings included)."""
    return rope_frequencies(
        kind.head_dim,
        base=kind.base_beside,
        scaling=kind.scaling or None,
        max_position_embeddings=kind.max_position_embeddings,
        seq_len=seq_len,
        partial_rotary_factor=kind.partial_rotary_factor,
    )
