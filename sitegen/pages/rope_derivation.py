"""The RoPE derivation page (beyond/rope-derivation.md): every table, computed with pe.

Each function returns a Markdown table built from `pe` (numpy core) or
`pe.nn.RotaryEmbedding` in float64; the tests check the numbers against
float64 formulas written out separately.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

import pe
from pe.nn import RotaryEmbedding
from pe.nn.functional import convert_rotary_layout
from sitegen.markdown import number, scientific, table

# The worked case: head size 4, base 10,000, one query at m and one key at n.
HAND_Q = (1.0, 2.0, 0.5, -1.0)
HAND_K = (0.5, -1.0, 2.0, 1.0)
HAND_M = 3
HAND_N = 1

# Meta-Llama-3-8B, config.json on its Hugging Face hub page
# (https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json).
LLAMA3_8B = {
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
}


def rotate64(x: np.ndarray, positions: np.ndarray, *, layout: str = "interleaved") -> np.ndarray:
    """Rows of `x` turned by pe's RoPE (base 10,000) at `positions`, in float64."""
    rope = RotaryEmbedding(x.shape[-1], layout=layout)
    out = rope.rotate(
        torch.from_numpy(np.asarray(x, dtype=np.float64)), positions=torch.from_numpy(positions)
    )
    return out.numpy()


def hand_case() -> str:
    """Tabulate the d = 4 case pair by pair: angles, turned pairs, each pair's share."""
    q = np.array([HAND_Q])
    k = np.array([HAND_K])
    rq = rotate64(q, np.array([HAND_M]))[0]
    rk = rotate64(k, np.array([HAND_N]))[0]
    theta = pe.frequencies(4)
    rows = []
    for i in range(2):
        pair = slice(2 * i, 2 * i + 2)
        rows.append(
            [
                i,
                number(theta[i], 4),
                f"({number(q[0, 2 * i], 2)}, {number(q[0, 2 * i + 1], 2)})",
                number(HAND_M * theta[i], 4),
                f"({number(rq[2 * i], 4)}, {number(rq[2 * i + 1], 4)})",
                f"({number(k[0, 2 * i], 2)}, {number(k[0, 2 * i + 1], 2)})",
                number(HAND_N * theta[i], 4),
                f"({number(rk[2 * i], 4)}, {number(rk[2 * i + 1], 4)})",
                number(float(rq[pair] @ rk[pair]), 4),
            ]
        )
    headers = [
        r"pair \(i\)",
        r"rate \(\theta_i\)",
        r"\(q\) pair",
        r"angle \(m\theta_i\)",
        r"\(R_m q\) pair",
        r"\(k\) pair",
        r"angle \(n\theta_i\)",
        r"\(R_n k\) pair",
        "share of the score",
    ]
    return table(headers, rows, align="rrlrllrlr")


def hand_score() -> tuple[float, float]:
    """Return the worked case's score and q · R_{n-m} k (the relative form)."""
    q = np.array([HAND_Q])
    k = np.array([HAND_K])
    score = float(rotate64(q, np.array([HAND_M]))[0] @ rotate64(k, np.array([HAND_N]))[0])
    relative = float(q[0] @ rotate64(k, np.array([HAND_N - HAND_M]))[0])
    return score, relative


def hand_summary() -> str:
    """Say that the shares add up to the score, and that the relative form agrees."""
    score, relative = hand_score()
    return (
        rf"The two shares add up to the score \((R_m q) \cdot (R_n k) = {number(score, 4)}\); "
        rf"turning only the key, by \(n - m = {HAND_N - HAND_M}\), gives "
        rf"\(q \cdot (R_{{n-m}} k) = {number(relative, 4)}\): the same number (float64 difference "
        f"{scientific(abs(score - relative), 1)})."
    )


