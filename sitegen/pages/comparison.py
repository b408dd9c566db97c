"""The comparison page (beyond/comparison.md): parameters and the extrapolation run."""

from __future__ import annotations

from sitegen.cache import cached_markdown
from sitegen.markdown import table
from sitegen.results import provenance as _provenance
from sitegen.results import result as _result


@cached_markdown
def method_parameters(d_model: int = 512, heads: int = 8, max_len: int = 2048) -> str:
    """Learned parameters each method adds, counted on the real modules."""
    import torch.nn as tnn

    import pe.nn

    modules: list[tuple[str, tnn.Module, str]] = [
        ("sinusoidal", pe.nn.SinusoidalPositionalEncoding(d_model, max_len=max_len), "input"),
        ("learned", pe.nn.LearnedPositionalEmbedding(max_len, d_model), "input"),
        ("T5 relative bias", pe.nn.RelativePositionBias(heads), "attention scores"),
        (
            "clipped relative bias",
            pe.nn.RelativePositionBias(heads, kind="clipped"),
            "attention scores",
        ),
        ("RoPE", pe.nn.RotaryEmbedding(d_model // heads), "queries and keys"),
        ("ALiBi", pe.nn.ALiBi(heads), "attention scores"),
    ]
    rows = []
    for name, module, where in modules:
        count = sum(parameter.numel() for parameter in module.parameters())
        buffers = sum(buffer.numel() for buffer in module.buffers())
        rows.append([name, where, f"{count:,}", f"{buffers:,}"])
    headers = ["method", "where position enters", "learned parameters", "fixed buffer values"]
    note = (
        f"\n\nCounted on the `pe.nn` modules for d_model = {d_model}, {heads} heads and "
        f"max_len = {max_len:,} (the table's length, for sinusoidal and learned), per "
        "layer that holds one; T5 keeps a single bias table and shares it across its layers."
    )
    return table(headers, rows, align="llrr") + note


def extrapolation_results() -> str:
    """Tabulate the committed extrapolation run: loss by evaluation length per method."""
    data = _result("extrapolation")
    lengths = data["eval_lengths"]
    train = data["training"]["length"]
    best = data["task"]["entropy_rate"]
    rows = []
    for result in data["results"]:
        losses = {row["length"]: row["loss"] for row in result["eval"]}
        cells: list[object] = [f"`{result['method']}`"]
        cells += [f"{losses[length]:.3f}" for length in lengths]
        cells.append(f"{losses[lengths[-1]] - losses[train]:+.3f}")
        rows.append(cells)
    headers = (
        ["method"]
        + [f"{length}{' (trained)' if length == train else ''}" for length in lengths]
        + [f"change {train} → {lengths[-1]}"]
    )
    task, training, model = data["task"], data["training"], data["model"]
    threads = data["machine"]["threads_used"]
    note = (
        f"\n\nNext-token loss in nats (lower is better); the best possible is the chain's "
        f"entropy rate, {best:.3f}. Task: an order-{task['order']} Markov chain over "
        f"{task['vocab']} tokens (Dirichlet({task['concentration']}) transition rows). Model: "
        f"`examples/tiny_decoder.py`, {model['layers']} layer, {model['heads']} heads, "
        f"d_model = {model['d_model']}. Training: {training['steps']} steps of "
        f"{training['batch']} sequences of {train} tokens, {training['optimiser']} at "
        f"{training['learning_rate']}, the same data and seed for every method; evaluated on "
        f"{data['eval_sequences']} fresh sequences per length. Run by "
        f"{_provenance('extrapolation')} on {data['date']} ({data['machine']['cpu']}, "
        f"{threads} thread{'' if threads == 1 else 's'}, "
        f"torch {data['versions']['torch']}) in {data['total_seconds']:.0f} s."
    )
    return table(headers, rows, align="l" + "r" * (len(lengths) + 1)) + note


def extrapolation_summary() -> str:
    """Sentences read off the committed extrapolation run (so they follow the data)."""
    data = _result("extrapolation")
    train = data["training"]["length"]
    longest = data["eval_lengths"][-1]
    best = data["task"]["entropy_rate"]
    at_train = {r["method"]: r["eval"][0]["loss"] for r in data["results"]}
    at_long = {r["method"]: r["eval"][-1]["loss"] for r in data["results"]}
    methods = [m for m in at_train if m != "none"]  # "none" is the no-position baseline
    fit = sorted(methods, key=at_train.__getitem__)
    steady = sorted(methods, key=lambda m: at_long[m] - at_train[m])
    lowest_long = min(methods, key=at_long.__getitem__)
    lines = [
        f"- At the training length ({train} tokens), `{fit[0]}` comes closest to the best "
        f"possible loss ({at_train[fit[0]]:.3f} against {best:.3f}); `{fit[-1]}` is furthest "
        f"({at_train[fit[-1]]:.3f}).",
        f"- From {train} to {longest} tokens, the loss of `{steady[0]}` changes least "
        f"({at_long[steady[0]] - at_train[steady[0]]:+.3f}) and that of `{steady[-1]}` most "
        f"({at_long[steady[-1]] - at_train[steady[-1]]:+.3f}).",
        f"- At {longest} tokens the lowest loss is `{lowest_long}`'s ({at_long[lowest_long]:.3f}).",
    ]
    if "none" in at_train:
        layers = data["model"]["layers"]
        lines.append(
            f"- Without any position information (`none`) the loss stays between "
            f"{at_train['none']:.3f} and {at_long['none']:.3f} at every length, "
            f"{at_train['none'] - best:.3f} above the best possible even where the others "
            "were trained."
            + (
                f" This measures a {layers}-layer model, not NoPE in general. In one layer "
                "the causal mask can tell a token how many tokens it sees (a position, "
                "roughly), but nothing can carry that into the queries and keys of a later "
                "layer to pick out the token one step back, which is what this task needs; "
                "deeper NoPE language models do learn order (see the causal-mask check "
                "under *Why position matters*)."
                if layers == 1
                else ""
            )
        )
    return "\n".join(lines)
