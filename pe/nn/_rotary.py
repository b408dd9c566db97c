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
import os
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from pe._config import read_config
from pe._deprecation import deprecated
from pe._layout import layout_permutation
from pe._rope import _rule_of, layer_parameters, rope_frequencies
from pe._stack import outside_stacklevel
from pe._validation import (
    MAX_POSITION,
    check_length,
    check_offset,
    check_size,
    is_integer,
)
from pe.nn._common import apply_temperature, check_layout_choice, check_temperature

__all__ = ["RotaryEmbedding", "convert_rotary_layout"]

_LAYOUTS = ("interleaved", "concatenated")


def _check_rotary_layout(value: Any, name: str) -> str:
    """Return the layout `value` names, accepting pe 0.1.0's ``"half"`` with a warning."""
    if isinstance(value, str) and value == "half":
        deprecated(f"{name}='half'", f"{name}='concatenated' (the same layout)")
        value = "concatenated"
    return check_layout_choice(value, name, _LAYOUTS)


def convert_rotary_layout(
    x: Tensor, source: str, target: str, *, rotary_dim: int | None = None
) -> Tensor:
    """Reorder the last dimension of queries, keys (or projection rows) between layouts.

    ``interleaved`` pairs dimensions ``(2i, 2i + 1)``; ``concatenated`` pairs
    ``(i, i + d/2)``, the words `pe.convert_layout` uses for the same orders.
    Converting both queries and keys leaves every attention score unchanged; for
    a model's weights, permute the output rows of the query and key projections.
    A head that rotates only its first `rotary_dim` dimensions (partial
    rotary, `RotaryEmbedding.rotary_dim`) pairs only those: pass `rotary_dim`,
    and the rest of the head keeps its place.

    Parameters
    ----------
    x : torch.Tensor
        Any tensor with at least one dimension; the last one is reordered.
    source, target : {"interleaved", "concatenated"}
        The layouts to convert from and to (``"half"``, pe 0.1.0's name for
        ``"concatenated"``, still works with a `DeprecationWarning`).
    rotary_dim : int, optional
        Number of leading dimensions that form the pairs: a positive even
        integer no larger than ``x.shape[-1]`` (default: all of them).

    Returns
    -------
    torch.Tensor
        A new tensor of the same shape, dtype and device.

    Raises
    ------
    TypeError, ValueError
        For an `x` that is not a tensor of at least one dimension, an unknown
        layout, or a `rotary_dim` that is not a positive even integer up to
        the last dimension of `x`.

    Examples
    --------
    >>> import torch
    >>> from pe.nn.functional import convert_rotary_layout
    >>> convert_rotary_layout(torch.arange(6.0), "interleaved", "concatenated")
    tensor([0., 2., 4., 1., 3., 5.])
    >>> convert_rotary_layout(torch.arange(6.0), "interleaved", "concatenated", rotary_dim=4)
    tensor([0., 2., 1., 3., 4., 5.])
    """
    if not isinstance(x, Tensor) or x.dim() == 0:
        got = "a 0-d tensor" if isinstance(x, Tensor) else type(x).__name__
        raise TypeError(f"x must be a tensor with at least one dimension; got {got}")
    source = _check_rotary_layout(source, "source")
    target = _check_rotary_layout(target, "target")
    width = x.shape[-1]
    if rotary_dim is None:
        rotary_dim = width
    elif not is_integer(rotary_dim):
        raise TypeError(f"rotary_dim must be a positive even integer; got {rotary_dim!r}")
    rotary_dim = int(rotary_dim)
    if rotary_dim <= 0 or rotary_dim % 2 or rotary_dim > width:
        raise ValueError(
            "rotary_dim must be a positive even integer no larger than the last dimension of x "
            f"({width}); got {rotary_dim}"
        )
    perm = np.arange(width)
    perm[:rotary_dim] = layout_permutation(rotary_dim, source, target)  # type: ignore[arg-type]
    return x[..., torch.from_numpy(perm).to(x.device)]


_TABLE_MIN = 256  # shortest table kept; tables grow to the next power of two
_BLOCK = 1 << 16  # positions computed at once when building a table (float64 temporaries)
_FUSED = 1 << 16  # q and k of at most this many values in all are turned as one tensor
_RECENT = 8  # rows of recent (offset, length) requests kept: every layer of a step asks alike
_SIGNATURES = 16  # checked input signatures (shapes, dtypes, devices) kept: a model has a few


def _cos_sin_of(
    positions: Tensor, frequencies: Tensor, factor: float, dtype: torch.dtype
) -> tuple[Tensor, Tensor]:
    """Cos and sin of float64 angles ``positions * frequencies``, times `factor`, in `dtype`."""
    angles = positions.to(torch.float64).unsqueeze(-1) * frequencies  # (..., rotary_dim / 2)
    return (torch.cos(angles) * factor).to(dtype), (torch.sin(angles) * factor).to(dtype)


@torch.library.custom_op("pe::rope_cos_sin", mutates_args=())
def _rope_cos_sin(
    positions: Tensor, frequencies: Tensor, factor: float, dtype: torch.dtype
) -> tuple[Tensor, Tensor]:
    """`_cos_sin_of` as one opaque graph node, for ``torch.compile`` and ``torch.export``.

    Traced as plain operations, Inductor fuses the float64 cos and sin into the
    kernel that turns q (and again into k's): every head computes them again.
    On the CPU that made a compiled prefill 1.7x slower (37.5 ms against 21.8 ms
    for benchmarks/rope.py's q and k); as a custom op they run once, as outside
    a graph. The op costs about 20 us a call, more than it saves on a decoding
    step, so small inputs keep plain operations. On a GPU (an H200) the op's
    host time outweighed it: in a profile of the compiled prefill, the GPU's
    kernels took 88 us a call (transformers' compiled code: 71 us) while each
    call took about 300 us, mostly the op's dispatch and its small kernels, so
    there the plain operations are kept too.
    """
    return _cos_sin_of(positions, frequencies, factor, dtype)


