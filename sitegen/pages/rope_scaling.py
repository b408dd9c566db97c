"""The RoPE scaling page (beyond/rope-scaling.md): the failure measured, and what rules change.

The setting is a Llama-2-style head: 128 dimensions (64 pairs), base 10,000,
trained on L = 4,096 positions and asked to serve 8L = 32,768. Scores are
those of seeded random queries and keys (standard normal entries, divided by
the square root of the head size, as attention does), written pair by pair:
pair i contributes (q_a k_a + q_b k_b) cos(n θ_i) + (q_a k_b - q_b k_a) sin(n θ_i)
at offset n (query n positions after the key), which is the score of pe's
interleaved RoPE (tests/test_rope_scaling.py checks it against
`pe.nn.RotaryEmbedding`). Frequencies come from `pe.rope_frequencies` and
`pe.ntk_aware_base`.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

import pe
from sitegen.markdown import table

HEAD_DIM = 128
BASE = 10000.0
TRAINED = 4096
FACTOR = 8
SAMPLES = 256
SEED = 0
NEAR = 32  # offsets 1..NEAR: the neighbours the fast pairs tell apart

BANDS = (
    (TRAINED, 3 * TRAINED // 2),
    (3 * TRAINED // 2, 2 * TRAINED),
    (2 * TRAINED, 4 * TRAINED),
    (4 * TRAINED, 8 * TRAINED),
)


@cache
def _coefficients() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per (q, k) sample and pair: the cos and sin coefficients of the score."""
    rng = np.random.default_rng(SEED)
    q = rng.standard_normal((SAMPLES, HEAD_DIM))
    k = rng.standard_normal((SAMPLES, HEAD_DIM))
    q_a, q_b, k_a, k_b = q[:, 0::2], q[:, 1::2], k[:, 0::2], k[:, 1::2]
    scale = math.sqrt(HEAD_DIM)
    return (q_a * k_a + q_b * k_b) / scale, (q_a * k_b - q_b * k_a) / scale


