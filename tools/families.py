"""Write ``pe/_families.py`` from the pinned transformers: each model type's RoPE defaults.

A ``config.json`` that leaves a RoPE setting out gets the default of its
family's configuration class in transformers (StableLM rotates a quarter of
each head, DeepSeek-V3 checkpoints are interleaved, Llama 4's base is 500000):
pe must fill in the same values. This tool builds every configuration class of
the installed transformers with its defaults, reads what transformers fills in
(the base per layer type, the rotated fraction, ``rope_interleave``), finds
the pair layout by running the family's own ``apply_rotary_pos_emb`` on a
basis vector, and writes the table. ``tests/test_configs.py`` runs it again
and fails when the table differs from what the pinned transformers gives.

    python -m tools.families          # rewrite pe/_families.py
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import logging
import sys
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# Sizes a file may leave to its class's defaults, which change the head or the layers.
_SIZES = (
    "head_dim",
    "hidden_size",
    "num_attention_heads",
    "num_hidden_layers",
    "max_position_embeddings",
    "qk_rope_head_dim",
    "rotary_dim",
)
TARGET = ROOT / "pe" / "_families.py"

_HEADER = '''"""RoPE defaults of each model type of the pinned transformers (generated, not edited).

Written by ``python -m tools.families`` from transformers {version}: for each
model type whose configuration has RoPE settings, the values its
configuration class fills in when a ``config.json`` leaves them out, and the
pair layout of its modeling code. `pe._config` reads a file's missing keys
from here; ``tests/test_configs.py`` checks the table against the pinned
transformers.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["CONFIG_CLASSES", "FAMILIES", "NO_ROPE", "TRANSFORMERS_VERSION", "Family"]

#: The transformers whose classes the table was read from.
TRANSFORMERS_VERSION = "{version}"


