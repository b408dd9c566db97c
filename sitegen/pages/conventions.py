"""The conventions page (conventions.md): each library's recipe against `pe`."""

from __future__ import annotations

import numpy as np

import pe
from sitegen.cache import cached_markdown
from sitegen.markdown import scientific, table
from sitegen.site_markdown import break_points


def _pinned_version(package: str) -> str:
    """Return the version of `package` that constraints.txt pins for this Python."""
    from pathlib import Path

    from packaging.markers import Marker
    from packaging.utils import canonicalize_name

    wanted = canonicalize_name(package)
    path = Path(__file__).resolve().parents[2] / "constraints.txt"
    for line in path.read_text().splitlines():
        requirement, _, marker = line.partition(";")
        name, _, version = requirement.strip().partition("==")
        if canonicalize_name(name) != wanted:
            continue
        if not marker.strip() or Marker(marker.strip()).evaluate():
            return version
    raise LookupError(f"{package} is not pinned in constraints.txt")


def conventions_overview() -> str:
    """Every choice that makes encodings differ, in two tables that fit the column.

    The first holds the short choices (layout, exponent, first position,
    padding), the base as a column only where the conventions differ in it; the
    second the two that take a sentence (odd widths, precision).
    """
    names = [f"`{c.name}`" for c in pe.conventions.values()]
    bases = {f"{c.base:g}" for c in pe.conventions.values()}
    shared_base = len(bases) == 1
    first = [
        [
            name,
            c.layout,
            c.exponent,
            *([] if shared_base else [f"{c.base:g}"]),
            c.first_position,
            c.padding,
        ]
        for name, c in zip(names, pe.conventions.values(), strict=True)
    ]
    headers = ["convention", "layout", "exponent", *([] if shared_base else ["base"])]
    headers += ["first position", "padding"]
    align = "lll" + ("" if shared_base else "l") + "rl"
    second = [
        [name, c.odd, c.compute] for name, c in zip(names, pe.conventions.values(), strict=True)
    ]
    base = f"All {len(names)} use the base \\(b = {bases.pop()}\\). " if shared_base else ""
    return (
        table(headers, first, align=align)
        + f"\n\n{base}How each handles an odd `d_model`, and what it computes in:\n\n"
        + table(["convention", "odd d_model", "computes in"], second, align="lll")
    )


def _breakable(source: str) -> str:
    """Let a source's long paths break after a slash, a dot or an underscore.

    On a phone a path such as ``beginner_source/transformer_tutorial.py`` is
    wider than a card's column; unmarked, it ran past the card.
    """
    return " ".join(break_points(word) for word in source.split(" "))


def conventions_sources() -> str:
    """Where each convention was read, and whether the tests run the library itself."""
    rows = []
    for c in pe.conventions.values():
        checked = (
            f"run against {c.verified_with} {_pinned_version(c.verified_with)}"
            if c.verified_with
            else "**from source reading**"
        )
        models = ", ".join(c.models) if c.models else "—"
        rows.append([f"`{c.name}`", c.title, models, f"[{_breakable(c.source)}]({c.url})", checked])
    return table(
        ["convention", "used by", "same table in (tested)", "source (file, function)", "checked"],
        rows,
        align="lllll",
    )


def convention_details() -> str:
    """List where each convention was read, and its quirks (a definition list)."""
    blocks = []
    for convention in pe.conventions.values():
        blocks.append(
            f"`{convention.name}` — {convention.title}\n"
            f":   Read from {_breakable(convention.source)} ([source]({convention.url})). "
            f"{convention.note}"
        )
    return "\n\n".join(blocks)


#: Differences below this are float32 rounding (the others are near 1 or more).
ROUNDING = 1e-4


def convention_differences(d_model: int, length: int) -> str:
    """Largest difference between the encodings each library gives the first tokens.

    Conventions whose tables lie within `ROUNDING` of each other form one group
    (by chains of such pairs); a first table names each group's members and the
    largest difference inside it, a second the largest between two groups, with
    the groups lettered so that it fits the column.
    """
    names = list(pe.conventions)
    encodings = {name: pe.conventions[name].encode(length, d_model) for name in names}

    def apart(first: str, second: str) -> float:
        a, b = encodings[first], encodings[second]
        if a.shape != b.shape:
            return float("inf")
        return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max())

    groups: list[list[str]] = []
    for name in names:
        near = [g for g in groups if any(apart(name, other) < ROUNDING for other in g)]
        merged = [name] + [member for g in near for member in g]
        groups = [g for g in groups if g not in near] + [merged]
    groups = [
        sorted(g, key=names.index) for g in sorted(groups, key=lambda g: min(map(names.index, g)))
    ]
    letters = [chr(ord("A") + i) for i in range(len(groups))]

    def largest(first: list[str], second: list[str]) -> float | str:
        worst = max(apart(a, b) for a in first for b in second)
        return "shape" if worst == float("inf") else worst

    members = [
        [letter, ", ".join(f"`{name}`" for name in group), largest(group, group)]
        for letter, group in zip(letters, groups, strict=True)
    ]
    between = [
        [letter, *(largest(group, other) for other in groups)]
        for letter, group in zip(letters, groups, strict=True)
    ]
    return (
        table(
            ["group", "conventions", "largest difference inside"],
            members,
            align="llr",
            formats=[None, None, "e1"],
        )
        + "\n\nThe largest difference between two groups:\n\n"
        + table(
            ["", *letters],
            between,
            align="l" + "r" * len(letters),
            formats=[None] + ["e1"] * len(letters),
        )  # 2.0e0 beside 4.5e-6: one style
    )


