"""Train the same tiny model with each position method; evaluate past the training length.

Run with ``make extrapolation`` (part of ``make bench``); takes two to three minutes
on one CPU core and writes ``benchmarks/results/extrapolation.json``, which the
comparison page and its figure read.

The task is next-token prediction on sequences from a fixed random order-2
Markov chain: the best possible prediction of a token needs the two tokens
before it, so a model must learn to look one position back, and nothing about
the task changes with the length. Every model (examples/tiny_decoder.py: one
layer, four heads, d_model = 32) is trained on sequences of TRAIN_LENGTH tokens
with the same data, seed and steps, then evaluated on longer sequences. The
loss is compared with the chain's entropy rate, the best any model can do.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch

import pe
import pe.nn
from benchmarks._common import environment, write
from examples.tiny_decoder import METHODS, TinyTransformer

THREADS = 1  # one thread: on a busy machine two threads spin-wait on each other
VOCAB = 8
CONCENTRATION = 0.3  # Dirichlet parameter of the transition rows: peaked, learnable
TRAIN_LENGTH = 64
# Four heads, so that ALiBi gets its paper's slope rule 2^(-8h/H) with a steep head
# (slopes 1/4, 1/16, 1/64, 1/256): with two heads its slopes would be 1/16 and 1/256,
# nearly flat over the 64 training tokens, and its loss would measure that, not the method.
HEADS = 4
EVAL_LENGTHS = (64, 128, 256, 512, 1024)
STEPS = 800
BATCH = 32
LEARNING_RATE = 1e-2
EVAL_SEQUENCES = 16
SAVED_ROWS = 128  # learned-table rows kept for the learned-embedding figure


def transition_table(seed: int = 0) -> np.ndarray:
    """P[a, b, c] = probability of token c after the pair (a, b)."""
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.full(VOCAB, CONCENTRATION), size=(VOCAB, VOCAB))


def entropy_rate(table: np.ndarray) -> float:
    """Exact entropy rate of the chain, from the stationary distribution of its pairs."""
    states = VOCAB * VOCAB
    move = np.zeros((states, states))
    for a in range(VOCAB):
        for b in range(VOCAB):
            for c in range(VOCAB):
                move[a * VOCAB + b, b * VOCAB + c] = table[a, b, c]
    stationary = np.full(states, 1.0 / states)
    for _ in range(10_000):
        stationary = stationary @ move
    row_entropy = -(table * np.log(table)).sum(axis=-1).reshape(states)
    return float(stationary @ row_entropy)


def sample(table: np.ndarray, count: int, length: int, rng: np.random.Generator) -> torch.Tensor:
    """`count` sequences of `length` tokens from the chain."""
    tokens = np.empty((count, length), dtype=np.int64)
    tokens[:, :2] = rng.integers(0, VOCAB, size=(count, 2))
    cumulative = table.cumsum(axis=-1)
    draws = rng.random((count, length))
    for t in range(2, length):
        rows = cumulative[tokens[:, t - 2], tokens[:, t - 1]]
        tokens[:, t] = np.minimum((draws[:, t, None] > rows).sum(axis=-1), VOCAB - 1)
    return torch.from_numpy(tokens)


def losses(model: torch.nn.Module, tokens: torch.Tensor) -> torch.Tensor:
    """Next-token cross-entropy at every position, shape (sequences, length - 1)."""
    logits = model(tokens[:, :-1])
    flat = torch.nn.functional.cross_entropy(
        logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1), reduction="none"
    )
    return flat.view(tokens.shape[0], -1)


def run(method: str, table: np.ndarray, train_data: torch.Tensor) -> dict[str, Any]:
    torch.manual_seed(0)
    model = TinyTransformer(VOCAB, method, heads=HEADS, max_len=max(EVAL_LENGTHS))
    optimiser = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    start = time.perf_counter()
    for step in range(STEPS):
        batch = train_data[step * BATCH : (step + 1) * BATCH]
        loss = losses(model, batch).mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    seconds = time.perf_counter() - start
    model.eval()
    evaluation = []
    with torch.no_grad():
        for length in EVAL_LENGTHS:
            tokens = sample(table, EVAL_SEQUENCES, length + 1, np.random.default_rng(length))
            per_position = losses(model, tokens)[:, 2:]  # the first two tokens have no context
            beyond = per_position[:, TRAIN_LENGTH - 2 :]
            evaluation.append(
                {
                    "length": length,
                    "loss": float(per_position.mean()),
                    "loss_beyond_training": float(beyond.mean()) if length > TRAIN_LENGTH else None,
                }
            )
    result: dict[str, Any] = {"method": method, "train_seconds": seconds, "eval": evaluation}
    if method == "learned":
        position = model.embed.position
        assert isinstance(position, pe.nn.LearnedPositionalEmbedding)
        weight = position.weight.detach()[:SAVED_ROWS]
        result["learned_rows"] = np.round(weight.numpy(), 4).tolist()
    return result


def main() -> None:
    torch.set_num_threads(THREADS)
    started = time.perf_counter()
    table = transition_table()
    best = entropy_rate(table)
    train_data = sample(table, STEPS * BATCH, TRAIN_LENGTH + 1, np.random.default_rng(1))
    alibi_slopes = [float(slope) for slope in pe.alibi_slopes(HEADS)]
    results = []
    for method in METHODS:
        result = run(method, table, train_data)
        results.append(result)
        cells = "  ".join(f"{row['length']}: {row['loss']:.3f}" for row in result["eval"])
        print(f"{method:11s} trained in {result['train_seconds']:4.1f} s   loss by length  {cells}")
    print(f"entropy rate (the best possible loss): {best:.3f}")
    payload = {
        "task": {
            "vocab": VOCAB,
            "order": 2,
            "concentration": CONCENTRATION,
            "entropy_rate": best,
        },
        "model": {"d_model": 32, "heads": HEADS, "layers": 1, "alibi_slopes": alibi_slopes},
        "training": {
            "length": TRAIN_LENGTH,
            "steps": STEPS,
            "batch": BATCH,
            "learning_rate": LEARNING_RATE,
            "optimiser": "Adam",
        },
        "eval_lengths": list(EVAL_LENGTHS),
        "eval_sequences": EVAL_SEQUENCES,
        "results": results,
        "total_seconds": time.perf_counter() - started,
        **environment(THREADS),
    }
    print(
        f"wrote benchmarks/results/{write('extrapolation', payload).name} "
        f"in {payload['total_seconds']:.0f} s"
    )


if __name__ == "__main__":
    main()
