"""Train a small RoPE decoder at a short length; evaluate each scaling rule up to 8 times longer.

Run with ``make rope-train`` (not part of ``make bench``: it takes about nine
minutes of CPU time, five on two idle cores, with the three seeds in three
processes of one thread each) to write ``benchmarks/results/rope_train.json``,
which the page "RoPE scaling rules on a trained model" and its figure read.
``python -m benchmarks.rope_train --quick --output PATH`` runs the same
pipeline with a few steps of a tinier model, for the tests: its numbers mean
nothing.

The data ships with Python: the text of ``pydoc_data.topics`` (the help pages
of the language reference, English prose with code), read as ASCII characters.
Its first nine tenths are for training, the rest for evaluation. Each training
sequence is that text with a *passkey* hidden in it, as in the passkey test of
Mohtashami & Jaggi (2023, arXiv:2305.16300) and Chen et al. (2023,
arXiv:2306.15595): a marker token and a few random digits at a
uniformly random depth, and the same marker again at the end, after which the
model must produce the digits. The loss is next-token cross-entropy on every
character plus the passkey's digits weighted again, so one model learns both
the language-modelling task and the retrieval.

After training at ``Settings.train_length`` the model is evaluated at 1, 2, 4 and 8 times
that length with each rule of `pe.rope_frequencies` configured, as a model's
``config.json`` would be, for the longest target (factor 8): no scaling,
position interpolation (``linear``), static NTK-aware (`pe.ntk_aware_base`),
dynamic NTK (its base grown for each evaluated length), YaRN and llama3.
Position interpolation and YaRN are also fine-tuned for a few steps at the
longest length, as their papers do (PI: Chen et al. 2023, "within 1000 steps";
YaRN: Peng et al. 2023, arXiv:2309.00071, 400 steps at s = 16), and
so is the unscaled model, as the control that tells the rule's share from the
fine-tuning's. For each the record holds the passkey accuracy (all digits
right), the loss on held-out text, and where the answering query looks: the
attention weight it puts on the passkey and the entropy of its attention,
split by whether the passkey lies within the trained distance or beyond it.
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
from pe.nn import RotaryEmbedding

MARKER = 1  # the passkey marker: ASCII SOH, which the text never holds
DIGITS = tuple(range(ord("0"), ord("9") + 1))
VOCAB = 128  # ASCII; any other character is read as "?"


@dataclass(frozen=True)
class Settings:
    """Sizes of one run (the full run, or the tests' quick one)."""

    train_length: int = 64
    scale: int = 8  # the longest evaluation length over the training length
    layers: int = 2
    d_model: int = 64
    heads: int = 4
    base: float = 10000.0
    passkey_digits: int = 4
    steps: int = 1500
    batch: int = 32
    learning_rate: float = 3e-3
    answer_weight: float = 4.0  # extra weight of the passkey's digits in the loss
    finetune_steps: int = 80
    finetune_batch: int = 8
    finetune_learning_rate: float = 1e-3
    eval_passkeys: int = 96
    eval_text_tokens: int = 8192  # held-out characters scored at each length
    seeds: tuple[int, ...] = (0, 1, 2)
    workers: int = 3  # seeds trained at once, in separate processes of one thread each

    @property
    def head_dim(self) -> int:
        return self.d_model // self.heads

    @property
    def lengths(self) -> list[int]:
        return [self.train_length * 2**k for k in range(int(math.log2(self.scale)) + 1)]


QUICK = Settings(
    train_length=16,
    scale=4,
    layers=1,
    d_model=16,
    heads=2,
    steps=3,
    batch=4,
    finetune_steps=2,
    finetune_batch=2,
    eval_passkeys=4,
    eval_text_tokens=128,
    seeds=(0,),
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
    text: np.ndarray, count: int, length: int, digits: int, rng: np.random.Generator
) -> tuple[Tensor, Tensor]:
    """`count` sequences of ``length + 1`` tokens with a passkey; and each passkey's start.

    A sequence is filler text (digits in it replaced by ``#``, so that the
    passkey's are the only ones) with ``MARKER d1 .. dk`` at a uniformly random
    depth and ``MARKER d1 .. dk`` again at its very end.
    """
    block = digits + 1
    tokens = np.empty((count, length + 1), dtype=np.int64)
    starts = np.empty(count, dtype=np.int64)
    filler_length = length + 1 - 2 * block
    for row in range(count):
        origin = int(rng.integers(0, text.size - filler_length))
        filler = text[origin : origin + filler_length].copy()
        filler[(filler >= DIGITS[0]) & (filler <= DIGITS[-1])] = ord("#")
        key = np.array([MARKER, *rng.choice(DIGITS, size=digits)], dtype=np.int64)
        start = int(rng.integers(0, filler_length + 1))
        tokens[row] = np.concatenate((filler[:start], key, filler[start:], key))
        starts[row] = start
    return torch.from_numpy(tokens), torch.from_numpy(starts)


def text_windows(text: np.ndarray, length: int, total: int) -> Tensor:
    """Consecutive windows of ``length + 1`` held-out characters, about `total` in all."""
    count = max(1, min(total // length, (text.size - 1) // length))
    rows = [text[i * length : i * length + length + 1] for i in range(count)]
    return torch.from_numpy(np.stack(rows))


class Block(nn.Module):
    """One pre-norm decoder layer; rotary from its model; keeps attention maps when asked."""

    def __init__(self, d_model: int, heads: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, d_model // heads
        self.attention_norm = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.mlp_norm = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(
            nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model)
        )
        self.weights: Tensor | None = None  # (batch, heads, probe + 1): one query's attention

    def forward(self, x: Tensor, rotary: RotaryEmbedding, probe: int | None) -> Tensor:
        batch, seq, d_model = x.shape
        qkv = self.qkv(self.attention_norm(x)).view(batch, seq, 3, self.heads, self.head_dim)
        q, k, v = (t.transpose(1, 2) for t in qkv.unbind(dim=2))  # (batch, heads, seq, dim)
        q, k = rotary(q, k)  # the scaling rule acts here, and only here
        mixed = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        if probe is not None:  # the weights of the query at `probe` on the keys up to it
            scores = q[:, :, probe, None] @ k[:, :, : probe + 1].transpose(-1, -2)
            self.weights = (scores[:, :, 0] / math.sqrt(self.head_dim)).softmax(dim=-1)
        x = x + self.out(mixed.transpose(1, 2).reshape(batch, seq, d_model))
        out: Tensor = x + self.mlp(self.mlp_norm(x))
        return out


class Decoder(nn.Module):
    """Character embeddings, RoPE decoder layers, a next-character head; no absolute encoding."""

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, settings.d_model)
        self.blocks = nn.ModuleList(
            Block(settings.d_model, settings.heads) for _ in range(settings.layers)
        )
        self.norm = nn.LayerNorm(settings.d_model)
        self.head = nn.Linear(settings.d_model, VOCAB)
        self.rotary = RotaryEmbedding(settings.head_dim, base=settings.base)

    def forward(self, ids: Tensor, probe: int | None = None) -> Tensor:
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x, self.rotary, probe)
        logits: Tensor = self.head(self.norm(x))
        return logits


def rules(settings: Settings) -> dict[str, dict[str, Any]]:
    """Each rule as RotaryEmbedding's arguments, set for the longest length (factor `scale`)."""
    length, factor = settings.train_length, float(settings.scale)
    return {
        "none": {},
        "linear": {"scaling": {"rope_type": "linear", "factor": factor}},
        "ntk": {"base": pe.ntk_aware_base(settings.base, factor, settings.head_dim)},
        # dynamic grows the base with the length served (seq_len, set per evaluation);
        # factor 1: at n tokens the base is the static NTK-aware one for factor n / L.
        "dynamic": {
            "scaling": {"rope_type": "dynamic", "factor": 1.0},
            "max_position_embeddings": length,
        },
        "yarn": {
            "scaling": {
                "rope_type": "yarn",
                "factor": factor,
                "original_max_position_embeddings": length,
            }
        },
        "llama3": {
            "scaling": {
                "rope_type": "llama3",
                "factor": factor,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": length,
            }
        },
    }


def rotary_for(settings: Settings, arguments: dict[str, Any], seq_len: int) -> RotaryEmbedding:
    kwargs = dict(arguments)
    kwargs.setdefault("base", settings.base)
    if kwargs.get("scaling", {}).get("rope_type") == "dynamic":
        kwargs["seq_len"] = seq_len
    return RotaryEmbedding(settings.head_dim, **kwargs)


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


def evaluate(
    model: Decoder,
    settings: Settings,
    rotary: RotaryEmbedding,
    length: int,
    text: np.ndarray,
    head: tuple[int, int],
) -> dict[str, Any]:
    """Passkey accuracy, held-out loss and the retrieval `head`'s attention at `length`.

    `head` is (layer, head) of the head that reads the passkey (`retrieval_head`).
    Its attention is measured for the query at the final marker, the one that
    must predict the first digit: the weight it puts on the hidden marker and
    digits, and the entropy of its weights (nats; ``ln(keys)`` if uniform).
    """
    digits, train_length = settings.passkey_digits, settings.train_length
    model.rotary = rotary
    rng = np.random.default_rng(10_000 + length)  # the same passkeys for every rule and seed
    tokens, starts = passkeys(text, settings.eval_passkeys, length, digits, rng)
    query = length - digits - 1  # input position of the final marker: it predicts d1
    with torch.no_grad():
        logits = model(tokens[:, :-1], probe=query)
        answers = logits[:, -digits:].argmax(-1)
        correct = (answers == tokens[:, -digits:]).all(dim=-1)
        distance = query - starts  # from the query back to the hidden marker
        far = distance > train_length - 1  # beyond every distance seen in training
        mass, entropy = passkey_attention(model, starts, query, digits)
        mass, entropy = mass[:, head[0], head[1]], entropy[:, head[0], head[1]]
        text_loss = losses(model, text_windows(text, length, settings.eval_text_tokens))

    def split(values: Tensor, where: Tensor) -> float | None:
        return round(float(values[where].float().mean()), 4) if bool(where.any()) else None

    beyond = text_loss[:, train_length:]
    return {
        "length": length,
        "passkey_accuracy": round(float(correct.float().mean()), 4),
        "passkey_accuracy_near": split(correct, ~far),
        "passkey_accuracy_far": split(correct, far),
        "loss": round(float(text_loss.mean()), 4),
        "loss_beyond_training": round(float(beyond.mean()), 4) if beyond.numel() else None,
        "attention_on_passkey_near": split(mass, ~far),
        "attention_on_passkey_far": split(mass, far),
        "attention_entropy_near": split(entropy, ~far),
        "attention_entropy_far": split(entropy, far),
    }


def passkey_attention(
    model: Decoder, starts: Tensor, query: int, digits: int
) -> tuple[Tensor, Tensor]:
    """Per sequence, layer and head: weight on the hidden passkey, and entropy (nats)."""
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
    return torch.stack(masses, dim=1), torch.stack(entropies, dim=1)  # (sequences, layers, heads)


def retrieval_head(model: Decoder, settings: Settings, text: np.ndarray) -> tuple[int, int]:
    """The (layer, head) that puts the most weight on the passkey at the trained length."""
    length, digits = settings.train_length, settings.passkey_digits
    model.rotary = RotaryEmbedding(settings.head_dim, base=settings.base)
    tokens, starts = passkeys(
        text, settings.eval_passkeys, length, digits, np.random.default_rng(length)
    )
    query = length - digits - 1
    with torch.no_grad():
        model(tokens[:, :-1], probe=query)
        mass, _ = passkey_attention(model, starts, query, digits)
    best = int(mass.mean(dim=0).argmax())
    return best // settings.heads, best % settings.heads


def run_seed(
    settings: Settings, seed: int, train_text: np.ndarray, test_text: np.ndarray
) -> dict[str, Any]:
    """Train one model with `seed`; evaluate every rule zero-shot and the fine-tuned ones."""
    torch.manual_seed(seed)
    model = Decoder(settings)
    start = time.perf_counter()
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
    trained = {key: value.clone() for key, value in model.state_dict().items()}
    head = retrieval_head(model, settings, train_text)
    lengths = settings.lengths
    variants: dict[str, list[dict[str, Any]]] = {}
    start = time.perf_counter()
    for name, arguments in rules(settings).items():
        variants[name] = [
            evaluate(model, settings, rotary_for(settings, arguments, n), n, test_text, head)
            for n in lengths
        ]
    seconds["evaluate"] = time.perf_counter() - start
    longest = lengths[-1]
    finetune_history = {}
    start = time.perf_counter()
    for name in ("none", "linear", "yarn"):
        model.load_state_dict(trained)
        arguments = rules(settings)[name]
        model.rotary = rotary_for(settings, arguments, longest)
        finetune_history[name] = train(
            model,
            settings,
            train_text,
            longest,
            settings.finetune_steps,
            settings.finetune_batch,
            settings.finetune_learning_rate,
            seed + 1000,
        )
        variants[f"{name}+finetune"] = [
            evaluate(model, settings, rotary_for(settings, arguments, n), n, test_text, head)
            for n in lengths
        ]
    seconds["finetune"] = time.perf_counter() - start
    return {
        "seed": seed,
        "retrieval_head": {"layer": head[0], "head": head[1]},
        "train_loss": history,
        "finetune_loss": finetune_history,
        "seconds": {key: round(value, 2) for key, value in seconds.items()},
        "variants": variants,
    }


def seed_job(settings: Settings, seed: int) -> dict[str, Any]:
    """Run one seed in a worker process: one thread (two would spin-wait on a busy machine)."""
    torch.set_num_threads(1)
    train_text, test_text = corpus()
    return run_seed(settings, seed, train_text, test_text)


def summarise(seeds: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Mean, minimum and maximum over seeds of each number, per variant and length."""
    summary: dict[str, list[dict[str, Any]]] = {}
    for name, rows in seeds[0]["variants"].items():
        summary[name] = []
        for index, row in enumerate(rows):
            cell: dict[str, Any] = {"length": row["length"]}
            for key in row:
                if key == "length":
                    continue
                values = [s["variants"][name][index][key] for s in seeds]
                values = [v for v in values if v is not None]
                cell[key] = (
                    {
                        "mean": round(float(np.mean(values)), 4),
                        "min": min(values),
                        "max": max(values),
                    }
                    if values
                    else None
                )
            summary[name].append(cell)
    return summary


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps: checks the pipeline")
    parser.add_argument("--output", type=Path, help="where to write the record")
    parser.add_argument("--seeds", type=int, nargs="+", help="override the seeds")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else Settings()
    if args.seeds:
        settings = Settings(**{**asdict(settings), "seeds": tuple(args.seeds)})
    started = time.perf_counter()
    if settings.workers > 1 and len(settings.seeds) > 1:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(settings.workers, mp_context=context) as pool:
            seeds = list(pool.map(seed_job, [settings] * len(settings.seeds), settings.seeds))
    else:
        seeds = [seed_job(settings, seed) for seed in settings.seeds]
    for result in seeds:
        for name, rows in result["variants"].items():
            cells = "  ".join(
                f"{r['length']}: {r['passkey_accuracy']:.2f} / {r['loss']:.2f}" for r in rows
            )
            print(f"seed {result['seed']} {name:16s} accuracy / loss  {cells}")
        print(f"seed {result['seed']} seconds {result['seconds']}")
    train_text, test_text = corpus()
    wall = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the worker processes
    cpu = sum(u.ru_utime + u.ru_stime for u in (own, children))
    payload = {
        "settings": {
            **asdict(settings),
            "head_dim": settings.head_dim,
            "lengths": settings.lengths,
        },
        "data": {
            "source": "pydoc_data.topics (CPython's help text)",
            "train_characters": int(train_text.size),
            "test_characters": int(test_text.size),
        },
        "rules": rules(settings),
        "seeds": seeds,
        "summary": summarise(seeds),
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "load_average": [round(value, 2) for value in os.getloadavg()],
        "quick": args.quick,
        **environment(1),
    }
    if args.output is None:
        path = write("rope_train", payload)
    else:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
        path = args.output
    print(f"wrote {path} in {wall:.0f} s wall, {cpu:.0f} s CPU")


if __name__ == "__main__":
    main()