@_rope_cos_sin.register_fake
def _rope_cos_sin_shape(
    positions: Tensor, frequencies: Tensor, factor: float, dtype: torch.dtype
) -> tuple[Tensor, Tensor]:
    shape = (*positions.shape, frequencies.shape[-1])
    return positions.new_empty(shape, dtype=dtype), positions.new_empty(shape, dtype=dtype)


def _mixes_dtypes(device: torch.device) -> bool:
    """Tell whether to turn half precision with kernels that mix it with float32 on `device`.

    Measured: on a GPU (an H200) three such kernels took a little less than the
    five of converting to float32 and back (a bfloat16 prefill of
    benchmarks/rope.py's q and k: 247 against 253 us); on the CPU they run
    without vector instructions and took longer (103 against 67 ms).
    """
    return device.type != "cpu"


def _own_kernels() -> bool:
    """Tell whether pe's own kernels may turn a large input: not with ``PE_KERNELS=0``.

    Those are the Triton kernel on a GPU (`pe.nn._kernels`) and the C loop on
    the CPU (`pe.nn._cpu_kernel`); without them, torch's operations turn it.
    """
    return os.environ.get("PE_KERNELS", "").strip() != "0"


def _compiling() -> bool:
    """Tell whether dynamo, torch.export or torch.jit.trace is tracing (no cache, no host sync).

    Under any of them the rotation takes the traceable path: cos and sin computed from the
    positions in the graph, no table lookups that a trace would freeze.
    """
    return bool(
        torch.compiler.is_compiling()
        or torch.compiler.is_exporting()
        or torch._C._get_tracing_state() is not None  # torch.jit.trace (its is_tracing)
    )


def _check_device(device: Any) -> torch.device:
    """Return `device` as a `torch.device` after checking this build of torch can use it."""
    if device is None:
        return torch.device("cpu")
    try:
        checked = torch.device(device)
    except (OverflowError, RuntimeError, TypeError, ValueError) as error:
        raise TypeError(f"device must name a torch device; got {device!r} ({error})") from None
    try:
        torch.empty(0, device=checked)
    except (AssertionError, RuntimeError) as error:
        raise ValueError(f"device {str(checked)!r} is not available here: {error}") from None
    return checked


_is_wrapped = getattr(torch._C._functorch, "is_functorch_wrapped_tensor", None)


def _transformed(x: Tensor) -> bool:
    """Tell whether `x` is wrapped by a `torch.func` transform (vmap, jvp, grad)."""
    return _is_wrapped is None or bool(_is_wrapped(x))


def _complex_view(x: Tensor) -> bool:
    """Tell whether `x` (float32 or float64) can be read as complex numbers in place."""
    *outer, last = x.stride()
    return (
        last == 1
        and x.storage_offset() % 2 == 0
        and all(stride % 2 == 0 for stride in outer)
        and x.device.type in ("cpu", "cuda", "meta")
    )


# --8<-- [start:chunks]
# Concatenated pairs on the CPU are turned a chunk of about this many bytes per intra-op
# thread at a time (inputs over twice a chunk): the second and third passes over a chunk
# find it in the cache the first pass left it in.
_CHUNK_BYTES = 384 << 10
_CHUNK_ROWS = 16  # fewest sequence rows in a chunk (each chunk reads its rows of the tables)


def _chunk_bytes() -> int:
    """Bytes of input turned at a time: `_CHUNK_BYTES` for each intra-op thread."""
    return _CHUNK_BYTES * torch.get_num_threads()


