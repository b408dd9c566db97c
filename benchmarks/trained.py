"""Train one small decoder with every position method; evaluate past the trained length.

Run with ``make trained`` (not part of ``make test`` or ``make bench``: about
half an hour on two shared CPU cores, the seeds in processes of one thread each)
to write ``benchmarks/results/trained.json``, the one record that the pages
*Comparing the methods* and *RoPE scaling rules on a trained model* and their
figures read. ``python -m benchmarks.trained --quick --output PATH`` runs the
same pipeline with a few steps of a tinier model, for the tests: its numbers
mean nothing.

One design for everything. The data ships with Python: the text of
``pydoc_data.topics`` read as ASCII characters, nine tenths for training, the
rest held out. Every training sequence hides a *passkey* (a marker character
and a few random digits) at a random depth and ends with the marker again,
after which the model must produce the digits (the passkey test of Mohtashami &
Jaggi 2023, arXiv:2305.16300, used by Chen et al. 2023, arXiv:2306.15595). The
loss is next-character cross-entropy on every character, plus the digits of the
answer weighted again, so one model learns both language modelling and
retrieval.

The same decoder (`Decoder`; head width `Settings.head_dim`, at least 64 so
that the RoPE pages' critical dimension and base bound have pairs to act on) is
trained with the same data, steps and seeds with each method of `METHODS`:
none (NoPE), sinusoidal and learned (added to the input), T5's bucketed bias
and ALiBi (added to the scores), RoPE (rotating queries and keys). The RoPE
model is then served with each rule of `RULES` (`pe.rope_frequencies` through
`pe.nn.RotaryEmbedding`) in two settings:

* ``target``: configured once for the longest length, factor ``S = scale``, as a
  served ``config.json`` would be; dynamic NTK with the same factor, read as
  transformers reads it (``alpha = S * n / L - (S - 1)`` at ``n`` tokens);
* ``matched``: configured for the length evaluated, factor ``n / L`` (dynamic:
  factor 1, ``alpha = n / L``, the static NTK base for that factor, so its
  matched row would repeat static NTK's and is not run twice).

Each rule is also fine-tuned for the same few steps at the longest length with
factor ``S`` (where both settings agree), the unscaled model among them as the
control, and evaluated again in both settings. For every variant, length and
seed the record holds passkey accuracy split by distance (*near*: at most
``L - passkey_digits`` characters back, the farthest distance training shows;
*far*: further), the held-out loss overall and in doubling bands of positions
([0, L), [L, 2L), [2L, 4L), ...), and the answering query's attention entropy
and weight on the passkey. Intervals are the range over seeds (lowest to
highest seed).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import resource
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

import pe
from benchmarks._common import environment, write
from benchmarks.trained_names import METHODS, RULES, SETTINGS, rule_variants, variant_rule
from pe.nn import (
    ALiBi,
    LearnedPositionalEmbedding,
    RelativePositionBias,
    RotaryEmbedding,
    SinusoidalPositionalEncoding,
)

MARKER = 1  # the passkey marker: ASCII SOH, which the text never holds
DIGITS = tuple(range(ord("0"), ord("9") + 1))
VOCAB = 128  # ASCII; any other character is read as "?"


@dataclass(frozen=True)
class Settings:
    """Sizes of one run (the full run, or the tests' quick one)."""

    train_length: int = 32
    scale: int = 8  # the longest evaluation length over the training length
    layers: int = 2
    d_model: int = 64
    heads: int = 4
    head_dim: int = 64  # queries and keys per head; heads * head_dim need not be d_model
    base: float = 10000.0
    passkey_digits: int = 4
    steps: int = 400
    batch: int = 32
    learning_rate: float = 2e-3
    answer_weight: float = 4.0  # extra weight of the passkey's digits in the loss
    finetune_steps: int = 30
    finetune_batch: int = 8
    finetune_learning_rate: float = 5e-4
    eval_passkeys: int = 40  # per length; half near, half far beyond the trained length
    eval_text_tokens: int = 2048  # held-out characters scored at each length
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    workers: int = 2  # seeds trained at once, in separate processes of one thread each

    @property
    def lengths(self) -> list[int]:
        return [self.train_length * 2**k for k in range(int(math.log2(self.scale)) + 1)]


QUICK = Settings(
    train_length=16,
    scale=4,
    layers=1,
    d_model=32,
    heads=2,
    head_dim=16,
    steps=3,
    batch=4,
    finetune_steps=2,
    finetune_batch=2,
    eval_passkeys=4,
    eval_text_tokens=64,
    seeds=(0, 1),
    workers=1,
)


def corpus() -> tuple[np.ndarray, np.ndarray]:
    """The text of ``pydoc_data.topics`` as ASCII codes: (training part, held-out part)."""
    from pydoc_data.topics import topics

    text = "\n\n".join(topics[key] for key in sorted(topics))
    codes = np.frombuffer(text.encode("ascii", errors="replace"), dtype=np.uint8).astype(np.int64)
    codes[codes == MARKER] = ord("?")
    split = int(0.9 * codes.size)
    return codes[:split], codes[split:]


def passkeys(
    text: np.ndarray,
    count: int,
    length: int,
    digits: int,
    rng: np.random.Generator,
    farthest_near: int | None = None,
) -> tuple[Tensor, Tensor]:
    """`count` sequences of ``length + 1`` tokens with a passkey; and each passkey's start.

    A sequence is filler text (its digits replaced by ``#``, so that the
    passkey's are the only ones) with ``MARKER d1 .. dk`` at a random depth and
    ``MARKER d1 .. dk`` again at its very end: the final marker sits at
    ``length - digits``, the input position that must predict ``d1``. The depth
    is uniform; with `farthest_near` set, even rows put the hidden marker at
    most `farthest_near` positions before the final one (*near*), odd rows
    further (*far*).
    """
    block = digits + 1
    tokens = np.empty((count, length + 1), dtype=np.int64)
    starts = np.empty(count, dtype=np.int64)
    filler_length = length + 1 - 2 * block
    query = length - digits  # position of the final marker
    for row in range(count):
        origin = int(rng.integers(0, text.size - filler_length))
        filler = text[origin : origin + filler_length].copy()
        filler[(filler >= DIGITS[0]) & (filler <= DIGITS[-1])] = ord("#")
        key = np.array([MARKER, *rng.choice(DIGITS, size=digits)], dtype=np.int64)
        low, high = 0, filler_length  # the hidden marker's start, inclusive
        if farthest_near is not None:
            split = query - farthest_near  # starts from here on are near
            low, high = (max(split, 0), high) if row % 2 == 0 else (0, min(split - 1, high))
        start = int(rng.integers(low, high + 1))
        tokens[row] = np.concatenate((filler[:start], key, filler[start:], key))
        starts[row] = start
    return torch.from_numpy(tokens), torch.from_numpy(starts)


def farthest_trained(settings: Settings) -> int:
    """The farthest distance from the question back to a passkey that training shows."""
    return settings.train_length - settings.passkey_digits


def text_windows(text: np.ndarray, length: int, total: int) -> Tensor:
    """Consecutive windows of ``length + 1`` held-out characters, about `total` in all."""
    count = max(1, min(total // length, (text.size - 1) // length))
    rows = [text[i * length : i * length + length + 1] for i in range(count)]
    return torch.from_numpy(np.stack(rows))


class Block(nn.Module):
    """One pre-norm decoder layer; keeps one query's attention weights when asked."""

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        d_model, width = settings.d_model, settings.heads * settings.head_dim
        self.heads, self.head_dim = settings.heads, settings.head_dim
        self.attention_norm = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * width)
        self.out = nn.Linear(width, d_model)
        self.mlp_norm = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(
            nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model)
        )
        self.weights: Tensor | None = None  # (batch, heads, probe + 1): one query's attention

    def forward(
        self, x: Tensor, rotary: RotaryEmbedding | None, bias: Tensor | None, probe: int | None
    ) -> Tensor:
        batch, seq, _ = x.shape
        qkv = self.qkv(self.attention_norm(x)).view(batch, seq, 3, self.heads, self.head_dim)
        q, k, v = (t.transpose(1, 2) for t in qkv.unbind(dim=2))  # (batch, heads, seq, dim)
        if rotary is not None:
            q, k = rotary(q, k)  # RoPE and its scaling rules act here, and only here
        if bias is None:
            mixed = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:  # T5 or ALiBi: (heads, seq, seq) on the scores, with the causal mask in it
            mixed = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        if probe is not None:  # the weights of the query at `probe` on the keys up to it
            scores = q[:, :, probe, None] @ k[:, :, : probe + 1].transpose(-1, -2)
            scores = scores[:, :, 0] / math.sqrt(self.head_dim)
            if bias is not None:
                scores = scores + bias[:, probe, : probe + 1]
            self.weights = scores.softmax(dim=-1)
        x = x + self.out(mixed.transpose(1, 2).reshape(batch, seq, -1))
        out: Tensor = x + self.mlp(self.mlp_norm(x))
        return out


class Decoder(nn.Module):
    """Character embeddings, decoder layers, a next-character head; `method` places position."""

    def __init__(self, settings: Settings, method: str) -> None:
        super().__init__()
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}; got {method!r}")
        d_model, longest = settings.d_model, settings.lengths[-1]
        self.method = method
        self.embed = nn.Embedding(VOCAB, d_model)
        nn.init.normal_(self.embed.weight, std=d_model**-0.5)
        self.scale = math.sqrt(d_model)  # unit-variance components, like the encodings'
        self.position: nn.Module | None = None
        if method == "sinusoidal":
            self.position = SinusoidalPositionalEncoding(d_model, max_len=None)
        elif method == "learned":  # rows past the trained length exist but are never trained
            self.position = LearnedPositionalEmbedding(longest, d_model)
        self.bias: nn.Module | None = None
        if method == "t5":  # one bucketed table shared by the layers, as in T5
            self.bias = RelativePositionBias(settings.heads, bidirectional=False)
        elif method == "alibi":
            self.bias = ALiBi(settings.heads)
        self.rotary: RotaryEmbedding | None = None
        if method == "rope":
            self.rotary = RotaryEmbedding(settings.head_dim, base=settings.base)
        self.blocks = nn.ModuleList(Block(settings) for _ in range(settings.layers))
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, VOCAB)

    def forward(self, ids: Tensor, probe: int | None = None) -> Tensor:
        x = self.embed(ids) * self.scale
        if self.position is not None:
            x = self.position(x)  # absolute: added to the input
        bias = None
        if self.bias is not None:
            seq = ids.shape[1]
            future = torch.ones(seq, seq, dtype=torch.bool).triu(1)
            bias = self.bias(seq, seq).masked_fill(future, float("-inf"))
        for block in self.blocks:
            x = block(x, self.rotary, bias, probe)
        logits: Tensor = self.head(self.norm(x))
        return logits


