r"""RoPE frequencies at long context: the scaling rules of today's open models.

Plain RoPE turns pair $i$ of a ``dim``-wide rotated block at the angular
frequency $\theta_i = b^{-2i/\mathrm{dim}}$, so its wavelength is
$\lambda_i = 2\pi/\theta_i$. A model trained on $L$ positions has seen every
pair with $\lambda_i < L$ turn through full circles, and the slow pairs
($\lambda_i > L$) only through part of one. A *scaling rule* changes the
frequencies so that a longer context $sL$ ($s$ = ``factor``) looks, to the slow
pairs, like the context they were trained on:

========  ==================================================================
rule      new frequency of pair $i$
========  ==================================================================
default   $\theta_i$
linear    $\theta_i / s$ (every pair; Chen et al. 2023, kaiokendev)
dynamic   $b'^{-2i/\mathrm{dim}}$ with
          $b' = b\,(s\,n/L - (s - 1))^{\mathrm{dim}/(\mathrm{dim}-2)}$ for a
          sequence of $n \ge L$ positions
yarn      $\theta_i\,((1-\gamma_i)/s + \gamma_i)$, $\gamma_i$ a ramp from 1
          (fast pairs, kept) to 0 (slow pairs, divided by $s$); cos and sin
          times $0.1 \ln s + 1$ (Peng et al. 2023)
longrope  $\theta_i / f_i$ with one factor per pair, a short set up to $L$
          and a long set beyond; cos and sin times
          $\sqrt{1 + \ln s / \ln L}$ (Ding et al. 2024)
llama3    $\theta_i$ for $\lambda_i < L/h$, $\theta_i/s$ for
          $\lambda_i > L/l$, a straight blend between (Meta, Llama 3.1)
========  ==================================================================

The rules and their keys follow ``transformers.modeling_rope_utils`` (the
functions in its ``ROPE_INIT_FUNCTIONS``), which the tests compare against on
published model configurations. Everything here is float64.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from pe._validation import check_base, check_d_model, is_integer

__all__ = ["ROPE_RULES", "RopeFrequencies", "rope_frequencies", "rotary_dim"]

# Keys every rule accepts: the rule's name (``rope_type``, or ``type`` in older
# configs) and the two settings transformers 5 moves into ``rope_parameters``.
_COMMON = frozenset({"rope_type", "type", "rope_theta", "partial_rotary_factor"})

#: The rules, each with (required keys, optional keys) besides the common ones.
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


def _number(value: Any, name: str, *, minimum: float, strict: bool = False) -> float:
    """Return `value` as a finite float ``>= minimum`` (``>`` if `strict`)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number; got {value!r} (type {type(value).__name__})"
        )
    number = float(value)
    low_ok = number > minimum if strict else number >= minimum
    if not math.isfinite(number) or not low_ok:
        relation = ">" if strict else ">="
        raise ValueError(f"{name} must be a finite number {relation} {minimum:g}; got {value!r}")
    return number


def _length(value: Any, name: str) -> int:
    """Return `value` as a positive ``int``."""
    if not is_integer(value):
        raise TypeError(
            f"{name} must be a positive integer; got {value!r} (type {type(value).__name__})"
        )
    if int(value) < 1:
        raise ValueError(f"{name} must be a positive integer; got {int(value)}")
    return int(value)


def rotary_dim(head_dim: int, partial_rotary_factor: float = 1.0) -> int:
    """Return the number of rotated dimensions, ``int(head_dim * partial_rotary_factor)``.

    The rest of each head passes through unrotated. The product is truncated,
    as in transformers; the result must be a positive even number.

    Raises
    ------
    TypeError, ValueError
        If `head_dim` is not a positive even integer, `partial_rotary_factor`
        is not in ``(0, 1]``, or the rotated width is not a positive even number.

    Examples
    --------
    >>> from pe._rope import rotary_dim
    >>> rotary_dim(80, 0.4), rotary_dim(128)
    (32, 128)
    """
    head_dim = check_d_model(head_dim, name="head_dim")
    factor = _number(partial_rotary_factor, "partial_rotary_factor", minimum=0.0, strict=True)
    if factor > 1.0:
        raise ValueError(f"partial_rotary_factor must lie in (0, 1]; got {partial_rotary_factor!r}")
    dim = int(head_dim * factor)
    if dim < 2 or dim % 2:
        raise ValueError(
            f"partial_rotary_factor={partial_rotary_factor!r} rotates int({head_dim} * "
            f"{partial_rotary_factor!r}) = {dim} dimensions; that must be a positive even number"
        )
    return dim


