"""Every pe.nn module except RotaryEmbedding under torch.compile(fullgraph=True) and torch.export.

The compiled and exported modules must give the eager module's output bit for
bit (the exact table runs as one custom op inside the graph), and the checks
that need values (positions out of range) still fail, as graph assertions.
"""

from collections.abc import Callable

import numpy as np
import pytest
import torch
from reference import float64_table

from pe._table import FLOAT32_BOUND
from pe.nn import (
    ALiBi,
    GridSinCosEmbedding,
    LearnedPositionalEmbedding,
    RelativePositionBias,
    SinusoidalPositionalEncoding,
    SinusoidalTimestepEmbedding,
)
from pe.nn.functional import sinusoidal


class AddBias(torch.nn.Module):
    """Scores plus a (heads, q, k) bias module: how attention calls ALiBi and T5's bias."""

    def __init__(self, bias: torch.nn.Module) -> None:
        super().__init__()
        self.bias: Callable[[int, int], torch.Tensor] = bias

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return scores + self.bias(scores.shape[-2], scores.shape[-1])


def _modules() -> dict[str, tuple[torch.nn.Module, torch.Tensor]]:
    torch.manual_seed(0)
    x = torch.randn(2, 5, 8)
    scores = torch.randn(1, 4, 5, 7)
    return {
        "sinusoidal table": (SinusoidalPositionalEncoding(8, max_len=32), x),
        "sinusoidal max_len=None": (SinusoidalPositionalEncoding(8, max_len=None), x),
        "learned": (LearnedPositionalEmbedding(32, 8), x),
        "relative bias": (AddBias(RelativePositionBias(4)), scores),
        "alibi": (AddBias(ALiBi(4)), scores),
        "timesteps": (
            SinusoidalTimestepEmbedding.from_preset("stable-diffusion-1"),
            torch.tensor([0.0, 17.5, 999.0]),
        ),
        "grid sin-cos": (GridSinCosEmbedding((2, 2), 8, class_token=True), x),
    }


NAMES = list(_modules())


@pytest.mark.parametrize("name", NAMES)
def test_compile_fullgraph_matches_eager(name: str) -> None:
    module, example = _modules()[name]
    torch._dynamo.reset()
    compiled = torch.compile(module, fullgraph=True, backend="eager")
    assert torch.equal(compiled(example), module(example))


@pytest.mark.parametrize("name", NAMES)
def test_export_matches_eager(name: str) -> None:
    module, example = _modules()[name]
    exported = torch.export.export(module, (example,)).module()
    assert torch.equal(exported(example), module(example))


def test_on_the_fly_rows_under_compile_are_the_exact_table() -> None:
    module = SinusoidalPositionalEncoding(16, max_len=None)
    torch._dynamo.reset()
    compiled = torch.compile(module, fullgraph=True, backend="eager")
    got = compiled(torch.zeros(1, 6, 16), offset=2**24)
    expected = float64_table(np.arange(2**24, 2**24 + 6), 16)
    assert np.abs(got[0].double().numpy() - expected).max() <= FLOAT32_BOUND


@pytest.mark.parametrize(
    "module", [SinusoidalPositionalEncoding(8, 16), LearnedPositionalEmbedding(16, 8)]
)
def test_explicit_positions_under_compile_are_checked(module: torch.nn.Module) -> None:
    torch._dynamo.reset()
    compiled = torch.compile(module, fullgraph=True, backend="eager")
    x = torch.zeros(2, 3, 8)
    positions = torch.tensor([[0, 1, 2], [5, 9, 15]])
    assert torch.equal(compiled(x, positions=positions), module(x, positions=positions))
    with pytest.raises(RuntimeError, match=r"positions must lie in \[0, 16\)"):
        compiled(x, positions=positions + 1)


def test_torch_sinusoidal_of_a_position_tensor_compiles() -> None:
    # what a rotary module calls: the exact table for traced positions, as one op
    def table(positions: torch.Tensor) -> torch.Tensor:
        return sinusoidal(positions, 16, dtype=torch.float64)

    torch._dynamo.reset()
    compiled = torch.compile(table, fullgraph=True, backend="eager")
    positions = torch.tensor([[0, 5, 2**20], [-3, 7, 9]])
    assert torch.equal(compiled(positions), table(positions))
    np.testing.assert_allclose(
        compiled(positions).numpy(), float64_table(positions.numpy(), 16), atol=1e-12, rtol=0
    )


def _dynamic_shapes(name: str) -> dict[str, dict[int, torch.export.Dim]]:
    # a sequence length the exported graph must accept at any value in range
    seq = torch.export.Dim("seq", min=2, max=32)
    return {"x": {1: seq}} if name.startswith(("sinusoidal", "learned")) else {"scores": {2: seq}}


SEQUENCE_MODULES = [
    "sinusoidal table",
    "sinusoidal max_len=None",
    "learned",
    "relative bias",
    "alibi",
]


@pytest.mark.parametrize("name", SEQUENCE_MODULES)
def test_non_strict_export_with_a_dynamic_sequence_length(name: str) -> None:
    # The lengths are torch.SymInt while tracing: the checks that read them
    # refused a SymInt as "not an integer" (sinusoidal, ALiBi, relative bias).
    module, example = _modules()[name]
    exported = torch.export.export(
        module, (example,), dynamic_shapes=_dynamic_shapes(name), strict=False
    ).module()
    for length in (3, 5, 17):
        shape = list(example.shape)
        shape[1 if example.dim() == 3 else 2] = length
        other = torch.randn(shape)
        assert torch.equal(exported(other), module(other)), length


def test_dynamic_compile_of_the_table_function() -> None:
    # With dynamic=True, lengths, widths and bases become symbols after a second call.
    torch._dynamo.reset()
    compiled = torch.compile(sinusoidal, dynamic=True, backend="eager")
    for length in (5, 6, 9):
        assert torch.equal(compiled(length, 8), sinusoidal(length, 8))
    for base in (500.0, 600.0, 10000.0):
        positions = torch.arange(-3, 4)
        assert torch.equal(compiled(positions, 8, base=base), sinusoidal(positions, 8, base=base))
    for d_model in (8, 10, 12):
        positions = torch.arange(3)
        assert torch.equal(compiled(positions, d_model), sinusoidal(positions, d_model))


def test_timesteps_under_compile_are_checked() -> None:
    module = SinusoidalTimestepEmbedding(16)
    torch._dynamo.reset()
    compiled = torch.compile(module, fullgraph=True, backend="eager")
    assert torch.equal(compiled(torch.tensor([3.0])), module(torch.tensor([3.0])))
    with pytest.raises(RuntimeError, match="timesteps must be finite"):
        compiled(torch.tensor([float("nan")]))
