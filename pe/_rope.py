r"""RoPE frequencies at long context: the scaling rules of today's open models.

Plain RoPE turns pair $i$ of a ``dim``-wide rotated block at the angular
frequency $\theta_i = b^{-2i/\mathrm{dim}}$, so its wavelength is
$\lambda_i = 2\pi/\theta_i$. A model trained on $L$ positions has seen every
pair with $\lambda_i < L$ turn through full circles, and the slow pairs
($\lambda_i > L$) only through part of one. A *scaling rule* changes the
frequencies so that a longer context $sL$ ($s$ = ``factor``) looks, to the slow
pairs, like the context they were trained on:

============  ==================================================================
rule          new frequency of pair $i$
============  ==================================================================
default       $\theta_i$
linear        $\theta_i / s$ (every pair; Chen et al. 2023, kaiokendev)
dynamic       $b'^{-2i/\mathrm{dim}}$ with
              $b' = b\,(s\,n/L - (s - 1))^{\mathrm{dim}/(\mathrm{dim}-2)}$ for a
              sequence of $n \ge L$ positions
yarn          $\theta_i\,((1-\gamma_i)/s + \gamma_i)$, $\gamma_i$ a ramp from 1
              (fast pairs, kept) to 0 (slow pairs, divided by $s$); cos and sin
              times $0.1 \ln s + 1$ (Peng et al. 2023)
longrope      $\theta_i / f_i$ with one factor per pair, a short set up to $L$
              and a long set beyond; cos and sin times
              $\sqrt{1 + \ln s / \ln L}$ (Ding et al. 2024)
llama3        $\theta_i$ for $\lambda_i < L/h$, $\theta_i/s$ for
              $\lambda_i > L/l$, a straight blend between (Meta, Llama 3.1)
proportional  $b^{-2i/\mathrm{head\_dim}}/s$ for the first
              $\lfloor p\,\mathrm{head\_dim}/2\rfloor$ pairs and 0 (no turn)
              for the rest of the head (Gemma 4's global layers)
============  ==================================================================

The rules and their keys follow ``transformers.modeling_rope_utils`` (the
functions in its ``ROPE_INIT_FUNCTIONS``, plus ``default``), which the tests
compare against on published model configurations; a test fails when the
pinned transformers gains a rule missing from `ROPE_RULES`. The dict may be
nested by layer type (``{"full_attention": {...}, "sliding_attention":
{...}}``, as transformers 5 saves Gemma 3 and later); ``layer_type`` picks one.
Keys transformers reads for other purposes (``mrope_section``,
``llama_4_scaling_beta``...) and keys it does not know are accepted with a
warning that names them, as transformers accepts them. Everything here is
float64.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from pe._stack import outside_stacklevel
from pe._validation import check_base, check_d_model, is_integer

__all__ = [
    "ROPE_RULES",
    "RopeFrequencies",
    "layer_parameters",
    "ntk_aware_base",
    "rope_frequencies",
    "rotary_dim",
]

# Keys every rule accepts: the rule's name (``rope_type``, or ``type`` in older
# configs) and the two settings transformers 5 moves into ``rope_parameters``.
_COMMON = frozenset({"rope_type", "type", "rope_theta", "partial_rotary_factor"})

#: The rules, each with (required keys, optional keys) besides the common ones:
#: ``default`` and every rule of transformers' ``ROPE_INIT_FUNCTIONS``.
ROPE_RULES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "default": (frozenset(), frozenset()),
    "linear": (frozenset({"factor"}), frozenset()),
    "dynamic": (frozenset({"factor"}), frozenset()),
    "yarn": (
        frozenset({"factor"}),
        frozenset(
            {
                "original_max_position_embeddings",
                "attention_factor",
                "beta_fast",
                "beta_slow",
                "mscale",
                "mscale_all_dim",
                "truncate",
            }
        ),
    ),
    "longrope": (
        frozenset({"short_factor", "long_factor", "original_max_position_embeddings"}),
        frozenset({"factor", "attention_factor"}),
    ),
    "llama3": (
        frozenset(
            {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}
        ),
        frozenset(),
    ),
    "proportional": (frozenset(), frozenset({"factor"})),
}

# Keys that transformers 5 reads from the same dict outside the frequency rules
# (in a model's attention or its own rotary class), with what pe leaves out.
_READ_ELSEWHERE: dict[str, str] = {
    "mrope_section": (
        "multimodal RoPE: transformers turns bands of pairs by separate time, height and "
        "width positions; this rotation turns every pair by one position, the same rotation "
        "when the three positions are equal (text tokens); for images and video use "
        "pe.mrope and pe.nn.MultimodalRotaryEmbedding"
    ),
    "mrope_interleaved": "the layout of multimodal RoPE's bands (see mrope_section)",
    "llama_4_scaling_beta": (
        "attention temperature: Ministral 3 and Mistral 4 multiply each query by "
        "1 + beta * ln(1 + floor(position / original_max_position_embeddings)); pe's rotation "
        "does not"
    ),
    "alpha": (
        "Hunyuan's NTK alpha: its own rotary class multiplies the base by "
        "alpha ** (dim / (dim - 2)); pe does not"
    ),
    "short_mscale": "PhiMoE's own rotary class scales cos and sin by it; pe does not",
    "long_mscale": "PhiMoE's own rotary class scales cos and sin by it; pe does not",
}

# Rule names transformers knows outside ROPE_INIT_FUNCTIONS, and why pe has no frequencies
# for them.
_OTHER_RULES = {
    "axial": (
        "the 2-D rotary embedding of vision encoders (image patches turned by row and column), "
        "computed by each vision model's own class"
    ),
}


class RopeFrequencies(NamedTuple):
    """What a scaling rule produces.

    Attributes
    ----------
    frequencies : numpy.ndarray
        float64, shape ``(rotary_dim // 2,)``: the angle per position of each
        rotated pair.
    attention_factor : float
        The number cos and sin are multiplied by (1.0 for most rules); it
        scales every attention logit by its square.

    Examples
    --------
    >>> import pe
    >>> frequencies, attention_factor = pe.rope_frequencies(4)
    >>> frequencies, attention_factor
    (array([1.  , 0.01]), 1.0)
    """

    frequencies: NDArray[np.float64]
    attention_factor: float


def _show(value: Any) -> str:
    """Show a value in a message: a shortened repr (never the digits of a huge integer)."""
    if is_integer(value) and abs(int(value)).bit_length() > 100:
        digits = int(abs(int(value)).bit_length() * math.log10(2)) + 1
        return f"an integer of about {digits} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _warn(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=outside_stacklevel())


def _number(value: Any, name: str, *, minimum: float, strict: bool = False) -> float:
    """Return `value` as a finite float ``>= minimum`` (``>`` if `strict`)."""
    relation = ">" if strict else ">="
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number {relation} {minimum:g}; got {_show(value)} "
            f"(type {type(value).__name__})"
        )
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(
            f"{name} must be a finite number {relation} {minimum:g}; got {_show(value)}, "
            "too large for a float"
        ) from None
    low_ok = number > minimum if strict else number >= minimum
    if not math.isfinite(number) or not low_ok:
        raise ValueError(
            f"{name} must be a finite number {relation} {minimum:g}; got {_show(value)}"
        )
    return number


def _base(value: Any, name: str) -> float:
    """Return `value` as a base: a finite real number above 1."""
    if is_integer(value) and abs(int(value)).bit_length() > 1000:
        raise ValueError(
            f"{name} must be a finite real number greater than 1; got {_show(value)}, too "
            "large for a float"
        )
    return check_base(value, name=name)


_LONGEST = 2**53


def _length(value: Any, name: str, *, minimum: int = 1) -> int:
    """Return `value` as an ``int >= minimum``."""
    kind = "positive" if minimum == 1 else "non-negative"
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # a length saved as a float (1200.0), as transformers reads it
    if not is_integer(value):
        raise TypeError(
            f"{name} must be a {kind} integer; got {_show(value)} (type {type(value).__name__})"
        )
    if int(value) < minimum:
        raise ValueError(f"{name} must be a {kind} integer; got {int(value)}")
    if int(value) > _LONGEST:
        raise ValueError(
            f"{name} must be at most 2**53 (the largest length a float holds exactly); "
            f"got {_show(value)}"
        )
    return int(value)


def rotary_dim(
    head_dim: int,
    partial_rotary_factor: float = 1.0,
    *,
    name: str = "partial_rotary_factor",
    allow_odd: bool = False,
) -> int:
    """Return the number of rotated dimensions, ``int(head_dim * partial_rotary_factor)``.

    The rest of each head passes through unrotated. The product is truncated,
    as in transformers, and must be a positive even number; with `allow_odd`
    an odd product is accepted, and the rule turns ``(dim + 1) / 2`` pairs
    (the exponents stay ``2i / dim``), as transformers rounds it up.

    Raises
    ------
    TypeError, ValueError
        If `head_dim` is not a positive even integer, `partial_rotary_factor`
        is not in ``(0, 1]``, or the rotated width is not a positive (even)
        number.

    Examples
    --------
    >>> from pe._rope import rotary_dim
    >>> rotary_dim(80, 0.4), rotary_dim(128), rotary_dim(42, 0.5, allow_odd=True)
    (32, 128, 21)
    """
    head_dim = check_d_model(head_dim, name="head_dim")
    factor = _number(partial_rotary_factor, name, minimum=0.0, strict=True)
    if factor > 1.0:
        raise ValueError(f"{name} must lie in (0, 1]; got {_show(partial_rotary_factor)}")
    dim = int(head_dim * factor)
    if dim < 1 or (dim % 2 and not allow_odd):
        raise ValueError(
            f"{name}={partial_rotary_factor!r} rotates int({head_dim} * "
            f"{partial_rotary_factor!r}) = {dim} dimensions; that must be a positive even number"
            + ("" if dim < 1 else " for this rule (transformers fails on an odd width here)")
        )
    return dim


def _check_key_types(parameters: Mapping[Any, Any], where: str) -> None:
    odd = [key for key in parameters if not isinstance(key, str)]
    if odd:
        raise TypeError(
            f"{where} must have string keys (as a config.json has); got "
            f"{', '.join(_show(key) for key in odd[:3])}"
        )


def _is_nested(parameters: Mapping[str, Any]) -> bool:
    """Tell whether `parameters` holds one dict per layer type (transformers 5's nested form)."""
    return (
        bool(parameters)
        and not {"rope_type", "type"} & set(parameters)
        and all(value is None or isinstance(value, Mapping) for value in parameters.values())
    )


def layer_parameters(
    scaling: Mapping[str, Any] | None, layer_type: str | None = None
) -> tuple[Mapping[str, Any], str]:
    """Return the flat RoPE dict that applies to `layer_type`, and how to name it in messages.

    `scaling` is a config's ``rope_scaling`` / ``rope_parameters``: either one
    flat dict (every layer type uses it) or, as transformers 5 saves Gemma 3
    and later, one dict per layer type (``{"full_attention": {...},
    "sliding_attention": {...}}``), from which `layer_type` picks one.

    Raises
    ------
    TypeError, ValueError
        For a `scaling` that is not a dict of string keys, a nested dict
        without `layer_type` or without that layer type, or a layer type whose
        entry is ``None`` (a layer without RoPE).

    Examples
    --------
    >>> from pe._rope import layer_parameters
    >>> nested = {"sliding_attention": {"rope_theta": 10000.0},
    ...           "full_attention": {"rope_theta": 1000000.0}}
    >>> layer_parameters(nested, "full_attention")
    ({'rope_theta': 1000000.0}, "scaling['full_attention']")
    """
    if layer_type is not None and not isinstance(layer_type, str):
        raise TypeError(
            f"layer_type must be a string such as 'full_attention'; got {_show(layer_type)}"
        )
    if scaling is None:
        return {}, "scaling"
    if not isinstance(scaling, Mapping):
        raise TypeError(
            "scaling must be a dict (a config's rope_scaling or rope_parameters) or None; "
            f"got {type(scaling).__name__}"
        )
    _check_key_types(scaling, "scaling")
    if not _is_nested(scaling):
        return scaling, "scaling"
    kinds = ", ".join(map(repr, scaling))
    if layer_type is None:
        raise ValueError(
            f"scaling holds one RoPE dict per layer type ({kinds}); pass layer_type= one of "
            "them (to rope_frequencies or RotaryEmbedding.from_config), or that entry itself"
        )
    if layer_type not in scaling:
        raise ValueError(f"layer_type={layer_type!r} is not in scaling; it holds {kinds}")
    entry = scaling[layer_type]
    where = f"scaling[{layer_type!r}]"
    if entry is None:
        raise ValueError(
            f"{where} is None: layers of type {layer_type!r} have no rotary embedding "
            "(transformers skips them); pick another layer_type"
        )
    _check_key_types(entry, where)
    return entry, where


def _rule_of(parameters: Mapping[str, Any], where: str) -> str:
    """Return the rule named by ``rope_type`` or ``type``, checked."""
    for key in ("rope_type", "type"):
        value = parameters.get(key)
        if value is not None and not isinstance(value, str):
            raise TypeError(
                f"{where}['{key}'] must be a rule name (a string), one of "
                f"{', '.join(map(repr, ROPE_RULES))}; got {_show(value)}"
            )
    # "mrope" is Qwen2-VL's older name: transformers' config reads it as default.
    names = {
        "default" if parameters[key] == "mrope" else parameters[key]
        for key in ("rope_type", "type")
        if parameters.get(key) is not None
    }
    if len(names) > 1:
        raise ValueError(
            f"{where} names two rules: rope_type={parameters['rope_type']!r} and "
            f"type={parameters['type']!r}; keep one"
        )
    rule = names.pop() if names else "default"
    if rule in _OTHER_RULES:
        raise ValueError(
            f"{where} names rule {rule!r}: {_OTHER_RULES[rule]}, not a rule of 1-D positions. "
            f"pe implements {', '.join(map(repr, ROPE_RULES))}"
        )
    if rule not in ROPE_RULES:
        raise ValueError(
            f"{where}'s rule must be one of {', '.join(map(repr, ROPE_RULES))}; got {rule!r}"
        )
    return str(rule)


def _check_keys(rule: str, parameters: Mapping[str, Any], where: str) -> None:
    """Refuse missing keys; accept, with a warning naming them, keys the rule does not read."""
    required, optional = ROPE_RULES[rule]
    unknown = sorted(set(parameters) - required - optional - _COMMON)
    for key in unknown:
        if key in _READ_ELSEWHERE:
            _warn(
                f"{where}[{key!r}] is read by transformers outside the frequency rule "
                f"({_READ_ELSEWHERE[key]}); it is ignored here"
            )
    others = [key for key in unknown if key not in _READ_ELSEWHERE]
    if others:
        accepted = ", ".join(sorted(required | optional | _COMMON))
        _warn(
            f"{where} has key(s) {', '.join(map(repr, others))} that rule {rule!r} does not read "
            f"(it reads {accepted}); they are ignored, as transformers ignores them"
        )
    # transformers computes a missing yarn factor from the lengths; every other
    # required key must hold a value.
    missing = sorted(
        key
        for key in required
        if key not in parameters or (parameters[key] is None and (rule, key) != ("yarn", "factor"))
    )
    if missing:
        raise ValueError(f"{where} rule {rule!r} needs {', '.join(map(repr, missing))}; missing")


def _differs(first: Any, second: Any) -> bool:
    try:
        return bool(float(first) != float(second))
    except (TypeError, ValueError, OverflowError):
        return bool(first != second)


def _setting(
    parameters: Mapping[str, Any], where: str, key: str, argument: Any, argument_name: str
) -> tuple[Any, str]:
    """Return a setting and its name: the dict's value first, as transformers 5 reads it."""
    inner = parameters.get(key)
    if inner is None:
        return argument, argument_name
    if argument is not None and _differs(inner, argument):
        _warn(
            f"{where}['{key}']={_show(inner)} and {argument_name}={_show(argument)} disagree; "
            f"using {where}['{key}'], as transformers 5 does (a value inside rope_parameters "
            "comes before one beside it)"
        )
    return inner, f"{where}['{key}']"


def _factors(values: Any, name: str, count: int) -> NDArray[np.float64]:
    """Return a LongRoPE factor list (`count` finite positive numbers) as an array."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a list of numbers; got {type(values).__name__}")
    bad = [
        value
        for value in values
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)
    ]
    if bad:
        raise TypeError(f"{name} must be a list of numbers; it holds {_show(bad[0])}")
    if len(values) != count:
        raise ValueError(
            f"{name} must hold one factor per rotated pair ({count}); got {len(values)}"
        )
    try:
        array = np.asarray(values, dtype=np.float64) if count else np.empty(0)
    except OverflowError:
        raise ValueError(f"{name} must hold finite positive numbers; one is too large") from None
    if not bool(np.all(np.isfinite(array) & (array > 0))):
        raise ValueError(f"{name} must hold finite positive numbers")
    return array


def _yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    r"""YaRN's attention factor $0.1\,m \ln s + 1$ (1 for $s \le 1$)."""
    return 1.0 if scale <= 1.0 else 0.1 * mscale * math.log(scale) + 1.0


def _proportional(
    head_dim: int, base: float, fraction: Any, fraction_name: str, factor: float
) -> RopeFrequencies:
    """Gemma 4's rule: the exponent runs over the whole head; pairs past the fraction stay still."""
    fraction = _number(fraction, fraction_name, minimum=0.0)
    if fraction > 1.0:
        raise ValueError(f"{fraction_name} must lie in [0, 1]; got {_show(fraction)}")
    turning = int(fraction * head_dim // 2)  # as transformers: floor of the product over 2
    frequencies = np.zeros(head_dim // 2, dtype=np.float64)
    frequencies[:turning] = np.power(
        base, -np.arange(0, 2 * turning, 2, dtype=np.float64) / head_dim
    )
    return RopeFrequencies(frequencies / factor, 1.0)


def ntk_aware_base(base: float, factor: float, dim: int) -> float:
    r"""Return the static NTK-aware base $b' = b\,s^{\mathrm{dim}/(\mathrm{dim}-2)}$.

    A larger base chosen so that, with $\theta'_i = b'^{-2i/\mathrm{dim}}$, the
    fastest pair ($i = 0$) keeps its frequency and the slowest
    ($i = \mathrm{dim}/2 - 1$) turns exactly $s$ times slower; the pairs between
    slow down by $s^{2i/(\mathrm{dim}-2)}$, geometrically in the pair index.
    This is the rule of bloc97's "NTK-aware scaled RoPE" (r/LocalLLaMA, June
    2023), applied once for a fixed target length (the *dynamic* rule of
    `rope_frequencies` recomputes the same base from each sequence's length).
    transformers has no ``rope_type`` for it: pass the result as ``base``
    (``rope_theta``).

    Parameters
    ----------
    base : float
        The trained base $b$, a finite real number above 1.
    factor : float
        The extension factor $s \ge 1$ (target length over trained length).
    dim : int
        The rotated width (an even integer of at least 4: with one pair the
        exponent $\mathrm{dim}/(\mathrm{dim}-2)$ is undefined).

    Returns
    -------
    float
        The new base $b'$ (equal to `base` when `factor` is 1).

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If `base` is not above 1, `factor` is below 1 or not finite, `dim` is
        not an even integer of at least 4, or the result overflows a float.

    Examples
    --------
    >>> import pe
    >>> new_base = pe.ntk_aware_base(10000.0, 8.0, 128)
    >>> round(new_base)
    82685
    >>> theta, _ = pe.rope_frequencies(128)
    >>> theta_new, _ = pe.rope_frequencies(128, base=new_base)
    >>> float(theta_new[0] / theta[0]), round(float(theta[-1] / theta_new[-1]), 12)
    (1.0, 8.0)
    """
    base = _base(base, "base")
    factor = _number(factor, "factor", minimum=1.0)
    dim = check_d_model(dim, name="dim")
    if dim < 4:
        raise ValueError(
            f"dim must be an even integer of at least 4 (one pair has no slowest pair to "
            f"rescale apart from its fastest); got {dim}"
        )
    try:
        new_base = base * math.pow(factor, dim / (dim - 2))
    except OverflowError:
        new_base = math.inf
    if not math.isfinite(new_base):
        raise ValueError(
            f"the NTK-aware base {_show(base)} * {_show(factor)}**({dim}/{dim - 2}) is too "
            "large for a float; use a smaller factor"
        )
    return new_base


def rope_frequencies(
    head_dim: int,
    *,
    base: float | None = None,
    scaling: Mapping[str, Any] | None = None,
    max_position_embeddings: int | None = None,
    seq_len: int | None = None,
    partial_rotary_factor: float | None = None,
    layer_type: str | None = None,
) -> RopeFrequencies:
    r"""Frequencies of the rotated pairs, and the attention factor, under a scaling rule.

    Parameters
    ----------
    head_dim : int
        Width of each attention head; a positive even integer.
    base : float, optional
        The base $b$ (``rope_theta`` in a config); a finite number above 1.
        Default: ``scaling['rope_theta']`` if the dict has it, else 10000. If
        both are given and differ, the dict's value is used, with a warning,
        as transformers 5 reads it.
    scaling : mapping, optional
        The ``rope_scaling`` (or transformers 5 ``rope_parameters``) dict of a
        model's ``config.json``, e.g. ``{"rope_type": "llama3", "factor": 8.0,
        "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192}``. The rule is its
        ``rope_type`` (or ``type``), one of `ROPE_RULES`: ``default``,
        ``linear``, ``dynamic``, ``yarn``, ``longrope``, ``llama3``,
        ``proportional``. It may hold ``rope_theta`` and
        ``partial_rotary_factor``, or be nested by layer type (see
        `layer_type`). ``None`` means no scaling.
    max_position_embeddings : int, optional
        The config's ``max_position_embeddings``. Needed by ``dynamic`` (the
        trained length $L$); the ``longrope`` factor $s$ defaults to it over
        ``original_max_position_embeddings``; ``yarn``, ``longrope`` and
        ``llama3`` fall back to it when the dict has no
        ``original_max_position_embeddings``.
    seq_len : int, optional
        The length being served, for the two rules that depend on it:
        ``dynamic`` (no change up to $L$) and ``longrope`` (short factors up
        to ``original_max_position_embeddings``, long ones beyond). ``None``
        or 0 means no length, as in transformers: ``dynamic`` unscaled,
        ``longrope`` short factors.
    partial_rotary_factor : float, optional
        Fraction of each head that is rotated, in ``(0, 1]``: the first
        ``int(head_dim * partial_rotary_factor)`` dimensions. Default:
        ``scaling['partial_rotary_factor']`` if present, else 1.0 (the dict's
        value comes first, as for `base`).
    layer_type : str, optional
        For a `scaling` nested by layer type (``{"full_attention": {...},
        "sliding_attention": {...}}``), the entry to read; required then. A
        flat dict applies to every layer type.

    Returns
    -------
    RopeFrequencies
        ``(frequencies, attention_factor)``: float64 frequencies of shape
        ``(rotary_dim // 2,)`` (``(head_dim // 2,)`` for ``proportional``,
        whose unrotated pairs have frequency 0) and a float.

    Raises
    ------
    TypeError, ValueError
        Naming the parameter or key: an unknown rule, a missing key, a value
        outside its domain (factors below 1, ``high_freq_factor`` below
        ``low_freq_factor``, ``beta_fast`` below ``beta_slow``, a LongRoPE
        list of the wrong length), a nested `scaling` without `layer_type`.
        transformers refuses or warns about each of these.

    Warns
    -----
    UserWarning
        For keys the rule does not read (named; keys transformers reads
        elsewhere, such as ``mrope_section`` or ``llama_4_scaling_beta``, with
        what they do there), a ``rope_theta`` or ``partial_rotary_factor``
        given twice with different values, yarn's ``beta_fast`` or
        ``beta_slow`` of 0 (read as 32 and 1, as transformers reads them), and
        llama3 with ``high_freq_factor == low_freq_factor`` (no blend: a step).

    Notes
    -----
    With $\theta_i = b^{-2i/\mathrm{dim}}$, $\lambda_i = 2\pi/\theta_i$, $s$ the
    factor and $L$ the original context (``original_max_position_embeddings``):

    * dynamic: the grown base is computed as $b\,(1 + s\,(n - L)/L)^{d/(d-2)}$,
      the same number as transformers' $b\,(s n/L - (s-1))^{d/(d-2)}$ written
      so that it stays exact at $n = L$ for any factor.
    * yarn: pair $i$ is kept ($\gamma_i = 1$) below index
      $i_{\mathrm{lo}} = \mathrm{dim}\,\ln(L/(2\pi\beta_{\mathrm{fast}})) / (2\ln b)$ and divided
      by $s$ ($\gamma_i = 0$) above
      $i_{\mathrm{hi}} = \mathrm{dim}\,\ln(L/(2\pi\beta_{\mathrm{slow}})) / (2\ln b)$ (floored and
      ceiled unless ``truncate`` is false), linearly between. The attention
      factor is ``attention_factor`` if given, else
      $\mathrm{ms}(s, m)/\mathrm{ms}(s, m_{\mathrm{all}})$ if both ``mscale`` and
      ``mscale_all_dim`` are set (DeepSeek), else $\mathrm{ms}(s, 1)$, with
      $\mathrm{ms}(s, m) = 0.1\,m\ln s + 1$. As in transformers, ``mscale``
      alone is ignored, and a ``factor`` of ``None`` means
      ``max_position_embeddings / L``.
    * llama3: with $w = L/\lambda_i$ (turns within the original context),
      pairs with $w > h$ are kept, pairs with $w < l$ divided by $s$, and in
      between $\theta_i\,((1-\mu)/s + \mu)$, $\mu = (w - l)/(h - l)$.
    * longrope: $s$ is ``factor`` or ``max_position_embeddings`` $/ L$.
    * proportional: the exponent runs over the whole head,
      $b^{-2i/\mathrm{head\_dim}}/s$, for the first
      $\lfloor p\,\mathrm{head\_dim}/2\rfloor$ pairs; the other pairs get
      frequency 0 ($p$ = ``partial_rotary_factor``, here in ``[0, 1]``).

    Examples
    --------
    >>> import pe
    >>> llama31 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
    ...            "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
    >>> freqs, factor = pe.rope_frequencies(128, base=500000.0, scaling=llama31)
    >>> freqs.shape, factor
    ((64,), 1.0)
    >>> float(freqs[0]), float(freqs[-1] / pe.rope_frequencies(128, base=500000.0).frequencies[-1])
    (1.0, 0.125)
    >>> yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
    >>> round(pe.rope_frequencies(128, base=1e6, scaling=yarn).attention_factor, 4)
    1.1386

    Nested by layer type, as transformers 5 saves Gemma 3:

    >>> gemma3 = {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
    ...           "full_attention": {"rope_type": "linear", "factor": 8.0,
    ...                              "rope_theta": 1000000.0}}
    >>> pe.rope_frequencies(256, scaling=gemma3, layer_type="full_attention").frequencies[:2]
    array([0.125     , 0.11221089])
    """
    parameters, where = layer_parameters(scaling, layer_type)
    rule = _rule_of(parameters, where)
    _check_keys(rule, parameters, where)
    base_value, base_name = _setting(parameters, where, "rope_theta", base, "base")
    base = _base(10000.0 if base_value is None else base_value, base_name)
    fraction, fraction_name = _setting(
        parameters, where, "partial_rotary_factor", partial_rotary_factor, "partial_rotary_factor"
    )
    fraction = 1.0 if fraction is None else fraction
    head_dim = check_d_model(head_dim, name="head_dim")
    if max_position_embeddings is not None:
        max_position_embeddings = _length(max_position_embeddings, "max_position_embeddings")
    if seq_len is not None:
        seq_len = _length(seq_len, "seq_len", minimum=0)

    def factor_of(default: Any = 1.0) -> float:
        value = parameters.get("factor", default)
        return _number(default if value is None else value, f"{where}['factor']", minimum=1.0)

    if rule == "proportional":
        factor = _number(
            parameters.get("factor", 1.0), f"{where}['factor']", minimum=0.0, strict=True
        )
        return _proportional(head_dim, base, fraction, fraction_name, factor)

    # transformers rounds an odd rotated width up to whole pairs where its rule allows it.
    odd_ok = rule in ("default", "linear", "dynamic", "llama3")
    dim = rotary_dim(head_dim, fraction, name=fraction_name, allow_odd=odd_ok)
    exponents = np.arange(0, dim, 2, dtype=np.float64) / dim  # 2i / dim
    theta: NDArray[np.float64] = np.power(base, -exponents)
    if rule == "default":
        return RopeFrequencies(theta, 1.0)

    if rule == "linear":
        return RopeFrequencies(theta / factor_of(), 1.0)

    if rule == "dynamic":
        factor = factor_of()
        if max_position_embeddings is None:
            raise ValueError("rule 'dynamic' needs max_position_embeddings (the trained length)")
        if dim <= 2:
            raise ValueError(f"rule 'dynamic' needs more than 2 rotated dimensions; got {dim}")
        length = max(seq_len or max_position_embeddings, max_position_embeddings)
        growth = 1.0 + factor * (length - max_position_embeddings) / max_position_embeddings
        try:
            new_base = base * growth ** (dim / (dim - 2))
        except OverflowError:
            new_base = math.inf
        if not math.isfinite(new_base):
            raise ValueError(
                f"{where}['factor']={_show(parameters['factor'])} at seq_len={length} grows the "
                "base past the largest float; accepted: factors for which "
                "base * (1 + factor * (seq_len - L) / L) ** (dim / (dim - 2)) is finite"
            )
        return RopeFrequencies(np.power(new_base, -exponents), 1.0)

    original = parameters.get("original_max_position_embeddings")
    if original is None:
        original = max_position_embeddings
    if original is None:
        raise ValueError(
            f"rule {rule!r} needs original_max_position_embeddings (in {where}) or "
            "max_position_embeddings"
        )
    original = _length(original, f"{where}['original_max_position_embeddings']")

    if rule == "yarn":
        if parameters.get("factor") is None:
            if max_position_embeddings is None:
                raise ValueError(
                    f"{where}['factor'] is None: rule 'yarn' then needs max_position_embeddings "
                    "(the factor is max_position_embeddings / original_max_position_embeddings)"
                )
            factor = max_position_embeddings / original
        else:
            factor = factor_of()
        attention = parameters.get("attention_factor")
        mscale = parameters.get("mscale")
        mscale_all_dim = parameters.get("mscale_all_dim")
        if attention is not None:
            attention = _number(attention, f"{where}['attention_factor']", minimum=0.0, strict=True)
        elif mscale and mscale_all_dim:
            mscale = _number(mscale, f"{where}['mscale']", minimum=0.0, strict=True)
            mscale_all_dim = _number(
                mscale_all_dim, f"{where}['mscale_all_dim']", minimum=0.0, strict=True
            )
            attention = _yarn_mscale(factor, mscale) / _yarn_mscale(factor, mscale_all_dim)
        else:
            attention = _yarn_mscale(factor)

        def beta(key: str, default: float) -> float:
            value = parameters.get(key)
            if value is None:
                return default
            number = _number(value, f"{where}[{key!r}]", minimum=0.0)
            if number == 0.0:
                _warn(
                    f"{where}[{key!r}]=0 is read as {default:g}, as transformers reads it "
                    f"(`or {default:g}`): no pair turns 0 times within the original context. "
                    "Pass a positive number, or leave the key out for the default"
                )
                return default
            return number

        beta_fast, beta_slow = beta("beta_fast", 32.0), beta("beta_slow", 1.0)
        if beta_fast < beta_slow:
            raise ValueError(
                f"{where}['beta_fast'] ({beta_fast:g}) must be at least "
                f"{where}['beta_slow'] ({beta_slow:g})"
            )
        truncate = parameters.get("truncate", True)
        if truncate is not None and not isinstance(truncate, (bool, np.bool_)):
            raise TypeError(f"{where}['truncate'] must be true or false; got {_show(truncate)}")
        if where != "scaling" and not truncate:
            _warn(
                f"{where}['truncate'] is {truncate!r}: applied here, while transformers 5.23 "
                "reads truncate from the top level of a nested rope_parameters (where it is "
                "never set) and so truncates every nested yarn entry"
            )

        def pair_index(turns: float) -> float:
            # The (fractional) pair whose wavelength fits `turns` times into the original context.
            return dim * math.log(original / (turns * 2 * math.pi)) / (2 * math.log(base))

        low, high = pair_index(beta_fast), pair_index(beta_slow)
        if truncate:  # None reads as false, as in transformers
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, dim - 1)
        if low == high:
            high += 0.001  # as transformers: avoid dividing by zero
        ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
        kept = 1.0 - ramp  # gamma_i: 1 for the fast pairs, 0 for the slow ones
        return RopeFrequencies(theta / factor * (1.0 - kept) + theta * kept, float(attention))

    if rule == "longrope":
        if parameters.get("factor") is None:
            if max_position_embeddings is None:
                raise ValueError(
                    f"rule 'longrope' needs {where}['factor'] or max_position_embeddings "
                    "(the factor is max_position_embeddings / original_max_position_embeddings)"
                )
            factor = max_position_embeddings / original
        else:
            factor = factor_of()
        attention = parameters.get("attention_factor")
        if attention is not None:
            attention = _number(attention, f"{where}['attention_factor']", minimum=0.0, strict=True)
        elif factor <= 1.0:
            attention = 1.0
        elif original < 2:
            raise ValueError(
                f"{where}['original_max_position_embeddings'] must be at least 2 for rule "
                "'longrope' to compute its attention factor sqrt(1 + ln s / ln L); got "
                f"{original}. "
                f"Pass {where}['attention_factor'] or a longer original length"
            )
        else:
            attention = math.sqrt(1 + math.log(factor) / math.log(original))
        short = _factors(parameters["short_factor"], f"{where}['short_factor']", dim // 2)
        long = _factors(parameters["long_factor"], f"{where}['long_factor']", dim // 2)
        chosen = long if seq_len and seq_len > original else short
        return RopeFrequencies(theta / chosen, float(attention))

    # llama3
    factor = factor_of()
    low_freq_factor = _number(
        parameters["low_freq_factor"], f"{where}['low_freq_factor']", minimum=0.0, strict=True
    )
    high_freq_factor = _number(
        parameters["high_freq_factor"], f"{where}['high_freq_factor']", minimum=0.0, strict=True
    )
    if high_freq_factor < low_freq_factor:
        raise ValueError(
            f"{where}['high_freq_factor'] ({high_freq_factor:g}) must be at least "
            f"{where}['low_freq_factor'] ({low_freq_factor:g})"
        )
    wavelength = 2 * math.pi / theta
    if high_freq_factor == low_freq_factor:
        _warn(
            f"{where} has high_freq_factor == low_freq_factor ({low_freq_factor:g}): rule "
            f"'llama3' has no blend band, so pairs with a wavelength above "
            f"{original / low_freq_factor:g} are divided by the factor and the rest kept "
            "(transformers gives the same step)"
        )
        scaled = np.where(wavelength > original / low_freq_factor, theta / factor, theta)
        return RopeFrequencies(scaled, 1.0)
    turns = original / wavelength  # full turns of each pair within the original context
    blend = np.clip((turns - low_freq_factor) / (high_freq_factor - low_freq_factor), 0.0, 1.0)
    scaled = theta / factor * (1.0 - blend) + theta * blend
    # Exact copies outside the band, as the rule states (no rounding from the blend).
    scaled = np.where(wavelength < original / high_freq_factor, theta, scaled)
    scaled = np.where(wavelength > original / low_freq_factor, theta / factor, scaled)
    return RopeFrequencies(scaled, 1.0)