def _random(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def additive_vs_rotary(
    head_dim: int = 8, offset: int = 2, starts: tuple[int, ...] = (0, 10, 100, 1000)
) -> str:
    """Scores of one query/key pair at the same offset, placed at several absolute positions.

    Additive: (x_q + PE(m)) W_Q · (x_k + PE(n)) W_K with random projections.
    Rotary: R_m (x_q W_Q) · R_n (x_k W_K) with the same projections.
    """
    x_q, x_k = _random((2, head_dim), 0)
    w_q, w_k = _random((2, head_dim, head_dim), 1) / math.sqrt(head_dim)
    rows = []
    for m in starts:
        n = m + offset
        table_pe = pe.sinusoidal(np.array([m, n]), head_dim, dtype=np.float64)
        additive = float(((x_q + table_pe[0]) @ w_q) @ ((x_k + table_pe[1]) @ w_k))
        q = rotate64((x_q @ w_q)[None], np.array([m]))[0]
        k = rotate64((x_k @ w_k)[None], np.array([n]))[0]
        rows.append(
            [
                m,
                n,
                number(additive, 6),
                number(float(q @ k), 6),
                number(float(np.linalg.norm(q)), 6),
            ]
        )
    norm = float(np.linalg.norm(x_q @ w_q))
    headers = [
        r"query at \(m\)",
        r"key at \(n\)",
        r"score, \(PE\) added to \(x\)",
        r"score, \(q\) and \(k\) rotated",
        rf"\(\lVert R_m q \rVert\) (\(\lVert q \rVert = {number(norm, 6)}\))",
    ]
    return table(headers, rows)


def layouts(head_dim: int = 8, length: int = 6) -> str:
    """Interleaved and concatenated RoPE give the same scores once q and k are permuted."""
    perm = pe.layout_permutation(head_dim, "interleaved", "concatenated")
    q, k = (torch.from_numpy(a) for a in _random((2, length, head_dim), 2))
    inter = RotaryEmbedding(head_dim, layout="interleaved")
    concat = RotaryEmbedding(head_dim, layout="concatenated")
    scores_inter = inter.rotate(q) @ inter.rotate(k).T
    q_c = convert_rotary_layout(q, "interleaved", "concatenated")
    k_c = convert_rotary_layout(k, "interleaved", "concatenated")
    scores_concat = concat.rotate(q_c) @ concat.rotate(k_c).T
    scores_wrong = concat.rotate(q) @ concat.rotate(k).T
    rows = [
        [
            "permutation (interleaved → concatenated)",
            "[" + ", ".join(str(int(j)) for j in perm) + "]",
        ],
        [
            "largest score difference, q and k permuted",
            scientific(float((scores_inter - scores_concat).abs().max()), 1),
        ],
        [
            "largest score difference, not permuted",
            number(float((scores_inter - scores_wrong).abs().max()), 4),
        ],
    ]
    return table(
        [f"head size {head_dim}, {length} positions, random q and k (float64)", "value"],
        rows,
        align="ll",
    )


def cost(context: int = 8192) -> str:
    """Per-layer, per-token work and memory of RoPE in Llama 3 8B, against the projections."""
    c = LLAMA3_8B
    head_dim = c["hidden_size"] // c["num_attention_heads"]
    rotated = head_dim * (c["num_attention_heads"] + c["num_key_value_heads"])
    rope_flops = 3 * rotated  # per element: two multiplies and one add
    qkv_flops = (
        2 * c["hidden_size"] * head_dim * (c["num_attention_heads"] + 2 * c["num_key_value_heads"])
    )
    layer_flops = (
        qkv_flops
        + 2 * c["hidden_size"] * c["hidden_size"]  # output projection
        + 3 * 2 * c["hidden_size"] * c["intermediate_size"]  # gated MLP
    )
    table_bytes = 2 * context * (head_dim // 2) * 4  # cos and sin, float32, d/2 angles each
    rows: list[list[Any]] = [
        ["hidden size (`config.json`)", c["hidden_size"]],
        [
            "query heads, key-value heads (`config.json`)",
            f"{c['num_attention_heads']}, {c['num_key_value_heads']}",
        ],
        ["MLP intermediate size (`config.json`)", c["intermediate_size"]],
        ["head size *d*", head_dim],
        ["rotated numbers per token (query heads + key heads) × *d*", rotated],
        ["RoPE floating-point operations per token", rope_flops],
        ["q, k, v projections, operations per token", qkv_flops],
        ["RoPE as a share of the q, k, v projections", f"{100 * rope_flops / qkv_flops:.3f} %"],
        [
            "RoPE as a share of the layer's weight matrix products"
            r" (projections and MLP; \(QK^\top\) and \(AV\) not counted)",
            f"{100 * rope_flops / layer_flops:.4f} %",
        ],
        ["parameters added", 0],
        [
            f"cos and sin table for {context:,} positions, float32 (shared by all layers)",
            f"{table_bytes / 2**20:.1f} MiB",
        ],
    ]
    return table(["Llama 3 8B, one layer, one token", "value"], rows, align="lr")


def values_not_rotated(head_dim: int = 8, length: int = 5, shift: int = 100) -> str:
    """Show that the attention output is the weights times the *unrotated* values."""
    q, k, v = (torch.from_numpy(a) for a in _random((3, length, head_dim), 3))
    rope = RotaryEmbedding(head_dim)
    scores = rope.rotate(q) @ rope.rotate(k).T / math.sqrt(head_dim)
    weights = torch.softmax(scores, dim=-1)
    output = torch.nn.functional.scaled_dot_product_attention(rope.rotate(q), rope.rotate(k), v)
    shifted = torch.nn.functional.scaled_dot_product_attention(
        rope.rotate(q, offset=shift), rope.rotate(k, offset=shift), v
    )
    same_v = torch.nn.functional.scaled_dot_product_attention(
        rope.rotate(q), rope.rotate(k), v[:1].expand(length, head_dim)
    )
    rows = [
        [
            r"output − weights · \(v\) (values as they are)",
            scientific(float((output - weights @ v).abs().max()), 1),
        ],
        [
            r"output − weights · \(R_n v\) (values rotated)",
            number(float((output - weights @ rope.rotate(v)).abs().max()), 4),
        ],
        [
            f"output − output with every position moved by {shift}",
            scientific(float((output - shifted).abs().max()), 1),
        ],
        [
            "every value the same vector: output − that vector",
            scientific(float((same_v - v[:1]).abs().max()), 1),
        ],
    ]
    return table(
        [
            f"one head, size {head_dim}, {length} tokens, no mask (float64)",
            "largest absolute difference",
        ],
        rows,
        align="lr",
    )