def _turn_concatenated_in_chunks(
    values: Tensor, cos: Tensor, minus_sin: Tensor, sin: Tensor, half: int
) -> Tensor:
    """Turn concatenated pairs as `RotaryEmbedding._turn` does, a cache-sized chunk at a time.

    Done over the whole tensor, the three operations pass over memory three
    times (the product, then each half's correction). A chunk holds the
    same few sequence rows of many heads: the corrections find it in the
    cache, and each row of the tables is read once for all those heads.
    `values` is contiguous, ``(..., seq, width)``; `cos` is ``(seq, width)``
    and `minus_sin` and `sin` are ``(seq, half)``.
    """
    seq, width = values.shape[-2:]
    flat = values.view(-1, seq, width)
    out = torch.empty_like(flat)
    rows = max(1, _chunk_bytes() // (width * values.element_size()))  # rows of width per chunk
    step = min(seq, max(_CHUNK_ROWS, rows // flat.shape[0]))  # sequence rows per chunk
    heads = max(1, rows // step)  # rows of everything before the sequence, per chunk
    # Each split is one call that returns every chunk's view; the loop only computes.
    tables = (cos.split(step), minus_sin.split(step), sin.split(step))
    for group in range(0, flat.shape[0], heads):
        x, y = flat[group : group + heads], out[group : group + heads]
        chunks = zip(
            x.split(step, 1),
            x.narrow(-1, 0, half).split(step, 1),
            x.narrow(-1, half, half).split(step, 1),
            y.split(step, 1),
            y.narrow(-1, 0, half).split(step, 1),
            y.narrow(-1, half, half).split(step, 1),
            *tables,
            strict=True,
        )
        for chunk, first, second, turned, turned_first, turned_second, c, ms, s in chunks:
            torch.mul(chunk, c, out=turned)  # (first cos, second cos, the rest unchanged)
            turned_first.addcmul_(second, ms)  # first cos - second sin
            turned_second.addcmul_(first, s)  # second cos + first sin
    return out.view(values.shape)


# --8<-- [end:chunks]


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
        `max_position_embeddings` for ``dynamic`` and the short factors for
        ``longrope``. See Notes.
    query_temperature : (float, float, int), optional
        ``(scale, step, shift)``: `forward` also multiplies the rotated
        queries at position $p$ by
        $1 + \mathrm{scale}\,\ln(1 + \lfloor (p + \mathrm{shift}) /
        \mathrm{step}\rfloor)$, as Ministral 3 and Mistral 4 do
        (``llama_4_scaling_beta``: ``(beta, original_max_position_embeddings,
        0)``; `from_config` sets it). `rotate` does not.

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
    power of two, when a call needs positions past its end and asks for at
    least a quarter of the rows it would then hold (a prefill from position
    0 does); a call that asks for fewer (one decoding step at a long context)
    gets its rows computed for it, so no call builds more than four times
    the rows it asks for (or 256). The rows of the last few (offset, length)
    requests are kept, so that every layer of one decoding step reads the
    same rows. The table is a plain attribute, not a buffer, so
    ``module.to(torch.bfloat16)`` cannot round the frequencies. The rotation
    is done in float32 and the result cast back to the input's dtype. Under
    ``torch.compile`` and ``torch.export`` the same float64 formula runs
    inside the graph instead of a table lookup.

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

    *Kernels.* A large input (a prefill) is turned in one pass by a kernel
    of pe's own where one can run: on the CPU, concatenated pairs (turned in
    float32) by a C loop compiled on first use with the machine's C compiler
    (``$CC``, else cc, gcc or clang) and kept in ``$XDG_CACHE_HOME/pe``
    (``~/.cache/pe``); on a GPU, by a Triton kernel where Triton is
    installed. Elsewhere, or with ``PE_KERNELS=0`` in the environment,
    torch's operations turn it (see the Install page).

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
        query_temperature: tuple[float, float, int] | None = None,
    ) -> None:
        super().__init__()
        self.query_temperature = check_temperature(query_temperature)
        # Without a length, dynamic NTK is fixed at the trained length (unscaled) and LongRoPE
        # takes its short factors, as transformers does for sequences up to that length.
        length = seq_len
        if length is None and _rule_of(layer_parameters(scaling)[0], "scaling") != "longrope":
            length = max_position_embeddings
        result = rope_frequencies(
            head_dim,
            base=base,
            scaling=scaling,
            max_position_embeddings=max_position_embeddings,
            seq_len=length,
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
                stacklevel=outside_stacklevel(),
            )
        if self.rule == "longrope" and seq_len is None:
            original = parameters.get("original_max_position_embeddings")
            warnings.warn(
                "rule 'longrope' depends on the sequence length and seq_len was not given: the "
                "module turns by the short factors, as transformers does for sequences up to "
                f"original_max_position_embeddings={original}. Pass seq_len= the longest "
                "length the module will serve (longer than that: the long factors)",
                UserWarning,
                stacklevel=outside_stacklevel(),
            )
        frequencies = result.frequencies
        frequencies.flags.writeable = False
        self.frequencies = frequencies
        self.attention_factor = float(result.attention_factor)
        self.rotary_dim = 2 * int(frequencies.size)
        # float64 on the CPU, never a buffer: .to(dtype) must not round it.
        self._frequencies64 = torch.from_numpy(frequencies.copy())
        self._copies: dict[tuple[str, torch.device], Tensor] = {}  # see `_constant`
        self._copy_constants(torch.get_default_device())
        # Packed cos and sin (see _rows), per device and dtype, and the rows of recent calls.
        self._tables: dict[tuple[str, torch.dtype], Tensor] = {}
        self._recent: dict[tuple[torch.device, torch.dtype, int, int], tuple[Tensor, ...]] = {}
        self._signatures: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # see `_remember`

    @classmethod
    def from_config(
        cls,
        config: Mapping[str, Any],
        *,
        layout: str | None = None,
        seq_len: int | None = None,
        layer_type: str | None = None,
        layer: int | None = None,
    ) -> RotaryEmbedding:
        """Build the module from a model's ``config.json`` (as a dict), as the model reads it.

        The config is read by `pe.read_config`, the one place where pe decides
        what each key means: ``rope_scaling`` or ``rope_parameters`` (flat, or
        nested by layer type), ``rope_theta`` and ``partial_rotary_factor``
        (inside that dict first, as transformers 5 reads them, else at the top
        level; a disagreement between the two gives a warning),
        ``max_position_embeddings``, ``original_max_position_embeddings``
        (Phi-3 keeps it at the top level, where it wins for a flat dict), the
        head width (``head_dim``, or ``qk_rope_head_dim``, DeepSeek's rotated
        part, or ``hidden_size // num_attention_heads``; a layer's own width
        in ``per_layer_config`` or Gemma 4's ``global_head_dim`` first),
        GPT-NeoX's ``rotary_pct`` or GPT-J's ``rotary_dim``, and the keys with
        which model families set a layer type's base, scaling or lack of RoPE
        (Gemma 3's ``rope_local_base_freq``, ModernBERT's two bases, Llama 4's
        and SmolLM3's ``no_rope_layers``, Cohere 2's unrotated full-attention
        layers...: `pe.POSITION_KEYS`). A config without RoPE settings of its
        own that wraps a language model (``text_config``...) is read there. A
        key that changes positions and that pe does not read is refused.

        Parameters
        ----------
        config : mapping
            The configuration, e.g. ``json.load`` of a ``config.json`` or a
            transformers config's ``to_dict()``.
        layout : {"concatenated", "interleaved"}, optional
            Which dimensions form a pair. Default: the model family's (pairs
            ``(i, i + d/2)`` for Llama-style models; ``(2i, 2i + 1)`` for
            GPT-J, GLM, Cohere, DeepSeek-V2, and DeepSeek-V3 with
            ``rope_interleave``).
        seq_len : int, optional
            As in the constructor. A ``dynamic`` or ``longrope`` config
            without it gives a warning (see the constructor).
        layer_type : str, optional
            Which layers' RoPE to build (``"full_attention"``,
            ``"sliding_attention"``...): required when the config's layer types
            get different positions (Gemma 3, ModernBERT, OLMo 3...).
        layer : int, optional
            The index of the layer to build for, instead of (or besides)
            `layer_type`: needed where layers of one type differ (Llama 4 and
            SmolLM3 leave some unrotated).

        Returns
        -------
        RotaryEmbedding
            A `NoRotation` (a RotaryEmbedding that returns queries and keys
            unturned, and names the key in its ``reason``) for a layer the
            config leaves without RoPE.

        Raises
        ------
        TypeError, ValueError
            If `config` is not a mapping, has no head width, names a key that
            changes positions and that pe refuses, has layers that differ with
            no `layer_type` or `layer` to choose, or RoPE settings that are
            invalid (see `pe.rope_frequencies`).

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
        >>> RotaryEmbedding.from_config(gemma3, layer=0).base
        10000.0
        """
        model = read_config(config)
        kind = model.select(layer, layer_type)
        if layout is not None:
            layout = _check_rotary_layout(layout, "layout")
        if not kind.rotated:
            from pe.nn._unrotated import NoRotation  # a subclass: imported when first needed

            return NoRotation(
                kind.head_dim,
                reason=kind.reason,
                layout=kind.layout if layout is None else layout,
                query_temperature=kind.temperature,
            )
        return cls(
            kind.head_dim,
            base=kind.base_beside,
            layout=kind.layout if layout is None else layout,
            scaling=kind.scaling or None,
            max_position_embeddings=kind.max_position_embeddings,
            partial_rotary_factor=kind.partial_rotary_factor,
            seq_len=seq_len,
            query_temperature=kind.temperature,
        )

    # --8<-- [start:table]
    def _cos_sin(
        self, positions: Tensor, dtype: torch.dtype, *, opaque: bool = False
    ) -> tuple[Tensor, Tensor]:
        """Compute cos and sin (times the attention factor) of integer `positions`.

        Angles are float64 products of an integer and a float64 frequency;
        cos and sin are float64, rounded once to `dtype`: exactly rounded but
        for a float64 error far below float32's. `opaque`: as one custom op
        (`_rope_cos_sin`), for a compiled graph that turns a large input.
        """
        frequencies = self._constant("_frequencies64", positions.device)
        if opaque:
            cos, sin = _rope_cos_sin(positions, frequencies, self.attention_factor, dtype)
            return cos, sin
        return _cos_sin_of(positions, frequencies, self.attention_factor, dtype)

    # Constants that stay on the CPU (float64 frequencies, which .to(dtype) must not round)
    # and are read on the device of the input, copied there once: a copy from the host in
    # every call would wait for the device each time, inside a compiled graph as well.
    _CONSTANTS: tuple[str, ...] = ("_frequencies64",)

    def _constant(self, name: str, device: torch.device) -> Tensor:
        """Return the CPU constant `name` on `device`, from the copies `_copy_constants` made."""
        value: Tensor = getattr(self, name)
        if device.type == "cpu":
            return value
        copy = self._copies.get((name, device))
        if copy is None:
            copy = value.to(device)
            if not _compiling():
                self._copies[(name, device)] = copy
        return copy

    def _copy_constants(self, device: torch.device) -> None:
        """Copy the constants to `device` (an accelerator) ahead of any call, traced or not."""
        if device.type not in ("cpu", "meta"):
            for name in self._CONSTANTS:
                self._copies[(name, device)] = getattr(self, name).to(device)

    def _apply(self, fn: Any, recurse: bool = True) -> RotaryEmbedding:
        """Move as `nn.Module` does (``.to``, ``.cuda``), and copy the constants there."""
        super()._apply(fn, recurse)  # type: ignore[no-untyped-call]
        self._copy_constants(fn(torch.empty(0)).device)
        return self

    def _rows(self, positions: Tensor, dtype: torch.dtype) -> Tensor:
        """Compute cos and sin of `positions`, packed as the rotation reads them (`_turn`).

        Interleaved: one complex number ``cos + i sin`` per pair, shape
        ``(..., rotary_dim / 2)``. Concatenated: ``(..., 2, head_dim)``, the
        factors of each dimension: ``[cos, cos, 1, ...]`` and ``[-sin, sin, 0, ...]``
        (1 and 0 for the dimensions left unrotated).
        """
        return self._pack(*self._cos_sin(positions, dtype))

    def _pack(self, cos: Tensor, sin: Tensor) -> Tensor:
        """Pack cos and sin, ``(..., rotary_dim / 2)``, as `_rows` describes."""
        if self.layout == "interleaved":
            return torch.complex(cos, sin)
        rest = cos.new_ones((*cos.shape[:-1], self.head_dim - self.rotary_dim))
        return torch.stack(
            (torch.cat((cos, cos, rest), -1), torch.cat((-sin, sin, torch.zeros_like(rest)), -1)),
            -2,
        )

    def _table(self, size: int, device: torch.device, dtype: torch.dtype) -> Tensor:
        """Return the cached rows of positions ``0 .. size - 1`` or more (a power of two)."""
        key = (str(device), dtype)
        cached = self._tables.get(key)
        if cached is None or cached.shape[0] < size:
            size = max(_TABLE_MIN, 1 << max(0, size - 1).bit_length())
            check_size((size, 2, self.head_dim), name="the cos/sin table")
            # An ordinary tensor even under inference_mode: a model run there first may train.
            with torch.inference_mode(False):
                blocks = [
                    self._rows(torch.arange(start, min(start + _BLOCK, size), device=device), dtype)
                    for start in range(0, size, _BLOCK)  # bounded float64 temporaries
                ]
                cached = blocks[0] if len(blocks) == 1 else torch.cat(blocks)
            self._tables[key] = cached
            self._recent.clear()  # rows there may be views of the table replaced
        return cached

    def table(
        self, length: int, *, device: Any = None, dtype: Any = torch.float32
    ) -> tuple[Tensor, Tensor]:
        """Return cos and sin (times the attention factor) of positions ``0 .. length - 1``.

        Parameters
        ----------
        length : int
            Number of positions, ``0 <= length <= 2**31 - 1``.
        device : torch.device or str, optional
            Where the table lives (default the CPU); it must be available.
        dtype : torch.dtype, default torch.float32
            A floating-point dtype. float32 and float64 (the dtypes the
            rotation computes in) are views of the cache, which grows to the
            next power of two; bfloat16 and float16 are computed on each call,
            from the same float64 values, rounded once.

        Returns
        -------
        tuple of torch.Tensor
            cos and sin, each of shape ``(length, rotary_dim // 2)``.

        Raises
        ------
        TypeError, ValueError
            For a `length` that is not a non-negative integer, a `dtype` that
            is not a floating-point torch dtype, a `device` that is not
            available, or a table of more than ``2**31`` values.

        Examples
        --------
        >>> from pe.nn import RotaryEmbedding
        >>> cos, sin = RotaryEmbedding(8).table(3)
        >>> cos.shape, round(float(cos[1, 0]), 6), round(float(sin[1, 0]), 6)
        (torch.Size([3, 4]), 0.540302, 0.841471)
        """
        length = check_length(length)
        device = _check_device(device)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise TypeError(
                "dtype must be a floating-point torch dtype (torch.float32, torch.float64, "
                f"torch.bfloat16 or torch.float16); got {dtype!r}"
            )
        if dtype not in (torch.float32, torch.float64):
            check_size((length, self.rotary_dim), name="the cos/sin table")
            blocks = [
                self._cos_sin(
                    torch.arange(start, min(start + _BLOCK, length), device=device), dtype
                )
                for start in range(0, max(length, 1), _BLOCK)  # bounded float64 temporaries
            ]
            return torch.cat([cos for cos, _ in blocks]), torch.cat([sin for _, sin in blocks])
        rows = self._table(length, device, dtype)[:length]
        if self.layout == "interleaved":
            return rows.real, rows.imag
        half = self.rotary_dim // 2
        return rows[:, 0, :half], rows[:, 1, half : self.rotary_dim]

    # --8<-- [end:table]

    def rotate(self, x: Tensor, *, offset: int = 0, positions: Tensor | None = None) -> Tensor:
        """Rotate `x` (``(..., seq, head_dim)``) by positions ``offset + 0, 1, ...``.

        `positions`, if given, replaces them: integers of shape ``(seq,)``,
        ``(batch, seq)`` or one dimension fewer than `x` (see Notes of the
        class); `offset` must then be 0.
        """
        return self._rotate(x, "x", offset=offset, positions=positions)

    def _check_input(self, x: Tensor, name: str) -> torch.Size:
        """Return the shape of `x` after checking it is ``(..., seq, head_dim)`` floating point."""
        if not isinstance(x, Tensor) or not x.is_floating_point() or x.dim() < 2:
            got = type(x).__name__
            if isinstance(x, Tensor):
                got = f"shape {tuple(x.shape)}, {x.dtype}"
            raise TypeError(
                f"{name} must be a floating-point tensor of shape (..., seq, head_dim); got {got}"
            )
        shape = x.shape
        if shape[-1] != self.head_dim:
            raise ValueError(
                f"{name} must have last dimension head_dim={self.head_dim}; "
                f"got shape {tuple(shape)}"
            )
        return shape

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
        if positions.is_meta and not x.is_meta:
            raise ValueError(
                f"{name} positions are on the meta device (shapes only, no values) while "
                f"{name} is on {x.device}: pass positions with values"
            )
        seq = x.shape[-2]
        leading = x.dim() - 1
        shape = tuple(positions.shape)
        if positions.dim() >= 1 and shape[-1] != seq:
            raise ValueError(
                f"{name} positions must end in the sequence length {seq}; got shape {shape}"
            )
        if positions.dim() == 2 and x.dim() >= 4 and shape[0] in (1, x.shape[0]):
            # (batch, seq): one row per batch entry, shared by the heads
            return positions.reshape(shape[0], *([1] * (x.dim() - 3)), seq)
        if positions.dim() == 1 or (
            positions.dim() == leading
            and all(p in (1, s) for p, s in zip(shape, x.shape[:-1], strict=True))
        ):
            return positions
        raise ValueError(
            f"{name} positions of shape {shape} are ambiguous for {name} of shape "
            f"{tuple(x.shape)}: pass (seq,), (batch, seq) with batch = {x.shape[0]}, "
            f"or {leading} dimensions broadcastable to {tuple(x.shape[:-1])}"
        )

    def _factors(self, rows: Tensor) -> tuple[Tensor, ...]:
        """Return the factors of `_turn`: ``(cos + i sin,)``, or ``([cos, cos, 1], -sin, sin)``."""
        if self.layout == "interleaved":
            return (rows,)
        half = self.rotary_dim // 2
        return rows[..., 0, :], rows[..., 1, :half], rows[..., 1, half : self.rotary_dim]

    def _range_rows(
        self, start: int, seq: int, device: torch.device, dtype: torch.dtype
    ) -> tuple[Tensor, ...]:
        """Rows of positions ``start .. start + seq - 1``: the table's, or computed for them.

        The table is built or grown only when the call itself needs at least a
        quarter of the rows it would hold, so one step at a far position
        computes its own row instead of a table of every position before it.
        """
        key = (device, dtype, start, seq)
        factors = self._recent.get(key)
        if factors is None:
            stop = start + seq
            cached = self._tables.get((str(device), dtype))
            with torch.inference_mode(False):  # kept: ordinary tensors, as the table
                if start >= 0 and (
                    (cached is not None and stop <= cached.shape[0])
                    or max(_TABLE_MIN, 1 << max(0, stop - 1).bit_length())
                    <= max(_TABLE_MIN, 4 * seq)
                ):
                    rows = self._table(stop, device, dtype)[start:stop]
                else:
                    rows = self._rows(torch.arange(start, stop, device=device), dtype)
                factors = self._factors(rows)
            if len(self._recent) >= _RECENT:
                self._recent.pop(next(iter(self._recent)))
            self._recent[key] = factors
        return factors

    def _position_rows(
        self, positions: Tensor, name: str, dtype: torch.dtype
    ) -> tuple[Tensor, ...]:
        """Rows of integer `positions` (any integer dtype), after checking their range."""
        unsigned = positions.dtype in (torch.uint8, torch.uint16, torch.uint32, torch.uint64)
        positions = positions.long()  # int8 and uint8 would index as a mask or not at all
        if positions.is_meta:  # shapes only: no value can be read
            return self._factors(self._rows(positions, dtype))
        low, high = (int(v) for v in torch.aminmax(positions)) if positions.numel() else (0, 0)
        if unsigned and low < 0:  # uint64 beyond 2**63 - 1 wrapped around
            low, high = 0, low + 2**64
        if max(-low, high) > MAX_POSITION:
            raise ValueError(
                f"{name} positions must lie in [-{MAX_POSITION}, {MAX_POSITION}]; "
                f"got {low if -low > high else high}"
            )
        cached = self._tables.get((str(positions.device), dtype))
        needed = max(_TABLE_MIN, 1 << high.bit_length())
        if low >= 0 and (
            (cached is not None and high < cached.shape[0])
            or needed <= max(_TABLE_MIN, 4 * positions.numel())
        ):
            return self._factors(self._table(high + 1, positions.device, dtype)[positions])
        return self._factors(self._rows(positions, dtype))  # few positions far apart: no table

    def _rotate(
        self, x: Tensor, name: str, *, offset: int = 0, positions: Tensor | None = None
    ) -> Tensor:
        # A model calls this for every layer and every token: an input of a shape, dtype and
        # device already checked (see `_remember`) skips the checks and reads its rows.
        if positions is None and type(offset) is int and type(x) is Tensor and not _compiling():
            signature = self._signatures.get((x.shape, x.dtype, x.device))
            if (
                signature is not None
                and -MAX_POSITION <= offset <= MAX_POSITION
                and not (x.requires_grad or _transformed(x))
            ):
                compute = signature[0]
                rows = self._range_rows(offset, x.shape[-2], x.device, compute)
                return self._turn(x, rows, compute)
        shape = self._check_input(x, name)
        compute = torch.float64 if x.dtype == torch.float64 else torch.float32
        if positions is None:
            fast = type(offset) is int and -MAX_POSITION <= offset <= MAX_POSITION
            start = offset if fast else check_offset(offset)
        elif not (is_integer(offset) and int(offset) == 0):
            raise ValueError(
                f"give either offset or {name} positions, not both; got offset={offset!r} with "
                "explicit positions (add the offset to the positions instead)"
            )
        if _compiling():  # traced: no cache, no value read on the host
            if positions is None:
                positions = torch.arange(start, start + shape[-2], device=x.device)
            else:
                positions = self._shape_positions(positions, x, name).to(x.device).long()
            # On the CPU, cos and sin of a large input as one opaque node (see _rope_cos_sin);
            # for a decoding step, and on a GPU, the op's own cost is larger than the saving.
            opaque = x.device.type == "cpu" and x.numel() > _FUSED
            cos, sin = self._cos_sin(positions, compute, opaque=opaque)
            return self._turn_traceable(x, cos, sin, compute)
        if positions is None:
            factors = self._range_rows(start, shape[-2], x.device, compute)
        else:
            shaped = self._shape_positions(positions, x, name).to(x.device)
            factors = self._position_rows(shaped, name, compute)
        if (x.requires_grad and torch.is_grad_enabled()) or _transformed(x):
            if self.layout == "interleaved":
                cos, sin = factors[0].real, factors[0].imag
            else:
                cos, sin = factors[0][..., : self.rotary_dim // 2], factors[2]
            return self._turn_traceable(x, cos, sin, compute)
        if positions is None and type(x) is Tensor:
            self._remember((x.shape, x.dtype, x.device), (compute,))
        return self._turn(x, factors, compute)

    def _remember(self, key: tuple[Any, ...], signature: tuple[Any, ...]) -> None:
        """Keep what the checks found for inputs of one signature (shapes, dtypes, devices).

        Shapes, dtypes and devices are all the checks read, so an input with
        the same signature passes them again: the fast paths of `_rotate` and
        `forward` look the signature up instead, then check only what can
        change between calls of one signature (the offset's range, autograd,
        a `torch.func` transform, tracing). The last few signatures are kept.
        """
        if key not in self._signatures:
            if len(self._signatures) >= _SIGNATURES:
                self._signatures.pop(next(iter(self._signatures)))
            self._signatures[key] = signature

    def _turn_cos_sin(self, x: Tensor, cos: Tensor, sin: Tensor, compute: torch.dtype) -> Tensor:
        """Rotate `x` by given cos and sin, ``(..., rotary_dim / 2)``, on whichever path applies."""
        if _compiling() or (x.requires_grad and torch.is_grad_enabled()) or _transformed(x):
            return self._turn_traceable(x, cos, sin, compute)
        return self._turn(x, self._factors(self._pack(cos, sin)), compute)

    def _turn_traceable(self, x: Tensor, cos: Tensor, sin: Tensor, compute: torch.dtype) -> Tensor:
        """Rotate with plain differentiable operations (autograd, compile, export)."""
        values = x.to(compute)
        half = self.rotary_dim // 2
        if self.layout == "interleaved":
            first = values[..., 0 : self.rotary_dim : 2]
            second = values[..., 1 : self.rotary_dim : 2]
        else:
            first, second = values[..., :half], values[..., half : self.rotary_dim]
        turned_first = first * cos - second * sin
        turned_second = first * sin + second * cos
        if self.layout == "interleaved":
            turned = torch.stack((turned_first, turned_second), dim=-1).flatten(-2)
        else:
            turned = torch.cat((turned_first, turned_second), dim=-1)
        return torch.cat((turned, values[..., self.rotary_dim :]), dim=-1).to(x.dtype)

    # --8<-- [start:rotate]
    def _turn(self, x: Tensor, factors: tuple[Tensor, ...], compute: torch.dtype) -> Tensor:
        """Turn each rotated pair of `x` by the angles in `factors` (eager, no autograd).

        Interleaved pairs are adjacent: read as complex numbers, ``x`` times
        ``cos + i sin`` is the whole rotation, one pass over the data.
        Concatenated pairs are half a head apart: ``x * [cos, cos, 1]``, then
        each half adds the other half times ``-sin`` or ``sin``, in place.
        """
        rotary, half = self.rotary_dim, self.rotary_dim // 2
        if x.is_cuda and x.numel() > _FUSED and factors[0].dim() == 2 and _own_kernels():
            # A prefill on a GPU: one kernel where Triton is installed (pe.nn._kernels).
            from pe.nn import _kernels

            interleaved = self.layout == "interleaved"
            if _kernels.wanted(x.dtype, interleaved=interleaved):
                if interleaved:  # (seq, half, 2): cos and sin of each pair side by side
                    cos = sin = torch.view_as_real(factors[0])
                else:
                    cos, sin = factors[0][:, :half], factors[2]
                turned = _kernels.turn(x, cos, sin, rotary, interleaved=interleaved)
                if turned is not None:
                    return turned
        if self.layout == "concatenated" and x.dtype != compute and _mixes_dtypes(x.device):
            # Half precision on an accelerator: the products read x as it is and work in
            # float32, and the last two write the result's dtype (one rounding): three
            # kernels instead of five (no float32 copy of x in, none of the result out).
            cos, minus_sin, sin = factors
            products = x * cos  # float32: (first cos, second cos, the rest unchanged)
            out = torch.empty_like(x)
            first, second = x.narrow(-1, 0, half), x.narrow(-1, half, half)
            torch.addcmul(
                products.narrow(-1, 0, half), second, minus_sin, out=out.narrow(-1, 0, half)
            )
            torch.addcmul(
                products.narrow(-1, half, half), first, sin, out=out.narrow(-1, half, half)
            )
            if rotary < self.head_dim:
                out.narrow(-1, rotary, self.head_dim - rotary).copy_(
                    x.narrow(-1, rotary, self.head_dim - rotary)
                )
            return out
        values = x if x.dtype == compute else x.to(compute)
        if self.layout == "concatenated":
            cos, minus_sin, sin = factors
            if (
                cos.dim() == 2  # rows shared by everything before the sequence
                and values.device.type == "cpu"
                and values.dim() >= 2
                and values.is_contiguous()
                and values.numel() * values.element_size() > 2 * _chunk_bytes()
            ):
                # One pass where a C compiler is found (pe.nn._cpu_kernel), else three.
                from pe.nn import _cpu_kernel

                turned = (
                    _cpu_kernel.turn(values, cos, minus_sin, sin, half) if _own_kernels() else None
                )
                if turned is None:
                    turned = _turn_concatenated_in_chunks(values, cos, minus_sin, sin, half)
                return turned if turned.dtype == x.dtype else turned.to(x.dtype)
            out = values * cos  # (first cos, second cos, the rest unchanged)
            first, second = values.narrow(-1, 0, half), values.narrow(-1, half, half)
            out.narrow(-1, 0, half).addcmul_(second, minus_sin)  # first cos - second sin
            out.narrow(-1, half, half).addcmul_(first, sin)  # second cos + first sin
            return out if out.dtype == x.dtype else out.to(x.dtype)
        part = values if rotary == self.head_dim else values.narrow(-1, 0, rotary)
        if _complex_view(part):  # (..., half) complex numbers, first + i second
            out = torch.view_as_real(part.view(factors[0].dtype) * factors[0]).flatten(-2)
        else:  # strides that no complex view can read
            cos, sin = factors[0].real, factors[0].imag
            first, second = part[..., 0::2], part[..., 1::2]
            out = torch.stack((first * cos - second * sin, first * sin + second * cos), -1)
            out = out.flatten(-2)
        if rotary < self.head_dim:
            out = torch.cat((out, values[..., rotary:]), dim=-1)
        return out if out.dtype == x.dtype else out.to(x.dtype)

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
        if self.query_temperature is None:
            return self._forward(q, k, q_positions, k_positions, offset)
        q_rot, k_rot = self._forward(q, k, q_positions, k_positions, offset)
        return apply_temperature(q_rot, self.query_temperature, q_positions, offset), k_rot

    def _forward(
        self,
        q: Tensor,
        k: Tensor,
        q_positions: Tensor | None,
        k_positions: Tensor | None,
        offset: int,
    ) -> tuple[Tensor, Tensor]:
        if (
            q_positions is None
            and k_positions is None
            and type(offset) is int
            and type(q) is Tensor
            and type(k) is Tensor
            and not _compiling()
        ):
            # A decoding step like the last one: its checks passed then (see `_remember`).
            key = (q.shape, k.shape, q.dtype, k.dtype, q.device, k.device)
            signature = self._signatures.get(key)
            if (
                signature is not None
                and -MAX_POSITION <= offset <= MAX_POSITION
                and not (q.requires_grad or k.requires_grad or _transformed(q) or _transformed(k))
            ):
                return self._turn_together(q, k, offset, signature)
        if q_positions is None and k_positions is None and self._fusable(q, k):
            # A decoding step: q and k share their positions, so they are turned as one
            # tensor (one set of operations instead of two; a copy of a few kilobytes).
            start = check_offset(offset)
            q_shape, k_shape = q.shape, k.shape
            q_count, k_count = math.prod(q_shape[:-2]), math.prod(k_shape[:-2])
            signature = (
                torch.float64 if q.dtype == torch.float64 else torch.float32,
                q_count,
                k_count,
                # Joined along the heads as they are where nothing comes before the heads
                # (batch 1), else as rows: either way each result is contiguous.
                q.dim() == k.dim() >= 3 and math.prod(q_shape[:-3]) == math.prod(k_shape[:-3]) == 1,
            )
            if type(q) is Tensor and type(k) is Tensor:
                self._remember((q_shape, k_shape, q.dtype, k.dtype, q.device, k.device), signature)
            return self._turn_together(q, k, start, signature)
        return (
            self._rotate(q, "q", offset=offset, positions=q_positions),
            self._rotate(k, "k", offset=offset, positions=k_positions),
        )

    def _turn_together(
        self, q: Tensor, k: Tensor, offset: int, signature: tuple[Any, ...]
    ) -> tuple[Tensor, Tensor]:
        """Turn a small `q` and `k` with the same positions as one tensor, checks done."""
        compute, q_count, k_count, by_heads = signature
        seq, width = q.shape[-2:]
        rows = self._range_rows(offset, seq, q.device, compute)
        if by_heads:
            turned = self._turn(torch.cat((q, k), -3), rows, compute)
            return turned.narrow(-3, 0, q_count), turned.narrow(-3, q_count, k_count)
        both = torch.cat((q.reshape(q_count, seq, width), k.reshape(k_count, seq, width)))
        turned = self._turn(both, rows, compute)
        return turned[:q_count].view(q.shape), turned[q_count:].view(k.shape)

    def _fusable(self, q: Tensor, k: Tensor) -> bool:
        """Tell whether `q` and `k` are small, alike and plain enough to be turned as one."""
        self._check_input(q, "q")
        self._check_input(k, "k")
        return (
            q.numel() + k.numel() <= _FUSED
            and q.dtype == k.dtype
            and q.device == k.device
            and q.shape[-2] == k.shape[-2] > 0
            and not (q.requires_grad or k.requires_grad)
            and not _compiling()
            and not (_transformed(q) or _transformed(k))
        )

    def extra_repr(self) -> str:
        return (
            f"head_dim={self.head_dim}, base={self.base}, layout={self.layout!r}, "
            f"rule={self.rule!r}, rotary_dim={self.rotary_dim}, "
            f"attention_factor={self.attention_factor!r}"
            + (
                ""
                if self.query_temperature is None
                else f", query_temperature={self.query_temperature}"
            )
        )
