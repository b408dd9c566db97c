"""The RoPE base page (beyond/rope-base.md): every table, computed with pe.

The model settings are read from `pe._published` (the tested configurations);
the trained contexts that a config does not hold are named with their source
beside them. Each function returns Markdown; `tests/test_rope_base.py` checks
the numbers against float64 sums and mpmath written out separately.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import pe
from pe._published import by_model
from sitegen.cache import cached_markdown
from sitegen.markdown import fixed, scientific, table
from sitegen.rope import head_dim_of


@dataclass(frozen=True)
class Setting:
    """One RoPE setting of a real model: head size, base, and the context it was trained on."""

    name: str
    head_dim: int
    base: float
    trained: int
    trained_from: str


def settings() -> tuple[Setting, ...]:
    """Llama 2, Code Llama, Llama 3.1 and Gemma 3's two layer types, from `pe._published`."""
    llama2 = by_model("Llama 2 7B, dynamic NTK").config  # Llama-2-7b-hf's own keys
    code = by_model("Code Llama 7B").config
    llama3 = by_model("Llama 3.1 8B")
    gemma = by_model("Gemma 3, global layers")
    layers = gemma.config["rope_parameters"]
    gemma_dim = head_dim_of(gemma)
    return (
        Setting(
            "Llama 2 7B",
            head_dim_of(by_model("Llama 2 7B, dynamic NTK")),
            float(llama2["rope_theta"]),
            int(llama2["max_position_embeddings"]),
            "config",
        ),
        Setting(
            "Code Llama 7B",
            head_dim_of(by_model("Code Llama 7B")),
            float(code["rope_theta"]),
            int(code["max_position_embeddings"]),
            "config",
        ),
        Setting(
            "Llama 3.1 8B",
            head_dim_of(llama3),
            float(llama3.config["rope_theta"]),
            int(llama3.scaling["original_max_position_embeddings"]),
            "config, unscaled",
        ),
        # Gemma 3's local layers see a 1,024-token sliding window and its global layers
        # were pre-trained on 32K sequences before a factor-8 rescaling to 128K
        # (Gemma 3 technical report, sections 2 and 5.3).
        Setting(
            "Gemma 3 4B, local layers",
            gemma_dim,
            float(layers["sliding_attention"]["rope_theta"]),
            1024,
            "sliding window",
        ),
        Setting(
            "Gemma 3 4B, global layers",
            gemma_dim,
            float(layers["full_attention"]["rope_theta"]),
            32768,
            "pre-training",
        ),
    )


# RoFormer's bound at these relative distances.
DECAY_DISTANCES = (0, 1, 64, 1024, 16384, 131072)


def decay_table() -> str:
    """RoFormer's relative upper bound at a few distances, for each real setting."""
    rows = []
    for setting in settings():
        bound = pe.rope_decay_bound(list(DECAY_DISTANCES), setting.head_dim, setting.base)
        rows.append(
            [setting.name, setting.head_dim, f"{setting.base:,.0f}"]
            + [fixed(value, 2) for value in bound]
        )
    headers = ["model", "*d*", "base"] + [f"*r* = {r:,}" for r in DECAY_DISTANCES]
    return table(headers, rows)


def decay_caption() -> str:
    """Write the decay figure's caption, its numbers read from `decay_table`'s settings.

    The bound does not settle at a floor: after its first fall it rises again.
    The caption names where the smallest base's bound is lowest among the
    table's distances and how far it has risen by the last one.
    """
    first = settings()[0]
    bound = pe.rope_decay_bound(list(DECAY_DISTANCES), first.head_dim, first.base)
    low = int(np.argmin(bound))
    last = len(DECAY_DISTANCES) - 1
    if low == last:
        raise ValueError(f"{first.name}'s bound is lowest at the last distance; reword the caption")
    return (
        "(a) RoFormer's bound, divided by its value at distance 0, falls steeply and then "
        "does not keep falling: it rises and falls again, irregularly, never reaching zero. In "
        f"the table above {first.name}'s bound falls to {fixed(bound[low], 2)} at "
        f"r = {DECAY_DISTANCES[low]:,} and is back up to {fixed(bound[last], 2)} at "
        f"r = {DECAY_DISTANCES[last]:,}; the larger bases hold it up for longer. (b) The mean over "
        "pairs of the cosine of each pair's angle at distance r crosses zero first for the bases "
        "of 10,000, and much later for the bases of 500,000 and 1,000,000."
    )


