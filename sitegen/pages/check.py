"""The "Check your own code" page (check.md): pe.identify on implementations readers copy.

The copyable examples are named sections of ``examples/identify_check.py``,
which the page includes and runs (each prints its own report). What cannot be
copied into a reader's environment (it needs diffusers, timm or transformers)
is run here, at build time: each call is written once, as source text, and
the page shows that text and the report of running it, so the two cannot
drift apart.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

import pe
from sitegen.cache import cached_markdown
from sitegen.examples import load
from sitegen.markdown import table

#: The copyable examples, in the order of the page, and what each stands for.
EXAMPLES = {
    "tutorial": "the PyTorch tutorial's PositionalEncoding",
    "tf-tutorial": "the TensorFlow tutorial's positional_encoding",
    "fairseq": "fairseq's get_embedding (and M2M100's)",
    "mae": "MAE's 2-D sin-cos table with a class token",
    "per-dimension": "mistake: an exponent per column",
    "i-vs-2i": "mistake: i where the exponent has 2i",
    "off-by-one": "mistake: the divisor d/2 - 1 in the paper's table",
    "swapped": "mistake: cos and sin swapped in each pair",
    "float16": "mistake: angles computed in float16",
    "multiply": "mistake: positions multiplied by the divisor",
}

#: diffusers' timestep embeddings, each call written once (shown and run).
TIMESTEP_CALLS = (
    "pe.identify(get_timestep_embedding)",
    "pe.identify(lambda t, dim: get_timestep_embedding(t, dim, flip_sin_to_cos=True, "
    "downscale_freq_shift=0))",
    "pe.identify(Timesteps(256, flip_sin_to_cos=True, downscale_freq_shift=0))",
)
TIMESTEP_IMPORTS = (
    "from diffusers.models.embeddings import Timesteps, get_timestep_embedding",
    "import pe",
)

#: timm's grid tables: its defaults, and its two flags that leave pe's layouts.
TIMM_CALLS = (
    "pe.identify(build_sincos2d_pos_embed([14, 14], dim=384, temperature=10000.0))",
    "pe.identify(build_sincos2d_pos_embed([6, 10], dim=32, reverse_coord=True, "
    "interleave_sin_cos=True), kind='grid')",
)

#: transformers' rotary modules, one per rule (run through pe.identify_rope).
ROPE_CONFIGS = {
    "default": {"rope_type": "default", "rope_theta": 10000.0},
    "linear": {"rope_type": "linear", "factor": 4.0, "rope_theta": 10000.0},
    "llama3": {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_theta": 500000.0,
    },
}


def _examples() -> dict[str, Any]:
    """Return the example file's globals, its printed reports kept off the page."""
    with contextlib.redirect_stdout(io.StringIO()):
        return load("identify_check")


def _report(text: str) -> str:
    return "```{ .text .no-copy }\n" + text + "\n```\n"


def _code(text: str, title: str) -> str:
    return f'```{{ .python .no-copy title="{title}" }}\n{text}\n```\n'


@cached_markdown
def summary() -> str:
    """One row per copyable example: what pe.identify names it, the bugs, the residual."""
    module = _examples()
    rows = []
    for name, what in EXAMPLES.items():
        found = pe.identify(module["CASES"][name]())
        rows.append(
            [
                what,
                f"`{found.name}`",
                "yes" if found.recognised else "no",
                ", ".join(f"`{bug}`" for bug in found.bugs) or "—",
                found.residual,
            ]
        )
    return table(
        ["implementation", "pe.identify names it", "recognised", "bugs", "residual"],
        rows,
        align="llllr",
        formats=[None, None, None, None, "e1"],
    )


def _run(calls: tuple[str, ...], namespace: dict[str, Any], title: str) -> str:
    blocks = []
    for call in calls:
        found = eval(call, namespace)  # the text shown is the call made
        blocks.append(_code(call, title) + "\n" + _report(str(found)))
    return "\n".join(blocks)


@cached_markdown
def timestep_reports() -> str:
    """Identify diffusers' get_timestep_embedding and Timesteps module (diffusers runs)."""
    namespace: dict[str, Any] = {}
    exec("\n".join(TIMESTEP_IMPORTS), namespace)
    return _run(TIMESTEP_CALLS, namespace, "; ".join(TIMESTEP_IMPORTS))


@cached_markdown
def timm_reports() -> str:
    """Identify timm's build_sincos2d_pos_embed, loaded from its own file."""
    from sitegen.timm_files import timm_files

    with timm_files("layers.pos_embed_sincos") as (sincos,):
        namespace = {"pe": pe, "build_sincos2d_pos_embed": sincos.build_sincos2d_pos_embed}
        return _run(
            TIMM_CALLS,
            namespace,
            "from timm.layers.pos_embed_sincos import build_sincos2d_pos_embed",
        )


@cached_markdown
def rope_reports() -> str:
    """Identify transformers' LlamaRotaryEmbedding under each rule, with pe.identify_rope."""
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    blocks = []
    for rule, parameters in ROPE_CONFIGS.items():
        config = LlamaConfig(
            hidden_size=512,
            num_attention_heads=8,
            max_position_embeddings=131072,
            rope_parameters=parameters,
        )
        found = pe.identify(LlamaRotaryEmbedding(config), kind="rope")
        shown = (
            "config = LlamaConfig(hidden_size=512, num_attention_heads=8, "
            "max_position_embeddings=131072,\n"
            f"                     rope_parameters={json.dumps(parameters)})\n"
            "pe.identify(LlamaRotaryEmbedding(config), kind='rope')"
        )
        blocks.append(f"**{rule}**\n\n" + _code(shown, "transformers") + "\n" + _report(str(found)))
    return "\n".join(blocks)


def command_line() -> str:
    """``python -m pe identify`` on a saved table: the command and what it prints."""
    from pe.__main__ import main

    module = _examples()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "table.npy"
        np.save(path, np.asarray(module["CASES"]["tf-tutorial"]()))
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            status = main(["identify", str(path)])
    if status:
        raise RuntimeError("python -m pe identify failed on the page's example")
    return (
        "```{ .console .no-copy }\n$ python -m pe identify table.npy\n"
        + output.getvalue().rstrip()
        + "\n```\n"
    )
