"""RoPE settings of published model configurations: data that figures, pages and tests read.

Each entry holds the RoPE part of one model's configuration as published (the
``config.json`` of the named repository, its model card, or the defaults of
the pinned transformers' configuration class for the model, named in
``source``), with the few other keys a rule reads. `tests/test_rope_scaling.py`
checks `pe.rope_frequencies` and `pe.nn.RotaryEmbedding.from_config` against
transformers on every entry, and checks the entries taken from transformers'
defaults against those defaults; the rope-scaling page prints its tables and
`scripts/fig_rope_longrope.py` draws its figure from the same entries.

It lives inside `pe` because the scripts, `sitegen` and the tests all import
the installed package without editing ``sys.path``, and the three must read
one copy. It is data, not API: nothing in `pe` imports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["PUBLISHED", "Published", "by_model"]

# Phi-3.5-mini-instruct's LongRoPE factors, one per rotated pair (48 for head_dim 96),
# as published under "rope_scaling" in microsoft/Phi-3.5-mini-instruct/config.json.
_PHI35_LONG = [
    1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601,
    1.5899999141693115, 1.600000023841858, 1.6200000047683716, 2.620000123977661,
    3.2300000190734863, 3.2300000190734863, 4.789999961853027, 7.400000095367432,
    7.700000286102295, 9.09000015258789, 12.199999809265137, 17.670000076293945,
    24.46000099182129, 28.57000160217285, 30.420001983642578, 30.840002059936523,
    32.590003967285156, 32.93000411987305, 42.320003509521484, 44.96000289916992,
    50.340003967285156, 50.45000457763672, 57.55000305175781, 57.93000411987305,
    58.21000289916992, 60.1400032043457, 62.61000442504883, 62.62000274658203,
    62.71000289916992, 63.1400032043457, 63.1400032043457, 63.77000427246094,
    63.93000411987305, 63.96000289916992, 63.970001220703125, 64.02999877929688,
    64.06999969482422, 64.08000183105469, 64.12000274658203, 64.41000366210938,
    64.4800033569336, 64.51000213623047, 64.52999877929688, 64.83999633789062,
]  # fmt: skip
_PHI35_SHORT = [
    1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705,
    1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842,
    1.0499999523162842, 1.0699999332427979, 1.0999999046325684, 1.1099998950958252,
    1.1599998474121094, 1.1599998474121094, 1.1699998378753662, 1.2899998426437378,
    1.339999794960022, 1.679999828338623, 1.7899998426437378, 1.8199998140335083,
    1.8499997854232788, 1.8799997568130493, 1.9099997282028198, 1.9399996995925903,
    1.9899996519088745, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346,
    2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0799996852874756, 2.0899996757507324, 2.189999580383301, 2.2199995517730713,
    2.5899994373321533, 2.729999542236328, 2.749999523162842, 2.8399994373321533,
]  # fmt: skip


@dataclass(frozen=True)
class Published:
    """One model's RoPE settings, as its configuration publishes them.

    ``defaults_of`` names the transformers configuration type (a key of
    ``transformers.CONFIG_MAPPING``) whose defaults the entry copies, when
    that is its source; ``layer_type`` is the entry of a ``rope_parameters``
    nested by layer type that the tables and comparisons read.
    """

    model: str
    family: str
    source: str
    config: dict[str, Any] = field(default_factory=dict)
    layer_type: str | None = None
    defaults_of: str | None = None

    @property
    def scaling(self) -> dict[str, Any]:
        """The flat RoPE dict that applies (the layer type's, for a nested one)."""
        raw = self.config.get("rope_scaling") or self.config.get("rope_parameters") or {}
        return dict(raw[self.layer_type] if self.layer_type is not None else raw)

    @property
    def rule(self) -> str:
        """The scaling rule's name (``default`` when there is none)."""
        scaling = self.scaling
        name = str(scaling.get("rope_type") or scaling.get("type") or "default")
        return "default" if name == "mrope" else name  # Qwen2-VL's older name for it


#: Real configurations, one or more per rule. Keys are those of each ``config.json``
#: (transformers 5 ``to_dict()`` names for the entries read from its defaults).
PUBLISHED: tuple[Published, ...] = (
    Published(
        "Llama 3.1 8B",
        "Llama",
        "meta-llama/Llama-3.1-8B, config.json",
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 131072,
            "rope_theta": 500000.0,
            "rope_scaling": {
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
        },
    ),
    Published(
        "Llama 3.2 1B",
        "Llama",
        "meta-llama/Llama-3.2-1B, config.json",
        {
            "hidden_size": 2048,
            "num_attention_heads": 32,
            "head_dim": 64,
            "max_position_embeddings": 131072,
            "rope_theta": 500000.0,
            "rope_scaling": {
                "factor": 32.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
        },
    ),
    Published(
        "Qwen2.5 7B Instruct",
        "Qwen",
        'Qwen/Qwen2.5-7B-Instruct, model card, "Processing Long Texts"',
        {
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "max_position_embeddings": 32768,
            "rope_theta": 1000000.0,
            "rope_scaling": {
                "factor": 4.0,
                "original_max_position_embeddings": 32768,
                "type": "yarn",
            },
        },
    ),
    Published(
        "DeepSeek-V2-Lite",
        "DeepSeek",
        "deepseek-ai/DeepSeek-V2-Lite, config.json (rotary part: qk_rope_head_dim 64)",
        {
            "head_dim": 64,
            "hidden_size": 2048,
            "num_attention_heads": 16,
            "max_position_embeddings": 163840,
            "rope_theta": 10000,
            "rope_scaling": {
                "beta_fast": 32,
                "beta_slow": 1,
                "factor": 40,
                "mscale": 0.707,
                "mscale_all_dim": 0.707,
                "original_max_position_embeddings": 4096,
                "type": "yarn",
            },
        },
    ),
    Published(
        "DeepSeek-V3",
        "DeepSeek",
        "deepseek-ai/DeepSeek-V3, config.json (rotary part: qk_rope_head_dim 64)",
        {
            "head_dim": 64,
            "hidden_size": 7168,
            "num_attention_heads": 128,
            "max_position_embeddings": 163840,
            "rope_theta": 10000,
            "rope_scaling": {
                "beta_fast": 32,
                "beta_slow": 1,
                "factor": 40,
                "mscale": 1.0,
                "mscale_all_dim": 1.0,
                "original_max_position_embeddings": 4096,
                "type": "yarn",
            },
        },
    ),
    Published(
        "gpt-oss 20B",
        "gpt-oss",
        "openai/gpt-oss-20b, config.json",
        {
            "head_dim": 64,
            "hidden_size": 2880,
            "num_attention_heads": 64,
            "max_position_embeddings": 131072,
            "rope_theta": 150000,
            "rope_scaling": {
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "factor": 32.0,
                "original_max_position_embeddings": 4096,
                "rope_type": "yarn",
                "truncate": False,
            },
        },
    ),
    Published(
        "Phi-3.5 mini instruct",
        "Phi",
        "microsoft/Phi-3.5-mini-instruct, config.json",
        {
            "hidden_size": 3072,
            "num_attention_heads": 32,
            "max_position_embeddings": 131072,
            "original_max_position_embeddings": 4096,
            "rope_theta": 10000.0,
            "rope_scaling": {
                "long_factor": _PHI35_LONG,
                "short_factor": _PHI35_SHORT,
                "type": "longrope",
            },
        },
    ),
    Published(
        "Vicuna 7B v1.5 16k",
        "Vicuna",
        "lmsys/vicuna-7b-v1.5-16k, config.json",
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 4096,
            "rope_theta": 10000.0,
            "rope_scaling": {"factor": 4.0, "type": "linear"},
        },
    ),
    Published(
        "Llama 2 7B, dynamic NTK",
        "Llama",
        'meta-llama/Llama-2-7b-hf config.json with the override rope_scaling={"type": "dynamic", '
        '"factor": 2.0} from transformers\' Llama documentation',
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 4096,
            "rope_theta": 10000.0,
            "rope_scaling": {"factor": 2.0, "type": "dynamic"},
        },
    ),
    Published(
        "Code Llama 7B",
        "Llama",
        "codellama/CodeLlama-7b-hf, config.json",
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 16384,
            "rope_theta": 1000000,
        },
    ),
    Published(
        "Phi-2",
        "Phi",
        "microsoft/phi-2, config.json (partial rotary)",
        {
            "hidden_size": 2560,
            "num_attention_heads": 32,
            "max_position_embeddings": 2048,
            "partial_rotary_factor": 0.4,
            "rope_theta": 10000.0,
        },
    ),
    Published(
        "Gemma 3, global layers",
        "Gemma",
        "transformers 5.23, models/gemma3/configuration_gemma3.py: Gemma3TextConfig() defaults, "
        "which its docstring ties to google/gemma-3-4b-it (layer_types shortened to one layer of "
        "each type)",
        {
            "hidden_size": 2304,
            "num_attention_heads": 8,
            "head_dim": 256,
            "max_position_embeddings": 131072,
            "layer_types": ["sliding_attention", "full_attention"],
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                "full_attention": {"rope_type": "default", "rope_theta": 1000000.0},
            },
        },
        layer_type="full_attention",
        defaults_of="gemma3_text",
    ),
    Published(
        "Gemma 4, global layers",
        "Gemma",
        "transformers 5.23, models/gemma4/configuration_gemma4.py: Gemma4TextConfig() defaults, "
        "which its docstring ties to google/gemma-4-e2b-it (layer_types shortened to one layer of"
        " each type; per_layer_config gives the global layers head_dim 512)",
        {
            "hidden_size": 2304,
            "num_attention_heads": 8,
            "head_dim": 256,
            "max_position_embeddings": 131072,
            "layer_types": ["sliding_attention", "full_attention"],
            "per_layer_config": {"1": {"head_dim": 512}},
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                "full_attention": {
                    "rope_type": "proportional",
                    "partial_rotary_factor": 0.25,
                    "rope_theta": 1000000.0,
                },
            },
        },
        layer_type="full_attention",
        defaults_of="gemma4_text",
    ),
    Published(
        "Ministral 3 8B",
        "Mistral",
        "transformers 5.23, models/ministral3/configuration_ministral3.py: Ministral3Config() "
        "defaults, which its docstring ties to mistralai/Ministral-3-8B-Base-2512",
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "head_dim": 128,
            "max_position_embeddings": 262144,
            "rope_parameters": {
                "type": "yarn",
                "rope_type": "yarn",
                "rope_theta": 1000000.0,
                "factor": 16.0,
                "original_max_position_embeddings": 16384,
                "max_position_embeddings": 262144,
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "mscale_all_dim": 1.0,
                "mscale": 1.0,
                "llama_4_scaling_beta": 0.1,
            },
        },
        defaults_of="ministral3",
    ),
    Published(
        "Mistral Small 4",
        "Mistral",
        "transformers 5.23, models/mistral4/configuration_mistral4.py: Mistral4Config() defaults,"
        " which its docstring ties to mistralai/Mistral-Small-4-119B-2603",
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "head_dim": 128,
            "qk_rope_head_dim": 64,
            "max_position_embeddings": 1048576,
            "rope_parameters": {
                "type": "yarn",
                "rope_type": "yarn",
                "rope_theta": 10000.0,
                "factor": 128.0,
                "original_max_position_embeddings": 8192,
                "max_position_embeddings": 1048576,
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "mscale_all_dim": 1.0,
                "mscale": 1.0,
                "llama_4_scaling_beta": 0.1,
                "partial_rotary_factor": 0.5,
            },
        },
        defaults_of="mistral4",
    ),
    Published(
        "OLMo 3 7B",
        "OLMo",
        "transformers 5.23, models/olmo3/configuration_olmo3.py: Olmo3Config() defaults, which "
        "its docstring ties to allenai/Olmo-3-7B-Instruct (layer_types shortened)",
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 2048,
            "layer_types": ["sliding_attention", "full_attention"],
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": 500000.0},
                "full_attention": {"rope_type": "default", "rope_theta": 500000.0},
            },
        },
        layer_type="sliding_attention",
        defaults_of="olmo3",
    ),
    Published(
        "ModernBERT base, global layers",
        "ModernBERT",
        "transformers 5.23, models/modernbert/configuration_modernbert.py: ModernBertConfig() "
        "defaults, which its docstring ties to answerdotai/ModernBERT-base (layer_types "
        "shortened)",
        {
            "hidden_size": 768,
            "num_attention_heads": 12,
            "max_position_embeddings": 8192,
            "layer_types": ["full_attention", "sliding_attention"],
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                "full_attention": {"rope_type": "default", "rope_theta": 160000.0},
            },
        },
        layer_type="full_attention",
        defaults_of="modernbert",
    ),
    Published(
        "GLM-4",
        "GLM",
        "transformers 5.23, models/glm4/configuration_glm4.py: Glm4Config() defaults, which its "
        "docstring ties to zai-org/GLM-OCR",
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "head_dim": 128,
            "max_position_embeddings": 131072,
            "rope_parameters": {
                "rope_theta": 10000.0,
                "partial_rotary_factor": 0.5,
                "rope_type": "default",
            },
        },
        defaults_of="glm4",
    ),
    Published(
        "StableLM 3B 4E1T",
        "StableLM",
        "transformers 5.23, models/stablelm/configuration_stablelm.py: StableLmConfig() defaults,"
        " which its docstring ties to stabilityai/stablelm-3b-4e1t",
        {
            "hidden_size": 2560,
            "num_attention_heads": 32,
            "max_position_embeddings": 4096,
            "rope_parameters": {
                "rope_theta": 10000.0,
                "partial_rotary_factor": 0.25,
                "rope_type": "default",
            },
        },
        defaults_of="stablelm",
    ),
    Published(
        "Apertus 8B",
        "Apertus",
        "transformers 5.23, models/apertus/configuration_apertus.py: ApertusConfig() defaults, "
        "which its docstring ties to swiss-ai/Apertus-8B-Instruct-2509",
        {
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 65536,
            "rope_parameters": {
                "rope_type": "llama3",
                "rope_theta": 12000000.0,
                "factor": 8.0,
                "original_max_position_embeddings": 8192,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
            },
        },
        defaults_of="apertus",
    ),
    Published(
        "CWM",
        "CWM",
        "transformers 5.23, models/cwm/configuration_cwm.py: CwmConfig() defaults, which its "
        "docstring ties to facebook/cwm (layer_types shortened)",
        {
            "hidden_size": 6144,
            "num_attention_heads": 48,
            "head_dim": 128,
            "max_position_embeddings": 131072,
            "layer_types": ["full_attention", "sliding_attention"],
            "rope_parameters": {
                "rope_theta": 1000000.0,
                "factor": 16.0,
                "high_freq_factor": 4.0,
                "low_freq_factor": 1.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
        },
        defaults_of="cwm",
    ),
    Published(
        "SmolLM3 3B",
        "SmolLM",
        "transformers 5.23, models/smollm3/configuration_smollm3.py: SmolLM3Config() defaults, "
        "which its docstring ties to HuggingFaceTB/SmolLM3-3B",
        {
            "hidden_size": 2048,
            "num_attention_heads": 16,
            "max_position_embeddings": 32768,
            "rope_parameters": {"rope_theta": 2000000.0, "rope_type": "default"},
        },
        defaults_of="smollm3",
    ),
    Published(
        "LFM3 1.7B, global layers",
        "LFM",
        "transformers 5.23, models/lfm3/configuration_lfm3.py: Lfm3Config() defaults, which its "
        "docstring ties to LiquidAI/LFM3-1.7B (layer_types shortened)",
        {
            "hidden_size": 2048,
            "num_attention_heads": 16,
            "head_dim": 128,
            "max_position_embeddings": 128000,
            "layer_types": ["conv", "full_attention", "sliding_attention"],
            "rope_parameters": {
                "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                "full_attention": {
                    "rope_type": "proportional",
                    "rope_theta": 1000000.0,
                    "partial_rotary_factor": 0.5,
                },
            },
        },
        layer_type="full_attention",
        defaults_of="lfm3",
    ),
    Published(
        "Qwen2-VL text model",
        "Qwen",
        'Qwen/Qwen2-VL-7B-Instruct, config.json (the language model\'s rope_scaling, "type": '
        '"mrope", which transformers\' Qwen2-VL config reads as default)',
        {
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "max_position_embeddings": 32768,
            "rope_theta": 1000000.0,
            "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        },
    ),
)


def by_model(model: str) -> Published:
    """Return the entry of `PUBLISHED` for `model`."""
    return next(entry for entry in PUBLISHED if entry.model == model)