def random_pairs() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Return the seeded random queries and keys, shape (SAMPLES, HEAD_DIM) each."""
    rng = np.random.default_rng(SEED)
    return rng.standard_normal((SAMPLES, HEAD_DIM)), rng.standard_normal((SAMPLES, HEAD_DIM))


def scores(frequencies: NDArray[np.float64], offsets: NDArray[Any]) -> NDArray[np.float64]:
    """Scores of every sample at every offset, shape (len(offsets), SAMPLES)."""
    cos_part, sin_part = _coefficients()
    angles = np.outer(np.asarray(offsets, dtype=np.float64), frequencies)
    return np.asarray(np.cos(angles) @ cos_part.T + np.sin(angles) @ sin_part.T)


def plain() -> NDArray[np.float64]:
    """Return the trained frequencies."""
    return pe.rope_frequencies(HEAD_DIM, base=BASE).frequencies


@cache
def _trained_range() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    trained = scores(plain(), np.arange(TRAINED))
    return trained.min(axis=0), trained.max(axis=0)


def _outside(values: NDArray[np.float64]) -> NDArray[np.bool_]:
    low, high = _trained_range()
    return np.asarray((values < low - 1e-9) | (values > high + 1e-9))


def past_arc(frequencies: NDArray[np.float64], longest: int) -> int:
    """Pairs that reach, at offset `longest`, an angle the trained offsets never gave them.

    A context of L positions shows pair i the arc [0, min(L θ_i, 2π)); one of
    `longest` positions under `frequencies` shows it [0, min(longest θ'_i, 2π)).
    (Counting in context lengths, not in the last offset L - 1, keeps
    interpolation's exact fit, (sL) θ_i / s = L θ_i, from reading as an
    overshoot of θ_i / s.)
    """
    return int(np.sum(_overshoot(frequencies, longest) > 1e-9))


def _overshoot(frequencies: NDArray[np.float64], longest: int) -> NDArray[np.float64]:
    seen = np.minimum(TRAINED * plain(), 2 * math.pi)
    reached = np.minimum(longest * frequencies, 2 * math.pi)
    return np.asarray(reached - seen)


class Band(NamedTuple):
    """Plain RoPE over one band of offsets past the trained length."""

    start: int
    stop: int
    pairs_past_arc: int
    offsets_outside: float  # fraction of (offset, sample) scores outside the sample's trained range
    samples_outside: float  # fraction of samples whose score leaves its range somewhere in the band


def failure() -> list[Band]:
    """Plain RoPE past the trained length, band by band of offsets."""
    rows = []
    for start, stop in BANDS:
        outside = _outside(scores(plain(), np.arange(start, stop)))
        rows.append(
            Band(
                start,
                stop,
                past_arc(plain(), stop - 1),
                float(outside.mean()),
                float(outside.any(axis=0).mean()),
            )
        )
    return rows


def failure_table() -> str:
    """Tabulate `failure`."""
    rows = [
        [
            f"{band.start:,} to {band.stop - 1:,}",
            band.pairs_past_arc,
            f"{100 * band.offsets_outside:.2f} %",
            f"{100 * band.samples_outside:.1f} %",
        ]
        for band in failure()
    ]
    return table(
        [
            "offsets",
            f"pairs past their trained arc (of {HEAD_DIM // 2})",
            "scores outside their trained range",
            f"(q, k) samples that leave it (of {SAMPLES})",
        ],
        rows,
        align="lrrr",
    )


def trained_turns() -> int:
    """Pairs that never complete a turn within the trained offsets."""
    return int(np.sum(TRAINED * plain() < 2 * math.pi))


def rules() -> dict[str, pe.RopeFrequencies]:
    """Each rule's frequencies and attention factor for the target length FACTOR * TRAINED."""
    factor = float(FACTOR)
    original = {"original_max_position_embeddings": TRAINED}
    return {
        "none": pe.rope_frequencies(HEAD_DIM, base=BASE),
        "linear (PI)": pe.rope_frequencies(
            HEAD_DIM, base=BASE, scaling={"rope_type": "linear", "factor": factor}
        ),
        "NTK-aware (static)": pe.rope_frequencies(
            HEAD_DIM, base=pe.ntk_aware_base(BASE, factor, HEAD_DIM)
        ),
        "dynamic NTK, at 8L": pe.rope_frequencies(
            HEAD_DIM,
            base=BASE,
            scaling={"rope_type": "dynamic", "factor": factor},
            max_position_embeddings=TRAINED,
            seq_len=FACTOR * TRAINED,
        ),
        "YaRN": pe.rope_frequencies(
            HEAD_DIM, base=BASE, scaling={"rope_type": "yarn", "factor": factor, **original}
        ),
        "llama3": pe.rope_frequencies(
            HEAD_DIM,
            base=BASE,
            scaling={
                "rope_type": "llama3",
                "factor": factor,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                **original,
            },
        ),
    }


class RuleEffect(NamedTuple):
    """What one rule does at the target length."""

    pairs_past_arc: int
    overshoot: float  # largest angle past the trained arc, radians
    fastest: float  # radians per token of pair 0
    near_change: float  # mean |score change| at offsets 1..NEAR, in std of trained scores
    attention_factor: float


def effect(frequencies: NDArray[np.float64], attention_factor: float) -> RuleEffect:
    """Measure a rule at the target length, before its attention factor (reported apart)."""
    longest = FACTOR * TRAINED
    near = np.arange(1, NEAR + 1)
    change = np.abs(scores(frequencies, near) - scores(plain(), near)).mean()
    spread = scores(plain(), np.arange(TRAINED)).std()
    return RuleEffect(
        past_arc(frequencies, longest),
        max(0.0, float(_overshoot(frequencies, longest).max())),
        float(frequencies[0]),
        float(change / spread),
        attention_factor,
    )


def rules_table() -> str:
    """Tabulate `effect` for every rule of `rules`."""
    rows = []
    for name, (frequencies, attention_factor) in rules().items():
        measured = effect(frequencies, attention_factor)
        rows.append(
            [
                name,
                measured.pairs_past_arc,
                measured.overshoot,
                measured.fastest,
                measured.near_change,
                measured.attention_factor,
            ]
        )
    return table(
        [
            "rule (s = 8)",
            "pairs past their arc at 8L",
            "largest overshoot (rad)",
            "pair 0 (rad per token)",
            f"score change at offsets 1 to {NEAR}",
            "attention factor",
        ],
        rows,
        align="lrrrrr",
        formats=[None, None, "f3", "f4", "f3", "f4"],
    )


def ntk_ends() -> tuple[float, float, float]:
    """Return the NTK-aware base for s = 8, and pair 0's and the last pair's slow-down."""
    new_base = pe.ntk_aware_base(BASE, float(FACTOR), HEAD_DIM)
    new = pe.rope_frequencies(HEAD_DIM, base=new_base).frequencies
    return new_base, float(plain()[0] / new[0]), float(plain()[-1] / new[-1])