def exponent_ranges(d_models: tuple[int, ...]) -> str:
    """Compare the slowest frequency and the ratio per pair, paper vs tensor2tensor (b = 10000)."""
    paper, t2t = pe.conventions["paper"], pe.conventions["tensor2tensor"]
    rows = []
    for d in d_models:
        ours, theirs = paper.frequencies(d), t2t.frequencies(d)
        rows.append(
            [
                d,
                scientific(ours[-1], 3),
                scientific(theirs[-1], 3),
                f"{ours[1] / ours[0]:.4f}",
                f"{theirs[1] / theirs[0]:.4f}",
                f"{ours[-1] / theirs[-1]:.4f}",
            ]
        )
    headers = [
        "d",
        "paper: slowest ω",
        "tensor2tensor: slowest ω",
        "paper: ratio per pair",
        "tensor2tensor: ratio per pair",
        "slowest ω, paper ÷ tensor2tensor",
    ]
    return table(headers, rows, align="rrrrrr")


def _library_tables(rows: int, d_model: int) -> dict[str, tuple[str, np.ndarray]]:
    """Each runnable library's own table (rows 0 .. rows-1), by convention name."""
    import torch
    from positional_encodings.torch_encodings import (
        PositionalEncoding1D,
    )
    from transformers.models.distilbert.modeling_distilbert import create_sinusoidal_embeddings
    from transformers.models.m2m_100.modeling_m2m_100 import M2M100SinusoidalPositionalEmbedding
    from transformers.models.marian.modeling_marian import MarianSinusoidalPositionalEmbedding
    from transformers.models.musicgen.modeling_musicgen import (
        MusicgenSinusoidalPositionalEmbedding,
    )
    from transformers.models.whisper.modeling_whisper import sinusoids

    distilbert = torch.empty(rows, d_model)
    create_sinusoidal_embeddings(rows, d_model, distilbert)
    return {
        "m2m100": (
            "M2M100SinusoidalPositionalEmbedding.get_embedding",
            M2M100SinusoidalPositionalEmbedding.get_embedding(rows, d_model, 1).numpy(),
        ),
        "marian": (
            "MarianSinusoidalPositionalEmbedding.create_weight",
            MarianSinusoidalPositionalEmbedding(rows, d_model).create_weight().numpy(),
        ),
        "distilbert": ("create_sinusoidal_embeddings", distilbert.numpy()),
        "whisper": ("sinusoids", sinusoids(rows, d_model).numpy()),
        "musicgen": (
            "MusicgenSinusoidalPositionalEmbedding.get_embedding",
            MusicgenSinusoidalPositionalEmbedding.get_embedding(rows, d_model).numpy(),
        ),
        "positional_encodings": (
            "PositionalEncoding1D",
            PositionalEncoding1D(d_model)(torch.zeros(1, rows, d_model))[0].numpy(),
        ),
    }


@cached_markdown
def convention_bit_equality(rows: int = 2048, d_model: int = 512) -> str:
    """How many entries of each emulated table equal the library's own, bit for bit."""
    angle_rounding = 2.0**-24 * (rows - 1)  # one float32 rounding of the largest angle
    lines = []
    for name, (function, theirs) in _library_tables(rows, d_model).items():
        ours = pe.conventions[name].table(rows, d_model)
        equal = float(np.mean(ours == theirs))
        difference = float(np.abs(ours.astype(np.float64) - theirs.astype(np.float64)).max())
        lines.append(
            [
                f"`{name}`",
                f"`{function}`",
                f"{100 * equal:.2f}%",
                scientific(difference, 1),
                f"{difference / angle_rounding:.2f}",
            ]
        )
    headers = [
        "convention",
        "library function",
        "entries bit-equal",
        "largest difference",
        "in float32 roundings of the largest angle",
    ]
    return table(headers, lines, align="llrrr")


def beyond_sequence_checks() -> str:
    """Each timestep preset and grid layout, and the library the tests compare it with."""
    rows: list[list[object]] = []
    diffusers = f"diffusers {_pinned_version('diffusers')}"
    timm = f"timm {_pinned_version('timm')} (files loaded without timm's `__init__`)"
    for preset in pe.timestep_presets.values():
        rows.append(
            [
                f"`{preset.name}`",
                f"timestep embedding: {preset.title}",
                f"{diffusers}: `{preset.diffusers}`",
            ]
        )
    rows.append(
        [
            '`grid_sincos(layout="mae")`',
            "2-D sin-cos table: MAE, DiT, PixArt, SD3",
            f"{diffusers}: `get_2d_sincos_pos_embed`; MAE (not on PyPI) **from source "
            "reading** of `util/pos_embed.py`",
        ]
    )
    rows.append(
        [
            '`grid_sincos(layout="timm")`',
            "2-D sin-cos table: timm",
            f"{timm}: `build_sincos2d_pos_embed`",
        ]
    )
    rows.append(
        [
            "`resample_grid_embedding`",
            "resizing a grid's table",
            f"{timm}: `resample_abs_pos_embed`, bit for bit",
        ]
    )
    return table(["preset or layout", "what", "checked against (tests)"], rows, align="lll")


# --- positions on grids: the rotary presets (grids/rotary.md) ------------------------------


def grid_rope_sources() -> str:
    """One row per grid RoPE preset: its models, where it was read, what the tests run."""
    rows = []
    for preset in pe.grid_rope_presets.values():
        package = preset.library
        rows.append(
            [
                f"`{preset.name}`",
                preset.models,
                preset.source,
                f"run against {package} {_pinned_version(package)}: {preset.checked_against}",
            ]
        )
    return table(["preset", "used by", "source", "checked"], rows, align="llll")