def rule_arguments(
    settings: Settings, rule: str, factor: float, seq_len: int, setting: str
) -> dict[str, Any]:
    """`pe.nn.RotaryEmbedding`'s arguments for `rule` with `factor`, serving `seq_len` tokens.

    `setting` is ``"target"`` or ``"matched"``; it changes only dynamic NTK, whose
    ``factor`` is transformers' (``alpha = factor * n / L - (factor - 1)``) in the
    target setting and 1 (``alpha = n / L``) in the matched one.
    """
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {SETTINGS}; got {setting!r}")
    length, base = settings.train_length, settings.base
    if rule == "none":
        return {"base": base}
    if rule == "linear":
        return {"base": base, "scaling": {"rope_type": "linear", "factor": factor}}
    if rule == "ntk":
        return {"base": pe.ntk_aware_base(base, factor, settings.head_dim)}
    if rule == "dynamic":
        return {
            "base": base,
            "scaling": {"rope_type": "dynamic", "factor": factor if setting == "target" else 1.0},
            "max_position_embeddings": length,
            "seq_len": seq_len,
        }
    if rule == "yarn":
        scaling = {
            "rope_type": "yarn",
            "factor": factor,
            "original_max_position_embeddings": length,
        }
        return {"base": base, "scaling": scaling}
    if rule == "llama3":
        scaling = {
            "rope_type": "llama3",
            "factor": factor,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": length,
        }
        return {"base": base, "scaling": scaling}
    raise ValueError(f"rule must be one of {RULES}; got {rule!r}")


