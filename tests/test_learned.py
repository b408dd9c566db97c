from typing import Any

import numpy as np
import pytest
import torch

from pe.nn import LearnedPositionalEmbedding


def test_adds_its_rows_and_learns_them() -> None:
    embed = LearnedPositionalEmbedding(max_len=10, d_model=4)
    x = torch.zeros(2, 6, 4)
    torch.testing.assert_close(embed(x)[1], embed.weight[:6])
    torch.testing.assert_close(embed(x, offset=3)[0], embed.weight[3:9])
    assert embed.weight.requires_grad
    embed(x).sum().backward()
    assert embed.weight.grad is not None
    assert embed.weight.grad[:6].abs().sum() > 0
    assert embed.weight.grad[6:].abs().sum() == 0  # untouched rows get no gradient


def test_beyond_max_len_is_a_clear_error() -> None:
    embed = LearnedPositionalEmbedding(max_len=8, d_model=4)
    with pytest.raises(ValueError, match=r"positions 0\.\.9 do not fit the 8 learned positions"):
        embed(torch.zeros(1, 10, 4))
    with pytest.raises(ValueError, match=r"positions 6\.\.8 do not fit"):
        embed(torch.zeros(1, 3, 4), offset=6)


def test_parameters_are_saved_and_follow_dtype_and_device() -> None:
    embed = LearnedPositionalEmbedding(max_len=8, d_model=4)
    assert list(embed.state_dict()) == ["weight"]
    assert embed.to(torch.float64).weight.dtype == torch.float64
    meta = LearnedPositionalEmbedding(max_len=8, d_model=4).to("meta")
    assert meta.weight.device.type == "meta"


def test_layouts_and_explicit_positions() -> None:
    embed = LearnedPositionalEmbedding(max_len=8, d_model=4, batch_first=False)
    x = torch.zeros(5, 3, 4)  # (seq, batch, d)
    out = embed(x)
    for b in range(3):
        torch.testing.assert_close(out[:, b], embed.weight[:5])
    batch_first = LearnedPositionalEmbedding(max_len=8, d_model=4)
    positions = torch.tensor([[0, 1, 2], [3, 3, 7]])
    torch.testing.assert_close(
        batch_first(torch.zeros(2, 3, 4), positions=positions), batch_first.weight[positions]
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"max_len": 0, "d_model": 4}, ValueError, "max_len must be an integer >= 1; got 0"),
        ({"max_len": 4.0, "d_model": 4}, TypeError, "max_len must be an integer"),
        ({"max_len": 4, "d_model": 3}, ValueError, "d_model"),
        ({"max_len": 4, "d_model": 4, "dropout": 1.5}, ValueError, "dropout"),
    ],
)
def test_constructor_errors(kwargs: dict[str, Any], error: type[Exception], pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        LearnedPositionalEmbedding(**kwargs)


def test_offset_with_positions_is_refused() -> None:
    embed = LearnedPositionalEmbedding(max_len=8, d_model=4)
    with pytest.raises(
        ValueError, match=r"give either offset or positions, not both; got offset=2"
    ):
        embed(torch.zeros(1, 3, 4), offset=2, positions=torch.tensor([0, 1, 2]))


def test_numpy_and_list_positions_are_accepted() -> None:
    embed = LearnedPositionalEmbedding(max_len=8, d_model=4)
    expected = embed.weight[torch.tensor([5, 0, 7])].unsqueeze(0)
    for positions in (np.array([5, 0, 7]), [5, 0, 7]):
        torch.testing.assert_close(embed(torch.zeros(1, 3, 4), positions=positions), expected)
    with pytest.raises(TypeError, match=r"positions must hold integers; got a floating-point"):
        embed(torch.zeros(1, 3, 4), positions=np.array([0.0, 1.0, 2.0]))
    with pytest.raises(TypeError, match=r"positions must be an integer tensor; got dtype"):
        embed(torch.zeros(1, 3, 4), positions=torch.zeros(3))


@pytest.mark.parametrize("shape", [(2,), (4,), (1, 3), (2, 2, 3), (3, 2)])
def test_positions_of_the_wrong_shape_are_refused(shape: tuple[int, ...]) -> None:
    embed = LearnedPositionalEmbedding(max_len=8, d_model=4)
    positions = torch.zeros(shape, dtype=torch.long)
    with pytest.raises(ValueError, match=r"positions must have shape \(3,\) or \(2, 3\)"):
        embed(torch.zeros(2, 3, 4), positions=positions)


def test_explicit_positions_out_of_range() -> None:
    embed = LearnedPositionalEmbedding(max_len=8, d_model=4)
    with pytest.raises(ValueError, match=r"positions must lie in \[0, 8\).*from -1 to 8"):
        embed(torch.zeros(1, 3, 4), positions=torch.tensor([-1, 0, 8]))


def test_four_dimensional_input_is_refused() -> None:
    embed = LearnedPositionalEmbedding(max_len=8, d_model=4)
    with pytest.raises(ValueError, match=r"x must have shape \(batch, seq, d_model\)"):
        embed(torch.zeros(2, 3, 5, 4))


@pytest.mark.parametrize(
    ("init_std", "error"),
    [
        (-0.1, ValueError),
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        ("0.02", TypeError),
        (None, TypeError),
        (True, TypeError),
    ],
)
def test_bad_init_std(init_std: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"init_std must be a finite real number >= 0; got"):
        LearnedPositionalEmbedding(max_len=4, d_model=4, init_std=init_std)


def test_init_std_sets_the_spread() -> None:
    torch.manual_seed(0)
    embed = LearnedPositionalEmbedding(max_len=512, d_model=64, init_std=0.5)
    assert abs(float(embed.weight.detach().std()) - 0.5) < 0.01
    assert float(LearnedPositionalEmbedding(4, 4, init_std=0).weight.detach().abs().max()) == 0.0


def test_reset_parameters_after_meta_and_to_empty() -> None:
    torch.manual_seed(0)
    with torch.device("meta"):
        module = LearnedPositionalEmbedding(max_len=512, d_model=64, init_std=0.5)
    module.to_empty(device="cpu")  # uninitialised memory
    module.reset_parameters()
    assert torch.isfinite(module.weight).all()
    assert 0.45 < float(module.weight.detach().std()) < 0.55
    assert abs(float(module.weight.detach().mean())) < 0.02


@pytest.mark.parametrize(("name", "value"), [("dropout", 10**400), ("init_std", 10**400)])
def test_integers_beyond_float64_are_named(name: str, value: Any) -> None:
    arguments: dict[str, Any] = {name: value}
    with pytest.raises(ValueError, match=f"{name} must be .*401 digits"):
        LearnedPositionalEmbedding(max_len=4, d_model=4, **arguments)
