"""The page on partial rotary, MLA and NoPE layers (beyond/rope-variants.md): every table.

Each function returns a Markdown table computed at build time: rotations by
`pe.nn.RotaryEmbedding` (float64), shapes and cache sizes from the published
configurations below, small seeded experiments in numpy. The tests
(`tests/test_rope_variants.py`) check the numbers against float64 formulas
written separately and, where it is installed, against transformers' own
configuration classes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from pe._published import by_model
from sitegen.markdown import scientific, table

if TYPE_CHECKING:
    from pe.nn import RotaryEmbedding

# torch (through pe.nn) is imported by the functions that rotate, and only there:
# under make serve, which installs no torch, the page's other tables are computed.

# Partial rotary: the configurations not already in `pe._published`, in the key
# names transformers reads (GPT-J's config.json calls them n_embd and n_head).
GPT_NEOX_20B: dict[str, Any] = {
    "model": "GPT-NeoX-20B",
    "source": "EleutherAI/gpt-neox-20b, config.json (rotary_pct 0.25)",
    "key": "rotary_pct",
    "config": {"hidden_size": 6144, "num_attention_heads": 64, "rotary_pct": 0.25},
}
GPT_J_6B: dict[str, Any] = {
    "model": "GPT-J-6B",
    "source": "EleutherAI/gpt-j-6B, config.json (rotary_dim 64; n_embd 4096, n_head 16)",
    "key": "rotary_dim",
    "config": {"hidden_size": 4096, "num_attention_heads": 16, "rotary_dim": 64},
}
# From pe._published (the same entries the rope-scaling page reads).
PARTIAL_PUBLISHED = ("Phi-2", "StableLM 3B 4E1T", "GLM-4")

# Multi-head latent attention: the attention part of each config.json.
MLA_CONFIGS: dict[str, dict[str, Any]] = {
    "DeepSeek-V2": {
        "source": "deepseek-ai/DeepSeek-V2, config.json",
        "hidden_size": 5120,
        "num_hidden_layers": 60,
        "num_attention_heads": 128,
        "kv_lora_rank": 512,
        "q_lora_rank": 1536,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
    },
    "DeepSeek-V2-Lite": {
        "source": "deepseek-ai/DeepSeek-V2-Lite, config.json",
        "hidden_size": 2048,
        "num_hidden_layers": 27,
        "num_attention_heads": 16,
        "kv_lora_rank": 512,
        "q_lora_rank": None,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
    },
    "DeepSeek-V3": {
        "source": "deepseek-ai/DeepSeek-V3, config.json",
        "hidden_size": 7168,
        "num_hidden_layers": 61,
        "num_attention_heads": 128,
        "kv_lora_rank": 512,
        "q_lora_rank": 1536,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
    },
}

# Interleaved NoPE layers: the defaults of transformers' configuration classes
# (transformers 5.23), which their docstrings tie to the named checkpoints.
LLAMA4_SCOUT: dict[str, Any] = {
    "source": "transformers 5.23, models/llama4/configuration_llama4.py: Llama4TextConfig() "
    "defaults, which its docstring ties to meta-llama/Llama-4-Scout-17B-16E",
    "num_hidden_layers": 48,
    "no_rope_layer_interval": 4,
    "attention_chunk_size": 8192,
    "attn_temperature_tuning": True,
    "floor_scale": 8192,
    "attn_scale": 0.1,
}
SMOLLM3: dict[str, Any] = {
    "source": "transformers 5.23, models/smollm3/configuration_smollm3.py: SmolLM3Config() "
    "defaults, which its docstring ties to HuggingFaceTB/SmolLM3-3B",
    "num_hidden_layers": 36,
    "no_rope_layer_interval": 4,
}

BYTES_BF16 = 2


# --- partial rotary ---------------------------------------------------------------------


def partial_rows() -> list[dict[str, Any]]:
    """Each partial-rotary model: head size and rotated dimensions, as `RotaryEmbedding` reads."""
    from pe.nn import RotaryEmbedding

    rows = []
    for entry in (GPT_NEOX_20B, GPT_J_6B):
        rope = RotaryEmbedding.from_config(entry["config"])
        setting = f"`{entry['key']}` {entry['config'][entry['key']]}"
        rows.append({"model": entry["model"], "setting": setting, "rope": rope})
    for name in PARTIAL_PUBLISHED:
        published = by_model(name)
        rope = RotaryEmbedding.from_config(published.config)
        fraction = published.config.get("partial_rotary_factor")
        if fraction is None:
            fraction = published.scaling["partial_rotary_factor"]
        rows.append({"model": name, "setting": f"`partial_rotary_factor` {fraction}", "rope": rope})
    return rows


def partial_table() -> str:
    """Head size, rotated and unrotated dimensions of real partial-rotary configurations."""
    body = []
    for row in partial_rows():
        rope = row["rope"]
        body.append(
            [
                row["model"],
                row["setting"],
                rope.head_dim,
                rope.rotary_dim,
                rope.head_dim - rope.rotary_dim,
                rope.rotary_dim // 2,
            ]
        )
    headers = ["model", "config", "head size", "rotated", "not rotated", "pairs turned"]
    return table(headers, body, align="llrrrr")


def self_match_scores(
    head_dim: int = 64,
    fraction: float = 0.25,
    offsets: tuple[int, ...] = (0, 1, 10, 100, 1000, 10000),
    seed: int = 0,
) -> list[tuple[int, float, float, float, float]]:
    """Score of a vector with itself `offset` positions away, fully and partly rotated.

    Returns rows ``(offset, full, partial, partial's rotated part,
    partial's unrotated part)`` for a seeded random vector ``x`` used as query
    and key, each divided by ``|x|^2`` (so offset 0 gives 1).
    """
    import torch

    from pe.nn import RotaryEmbedding

    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(1, head_dim, generator=generator, dtype=torch.float64)
    full = RotaryEmbedding(head_dim)
    part = RotaryEmbedding(head_dim, partial_rotary_factor=fraction)
    norm = float(x @ x.T)
    rotated = part.rotary_dim
    rows = []
    for offset in offsets:
        q_full, k_full = full.rotate(x, offset=offset), full.rotate(x)
        q_part, k_part = part.rotate(x, offset=offset), part.rotate(x)
        rot = float(q_part[:, :rotated] @ k_part[:, :rotated].T)
        rest = float(q_part[:, rotated:] @ k_part[:, rotated:].T)
        rows.append(
            (offset, float(q_full @ k_full.T) / norm, (rot + rest) / norm, rot / norm, rest / norm)
        )
    return rows


def self_match_table() -> str:
    """Tabulate `self_match_scores`."""
    body = [list(row) for row in self_match_scores()]
    headers = [
        "offset",
        "full rotary",
        "25 % rotary",
        "its rotated 16 dims",
        "its 48 unrotated dims",
    ]
    return table(headers, body, formats=[None, "f4", "f4", "f4", "f4"])


# --- multi-head latent attention ---------------------------------------------------------


def mla_shapes(name: str) -> dict[str, Any]:
    """Return the projection shapes and per-token cache of one MLA configuration."""
    c = MLA_CONFIGS[name]
    heads, hidden = c["num_attention_heads"], c["hidden_size"]
    nope, rope, value = c["qk_nope_head_dim"], c["qk_rope_head_dim"], c["v_head_dim"]
    latent, q_rank = c["kv_lora_rank"], c["q_lora_rank"]
    query_in = q_rank if q_rank is not None else hidden
    return {
        "heads": heads,
        "qk_head": nope + rope,
        "down_kv": (hidden, latent + rope),  # c_KV and the shared rotary key k_R, in one matrix
        "up_k": (latent, heads * nope),
        "up_v": (latent, heads * value),
        "down_q": None if q_rank is None else (hidden, q_rank),
        "up_q": (query_in, heads * (nope + rope)),
        "cache": latent + rope,
        "layers": c["num_hidden_layers"],
    }


def _shape(pair: tuple[int, int] | None) -> str:
    return "—" if pair is None else f"{pair[0]:,} × {pair[1]:,}"


def mla_shape_table() -> str:
    """Tabulate the MLA projections of DeepSeek-V2, V2-Lite and V3, input by output."""
    shapes = {name: mla_shapes(name) for name in MLA_CONFIGS}
    projections = [
        ("heads", "heads"),
        ("query and key size per head", "qk_head"),
        (r"query down, \(W^{\mathrm{DQ}}\)", "down_q"),
        (r"query up, \(W^{\mathrm{UQ}}\) with \(W^{\mathrm{QR}}\)", "up_q"),
        (r"key-value down, \(W^{\mathrm{DKV}}\) with \(W^{\mathrm{KR}}\)", "down_kv"),
        (r"key up, \(W^{\mathrm{UK}}\)", "up_k"),
        (r"value up, \(W^{\mathrm{UV}}\)", "up_v"),
    ]
    rows = []
    for label, key in projections:
        cells = [shapes[name][key] for name in MLA_CONFIGS]
        rows.append([label, *(c if isinstance(c, int) else _shape(c) for c in cells)])
    headers = ["projection, input × output", *MLA_CONFIGS]
    return table(headers, rows, align="l" + "r" * len(MLA_CONFIGS))


def cache_per_token(name: str, gqa_groups: int = 8) -> dict[str, float]:
    """Count the cached numbers per token and layer: MLA, and MHA and GQA with its d_h.

    MHA and GQA follow DeepSeek-V2's Table 1: ``2 n_h d_h`` and ``2 n_g d_h``
    per layer, with ``d_h`` the per-head size (`v_head_dim`, 128); MLA caches
    the latent and the shared rotary key, ``d_c + d_h^R``.
    """
    c = MLA_CONFIGS[name]
    d_h = c["v_head_dim"]
    mla = c["kv_lora_rank"] + c["qk_rope_head_dim"]
    mha = 2 * c["num_attention_heads"] * d_h
    gqa = 2 * gqa_groups * d_h
    return {
        "mla": mla,
        "mha": mha,
        "gqa": gqa,
        "ratio": mha / mla,
        "groups_equivalent": mla / (2 * d_h),
        "layers": c["num_hidden_layers"],
    }


def cache_table() -> str:
    """Tabulate the cached numbers per token and layer: MLA, MHA and GQA, and their ratios."""
    rows = []
    for name in MLA_CONFIGS:
        k = cache_per_token(name)
        rows.append(
            [
                name,
                k["mla"],
                k["mha"],
                k["gqa"],
                f"{k['ratio']:.1f}×",
                f"{k['groups_equivalent']:.2f}",
            ]
        )
    headers = ["model", "MLA", "MHA", "GQA, 8 groups", "MHA / MLA", "MLA as GQA groups"]
    return table(headers, rows, align="lrrrrr")


def sequence_cache_table(context: int = 131072) -> str:
    """Tabulate the whole cache of one sequence of `context` tokens, all layers, in BF16."""
    rows = []
    for name in MLA_CONFIGS:
        k = cache_per_token(name)
        total = context * k["layers"] * BYTES_BF16 / 2**30
        rows.append(
            [
                name,
                k["layers"],
                f"{k['mla'] * total:,.1f} GiB",
                f"{k['mha'] * total:,.1f} GiB",
            ]
        )
    return table(["model", "layers", "MLA", "MHA"], rows, align="lrrr")


def _rotate(rope: RotaryEmbedding, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Rows of `x` (float64) turned by `rope` to `positions`."""
    import torch

    out = rope.rotate(torch.from_numpy(x), positions=torch.from_numpy(positions))
    return np.asarray(out.numpy())


def absorption(seed: int = 0, length: int = 12) -> dict[str, float]:
    """Scores of one small MLA head computed naively and with W^UK absorbed, in float64.

    A head of query/key size 8 over a latent of 16 (queries from their own
    latent of 16). Returns the largest score difference between the naive
    computation (keys rebuilt from the cached latent) and the absorbed one
    (``q^T W^UK`` precomputed once, applied to the cached latent) for: no RoPE;
    RoPE on the whole key (absorbed with the one matrix that ignores the
    rotation); and the decoupled design (an 8-dim content part absorbed, a
    4-dim rotary part cached already turned); plus the size of the scores.
    """
    from pe.nn import RotaryEmbedding

    rng = np.random.default_rng(seed)
    d_latent, d_qlatent, d_head, d_rope = 16, 16, 8, 4
    c_kv = rng.standard_normal((length, d_latent))  # the cache: one latent per token
    c_q = rng.standard_normal((length, d_qlatent))
    w_uk = rng.standard_normal((d_latent, d_head)) / math.sqrt(d_latent)
    w_uq = rng.standard_normal((d_qlatent, d_head)) / math.sqrt(d_qlatent)
    positions = np.arange(length)
    causal = np.tril(np.ones((length, length), dtype=bool))

    # Without RoPE: q_t . k_s = c_q,t W^UQ (c_kv,s W^UK)^T = c_q,t (W^UQ W^UK^T) c_kv,s^T.
    naive = (c_q @ w_uq) @ (c_kv @ w_uk).T
    absorbed_matrix = w_uq @ w_uk.T  # (d_qlatent, d_latent), computed once
    absorbed = (c_q @ absorbed_matrix) @ c_kv.T
    plain = float(np.abs(naive - absorbed)[causal].max())

    # RoPE on the whole key: R_t sits between W^UQ and W^UK and depends on t and s.
    rope = RotaryEmbedding(d_head)
    q = _rotate(rope, c_q @ w_uq, positions)
    k = _rotate(rope, c_kv @ w_uk, positions)
    rotary_naive = q @ k.T
    broken = float(np.abs(rotary_naive - absorbed)[causal].max())

    # Decoupled: content part absorbed as above; a small rotary part, shared key, cached turned.
    small = RotaryEmbedding(d_rope)
    w_qr = rng.standard_normal((d_qlatent, d_rope)) / math.sqrt(d_qlatent)
    hidden = rng.standard_normal((length, 32))
    w_kr = rng.standard_normal((32, d_rope)) / math.sqrt(32)
    k_rope_cache = _rotate(small, hidden @ w_kr, positions)  # cached beside c_kv
    q_rope = _rotate(small, c_q @ w_qr, positions)
    # Naive: whole keys [k_C; k_R] and queries [q_C; q_R] rebuilt, then one dot product.
    whole_q = np.concatenate([c_q @ w_uq, q_rope], axis=1)
    whole_k = np.concatenate([c_kv @ w_uk, k_rope_cache], axis=1)
    decoupled_naive = whole_q @ whole_k.T
    decoupled_absorbed = absorbed + q_rope @ k_rope_cache.T
    decoupled = float(np.abs(decoupled_naive - decoupled_absorbed)[causal].max())
    return {
        "no_rope": plain,
        "rope": broken,
        "decoupled": decoupled,
        "scale": float(np.abs(rotary_naive)[causal].max()),
    }


def absorption_table() -> str:
    """Tabulate `absorption`: naive against absorbed scores, three designs."""
    result = absorption()
    rows = [
        ["no RoPE", scientific(result["no_rope"], 1), "yes"],
        ["RoPE on the whole key", scientific(result["rope"], 1), "no"],
        ["decoupled RoPE (DeepSeek)", scientific(result["decoupled"], 1), "yes"],
    ]
    headers = ["design", "largest score difference, naive vs absorbed", "absorption exact?"]
    return table(headers, rows, align="lrl")


# --- NoPE ---------------------------------------------------------------------------------


def _attention(tokens: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, causal: bool) -> np.ndarray:
    """One attention head without any position encoding (values are the tokens)."""
    length, width = tokens.shape
    scores = (tokens @ w_q) @ (tokens @ w_k).T / math.sqrt(width)
    if causal:
        scores = np.where(np.tril(np.ones((length, length), dtype=bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.asarray(weights @ tokens)


def nope_sequences(
    *, causal: bool, sequences: int, length: int = 64, width: int = 32, seed: int = 0
) -> np.ndarray:
    """Run one NoPE attention head over random sequences that start with the same token.

    Token 0 of every sequence is the same vector (a beginning-of-sequence
    token); the others are drawn at random. The head's projections are drawn
    once, small (so its attention is close to uniform, as at initialisation).
    Returns shape ``(sequences, length, width)``.
    """
    rng = np.random.default_rng(seed)
    w_q = rng.standard_normal((width, width)) * 0.1
    w_k = rng.standard_normal((width, width)) * 0.1
    bos = rng.standard_normal(width)
    data = np.random.default_rng(seed + 1).standard_normal((sequences, length, width))
    data[:, 0] = bos
    return np.stack([_attention(tokens, w_q, w_k, causal) for tokens in data])


def probe(
    *, causal: bool, length: int = 64, width: int = 32, train: int = 400, test: int = 200
) -> dict[str, Any]:
    """Fit a linear probe from a NoPE head's output to 1/(t+1); score it on new sequences.

    Least squares with an intercept, fitted on `train` sequences and tested on
    `test` others. Returns the test R^2, and per position the median position
    read back as ``1/prediction - 1``.
    """
    outputs = nope_sequences(causal=causal, sequences=train + test, length=length, width=width)
    target = 1.0 / (np.arange(length) + 1.0)
    features = np.concatenate([outputs, np.ones((*outputs.shape[:2], 1))], axis=-1)
    x_train = features[:train].reshape(-1, width + 1)
    y_train = np.tile(target, train)
    weights, *_ = np.linalg.lstsq(x_train, y_train, rcond=None)
    predicted = features[train:] @ weights  # (test, length)
    residual = ((predicted - target) ** 2).sum()
    total = ((np.broadcast_to(target, predicted.shape) - target.mean()) ** 2).sum()
    with np.errstate(divide="ignore"):
        read = 1.0 / np.clip(predicted, 1e-9, None) - 1.0
    return {
        "r2": 1.0 - residual / total,
        "median": np.median(read, axis=0),
        "low": np.quantile(read, 0.25, axis=0),
        "high": np.quantile(read, 0.75, axis=0),
    }


def bos_share(length: int = 64, width: int = 32, sequences: int = 400) -> np.ndarray:
    """Mean weight that a causal NoPE head's output puts on the first token, per position.

    The output's component along the first token's vector, ``o_t · b / |b|^2``,
    averaged over random sequences: close to ``1/(t+1)`` when the attention is
    near uniform.
    """
    outputs = nope_sequences(causal=True, sequences=sequences, length=length, width=width)
    bos = outputs[0, 0]  # position 0 sees only itself: its output is the token
    return np.asarray((outputs @ bos / (bos @ bos)).mean(axis=0))


def nope_probe_table(positions: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 63)) -> str:
    """Per position: share of the first token, and the position a linear probe reads back."""
    share = bos_share()
    causal = probe(causal=True)
    mutual = probe(causal=False)
    rows = []
    for t in positions:
        rows.append(
            [
                t,
                float(share[t]),
                1.0 / (t + 1),
                f"{causal['median'][t]:.1f} ({causal['low'][t]:.1f}–{causal['high'][t]:.1f})",
                f"{mutual['median'][t]:.1f}",
            ]
        )
    headers = [
        "position *t*",
        "first token's share",
        "1/(t+1)",
        "causal: probe reads (middle half)",
        "no mask: probe reads",
    ]
    return table(headers, rows, align="rrrll", formats=[None, "f4", "f4", None, None])


def probe_scores() -> tuple[float, float]:
    """Return the probe's test R^2 with the causal mask and without it."""
    return float(probe(causal=True)["r2"]), float(probe(causal=False)["r2"])


def permutation_check(length: int = 16, width: int = 32, seed: int = 3) -> dict[str, float]:
    """Shuffle tokens 1..L-1 and compare the outputs with the old outputs shuffled alike.

    Without a mask attention is permutation-equivariant: the difference is
    rounding. With the causal mask it is not.
    """
    rng = np.random.default_rng(seed)
    w_q = rng.standard_normal((width, width))
    w_k = rng.standard_normal((width, width))
    tokens = rng.standard_normal((length, width))
    order = np.concatenate([[0], 1 + rng.permutation(length - 1)])
    result = {}
    for name, causal in (("bidirectional", False), ("causal", True)):
        before = _attention(tokens, w_q, w_k, causal)
        after = _attention(tokens[order], w_q, w_k, causal)
        result[name] = float(np.abs(after - before[order]).max())
    return result


def permutation_table() -> str:
    """Tabulate `permutation_check` and the probe's R^2."""
    check = permutation_check()
    causal_r2, mutual_r2 = probe_scores()
    rows = [
        ["no mask (bidirectional)", scientific(check["bidirectional"], 1), f"{mutual_r2:.3f}"],
        ["causal mask", scientific(check["causal"], 1), f"{causal_r2:.3f}"],
    ]
    headers = [
        "attention",
        "largest difference: shuffled input vs shuffled output",
        "probe R² (test)",
    ]
    return table(headers, rows, align="lrr")


# --- interleaved NoPE layers -----------------------------------------------------------------


def rope_flags(layers: int, interval: int) -> list[int]:
    """Return transformers' default ``no_rope_layers``: 1 for RoPE, 0 every `interval`-th layer."""
    return [int((index + 1) % interval != 0) for index in range(layers)]


def nope_layers_table() -> str:
    """Which layers of Llama 4 Scout and SmolLM3 3B have no RoPE, from the config rule."""
    rows = []
    for name, config, rope_attention in (
        ("Llama 4 Scout", LLAMA4_SCOUT, f"chunked, {LLAMA4_SCOUT['attention_chunk_size']:,}"),
        ("SmolLM3 3B", SMOLLM3, "full"),
    ):
        flags = rope_flags(config["num_hidden_layers"], config["no_rope_layer_interval"])
        nope = [index for index, flag in enumerate(flags) if not flag]
        rows.append(
            [
                name,
                config["num_hidden_layers"],
                len(nope),
                ", ".join(str(index) for index in nope),
                rope_attention,
            ]
        )
    headers = ["model", "layers", "NoPE layers", "their indices (from 0)", "RoPE layers attend"]
    return table(headers, rows, align="lrrll")


def llama4_temperature(position: int, floor_scale: int = 8192, attn_scale: float = 0.1) -> float:
    """Return Llama 4's query scale on NoPE layers at `position`.

    ``1 + attn_scale · log(1 + floor((position + 1) / floor_scale))``, as
    `Llama4TextAttention.forward` computes it (transformers 5.23).
    """
    return 1.0 + attn_scale * math.log1p(math.floor((position + 1) / floor_scale))


def top_weight(keys: int, lead: float, scale: float = 1.0) -> float:
    """Return the softmax weight of one key leading `keys - 1` equal others by `lead`.

    All logits are multiplied by `scale` first.
    """
    return 1.0 / (1.0 + (keys - 1) * math.exp(-scale * lead))


def temperature_table(
    positions: tuple[int, ...] = (0, 8190, 8191, 65535, 262143, 1048575, 10485759),
    lead: float = 8.0,
) -> str:
    """Llama 4's NoPE-layer temperature at several positions, and what it does to one key."""
    rows = []
    for position in positions:
        scale = llama4_temperature(
            position, LLAMA4_SCOUT["floor_scale"], LLAMA4_SCOUT["attn_scale"]
        )
        keys = position + 1
        rows.append(
            [
                f"{position:,}",
                scale,
                top_weight(keys, lead),
                top_weight(keys, lead, scale),
            ]
        )
    headers = [
        "query position *p*",
        "query scale",
        f"weight of a key {lead:g} logits ahead, unscaled",
        "scaled",
    ]
    return table(headers, rows, align="rrrr", formats=[None, "f4", "f4", "f4"])
