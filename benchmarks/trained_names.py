"""The methods, rules and settings of ``benchmarks.trained`` and the names a reader sees.

One home for the two pages that read ``benchmarks/results/trained.json``
(``sitegen/pages/comparison.py``, ``sitegen/pages/rope_scaling_model.py``) and
their figures (``scripts/fig_trained_methods.py``, ``scripts/fig_trained_rules.py``).
Imports nothing, so a figure script reads the names without loading torch.
"""

from __future__ import annotations

#: The position methods, each trained on the same data with the same seeds (RoPE last).
METHODS = ("nope", "sinusoidal", "learned", "t5", "alibi", "rope")
#: The RoPE scaling rules, in the order the page and the figure show them.
RULES = ("none", "linear", "ntk", "dynamic", "yarn", "llama3")
#: The settings of a rule: configured for the longest length, or for the length evaluated.
SETTINGS = ("target", "matched")
#: What marks a fine-tuned variant in the record: ``"yarn@target+ft"``.
FINETUNED = "+ft"

#: Each method's name on the pages.
METHOD_NAMES = {
    "nope": "NoPE",
    "sinusoidal": "sinusoidal",
    "learned": "learned",
    "t5": "T5 bias",
    "alibi": "ALiBi",
    "rope": "RoPE",
}

#: Each rule's name on the page and in the figure.
RULE_NAMES = {
    "none": "no scaling",
    "linear": "position interpolation",
    "ntk": "static NTK-aware",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "llama3",
}

#: Each setting's name on the page.
SETTING_NAMES = {"target": "for 8\u00d7", "matched": "matched"}


def variant_key(rule: str, setting: str, finetuned: bool = False) -> str:
    """The record's name of a rule in a setting.

    >>> variant_key("none", "matched"), variant_key("yarn", "target", finetuned=True)
    ('none', 'yarn@target+ft')
    """
    key = "none" if rule == "none" else f"{rule}@{setting}"
    return key + (FINETUNED if finetuned else "")


def variant_rule(key: str) -> str:
    """The rule of a variant's name.

    >>> variant_rule("yarn@target+ft"), variant_rule("none+ft")
    ('yarn', 'none')
    """
    return key.removesuffix(FINETUNED).split("@")[0]


def rule_variants(finetuned: bool = False) -> tuple[str, ...]:
    """Every rule variant the record holds, in order (dynamic has no matched row).

    >>> rule_variants()[:4]
    ('none', 'linear@target', 'linear@matched', 'ntk@target')
    """
    keys = []
    for rule in RULES:
        for setting in SETTINGS:
            if rule == "none" and setting == "matched":
                continue
            if rule == "dynamic" and setting == "matched":
                continue
            keys.append(variant_key(rule, setting, finetuned))
    return tuple(keys)
