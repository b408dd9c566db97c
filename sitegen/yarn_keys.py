"""What inference engines do with the attention keys of a YaRN ``rope_scaling`` dict.

Facts read from each engine's source (its generic RoPE factory: the function
that turns a config's dict into the rotary module), one `Reading` per engine,
each cell with the file and commit it was read from. They cannot be computed
here (none of these engines runs on this machine), so they are kept as data
and rendered by `sitegen.pages.rope_in_a_model.engine_table`; transformers'
and pe's rows are measured at build time instead, by calling them.

The three keys:

- ``attention_factor`` (transformers' name): the number cos and sin are
  multiplied by, replacing the one the rule computes (0.1 ln s + 1);
- ``attn_factor`` (vLLM's and SGLang's name): a multiplier on the computed one;
- ``mscale`` / ``mscale_all_dim`` (DeepSeek's): the computed factor becomes the
  ratio of 0.1 · mscale · ln s + 1 to the same with ``mscale_all_dim``.

A model file or a config loader may translate keys before it calls the
factory; these readings cover the factory alone.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """A file of a public repository at one commit."""

    repo: str
    path: str
    commit: str

    def cite(self) -> str:
        """``path`` at the commit's first 7 hex digits, as Markdown."""
        return f"`{self.path}` ({self.repo} at `{self.commit[:7]}`)"


@dataclass(frozen=True)
class Reading:
    """What one engine's YaRN path does with each key, and where that was read."""

    engine: str
    attention_factor: str
    attn_factor: str
    mscale: str
    sources: tuple[Source, ...]
    note: str


_VLLM_FACTORY = Source(
    "vllm-project/vllm",
    "vllm/model_executor/layers/rotary_embedding/__init__.py",
    "926c71f6f25f8fe0a71ba4b168205e64bef24a36",
)
_VLLM_YARN = Source(
    "vllm-project/vllm",
    "vllm/model_executor/layers/rotary_embedding/yarn_scaling_rope.py",
    "ffdc985737c94233f2c88629c4450022e5bf4925",
)
_SGLANG_FACTORY = Source(
    "sgl-project/sglang",
    "python/sglang/srt/layers/rotary_embedding/factory.py",
    "eb047c169815914d16add570c2bf2c5f41a9702d",
)
_SGLANG_YARN = Source(
    "sgl-project/sglang",
    "python/sglang/srt/layers/rotary_embedding/yarn.py",
    "8448045c5b58df38de9142f3d5b84de62353e535",
)
_TRTLLM = Source(
    "NVIDIA/TensorRT-LLM",
    "tensorrt_llm/_torch/attention_backend/interface.py",
    "51ea5c963794a4818ad8396a77d147fa901435d9",
)

NOT_READ = "not read"

READINGS: tuple[Reading, ...] = (
    Reading(
        engine="vLLM",
        attention_factor=NOT_READ,
        attn_factor="multiplies the computed factor",
        mscale=NOT_READ + " (read only for `deepseek_yarn`)",
        sources=(_VLLM_FACTORY, _VLLM_YARN),
        note=(
            "`get_rope` passes on, for `yarn`, only `extrapolation_factor`, `attn_factor`, "
            "`beta_fast`, `beta_slow`, `apply_yarn_scaling` and `truncate`; "
            "`YaRNScalingRotaryEmbedding` sets its scale to "
            "`yarn_get_mscale(factor) * attn_factor`."
        ),
    ),
    Reading(
        engine="SGLang",
        attention_factor=NOT_READ,
        attn_factor="multiplies the computed factor",
        mscale=NOT_READ + " (read only for `deepseek_yarn`)",
        sources=(_SGLANG_FACTORY, _SGLANG_YARN),
        note=(
            "`get_rope` passes on, for `yarn`, only `extrapolation_factor`, `attn_factor`, "
            "`beta_fast`, `beta_slow` and `truncate`; `YaRNScalingRotaryEmbedding` sets its "
            "scale to `yarn_get_mscale_simple(factor) * attn_factor`."
        ),
    ),
    Reading(
        engine="TensorRT-LLM (PyTorch backend)",
        attention_factor=NOT_READ,
        attn_factor=NOT_READ,
        mscale="read",
        sources=(_TRTLLM,),
        note=(
            "`RopeParams.from_config` reads `alpha`, `factor`, `low_freq_factor`, "
            "`high_freq_factor`, `original_max_position_embeddings`, `beta_fast`, `beta_slow`, "
            "`mscale`, "
            "`mscale_all_dim`, `short_factor` and `long_factor`, and passes `mscale` and "
            "`mscale_all_dim` to `create_sinusoidal_positions_yarn`."
        ),
    ),
)
