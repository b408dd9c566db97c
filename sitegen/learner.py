"""Numbers for what a learner misses: tutorial claims checked, the encoding in a model.

Pages print these from executed code blocks. Each function computes its numbers
with `pe` (or a formula written out here, where the point is to show a formula
other than the paper's) and returns Markdown; `tests/test_learner.py` checks the
values against independent derivations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

import pe
import pe.analysis
from sitegen.markdown import number, table

BASE = 10000.0

#: What a widely read notebook prints for d_model = 6: PE(3)·PE(4) and PE(3)·PE(10).
NOTEBOOK_D_MODEL = 6
NOTEBOOK_DOTS = {(3, 4): 2.4374, (3, 10): 1.5401}


def _interleave(angles_sin: np.ndarray, angles_cos: np.ndarray) -> np.ndarray:
    out = np.empty((*angles_sin.shape[:-1], 2 * angles_sin.shape[-1]))
    out[..., 0::2], out[..., 1::2] = np.sin(angles_sin), np.cos(angles_cos)
    return out


def paper(position: float, d_model: int) -> np.ndarray:
    """Encode one position with the paper's formula, in float64, from `pe`."""
    row: np.ndarray = pe.sinusoidal(np.array([position]), d_model, dtype=np.float64)[0]
    return row


def exponent_per_dimension(position: float, d_model: int) -> np.ndarray:
    """Column j uses the exponent j/d of its own index (the paper has 2⌊j/2⌋/d)."""
    columns = np.arange(d_model)
    angles = position / BASE ** (columns / d_model)
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