def _rule_of(scaling: Mapping[str, Any]) -> str:
    """Return the rule named by ``rope_type`` or ``type``, checked."""
    names = {scaling[key] for key in ("rope_type", "type") if key in scaling}
    if len(names) > 1:
        raise ValueError(
            f"scaling names two rules: rope_type={scaling['rope_type']!r} and "
            f"type={scaling['type']!r}; keep one"
        )
    rule = names.pop() if names else "default"
    if rule not in ROPE_RULES:
        raise ValueError(
            f"scaling rule must be one of {', '.join(map(repr, ROPE_RULES))}; got {rule!r}"
        )
    return str(rule)


def _check_keys(rule: str, scaling: Mapping[str, Any]) -> None:
    required, optional = ROPE_RULES[rule]
    unknown = sorted(set(scaling) - required - optional - _COMMON)
    if unknown:
        accepted = ", ".join(sorted(required | optional | _COMMON))
        raise ValueError(
            f"scaling has key(s) {', '.join(map(repr, unknown))} that rule {rule!r} does not "
            f"use; it accepts {accepted}"
        )
    missing = sorted(key for key in required if scaling.get(key) is None)
    if missing:
        raise ValueError(f"scaling rule {rule!r} needs {', '.join(map(repr, missing))}; missing")


def _factors(values: Any, name: str, count: int) -> NDArray[np.float64]:
    """Return a LongRoPE factor list (`count` finite positive numbers) as an array."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a list of numbers; got {type(values).__name__}")
    array = np.asarray(values, dtype=np.float64) if len(values) else np.empty(0)
    if array.shape != (count,):
        raise ValueError(
            f"{name} must hold one factor per rotated pair ({count}); got {len(values)}"
        )
    if not bool(np.all(np.isfinite(array) & (array > 0))):
        raise ValueError(f"{name} must hold finite positive numbers")
    return array


def _yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    r"""YaRN's attention factor $0.1\,m \ln s + 1$ (1 for $s \le 1$)."""
    return 1.0 if scale <= 1.0 else 0.1 * mscale * math.log(scale) + 1.0


