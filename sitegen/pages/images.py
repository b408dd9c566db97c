"""The image-grids page (grids/images.md): libraries' tables, and resolution change measured."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

import pe
from sitegen.markdown import table
from sitegen.timm_files import timm_files


def timm_layers() -> contextlib.AbstractContextManager[tuple[Any, ...]]:
    """Load timm's pos_embed_sincos and pos_embed without its __init__ (sitegen.timm_files)."""
    return timm_files("layers.pos_embed_sincos", "layers.pos_embed")


def library_check(size: int = 14, dim: int = 768) -> str:
    """`pe.grid_sincos` against diffusers' and timm's own tables, one ViT-B/16 grid."""
    from importlib import metadata

    from diffusers.models.embeddings import get_2d_sincos_pos_embed

    rows = []
    theirs = get_2d_sincos_pos_embed(dim, size, cls_token=True, extra_tokens=1, base_size=size)
    ours = pe.grid_sincos(size, dim, class_token=True)
    rows.append(
        [
            f"diffusers {metadata.version('diffusers')}",
            "`get_2d_sincos_pos_embed(..., cls_token=True, extra_tokens=1)`",
            '`"mae"`, `class_token=True`',
            float(np.abs(theirs.numpy().astype(np.float64) - ours).max()),
        ]
    )
    with timm_layers() as (sincos, _):
        timm_table = sincos.build_sincos2d_pos_embed([size, size], dim=dim).numpy()
    rows.append(
        [
            f"timm {metadata.version('timm')}",
            "`build_sincos2d_pos_embed([14, 14], dim=768)`",
            '`"timm"`',
            float(np.abs(timm_table - pe.grid_sincos(size, dim, layout="timm")).max()),
        ]
    )
    headers = ["library", "function", "pe.grid_sincos", "largest difference"]
    return table(headers, rows, align="lllr", formats=[None, None, None, "e1"])


def _exact_resized(old: int, new: int, dim: int) -> np.ndarray:
    """Sample the sin-cos table where ``interpolate`` (align_corners=False) reads the old grid.

    New index ``j`` reads old coordinate ``(j + 0.5) * old / new - 0.5``.
    """
    coordinate = (np.arange(new) + 0.5) * old / new - 0.5
    omega = pe.frequencies(dim // 2)  # b ** (-i / (dim / 4)), the grid's frequencies
    y = np.repeat(coordinate, new)[:, None] * omega
    x = np.tile(coordinate, new)[:, None] * omega
    return np.concatenate([np.sin(x), np.cos(x), np.sin(y), np.cos(y)], axis=1)


def resolution_change(dim: int = 768) -> str:
    """Interpolating a 2-D sin-cos table (as timm does) against sampling the formula."""
    import torch

    from pe.nn.functional import resample_grid_embedding

    quarter = dim // 4
    cases = [
        (14, 24, "bicubic", True),
        (14, 24, "bilinear", True),
        (14, 16, "bicubic", True),
        (24, 14, "bicubic", True),
        (24, 14, "bicubic", False),
    ]
    rows = []
    for old, new, mode, antialias in cases:
        source = torch.from_numpy(pe.grid_sincos(old, dim, dtype=np.float64)).float()
        resized = resample_grid_embedding(
            source, new, prefix_tokens=0, mode=mode, antialias=antialias
        ).double()
        error = np.abs(resized.numpy() - _exact_resized(old, new, dim))
        pair = error.reshape(new * new, 4, quarter).max(axis=(0, 1))  # worst per frequency
        rows.append(
            [
                f"{old}×{old} → {new}×{new}",
                mode + (", antialias" if antialias else ""),
                float(error.max()),
                float(pair[0]),
                float(pair[quarter // 8]),
                float(pair[quarter // 4]),
                float(pair[-1]),
            ]
        )
    headers = [
        "grid",
        "interpolation",
        "largest error",
        "pair 0 (ω = 1)",
        f"pair {quarter // 8}",
        f"pair {quarter // 4}",
        f"pair {quarter - 1}",
    ]
    return table(headers, rows, align="llrrrrr", formats=[None, None] + ["e1"] * 5)