class Family(NamedTuple):
    """One model type's RoPE defaults.

    ``base`` is the base of a file without ``rope_theta`` (one per layer type
    where transformers nests its defaults); ``fraction`` the rotated share of
    each head (``None``: the whole head); ``layout`` the pairs its modeling
    code turns (``None`` where the tool found no function to run);
    ``interleave`` the default of ``rope_interleave``; ``rule`` the rule of a
    file without one (``"axial"`` for vision encoders); ``text`` the model
    type of the language model inside a wrapper; ``preset`` the RoPE dict the
    class builds in when a file has none and that is not the default rule
    (Apertus' llama3, gpt-oss' yarn...), as ``(key, value)`` pairs, without
    the keys it derives from ``max_position_embeddings``; ``fields`` the class's
    defaults for the sizes a file may leave out (``head_dim``,
    ``num_attention_heads``...); ``aliases`` the names under which the class
    reads those sizes from a file (GPT-J's ``n_embd`` for ``hidden_size``...).
    """

    base: float | tuple[tuple[str, float], ...]
    fraction: float | None
    layout: str | None
    interleave: bool | None
    rule: str
    text: str
    preset: tuple[tuple[str, object], ...] | None = None
    fields: tuple[tuple[str, object], ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()


'''


def _quiet() -> None:
    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)
    import transformers

    transformers.utils.logging.set_verbosity_error()


def _calls_interleave(module: Any) -> bool:
    """Tell whether the family's attention turns interleaved pairs whatever its config says.

    True where the attention's forward calls ``apply_rotary_pos_emb_interleave`` without a
    ``rope_interleave`` switch (DeepSeek-V3.2, GLM-5: the switch families get the default
    of the flag instead).
    """
    if not hasattr(module, "apply_rotary_pos_emb_interleave"):
        return False
    classes = [
        getattr(module, name)
        for name in dir(module)
        if name.endswith("Attention") and "Vision" not in name and not name.startswith("_")
    ]
    for cls in classes:
        try:
            source = inspect.getsource(cls.forward)
        except (OSError, TypeError):
            continue
        if "apply_rotary_pos_emb_interleave(" in source and "rope_interleave" not in source:
            return True
    return not hasattr(module, "apply_rotary_pos_emb")


def _layout(module: Any) -> str | None:
    """Turn a basis vector by a quarter turn with the family's apply function; see where it goes."""
    import torch

    width = 8
    q = torch.zeros(1, 1, 1, width)
    q[..., 0] = 1.0
    if hasattr(module, "apply_rotary_emb") and not hasattr(module, "apply_rotary_pos_emb"):
        turn = torch.full((1, 1, width // 2), 1j, dtype=torch.complex64)  # exp(i pi/2)
        try:
            out, _ = module.apply_rotary_emb(q, q, turn)
        except Exception:  # a function of another shape: not this family's
            return None
    elif _calls_interleave(module):
        return "interleaved"  # turns a checkpoint's interleaved pairs (after regrouping them)
    elif hasattr(module, "apply_rotary_pos_emb"):
        apply = module.apply_rotary_pos_emb
        names = list(inspect.signature(apply).parameters)
        out = None
        for columns in (width, width // 2):
            cos = torch.zeros(1, 1, columns)
            sin = torch.ones(1, 1, columns)
            try:
                if names[:3] == ["tensor", "sin", "cos"]:  # GPT-J: one tensor, sin first
                    out = apply(q, sin, cos)
                elif names[:3] == ["x", "cos", "sin"]:  # Gemma 3n, Gemma 4: one tensor
                    out = apply(q, cos, sin)
                else:
                    out = apply(q, q, cos, sin)[0]
                break
            except Exception:  # cos of the other width
                continue
        if out is None:
            return None
    else:
        return None
    moved = torch.nonzero(out.reshape(-1).abs() > 0.5).flatten().tolist()
    if moved == [1]:
        return "interleaved"
    if moved == [width // 2]:
        return "concatenated"
    return None


def _entry(model_type: str) -> tuple[Any, ...] | None:
    """Return one model type's Family fields, or None where its configuration has no RoPE."""
    from transformers import CONFIG_MAPPING

    cls = CONFIG_MAPPING[model_type]
    config = cls()
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    rope = getattr(text, "rope_parameters", None)
    if (not isinstance(rope, dict) or not rope) and getattr(text, "rotary_dim", None):
        rope = {"rope_type": "default", "rope_theta": 10000.0}  # GPT-J, CodeGen: fixed base
    if not isinstance(rope, dict) or not rope:
        return None
    nested = [key for key in rope if isinstance(rope[key], dict)]
    if nested and not {"rope_type", "type"} & set(rope):
        base: Any = tuple(
            (key, float(rope[key]["rope_theta"]))
            for key in sorted(nested)
            if "rope_theta" in rope[key]
        )
        first: dict[str, Any] = {}  # each nested entry carries its own rule and share
    else:
        base, first = float(rope.get("rope_theta", 10000.0)), rope
    fraction = first.get("partial_rotary_factor")
    try:
        module = importlib.import_module(
            type(text).__module__.replace("configuration_", "modeling_")
        )
        layout = _layout(module)
    except Exception:  # a modeling module that does not import here
        layout = None
    interleave = getattr(text, "rope_interleave", None)
    preset = None
    if not nested and first.get("rope_type", "default") != "default":
        try:  # the keys that follow max_position_embeddings are the file's, not the preset's
            other = cls(max_position_embeddings=12345)
            other_text = other.get_text_config() if hasattr(other, "get_text_config") else other
            moved = {k for k, v in other_text.rope_parameters.items() if rope.get(k) != v}
        except Exception:  # a class that refuses the length: keep every key
            moved = set()
        preset = tuple((key, value) for key, value in sorted(rope.items()) if key not in moved)
    declared = (
        {
            item.name: item.default
            for item in dataclasses.fields(type(text))
            if item.name in _SIZES and item.default is not dataclasses.MISSING
        }
        if dataclasses.is_dataclass(type(text))
        else {}
    )
    fields = tuple(
        (key, value)
        for key, value in sorted(declared.items())
        if isinstance(value, (int, float)) and not isinstance(value, bool)
    )
    # attribute_map: {exposed name: stored name}; a file may use either, and both mean the
    # stored one. pe's name is whichever of the two is one of _SIZES.
    mapping = getattr(type(text), "attribute_map", None) or {}
    aliases = tuple(
        sorted(
            (str(other), str(name))
            for exposed, stored in mapping.items()
            for other, name in ((stored, exposed), (exposed, stored))
            if name in _SIZES and other not in _SIZES
        )
    )
    return (
        base,
        None if fraction is None else float(fraction),
        layout,
        None if interleave is None else bool(interleave),
        str(first.get("rope_type", "default")),
        str(getattr(text, "model_type", model_type)),
        preset,
        fields,
        aliases,
    )


def family_of(model_type: str) -> Any:
    """Return what ``pe._families.FAMILIES[model_type]`` should hold, from transformers.

    transformers' own logging is silenced for the call and restored after it.
    """
    from transformers.utils import logging as transformers_logging

    from pe._families import Family

    level = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_error()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            entry = _entry(model_type)
    finally:
        transformers_logging.set_verbosity(level)
    return None if entry is None else Family(*entry)


def families() -> tuple[dict[str, tuple[Any, ...]], list[str], dict[str, str], str]:
    """Return {model type: Family fields}, the types without RoPE, class names, the version."""
    _quiet()
    import transformers
    from transformers import CONFIG_MAPPING

    table: dict[str, tuple[Any, ...]] = {}
    without: list[str] = []
    classes: dict[str, str] = {}
    for model_type in sorted(CONFIG_MAPPING.keys()):
        try:
            entry = _entry(model_type)
        except Exception:  # a class that needs arguments, or two text models
            continue
        if entry is None:
            without.append(model_type)
            continue
        classes.setdefault(CONFIG_MAPPING[model_type].__name__, model_type)
        table[model_type] = entry
    return table, without, classes, transformers.__version__


def render() -> str:
    """Return the text of ``pe/_families.py``."""
    table, without, classes, version = families()
    lines = [
        _HEADER.format(version=version),
        "#: Model types with RoPE settings and their defaults.",
    ]
    lines.append("FAMILIES: dict[str, Family] = {")
    for model_type, fields in table.items():
        lines.append(f"    {model_type!r}: Family{fields!r},")
    lines.append("}")
    lines.append("")
    lines.append(
        "#: Model types of the same transformers whose configurations have no RoPE settings."
    )
    lines.append("NO_ROPE: frozenset[str] = frozenset({")
    for model_type in without:
        lines.append(f"    {model_type!r},")
    lines.append("})")
    lines.append("")
    lines.append(
        "#: The configuration class of each model type with RoPE (what an auto_map names)."
    )
    lines.append("CONFIG_CLASSES: dict[str, str] = {")
    for name, model_type in sorted(classes.items()):
        lines.append(f"    {name!r}: {model_type!r},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    """Write ``pe/_families.py``."""
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