def rope_frequencies(
    head_dim: int,
    *,
    base: float = 10000.0,
    scaling: Mapping[str, Any] | None = None,
    max_position_embeddings: int | None = None,
    seq_len: int | None = None,
    partial_rotary_factor: float = 1.0,
) -> RopeFrequencies:
    r"""Frequencies of the rotated pairs, and the attention factor, under a scaling rule.

    Parameters
    ----------
    head_dim : int
        Width of each attention head; a positive even integer.
    base : float, default 10000.0
        The base $b$ (``rope_theta`` in a config); a finite number above 1.
    scaling : mapping, optional
        The ``rope_scaling`` (or transformers 5 ``rope_parameters``) dict of a
        model's ``config.json``, e.g. ``{"rope_type": "llama3", "factor": 8.0,
        "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192}``. The rule is its
        ``rope_type`` (or ``type``): ``default``, ``linear``, ``dynamic``,
        ``yarn``, ``longrope`` or ``llama3``. ``rope_theta`` and
        ``partial_rotary_factor`` may appear in it and must then agree with
        the arguments. ``None`` means no scaling.
    max_position_embeddings : int, optional
        The config's ``max_position_embeddings``. Needed by ``dynamic`` (the
        trained length $L$); the ``longrope`` factor $s$ defaults to it over
        ``original_max_position_embeddings``; ``yarn`` falls back to it when
        the dict has no ``original_max_position_embeddings``.
    seq_len : int, optional
        The length being served, for the two rules that depend on it:
        ``dynamic`` (no change up to $L$) and ``longrope`` (short factors up
        to ``original_max_position_embeddings``, long ones beyond).
    partial_rotary_factor : float, default 1.0
        Fraction of each head that is rotated, in ``(0, 1]``: the first
        ``int(head_dim * partial_rotary_factor)`` dimensions.

    Returns
    -------
    RopeFrequencies
        ``(frequencies, attention_factor)``: float64 frequencies of shape
        ``(rotary_dim // 2,)`` and a float.

    Raises
    ------
    TypeError, ValueError
        Naming the parameter or key: an unknown rule or key, a missing key, a
        value outside its domain (factors below 1, ``high_freq_factor`` not
        above ``low_freq_factor``, ``beta_fast`` below ``beta_slow``, a LongRoPE
        list of the wrong length), or a ``rope_theta`` that disagrees with `base`.

    Notes
    -----
    With $\theta_i = b^{-2i/\mathrm{dim}}$, $\lambda_i = 2\pi/\theta_i$, $s$ the
    factor and $L$ the original context (``original_max_position_embeddings``):

    * yarn: pair $i$ is kept ($\gamma_i = 1$) below index
      $i_{\mathrm{lo}} = \mathrm{dim}\,\ln(L/(2\pi\beta_{\mathrm{fast}})) / (2\ln b)$ and divided
      by $s$ ($\gamma_i = 0$) above
      $i_{\mathrm{hi}} = \mathrm{dim}\,\ln(L/(2\pi\beta_{\mathrm{slow}})) / (2\ln b)$ (floored and
      ceiled unless ``truncate`` is false), linearly between. The attention
      factor is ``attention_factor`` if given, else
      $\mathrm{ms}(s, m)/\mathrm{ms}(s, m_{\mathrm{all}})$ if both ``mscale`` and
      ``mscale_all_dim`` are set (DeepSeek), else $\mathrm{ms}(s, 1)$, with
      $\mathrm{ms}(s, m) = 0.1\,m\ln s + 1$. As in transformers, ``mscale``
      alone is ignored.
    * llama3: with $w = L/\lambda_i$ (turns within the original context),
      pairs with $w > h$ are kept, pairs with $w < l$ divided by $s$, and in
      between $\theta_i\,((1-\mu)/s + \mu)$, $\mu = (w - l)/(h - l)$.
    * longrope: $s$ is ``factor`` or ``max_position_embeddings`` $/ L$.

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
    """
    dim = rotary_dim(head_dim, partial_rotary_factor)
    base = check_base(base)
    scaling = {} if scaling is None else scaling
    if not isinstance(scaling, Mapping):
        raise TypeError(
            "scaling must be a dict (a config's rope_scaling) or None; "
            f"got {type(scaling).__name__}"
        )
    rule = _rule_of(scaling)
    _check_keys(rule, scaling)
    if (
        "rope_theta" in scaling
        and check_base(scaling["rope_theta"], name="scaling['rope_theta']") != base
    ):
        raise ValueError(
            f"scaling['rope_theta']={scaling['rope_theta']!r} disagrees with base={base!r}; "
            "pass base=scaling['rope_theta']"
        )
    if "partial_rotary_factor" in scaling and float(scaling["partial_rotary_factor"]) != float(
        partial_rotary_factor
    ):
        raise ValueError(
            f"scaling['partial_rotary_factor']={scaling['partial_rotary_factor']!r} disagrees "
            f"with partial_rotary_factor={partial_rotary_factor!r}"
        )
    if max_position_embeddings is not None:
        max_position_embeddings = _length(max_position_embeddings, "max_position_embeddings")
    if seq_len is not None:
        seq_len = _length(seq_len, "seq_len")

    exponents = np.arange(0, dim, 2, dtype=np.float64) / dim  # 2i / dim
    theta: NDArray[np.float64] = np.power(base, -exponents)
    if rule == "default":
        return RopeFrequencies(theta, 1.0)
    factor = _number(scaling.get("factor", 1.0), "scaling['factor']", minimum=1.0)

    if rule == "linear":
        return RopeFrequencies(theta / factor, 1.0)

    if rule == "dynamic":
        if max_position_embeddings is None:
            raise ValueError("rule 'dynamic' needs max_position_embeddings (the trained length)")
        if dim <= 2:
            raise ValueError(f"rule 'dynamic' needs more than 2 rotated dimensions; got {dim}")
        length = max(seq_len or max_position_embeddings, max_position_embeddings)
        new_base = base * (factor * length / max_position_embeddings - (factor - 1)) ** (
            dim / (dim - 2)
        )
        return RopeFrequencies(np.power(new_base, -exponents), 1.0)

    original = scaling.get("original_max_position_embeddings", max_position_embeddings)
    if original is None:
        raise ValueError(
            f"rule {rule!r} needs original_max_position_embeddings (in scaling) or "
            "max_position_embeddings"
        )
    original = _length(original, "scaling['original_max_position_embeddings']")

    if rule == "yarn":
        attention = scaling.get("attention_factor")
        mscale = scaling.get("mscale")
        mscale_all_dim = scaling.get("mscale_all_dim")
        if attention is not None:
            attention = _number(attention, "scaling['attention_factor']", minimum=0.0, strict=True)
        elif mscale and mscale_all_dim:
            mscale = _number(mscale, "scaling['mscale']", minimum=0.0, strict=True)
            mscale_all_dim = _number(
                mscale_all_dim, "scaling['mscale_all_dim']", minimum=0.0, strict=True
            )
            attention = _yarn_mscale(factor, mscale) / _yarn_mscale(factor, mscale_all_dim)
        else:
            attention = _yarn_mscale(factor)
        beta_fast = _number(
            scaling.get("beta_fast") or 32, "scaling['beta_fast']", minimum=0.0, strict=True
        )
        beta_slow = _number(
            scaling.get("beta_slow") or 1, "scaling['beta_slow']", minimum=0.0, strict=True
        )
        if beta_fast < beta_slow:
            raise ValueError(
                f"scaling['beta_fast'] ({beta_fast:g}) must be at least "
                f"scaling['beta_slow'] ({beta_slow:g})"
            )
        truncate = scaling.get("truncate", True)
        if not isinstance(truncate, (bool, np.bool_)):
            raise TypeError(f"scaling['truncate'] must be true or false; got {truncate!r}")

        def pair_index(turns: float) -> float:
            # The (fractional) pair whose wavelength fits `turns` times into the original context.
            return dim * math.log(original / (turns * 2 * math.pi)) / (2 * math.log(base))

        low, high = pair_index(beta_fast), pair_index(beta_slow)
        if truncate:
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, dim - 1)
        if low == high:
            high += 0.001  # as transformers: avoid dividing by zero
        ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
        kept = 1.0 - ramp  # gamma_i: 1 for the fast pairs, 0 for the slow ones
        return RopeFrequencies(theta / factor * (1.0 - kept) + theta * kept, float(attention))

    if rule == "longrope":
        if scaling.get("factor") is None:
            if max_position_embeddings is None:
                raise ValueError(
                    "rule 'longrope' needs scaling['factor'] or max_position_embeddings "
                    "(the factor is max_position_embeddings / original_max_position_embeddings)"
                )
            factor = max_position_embeddings / original
        attention = scaling.get("attention_factor")
        if attention is not None:
            attention = _number(attention, "scaling['attention_factor']", minimum=0.0, strict=True)
        elif factor <= 1.0:
            attention = 1.0
        else:
            attention = math.sqrt(1 + math.log(factor) / math.log(original))
        use_long = seq_len is not None and seq_len > original
        key = "long_factor" if use_long else "short_factor"
        short = _factors(scaling["short_factor"], "scaling['short_factor']", dim // 2)
        long = _factors(scaling["long_factor"], "scaling['long_factor']", dim // 2)
        chosen = long if key == "long_factor" else short
        return RopeFrequencies(theta / chosen, float(attention))

    # llama3
    low_freq_factor = _number(
        scaling["low_freq_factor"], "scaling['low_freq_factor']", minimum=0.0, strict=True
    )
    high_freq_factor = _number(
        scaling["high_freq_factor"], "scaling['high_freq_factor']", minimum=0.0, strict=True
    )
    if high_freq_factor <= low_freq_factor:
        raise ValueError(
            f"scaling['high_freq_factor'] ({high_freq_factor:g}) must be greater than "
            f"scaling['low_freq_factor'] ({low_freq_factor:g})"
        )
    wavelength = 2 * math.pi / theta
    turns = original / wavelength  # full turns of each pair within the original context
    blend = np.clip((turns - low_freq_factor) / (high_freq_factor - low_freq_factor), 0.0, 1.0)
    scaled = theta / factor * (1.0 - blend) + theta * blend
    # Exact copies outside the band, as the rule states (no rounding from the blend).
    scaled = np.where(wavelength < original / high_freq_factor, theta, scaled)
    scaled = np.where(wavelength > original / low_freq_factor, theta / factor, scaled)
    return RopeFrequencies(scaled, 1.0)