def rotary_for(settings: Settings, rule: str, setting: str, seq_len: int) -> RotaryEmbedding:
    """The rotary module of `rule` in `setting` for a sequence of `seq_len` tokens."""
    factor = float(settings.scale) if setting == "target" else seq_len / settings.train_length
    arguments = rule_arguments(settings, rule, factor, seq_len, setting)
    return RotaryEmbedding(settings.head_dim, **arguments)


def losses(model: Decoder, tokens: Tensor) -> Tensor:
    """Next-token cross-entropy at every position, shape (sequences, length)."""
    logits = model(tokens[:, :-1])
    flat = nn.functional.cross_entropy(
        logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1), reduction="none"
    )
    return flat.view(tokens.shape[0], -1)


def train(
    model: Decoder,
    settings: Settings,
    text: np.ndarray,
    length: int,
    steps: int,
    batch: int,
    learning_rate: float,
    seed: int,
) -> list[float]:
    """Train on passkey sequences of `length`; return the loss every tenth of the steps."""
    rng = np.random.default_rng(seed)
    optimiser = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.01)
    warmup = max(1, steps // 20)

    def rate(step: int) -> float:  # linear warm-up, then cosine decay to zero
        return min(1.0, (step + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * step / steps))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, rate)
    digits = settings.passkey_digits
    history = []
    model.train()
    for step in range(steps):
        tokens, _ = passkeys(text, batch, length, digits, rng)
        per_position = losses(model, tokens)
        loss = per_position.mean() + settings.answer_weight * per_position[:, -digits:].mean()
        optimiser.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        if (step + 1) % max(1, steps // 10) == 0:
            history.append(round(float(loss.detach()), 4))
    model.eval()
    return history


def evaluate(model: Decoder, settings: Settings, length: int, text: np.ndarray) -> dict[str, Any]:
    """Passkey accuracy (near, far), held-out loss by block, attention at `length`.

    The answering query is the final marker, which must predict the first digit.
    Its attention: the entropy of its weights (nats, mean over heads and layers;
    ``ln(keys)`` if uniform) and the weight on the hidden marker and digits (the
    largest over heads and layers).
    """
    digits, train_length = settings.passkey_digits, settings.train_length
    rng = np.random.default_rng(10_000 + length)  # the same passkeys for every variant and seed
    farthest = farthest_trained(settings)
    near_limit = farthest if length > train_length else None
    tokens, starts = passkeys(text, settings.eval_passkeys, length, digits, rng, near_limit)
    query = length - digits  # the final marker, which must predict d1
    with torch.no_grad():
        logits = model(tokens[:, :-1], probe=query)
        answers = logits[:, -digits:].argmax(-1)
        correct = (answers == tokens[:, -digits:]).all(dim=-1)
        far = query - starts > farthest  # beyond every distance seen in training
        mass, entropy = passkey_attention(model, starts, query, digits)
        text_loss = losses(model, text_windows(text, length, settings.eval_text_tokens))

    def split(values: Tensor, where: Tensor) -> float | None:
        return round(float(values[where].float().mean()), 4) if bool(where.any()) else None

    by_position = text_loss.mean(dim=0)
    bands = [(0, train_length)]  # positions [0, L), [L, 2L), [2L, 4L), ... up to `length`
    while bands[-1][1] < length:
        bands.append((bands[-1][1], 2 * bands[-1][1]))
    everywhere = torch.ones_like(far)
    return {
        "passkey_accuracy": split(correct, everywhere),
        "passkey_accuracy_near": split(correct, ~far),
        "passkey_accuracy_far": split(correct, far),
        "loss": round(float(text_loss.mean()), 4),
        "loss_by_band": [round(float(by_position[a:b].mean()), 4) for a, b in bands],
        "attention_entropy_near": split(entropy, ~far),
        "attention_entropy_far": split(entropy, far),
        "attention_on_passkey_near": split(mass, ~far),
        "attention_on_passkey_far": split(mass, far),
    }


def passkey_attention(
    model: Decoder, starts: Tensor, query: int, digits: int
) -> tuple[Tensor, Tensor]:
    """Per sequence: the largest weight a head puts on the passkey, and the mean entropy."""
    span = torch.arange(query + 1)
    on_key = (span >= starts[:, None]) & (span <= starts[:, None] + digits)  # marker, digits
    masses, entropies = [], []
    for block in model.blocks:
        assert isinstance(block, Block)
        assert block.weights is not None
        weights = block.weights  # (sequences, heads, keys up to the query)
        masses.append((weights * on_key[:, None]).sum(-1))
        entropies.append(-(weights * weights.clamp_min(1e-30).log()).sum(-1))
        block.weights = None
    mass = torch.cat(masses, dim=1).amax(dim=1)
    entropy = torch.cat(entropies, dim=1).mean(dim=1)
    return mass, entropy


def evaluate_lengths(model: Decoder, settings: Settings, text: np.ndarray) -> list[dict[str, Any]]:
    return [evaluate(model, settings, n, text) for n in settings.lengths]


def evaluate_rules(
    model: Decoder, settings: Settings, text: np.ndarray, rules: tuple[str, ...], finetuned: bool
) -> dict[str, list[dict[str, Any]]]:
    """`rules` in both settings at every length: ``{"yarn@target": rows, ...}``.

    Dynamic NTK has no matched row (factor 1 at n tokens is static NTK for
    factor n / L) and no scaling none (it has no factor).
    """
    out: dict[str, list[dict[str, Any]]] = {}
    for key in rule_variants(finetuned):
        rule = variant_rule(key)
        if rule not in rules:
            continue
        setting = "matched" if "@matched" in key else "target"
        rows = []
        for n in settings.lengths:
            model.rotary = rotary_for(settings, rule, setting, n)
            rows.append(evaluate(model, settings, n, text))
        out[key] = rows
    return out


def run_method(settings: Settings, method: str, seed: int) -> dict[str, Any]:
    """Train one model with `method` and `seed`; evaluate it (and for RoPE, every rule)."""
    torch.set_num_threads(1)
    train_text, test_text = corpus()
    torch.manual_seed(seed)
    model = Decoder(settings, method)
    start, cpu = time.perf_counter(), time.process_time()
    history = train(
        model,
        settings,
        train_text,
        settings.train_length,
        settings.steps,
        settings.batch,
        settings.learning_rate,
        seed,
    )
    seconds = {"train": time.perf_counter() - start}
    result: dict[str, Any] = {"method": method, "seed": seed, "train_loss": history}
    if method != "rope":
        result["variants"] = {method: evaluate_lengths(model, settings, test_text)}
        if method == "learned" and seed == settings.seeds[0]:
            position = model.position
            assert isinstance(position, LearnedPositionalEmbedding)
            rows = position.weight.detach()[: 2 * settings.train_length]
            result["learned_rows"] = np.round(rows.numpy(), 4).tolist()
    else:
        trained = {key: value.clone() for key, value in model.state_dict().items()}
        start = time.perf_counter()
        variants = evaluate_rules(model, settings, test_text, RULES, finetuned=False)
        seconds["evaluate"] = time.perf_counter() - start
        longest = settings.lengths[-1]
        finetune_loss = {}
        start = time.perf_counter()
        for rule in RULES:
            model.load_state_dict(trained)
            model.rotary = rotary_for(settings, rule, "target", longest)
            finetune_loss[rule] = train(
                model,
                settings,
                train_text,
                longest,
                settings.finetune_steps,
                settings.finetune_batch,
                settings.finetune_learning_rate,
                seed + 1000,
            )
            variants.update(evaluate_rules(model, settings, test_text, (rule,), finetuned=True))
        seconds["finetune"] = time.perf_counter() - start
        result["variants"] = variants
        result["finetune_loss"] = finetune_loss
    seconds["cpu"] = time.process_time() - cpu
    result["seconds"] = {key: round(value, 1) for key, value in seconds.items()}
    return result


def summarise(runs: list[dict[str, Any]], lengths: list[int]) -> dict[str, Any]:
    """Per variant, length and number: the mean, lowest and highest seed, and every seed's value."""
    by_variant: dict[str, list[list[dict[str, Any]]]] = {}
    for run in runs:
        for name, rows in run["variants"].items():
            by_variant.setdefault(name, []).append(rows)
    summary: dict[str, Any] = {}
    for name, seeds in by_variant.items():
        summary[name] = []
        for index, length in enumerate(lengths):
            cell: dict[str, Any] = {"length": length}
            for key in seeds[0][index]:
                values = [rows[index][key] for rows in seeds]
                if key == "loss_by_band":
                    cell[key] = [_interval([v[b] for v in values]) for b in range(len(values[0]))]
                else:
                    cell[key] = _interval([v for v in values if v is not None])
            summary[name].append(cell)
    return summary


def _interval(values: list[float]) -> dict[str, Any] | None:
    if not values:
        return None
    return {
        "mean": round(float(np.mean(values)), 4),
        "low": min(values),
        "high": max(values),
        "values": values,
    }


def theory(settings: Settings) -> dict[str, Any]:
    """The RoPE pages' numbers for this model, from pe's own functions."""
    d, base, length = settings.head_dim, settings.base, settings.train_length
    longest = settings.lengths[-1]
    wavelengths = 2 * math.pi / pe.rope_frequencies(d, base=base).frequencies
    unseen = {}
    for rule in RULES:
        setting = "target"
        frequencies = np.asarray(rotary_for(settings, rule, setting, longest).frequencies, float)
        trained = pe.rope_frequencies(d, base=base).frequencies
        # a pair meets angles training never showed if it did not turn once in L positions
        # and its largest angle at the longest length exceeds its largest in training
        new = (trained * (length - 1) < 2 * math.pi) & (
            frequencies * (longest - 1) > trained * length + 1e-12
        )
        unseen[rule] = int(new.sum())
    return {
        "pairs": d // 2,
        "critical_dimension": pe.rope_critical_dimension(d, length, base),
        "pairs_turning_in_training": int((wavelengths <= length).sum()),
        "min_base_train": round(pe.rope_min_base(length, d), 1),
        "min_base_longest": round(pe.rope_min_base(longest, d), 1),
        "decay_bound": {
            str(r): round(float(v), 3)
            for r, v in zip(
                [0, length - 1, longest - 1],
                pe.rope_decay_bound(np.array([0, length - 1, longest - 1]), d, base),
                strict=True,
            )
        },
        "pairs_past_trained_arc_at_longest": unseen,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps: checks the pipeline")
    parser.add_argument("--output", type=Path, help="where to write the record")
    parser.add_argument("--seeds", type=int, nargs="+", help="override the seeds")
    parser.add_argument("--steps", type=int, help="override the training steps (pilots)")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else Settings()
    overrides: dict[str, Any] = {}
    if args.seeds:
        overrides["seeds"] = tuple(args.seeds)
    if args.steps:
        overrides["steps"] = args.steps
    settings = Settings(**{**asdict(settings), **overrides})
    started, load_at_start = time.perf_counter(), os.getloadavg()
    jobs = [(method, seed) for seed in settings.seeds for method in ("rope", *METHODS[:-1])]
    jobs = sorted(jobs, key=lambda job: job[0] != "rope")  # the long RoPE jobs first
    if settings.workers > 1:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(settings.workers, mp_context=context) as pool:
            runs = list(pool.map(run_method, [settings] * len(jobs), *zip(*jobs, strict=True)))
    else:
        runs = [run_method(settings, method, seed) for method, seed in jobs]
    for run in runs:
        print(f"{run['method']:10s} seed {run['seed']} seconds {run['seconds']}")
    wall = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the worker processes
    cpu = sum(u.ru_utime + u.ru_stime for u in (own, children))
    train_text, test_text = corpus()
    payload = {
        "settings": {**asdict(settings), "lengths": settings.lengths},
        "data": {
            "source": "pydoc_data.topics (CPython's help text)",
            "train_characters": int(train_text.size),
            "test_characters": int(test_text.size),
        },
        "methods": list(METHODS),
        "rules": list(RULES),
        "alibi_slopes": [float(s) for s in pe.alibi_slopes(settings.heads)],
        "theory": theory(settings),
        "interval": "lowest to highest seed",
        "runs": runs,
        "summary": summarise(runs, settings.lengths),
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "load_average_start": [round(value, 2) for value in load_at_start],
        "load_average": [round(value, 2) for value in os.getloadavg()],
        "quick": args.quick,
        **environment(1),
    }
    if args.output is None:
        path = write("trained", payload)
    else:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
        path = args.output
    print(f"wrote {path} in {wall:.0f} s wall, {cpu:.0f} s CPU")


if __name__ == "__main__":
    main()