def pair_index_for_2i(position: float, d_model: int) -> np.ndarray:
    """Use the pair index i where the paper has 2i: exponent i/d."""
    angles = position / BASE ** (np.arange(d_model // 2) / d_model)
    return _interleave(angles, angles)


def halves(position: float, d_model: int) -> np.ndarray:
    """Use the paper's angles, all sines first and then all cosines (concatenated halves)."""
    angles = position * pe.frequencies(d_model, BASE).astype(np.float64)
    return np.concatenate([np.sin(angles), np.cos(angles)])


def counted_from_one(position: float, d_model: int) -> np.ndarray:
    """Use the paper's formula with positions counted from 1 (position p gets p + 1)."""
    return paper(position + 1, d_model)


def base_100(position: float, d_model: int) -> np.ndarray:
    """Use the paper's layout with base 100 instead of 10000."""
    row: np.ndarray = pe.sinusoidal(np.array([position]), d_model, base=100.0, dtype=np.float64)[0]
    return row


#: The formulas tried against the notebook's numbers, in the order the page shows them.
FORMULAS: dict[str, Callable[[float, int], np.ndarray]] = {
    "the paper: exponent 2⌊j/2⌋/d, sin/cos interleaved": paper,
    "the paper's angles, sines then cosines (halves)": halves,
    "positions counted from 1": counted_from_one,
    "base 100 instead of 10000": base_100,
    "exponent i/d, i the pair (the site's i, where the paper has 2i)": pair_index_for_2i,
    "exponent i/d, i the column (the notebook's i; the site's j/d)": exponent_per_dimension,
}


def notebook_dots(name: str, d_model: int = NOTEBOOK_D_MODEL) -> tuple[float, float]:
    """PE(3)·PE(4) and PE(3)·PE(10) under one of `FORMULAS`."""
    encode = FORMULAS[name]
    three = encode(3, d_model)
    return float(three @ encode(4, d_model)), float(three @ encode(10, d_model))


def notebook_formulas(d_model: int = NOTEBOOK_D_MODEL) -> str:
    """Each formula's two dot products, and whether they round to the notebook's."""
    target = (NOTEBOOK_DOTS[(3, 4)], NOTEBOOK_DOTS[(3, 10)])
    rows = []
    for name in FORMULAS:
        near, far = notebook_dots(name, d_model)
        same = round(near, 4) == target[0] and round(far, 4) == target[1]
        rows.append([name, number(near), number(far), "**yes**" if same else "no"])
    headers = ["formula", "PE(3)·PE(4)", "PE(3)·PE(10)", "the notebook's numbers?"]
    return table(headers, rows, align="lrrl")


def dot_by_offset(d_model: int, start: int, stop: int, anchor: int = 3) -> str:
    """PE(anchor)·PE(q) for q in [start, stop], under the paper and the per-dimension formula."""
    first = paper(anchor, d_model)
    wrong = exponent_per_dimension(anchor, d_model)
    rows = []
    for q in range(start, stop + 1):
        rows.append(
            [
                q,
                q - anchor,
                number(float(first @ paper(q, d_model))),
                number(float(wrong @ exponent_per_dimension(q, d_model))),
            ]
        )
    headers = [
        "q",
        "offset q − 3",
        "paper: PE(3)·PE(q)",
        "exponent j/d: PE(3)·PE(q)",
    ]
    return table(headers, rows, align="rrrr")


def neighbour_dots(d_model: int, positions: Sequence[int]) -> str:
    """PE(p)·PE(p+1) at several p: constant for the paper, drifting for the per-dimension one."""
    rows = []
    for p in positions:
        rows.append(
            [
                p,
                number(float(paper(p, d_model) @ paper(p + 1, d_model))),
                number(
                    float(
                        exponent_per_dimension(p, d_model) @ exponent_per_dimension(p + 1, d_model)
                    )
                ),
            ]
        )
    return table(["p", "paper: PE(p)·PE(p+1)", "exponent j/d: PE(p)·PE(p+1)"], rows, align="rrr")


def pair0_returns(limit: int) -> list[tuple[int, float]]:
    """Every position 1..limit where pair 0 comes closer to its start than at any earlier one.

    Pair 0 sits at (sin p, cos p); its chord distance from position 0 is
    ``2|sin(p/2)|``.
    """
    records: list[tuple[int, float]] = []
    best = np.inf
    positions = np.arange(1, limit + 1)
    gaps = pe.analysis.pair_distance(positions, d_model=2)[:, 0]
    for position, gap in zip(positions.tolist(), gaps.tolist(), strict=True):
        if gap < best:
            best = gap
            records.append((position, gap))
    return records


def blog_returns(d_model: int, positions: Sequence[int], limit: int = 1000) -> str:
    """Pair 0 and the whole vector at `positions` and at pair 0's record returns up to `limit`.

    The records start after position 1 (the first step is trivially a record).
    """
    origin = paper(0, d_model)
    record_positions = [p for p, _ in pair0_returns(limit) if p > 1]
    shown = sorted(set(positions) | set(record_positions))
    rows = []
    for p in shown:
        vector = paper(p, d_model)
        pair_gaps = pe.analysis.pair_distance(p, d_model)
        slow = int(np.argmax(pair_gaps[1:])) + 1
        rows.append(
            [
                f"**{p}**" if p in positions else str(p),
                number(np.sin(p)),
                number(np.cos(p)),
                number(float(pair_gaps[0])),
                number(float(np.linalg.norm(vector - origin))),
                f"{slow} ({number(float(pair_gaps[slow]))})",
            ]
        )
    headers = [
        "p",
        "sin p (col. 0)",
        "cos p (col. 1)",
        "pair 0: distance from start",
        f"‖PE(p) − PE(0)‖, d = {d_model}",
        "pair that moved most",
    ]
    return table(headers, rows, align="rrrrrl")


# ---------------------------------------------------------------------------
# Self-attention: equivariant, not invariant


def attention(tokens: np.ndarray, seed: int = 0) -> np.ndarray:
    """One head of softmax self-attention with fixed random projections (float64)."""
    rng = np.random.default_rng(seed)
    width = tokens.shape[1]
    w_q, w_k, w_v = (rng.normal(0.0, width**-0.5, size=(width, width)) for _ in range(3))
    scores = (tokens @ w_q) @ (tokens @ w_k).T / np.sqrt(width)
    scores -= scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=1, keepdims=True)
    mixed: np.ndarray = weights @ (tokens @ w_v)
    return mixed


def equivariance_checks(length: int = 6, d_model: int = 16, seed: int = 1) -> dict[str, float]:
    """Largest differences that tell equivariance from invariance, for one random shuffle."""
    rng = np.random.default_rng(seed)
    tokens = rng.normal(size=(length, d_model))
    order = rng.permutation(length)
    while np.array_equal(order, np.arange(length)):
        order = rng.permutation(length)
    out = attention(tokens)
    out_shuffled = attention(tokens[order])
    encoding = pe.sinusoidal(length, d_model, dtype=np.float64)
    with_pe = attention(tokens + encoding)
    with_pe_shuffled = attention(tokens[order] + encoding)
    return {
        "equivariant: Attention(PX) − P·Attention(X)": float(
            np.abs(out_shuffled - out[order]).max()
        ),
        "invariant? Attention(PX) − Attention(X)": float(np.abs(out_shuffled - out).max()),
        "pooled: mean of Attention(PX) − mean of Attention(X)": float(
            np.abs(out_shuffled.mean(axis=0) - out.mean(axis=0)).max()
        ),
        "with the encoding: Attention(PX + E) − P·Attention(X + E)": float(
            np.abs(with_pe_shuffled - with_pe[order]).max()
        ),
    }


def equivariance_table(length: int = 6, d_model: int = 16) -> str:
    """`equivariance_checks` as a Markdown table."""
    checks = equivariance_checks(length, d_model)
    rows = [[name, f"{gap:.2g}"] for name, gap in checks.items()]
    return table(["what is compared (largest entry of the difference)", "value"], rows, align="lr")


# ---------------------------------------------------------------------------
# The encoding inside the Transformer


def embedding_balance(d_models: Sequence[int] = (64, 512), vocabulary: int = 4096) -> str:
    """Norms of √d·embedding rows under both initialisations, beside the encoding's √(d/2).

    Uses real ``torch.nn.Embedding`` tables (seeded): its default N(0, 1)
    initialisation, and N(0, d^-1/2) as in the paper's codebase.
    """
    import torch

    rows = []
    for d_model in d_models:
        encoding_norm = float(np.linalg.norm(pe.sinusoidal(1, d_model, dtype=np.float64)[0]))
        for label, std in (("N(0, 1), nn.Embedding's default", None), ("N(0, 1/d)", d_model**-0.5)):
            torch.manual_seed(0)
            embedding = torch.nn.Embedding(vocabulary, d_model)
            if std is not None:
                torch.nn.init.normal_(embedding.weight, mean=0.0, std=std)
            scaled = embedding.weight.detach().double().numpy() * np.sqrt(d_model)
            norm = float(np.linalg.norm(scaled, axis=1).mean())
            rows.append(
                [
                    d_model,
                    label,
                    number(norm, 2),
                    number(encoding_norm, 2),
                    number(norm / encoding_norm, 2),
                ]
            )
    headers = [
        "d",
        "embedding initialisation",
        "mean ‖√d · embedding row‖",
        "‖PE(p)‖ = √(d/2)",
        "ratio",
    ]
    return table(headers, rows, align="rlrrr")


def concatenation_identity(d_model: int = 64, d_position: int = 64, seed: int = 0) -> float:
    """Largest |W [x; p] - (W_x x + W_p p)|: a linear layer after concatenation is a sum."""
    rng = np.random.default_rng(seed)
    tokens = rng.normal(size=(10, d_model))
    positions = pe.sinusoidal(10, d_position, dtype=np.float64)
    weight = rng.normal(size=(d_model + d_position, d_model))
    concatenated = np.concatenate([tokens, positions], axis=1) @ weight
    summed = tokens @ weight[:d_model] + positions @ weight[d_model:]
    return float(np.abs(concatenated - summed).max())


def width_cost(d_model: int = 512, layers: int = 6) -> str:
    """Parameters of the attention projections when the encoding is added or concatenated."""

    def attention_parameters(width: int) -> int:
        return 4 * width * width  # Q, K, V and output projections, square

    added = layers * attention_parameters(d_model)
    concatenated = layers * attention_parameters(2 * d_model)
    rows = [
        ["added (width d)", d_model, f"{added:,}"],
        ["concatenated (width 2d)", 2 * d_model, f"{concatenated:,}"],
    ]
    return table(
        ["encoding", "model width", f"attention weights in {layers} layers"], rows, align="lrr"
    )


def incremental_decoding(d_model: int = 16, steps: int = 6) -> dict[str, float]:
    """Encode one token per step with and without `offset`, against the whole sequence."""
    import torch

    from pe.nn import SinusoidalPositionalEncoding

    encode = SinusoidalPositionalEncoding(d_model, max_len=64)
    zeros = torch.zeros(1, steps, d_model)
    whole = encode(zeros)
    with_offset = torch.cat([encode(zeros[:, t : t + 1], offset=t) for t in range(steps)], dim=1)
    without = torch.cat([encode(zeros[:, t : t + 1]) for t in range(steps)], dim=1)
    return {
        "step t encoded with offset=t": float((with_offset - whole).abs().max()),
        "every step encoded without offset": float((without - whole).abs().max()),
    }


def dropout_on_sum(d_model: int = 64, length: int = 32, rate: float = 0.1) -> dict[str, float]:
    """Train-mode dropout in the module acts on the sum.

    Dropped entries are zero; the others are ``(x + PE) / (1 - rate)``.
    """
    import torch

    from pe.nn import SinusoidalPositionalEncoding

    torch.manual_seed(0)
    encode = SinusoidalPositionalEncoding(d_model, max_len=length, dropout=rate).train()
    tokens = torch.randn(1, length, d_model, dtype=torch.float64)
    out = encode(tokens)
    total = tokens + torch.from_numpy(pe.sinusoidal(length, d_model, dtype=np.float64))
    kept = out != 0
    return {
        "share of entries set to zero": float(1.0 - kept.double().mean()),
        "largest |output - sum/(1 - rate)| where kept": float(
            (out - total / (1 - rate))[kept].abs().max()
        ),
    }


def blog_summary(
    d_model: int = 64, claimed: int = 41, limit: int = 1000, heatmap_rows: int = 10
) -> str:
    """Write the paragraph under the returns table, with its numbers computed."""
    records = [p for p, _ in pair0_returns(limit) if p > 2 * np.pi]
    nearest = min(records, key=lambda p: abs(p - claimed))
    later = [p for p in records if p > nearest]
    origin = paper(0, d_model)
    distances = [float(np.linalg.norm(paper(p, d_model) - origin)) for p in [nearest, *later]]
    return (
        f"At {claimed} pair 0 is nearly *opposite* its start (its cosine is "
        f"{np.cos(claimed):.3f}); the nearest true return is at {nearest}, "
        f"{nearest / (2 * np.pi):.3f} turns, and closer ones follow at "
        f"{' and '.join(str(p) for p in later)}. None of them can be seen in a heatmap of "
        f"{heatmap_rows} rows, which covers {heatmap_rows / (2 * np.pi):.2f} turns of pair 0. "
        f"The last two columns are the point: even where pair 0 is back within "
        f"{2 * abs(np.sin(later[-1] / 2)):.1e}, the whole {d_model}-wide vector is at least "
        f"{min(distances):.2f} away from position 0, because the slower pairs have turned by "
        "angles nowhere near a whole turn (the column names the pair that moved most, with its "
        "distance; the largest possible is 2)."
    )


#: Vaswani et al. 2017, Table 3: the base model and row (E), English-German newstest2013.
PAPER_TABLE3 = (
    ("base, sinusoidal encoding", 4.92, 25.8),
    ("(E) learned positional embedding instead of sinusoids", 4.92, 25.7),
)


def paper_table3() -> str:
    """Quote the two rows of the paper's Table 3 that compare learned and sinusoidal positions."""
    rows = [[name, f"{ppl:.2f}", f"{bleu:.1f}"] for name, ppl, bleu in PAPER_TABLE3]
    return table(
        ["model (Vaswani et al. 2017, Table 3)", "perplexity (dev)", "BLEU (dev)"],
        rows,
        align="lrr",
    )


def sine_zero_records(limit: int) -> list[int]:
    """Positions 2..limit where |sin p| (column 0 alone) is smaller than at every earlier one."""
    records: list[int] = []
    best = abs(np.sin(1))
    for position in range(2, limit + 1):
        value = abs(np.sin(position))
        if value < best:
            best = value
            records.append(position)
    return records


def column0_near_zero(claimed: int = 41, close: float = 0.02, span: int = 60) -> str:
    """Say where column 0 alone comes back near 0 in the first `span` positions, and where not."""
    value = abs(float(np.sin(claimed)))
    closer = [p for p in range(1, claimed) if abs(np.sin(p)) < value]
    near = [p for p in range(1, span + 1) if abs(np.sin(p)) < close]

    def listed(items: Sequence[str]) -> str:
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]

    returns = listed([f"{p} (|sin {p}| = {abs(np.sin(p)):.3f})" for p in near])
    verdict = "is not one of them" if claimed not in near else "is one of them"
    return (
        f"Column 0 alone is not especially close to 0 at {claimed}: |sin {claimed}| = "
        f"{value:.3f}, and {len(closer)} earlier positions ({listed([str(p) for p in closer])}) "
        f"are closer. In the first {span} positions it comes back within {close} of 0 only at "
        f"{returns}; {claimed} {verdict}."
    )


def column0_returns(claimed: int = 41, limit: int = 1000) -> str:
    """Where column 0 alone is back at 0: near multiples of π, half of them going the wrong way."""
    shown = sorted({claimed, *sine_zero_records(limit)})
    rows = []
    for p in shown:
        multiple = p / np.pi
        back = np.cos(p) > 0
        rows.append(
            [
                f"**{p}**" if p == claimed else str(p),
                f"{multiple:.3f}",
                number(np.sin(p)),
                number(np.cos(p)),
                "yes: an even multiple of π" if back else "no: the pair is opposite its start",
            ]
        )
    headers = [
        "position p",
        "p / π",
        "column 0: sin p",
        "column 1: cos p",
        "pair 0 back at its start?",
    ]
    return table(headers, rows, align="rrrrl")
