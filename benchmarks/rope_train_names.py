"""The variants of ``benchmarks.rope_train`` and the names a reader sees for them.

One home for the page "RoPE scaling rules on a trained model"
(``sitegen/pages/rope_scaling_model.py``) and its figure
(``scripts/fig_rope_train.py``), which both read them. Imports nothing, so a
figure script reads the names without loading torch.
"""

from __future__ import annotations

#: The zero-shot rules, in the order the page and the figure show them.
RULES = ("none", "linear", "ntk", "dynamic", "yarn", "llama3")
#: The rules also fine-tuned at the longest length (the record's ``<rule>+finetune``).
FINETUNED_RULES = ("none", "linear", "yarn")
#: What marks a fine-tuned variant in the record: ``"yarn+finetune"``.
FINETUNE_SUFFIX = "+finetune"

#: Each rule's name on the page and in the figure.
RULE_NAMES = {
    "none": "no scaling",
    "linear": "position interpolation",
    "ntk": "static NTK-aware",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "llama3",
}


def variant_name(variant: str) -> str:
    """Name a variant of the record: a rule, or a rule fine-tuned.

    >>> variant_name("ntk"), variant_name("yarn+finetune")
    ('static NTK-aware', 'YaRN, fine-tuned')
    """
    rule = variant.removesuffix(FINETUNE_SUFFIX)
    return RULE_NAMES[rule] + (", fine-tuned" if variant.endswith(FINETUNE_SUFFIX) else "")


#: Every variant of the record, in order: the zero-shot rules, then the fine-tuned ones.
VARIANTS = (*RULES, *(rule + FINETUNE_SUFFIX for rule in FINETUNED_RULES))
