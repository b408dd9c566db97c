import pytest
import torch

from pe.nn import LearnedPositionalEmbedding


def test_adds_its_rows_and_learns_them():
    embed = LearnedPositionalEmbedding(max_len=10, d_model=4)
    x = torch.zeros(2, 6, 4)
    torch.testing.assert_close(embed(x)[1], embed.weight[:6])
    torch.testing.assert_close(embed(x, offset=3)[0], embed.weight[3:9])
    assert embed.weight.requires_grad
    embed(x).sum().backward()
    assert embed.weight.grad[:6].abs().sum() > 0
    assert embed.weight.grad[6:].abs().sum() == 0  # untouched rows get no gradient


def test_beyond_max_len_is_a_clear_error():
    embed = LearnedPositionalEmbedding(max_len=8, d_model=4)
    with pytest.raises(ValueError, match=r"positions 0\.\.9 do not fit the 8 learned positions"):
        embed(torch.zeros(1, 10, 4))
    with pytest.raises(ValueError, match=r"positions 6\.\.8 do not fit"):
        embed(torch.zeros(1, 3, 4), offset=6)


def test_parameters_are_saved_and_follow_dtype_and_device():
    embed = LearnedPositionalEmbedding(max_len=8, d_model=4)
    assert list(embed.state_dict()) == ["weight"]
    assert embed.to(torch.float64).weight.dtype == torch.float64
    meta = LearnedPositionalEmbedding(max_len=8, d_model=4).to("meta")
    assert meta.weight.device.type == "meta"


def test_layouts_and_explicit_positions():
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
def test_constructor_errors(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        LearnedPositionalEmbedding(**kwargs)
