"""``pe explain``: what a model's configuration gives each layer's positions, in words or JSON.

`explain` reads a configuration with `pe.read_config` (the one reader of
config keys) and reports, for each kind of layer: the rule and its
parameters, the base, the head width and the rotated width with its layout,
the attention factor, the layers left without RoPE and why, the trained
length, Liu et al.'s critical dimension, and the key each setting was read
from. ``python -m pe explain config.json`` prints the same report.
"""

from __future__ import annotations

import json
import math
import re
import textwrap
import warnings
from typing import Any

from pe._config import LayerRope, ModelRope, frequencies_of, read_config, spans
from pe._rope_base import rope_critical_dimension

__all__ = ["explain", "explanation"]

# Keys of a rule's dict that the report shows as the rule's parameters (the others are
# the rule's name and the base, shown on lines of their own).
_NOT_PARAMETERS = frozenset({"rope_type", "type", "rope_theta", "partial_rotary_factor"})


def _number(value: Any) -> Any:
    """Show a number in the report: an int where whole, else 6 significant digits."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if float(value).is_integer() and abs(value) < 2**53:
        return int(value)
    return float(f"{value:.6g}")


def _kind_facts(kind: LayerRope, seq_len: int | None) -> dict[str, Any]:
    """Return what one kind of layer gets, as plain values (one entry of the JSON form)."""
    facts: dict[str, Any] = {
        "kind": kind.kind,
        "layers": list(kind.layers),
        "rotated": kind.rotated,
        "head_dim": kind.head_dim,
        "layout": kind.layout,
        "max_position_embeddings": kind.max_position_embeddings,
        "sources": dict(kind.sources),
    }
    if kind.temperature is not None:
        scale, step, shift = kind.temperature
        facts["query_temperature"] = {
            "scale": _number(scale),
            "step": _number(step),
            "shift": shift,
        }
    if not kind.rotated:
        facts.update(rule="none", rotary_dim=0, reason=kind.reason)
        return facts
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = frequencies_of(kind, seq_len)
    where = dict(kind.sources).get("rule", "")
    named = where if where.startswith("config") else "the RoPE dict"
    notes.extend(
        re.sub(r"^scaling\b", named, str(warning.message)).replace("scaling[", f"{named}[")
        for warning in caught
    )
    rule = kind.rule
    if rule in ("dynamic", "longrope") and seq_len is None:
        notes.append(
            f"rule {rule!r} depends on the sequence length; shown for sequences up to the "
            "trained length (pass seq_len for a longer one)"
        )
    frequencies = result.frequencies
    rotated = 2 * int(frequencies.size)
    if rule == "proportional":
        rotated = 2 * int((frequencies > 0).sum())
    trained = kind.trained_length
    facts.update(
        rule=rule,
        parameters={
            key: _number(value) if not isinstance(value, list) else f"{len(value)} values"
            for key, value in kind.scaling.items()
            if key not in _NOT_PARAMETERS
        },
        base=_number(kind.base),
        rotary_dim=rotated,
        attention_factor=_number(result.attention_factor),
        trained_length=trained,
        notes=notes,
    )
    if trained is not None and trained >= 1:
        facts["critical_dimension"] = rope_critical_dimension(rotated, trained, kind.base)
        slowest = 2 * math.pi / float(frequencies[frequencies > 0].min())
        facts["longest_wavelength"] = _number(slowest)
    return facts


def explanation(config: Any, *, seq_len: int | None = None) -> dict[str, Any]:
    """Return what `explain` reports, as a dict of plain values (its ``--json`` form).

    Examples
    --------
    >>> import pe
    >>> facts = pe.explanation({"model_type": "llama", "hidden_size": 4096,
    ...                         "num_attention_heads": 32, "num_hidden_layers": 32,
    ...                         "rope_theta": 500000.0, "max_position_embeddings": 8192})
    >>> [(k["kind"], k["rule"], k["base"], k["rotary_dim"], k["critical_dimension"])
    ...  for k in facts["kinds"]]
    [('all', 'default', 500000, 128, 70)]
    """
    model: ModelRope = read_config(config)
    return {
        "model_type": model.model_type,
        "read_from": model.where,
        "num_layers": model.num_layers,
        "kinds": [_kind_facts(kind, seq_len) for kind in model.kinds],
    }


def _layers(facts: dict[str, Any], count: int | None) -> str:
    layers = facts["layers"]
    if not layers:
        return "every layer" if facts["kind"] == "all" else f"layers of type {facts['kind']}"
    if count is not None and len(layers) == count:
        return f"all {count} layers"
    noun = "layer" if len(layers) == 1 else f"{len(layers)} layers"
    return f"{noun} ({spans(layers)})"


def _show(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10000:
        return f"{value:,}"
    return str(value)


_WIDTH = 88  # the report's lines, so that a terminal or a phone shows them whole
_INDENT = " " * 20


def _wrap(text: str, first: str, rest: str = _INDENT) -> list[str]:
    return textwrap.wrap(
        text,
        _WIDTH,
        initial_indent=first,
        subsequent_indent=rest,
        break_on_hyphens=False,
        break_long_words=False,
    )


def _row(lines: list[str], name: str, value: str, source: str | None = None) -> None:
    """Add a setting, and the key it came from (on its line where it fits, else below)."""
    wrapped = _wrap(value, f"  {name:<17} ")
    if source and source != "default":
        beside = f"{wrapped[-1]:<34} from {source}"
        if len(wrapped) == 1 and len(beside) <= _WIDTH:
            wrapped[-1] = beside
        else:
            wrapped += _wrap(source, _INDENT + "from ")
    lines.extend(wrapped)


def _temperature(values: dict[str, Any]) -> str:
    position = "(p + 1)" if values["shift"] else "p"
    step = _show(values["step"])
    return f"queries times 1 + {values['scale']} ln(1 + floor({position} / {step}))"


def explain(config: Any, *, seq_len: int | None = None, as_json: bool = False) -> str:
    """Say what a model's configuration gives the positions of each kind of layer.

    Parameters
    ----------
    config : mapping or transformers config
        ``json.load`` of a ``config.json`` (or a transformers config object).
    seq_len : int, optional
        The length served, for the rules that depend on it (``dynamic``,
        ``longrope``).
    as_json : bool, default False
        Return the report as JSON (`explanation`'s dict) instead of text.

    Returns
    -------
    str
        The report: one block per kind of layer.

    Raises
    ------
    TypeError, ValueError
        As `pe.read_config`: a key that changes positions and that pe refuses
        is named.

    Examples
    --------
    >>> import pe
    >>> smollm3 = {"model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16,
    ...            "num_hidden_layers": 8, "rope_theta": 5000000.0,
    ...            "max_position_embeddings": 65536, "no_rope_layer_interval": 4}
    >>> print(pe.explain(smollm3))
    model_type smollm3, read from config, 8 layers
    <BLANKLINE>
    full_attention, 6 layers (0-2, 4-6): RoPE
      rule              default
      base              5,000,000      from config['rope_theta']
      head width        128            from hidden_size // num_attention_heads = 2048 // 16
      rotated           128 dimensions, pairs (i, i + 64)
      attention factor  1
      trained length    65,536: critical dimension 78 of 128, longest wavelength 2.5e+07
    <BLANKLINE>
    full_attention, 2 layers (3, 7): no RoPE
      why               config['no_rope_layer_interval']: layers 3, 7, 11... are not rotated
                        (NoPE)
      head width        128            from hidden_size // num_attention_heads = 2048 // 16
    """
    if not isinstance(as_json, bool):
        raise TypeError(f"as_json must be True or False; got {as_json!r}")
    facts = explanation(config, seq_len=seq_len)
    if as_json:
        return json.dumps(facts, indent=2, sort_keys=False)
    count = facts["num_layers"]
    lines = [
        f"model_type {facts['model_type'] or '(none)'}, read from {facts['read_from']}"
        + (f", {count} layers" if count is not None else "")
    ]
    for kind in facts["kinds"]:
        sources = kind["sources"]
        label = "" if kind["kind"] == "all" else f"{kind['kind']}, "
        head = f"{label}{_layers(kind, count)}: {'RoPE' if kind['rotated'] else 'no RoPE'}"
        lines += ["", *_wrap(head, "", "    ")]

        def row(name: str, value: str, source: str | None = None, out: list[str] = lines) -> None:
            _row(out, name, value, source)

        if not kind["rotated"]:
            row("why", kind["reason"])
            row("head width", str(kind["head_dim"]), sources.get("head width"))
            if kind.get("query_temperature"):
                row("temperature", _temperature(kind["query_temperature"]),
                    sources.get("query temperature"))  # fmt: skip
            continue
        parameters = ", ".join(f"{key} {_show(value)}" for key, value in kind["parameters"].items())
        row("rule", kind["rule"] + (f" ({parameters})" if parameters else ""), sources.get("rule"))
        row("base", _show(kind["base"]), sources.get("base"))
        row("head width", str(kind["head_dim"]), sources.get("head width"))
        half = kind["rotary_dim"] // 2
        pairs = (
            "pairs (2i, 2i + 1)" if kind["layout"] == "interleaved" else f"pairs (i, i + {half})"
        )
        where = sources.get("rotated fraction") if kind["rotary_dim"] < kind["head_dim"] else None
        if where is None and kind["layout"] == "interleaved":
            where = sources.get("layout")
        row("rotated", f"{kind['rotary_dim']} dimensions, {pairs}", where)
        row("attention factor", _show(kind["attention_factor"]))
        if kind.get("query_temperature"):
            row("temperature", _temperature(kind["query_temperature"]),
                sources.get("query temperature"))  # fmt: skip
        if kind.get("trained_length") is not None:
            row(
                "trained length",
                f"{_show(kind['trained_length'])}: critical dimension "
                f"{kind['critical_dimension']} of {kind['rotary_dim']}, longest wavelength "
                f"{kind['longest_wavelength']:.2g}",
            )
        for note in kind["notes"]:
            row("note", note)
    return "\n".join(lines)