# The score experiment: Llama 2's head size and base, Gaussian queries and keys.
SCORE_DIM, SCORE_BASE, SCORE_SAMPLES, SCORE_SEED = 128, 10000.0, 4096, 0
SCORE_DISTANCES = (0, 1, 10, 100, 1000, 10000)


def rotate(x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Rows of `x` turned by pe's RoPE (head size SCORE_DIM, base SCORE_BASE), float64.

    The page's one use of torch, imported here: under ``make serve`` (no torch)
    the other tables are still computed.
    """
    import torch

    from pe.nn import RotaryEmbedding

    rope = RotaryEmbedding(SCORE_DIM, base=SCORE_BASE)
    at = torch.from_numpy(positions).reshape(-1, 1)
    turned = rope.rotate(torch.from_numpy(x).unsqueeze(-2), positions=at)
    return turned.squeeze(-2).numpy()


def score_samples() -> dict[str, np.ndarray]:
    """Scores q·R_r k over distances r for three kinds of query and key.

    Returns arrays of shape ``(len(SCORE_DISTANCES), SCORE_SAMPLES)`` (one row
    for the all-ones pair): the query sits at position 0 and the key at r, so
    the score is (R_0 q)·(R_r k).
    """
    rng = np.random.default_rng(SCORE_SEED)
    queries = rng.standard_normal((SCORE_SAMPLES, SCORE_DIM))
    keys = rng.standard_normal((SCORE_SAMPLES, SCORE_DIM))
    ones = np.ones((1, SCORE_DIM))
    result: dict[str, list[np.ndarray]] = {"ones": [], "same": [], "independent": []}
    for r in SCORE_DISTANCES:
        at = np.full(SCORE_SAMPLES, r, dtype=np.int64)
        result["ones"].append(ones[0] @ rotate(ones, np.array([r]))[0][:, None])
        result["same"].append(np.einsum("sd,sd->s", queries, rotate(queries, at)))
        result["independent"].append(np.einsum("sd,sd->s", queries, rotate(keys, at)))
    rows = len(SCORE_DISTANCES)
    return {name: np.array(values).reshape(rows, -1) for name, values in result.items()}


def score_table() -> str:
    """Mean and spread of the score over distance: all-ones, key = query, independent."""
    samples = score_samples()
    rows = []
    for index, r in enumerate(SCORE_DISTANCES):
        same = samples["same"][index]
        independent = samples["independent"][index]
        rows.append(
            [
                f"{r:,}",
                fixed(samples["ones"][index][0] / SCORE_DIM, 3),
                fixed(same.mean() / SCORE_DIM, 3),
                fixed(independent.mean() / SCORE_DIM, 3),
                fixed(independent.std() / math.sqrt(SCORE_DIM), 3),
            ]
        )
    headers = [
        "distance *r*",
        "*q* = *k* = 1: score / *d*",
        "*k* = *q* Gaussian: mean / *d*",
        "independent Gaussian: mean / *d*",
        "independent: spread / √*d*",
    ]
    return table(headers, rows)


# p-RoPE on Llama 2's head: the slowest pairs, over its context and a longer one.
SLOW_PAIRS = (40, 47, 48, 56, 63)
SLOW_P = 0.75
SLOW_CONTEXTS = (4096, 131072)


def slow_pairs_table() -> str:
    """Tabulate the turns of the slowest pairs over a context, under RoPE and 0.75-RoPE."""
    plain = pe.frequencies(SCORE_DIM, SCORE_BASE)
    kept = pe.rope_frequencies(
        SCORE_DIM,
        base=SCORE_BASE,
        scaling={"rope_type": "proportional", "partial_rotary_factor": SLOW_P},
    ).frequencies
    rows = []
    for pair in SLOW_PAIRS:
        row = [pair, f"{2 * math.pi / plain[pair]:,.0f}"]
        for context in SLOW_CONTEXTS:
            row.append(fixed(context * plain[pair] / (2 * math.pi), 3))
        row.append(fixed(SLOW_CONTEXTS[-1] * kept[pair] / (2 * math.pi), 3))
        rows.append(row)
    headers = [
        "pair *i*",
        "wavelength",
        *(f"turns over {context:,}" for context in SLOW_CONTEXTS),
        f"turns over {SLOW_CONTEXTS[-1]:,}, {SLOW_P}-RoPE",
    ]
    return table(headers, rows)


def p_rope_summary() -> str:
    """How many pairs 0.75-RoPE keeps, and that the rest never turn."""
    kept = pe.rope_frequencies(
        SCORE_DIM,
        base=SCORE_BASE,
        scaling={"rope_type": "proportional", "partial_rotary_factor": SLOW_P},
    ).frequencies
    plain = pe.frequencies(SCORE_DIM, SCORE_BASE)
    turning = int(np.count_nonzero(kept))
    same = bool(np.array_equal(kept[:turning], plain[:turning]))
    return (
        f"With *p* = {SLOW_P}, {turning} of the {kept.size} pairs keep their frequencies "
        f"({'unchanged' if same else 'changed'}) and the last {kept.size - turning}, from pair "
        f"{turning} on, have frequency 0: they never turn, at any distance."
    )


def first_negative(head_dim: int, base: float, limit: int) -> int | None:
    """First m < limit with Σ_i cos(m θ_i) < 0, θ from `pe.frequencies`; None if none."""
    theta = pe.frequencies(head_dim, base)
    block = 1 << 14
    for start in range(0, limit, block):
        m = np.arange(start, min(limit, start + block), dtype=np.float64)
        sums = np.cos(np.multiply.outer(m, theta)).sum(axis=-1)
        negative = np.flatnonzero(sums < 0)
        if negative.size:
            return start + int(negative[0])
    return None


# How far `base_table` looks for the first negative B_m with a model's own base.
FIRST_NEGATIVE_LIMIT = 1 << 20


@cached_markdown
def base_table() -> str:
    """Per real setting: slowest wavelength, pairs that turn fully, critical dimension, bounds."""
    rows = []
    for setting in settings():
        d, base, trained = setting.head_dim, setting.base, setting.trained
        waves = pe.wavelengths(d, base)
        full = int(np.count_nonzero(waves <= trained))
        first = first_negative(d, base, FIRST_NEGATIVE_LIMIT)
        rows.append(
            [
                setting.name,
                d,
                f"{base:,.0f}",
                f"{trained:,} ({setting.trained_from})",
                f"{float(waves[-1]):,.0f}",
                f"{full} of {waves.size}",
                pe.rope_critical_dimension(d, trained, base),
                scientific(pe.rope_min_base(trained, d), 1),
                f"{first:,}" if first is not None else f"beyond {FIRST_NEGATIVE_LIMIT:,}",
            ]
        )
    headers = [
        "model",
        "*d*",
        "base",
        "trained context *T*",
        "slowest wavelength",
        "pairs with a full turn in *T*",
        "critical dimension",
        "smallest base for *T*",
        r"first \(m\) with \(B_m < 0\)",
    ]
    return table(headers, rows)


# Men et al. 2024's lower bounds for d = 128 (their Figure 1 and the values quoted from
# them in Su's post of 2024-05-29, https://kexue.fm/archives/10122), and Su's own
# recomputation in that post; "1k" is 1,024 positions there.
MEN_REPORTED = {
    1024: 4.3e3,
    2048: 1.6e4,
    4096: 2.7e4,
    8192: 8.4e4,
    16384: 3.1e5,
    32768: 6.4e5,
    65536: 2.1e6,
    131072: 7.8e6,
}
SU_RECOMPUTED = {
    1024: 4.3e3,
    2048: 1.2e4,
    4096: 2.7e4,
    8192: 8.4e4,
    16384: 2.3e5,
    32768: 6.3e5,
    65536: 2.1e6,
    131072: 4.9e6,
}
MEN_DIM = 128


@cached_markdown
def min_base_table() -> str:
    """pe.rope_min_base for d = 128 at each context of the paper, beside the published values."""
    rows = []
    for context, reported in MEN_REPORTED.items():
        ours = pe.rope_min_base(context, MEN_DIM)
        rows.append(
            [
                f"{context:,}",
                scientific(ours, 2),
                scientific(reported, 1),
                scientific(SU_RECOMPUTED[context], 1),
                fixed(ours / context, 1),
            ]
        )
    headers = [
        "context *L*",
        "pe.rope_min_base",
        "Men et al.",
        "Su's recomputation",
        "pe's base / *L*",
    ]
    return table(headers, rows)
