"""The timesteps page (grids/timesteps.md): presets, their sources, diffusers, the bugs."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

import pe
from sitegen.markdown import scientific, table

#: The timesteps every comparison on the page runs over: a pipeline's 1000 steps
#: and a few fractional ones of a flow model (1000 * sigma).
STEPS = np.concatenate([np.arange(1000.0), 1000.0 * np.array([0.0625, 0.3333, 0.7312, 0.9999])])

_URLS = {
    "hojonathanho/diffusion": "https://github.com/hojonathanho/diffusion",
    "CompVis/stable-diffusion": "https://github.com/CompVis/stable-diffusion",
    "Stability-AI/stablediffusion": "https://github.com/Stability-AI/stablediffusion",
    "Stability-AI/generative-models": "https://github.com/Stability-AI/generative-models",
    "black-forest-labs/flux": "https://github.com/black-forest-labs/flux",
    "Wan-Video/Wan2.1": "https://github.com/Wan-Video/Wan2.1",
    "huggingface/diffusers": "https://github.com/huggingface/diffusers",
}


def presets_table() -> str:
    """One row per preset: its settings and what the pipeline feeds in."""
    rows = [
        [
            f"`{p.name}`",
            p.title,
            p.dim,
            str(p.flip_sin_to_cos),
            f"{p.downscale_freq_shift:g}",
            f"{p.scale:g}",
            f"{p.max_period:g}",
            p.timesteps,
        ]
        for p in pe.timestep_presets.values()
    ]
    headers = [
        "preset",
        "pipeline",
        "dim",
        "flip_sin_to_cos",
        "downscale_freq_shift",
        "scale",
        "max_period",
        "timesteps fed in",
    ]
    return table(headers, rows, align="llrllrrl")


def preset_sources() -> str:
    """Where each setting of each preset was read (a definition list of lists).

    One item per setting; the path and the line read are code, which on a
    phone breaks after a slash, a dot or an underscore (`sitegen.site_markdown`),
    not inside a name.
    """
    blocks = []
    for preset in pe.timestep_presets.values():
        lines = [
            f"- `{setting}`: [{repo}]({_URLS[repo]}) `{path}`, `{key.replace('|', '/')}`"
            for setting, repo, path, key in preset.sources
        ]
        blocks.append(f"`{preset.name}` — {preset.title}\n:   " + "\n    ".join(lines))
    return "\n\n".join(blocks)


def _diffusers_embedders() -> dict[str, tuple[str, Callable[[Any], Any]]]:
    """Build the diffusers module behind each preset, through the class that sets it."""
    from diffusers import UNet2DConditionModel
    from diffusers.models import embeddings
    from diffusers.models.transformers.transformer_wan import (
        WanTimeTextImageEmbedding,
        WanTransformer3DModel,
    )

    unet = inspect.signature(UNet2DConditionModel.__init__).parameters
    flip, shift = unet["flip_sin_to_cos"].default, unet["freq_shift"].default
    wan_dim = inspect.signature(WanTransformer3DModel.__init__).parameters["freq_dim"].default
    return {
        "ddpm": (
            "`get_timestep_embedding(t, 128)` (its defaults)",
            lambda t: embeddings.get_timestep_embedding(t, 128),
        ),
        "stable-diffusion-1": (
            "`Timesteps(320, ...)` with `UNet2DConditionModel`'s defaults",
            embeddings.Timesteps(320, flip, shift),
        ),
        "stable-diffusion-2": (
            "`Timesteps(320, ...)` with `UNet2DConditionModel`'s defaults",
            embeddings.Timesteps(320, flip, shift),
        ),
        "sdxl": (
            "`Timesteps(320, ...)` with `UNet2DConditionModel`'s defaults",
            embeddings.Timesteps(320, flip, shift),
        ),
        "sdxl-size": (
            "`add_time_proj`: `Timesteps(256, ...)`, `UNet2DConditionModel`'s defaults",
            embeddings.Timesteps(256, flip, shift),
        ),
        "flux": (
            "`CombinedTimestepGuidanceTextProjEmbeddings(...).time_proj`",
            embeddings.CombinedTimestepGuidanceTextProjEmbeddings(32, 8).time_proj,
        ),
        "wan": (
            "`WanTimeTextImageEmbedding(...).timesteps_proj`",
            WanTimeTextImageEmbedding(32, wan_dim, 96, 16).timesteps_proj,
        ),
    }


def diffusers_check() -> str:
    """Each preset against diffusers' own module: differences and errors from float64."""
    import diffusers
    import torch

    steps = STEPS.astype(np.float32).astype(np.float64)  # what a float32 pipeline holds
    rows = []
    for name, (where, module) in _diffusers_embedders().items():
        preset = pe.timestep_presets[name]
        theirs = module(torch.from_numpy(steps).float()).numpy().astype(np.float64)
        ours = preset.embedding(steps).astype(np.float64)
        exact = preset.embedding(steps, dtype=np.float64)
        rows.append(
            [
                f"`{name}`",
                where,
                float(np.abs(ours - theirs).max()),
                float(np.abs(theirs - exact).max()),
                float(np.abs(ours - exact).max()),
            ]
        )
    headers = [
        "preset",
        f"diffusers {diffusers.__version__}",
        "largest difference, pe to diffusers",
        "diffusers vs float64",
        "pe vs float64",
    ]
    return table(headers, rows, align="llrrr", formats=[None, None, "e1", "e1", "e1"])


def _relative(wrong: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Return ||wrong - right|| / ||right|| per row."""
    relative: np.ndarray = np.linalg.norm(wrong - right, axis=-1) / np.linalg.norm(right, axis=-1)
    return relative


def bug_effects(name: str = "stable-diffusion-1") -> str:
    """How far each known mistake moves the embedding of preset `name`, over `STEPS`."""
    preset = pe.timestep_presets[name]
    settings = preset.settings()
    steps = np.arange(1000.0)
    right = preset.embedding(steps, dtype=np.float64)
    half = preset.dim // 2

    def embed(**changes: Any) -> np.ndarray:
        return pe.timestep_embedding(
            changes.pop("steps", steps), preset.dim, dtype=np.float64, **(settings | changes)
        )

    other_shift = 1.0 - preset.downscale_freq_shift
    interleaved = np.empty_like(right)
    interleaved[:, 0::2], interleaved[:, 1::2] = right[:, half:], right[:, :half]
    cases = [
        (
            "sin and cos halves swapped (`flip_sin_to_cos` wrong)",
            embed(flip_sin_to_cos=not preset.flip_sin_to_cos),
        ),
        (
            f"`downscale_freq_shift={other_shift:g}`: exponent over "
            + ("`half_dim - 1`" if other_shift else "`half_dim`"),
            embed(downscale_freq_shift=other_shift),
        ),
        ("pairs interleaved, as in the 2017 paper", interleaved),
        ("`max_period=1000` instead of 10,000", embed(max_period=1000.0)),
        ("timestep fed as σ = t / 1000 (the ×1000 forgotten)", embed(steps=steps / 1000.0)),
    ]
    rows = []
    for label, wrong in cases:
        relative = _relative(wrong, right)
        rows.append([label, float(relative.mean()), float(relative.max()), float(relative[999])])
    headers = [
        "mistake",
        "mean over t = 0 … 999",
        "largest",
        "at t = 999",
    ]
    return table(headers, rows, align="lrrr", formats=[None, "f3", "f3", "f3"])


def shift_frequencies(dim: int = 320) -> str:
    """Compare the slow end of the frequencies under shift 0 and shift 1, at one width."""
    rows = []
    for shift in (0.0, 1.0):
        omega = pe.timestep_frequencies(dim, downscale_freq_shift=shift)
        rows.append(
            [
                f"{shift:g}",
                f"{omega[1]:.6f}",
                scientific(float(omega[-1]), 4),
                f"{2 * np.pi / omega[-1]:,.0f}",
            ]
        )
    headers = ["shift", "ω₁", "slowest ω", "slowest period (timesteps)"]
    return table(headers, rows, align="lrrr")
