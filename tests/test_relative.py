from typing import Any

import pytest
import torch

from pe.nn import RelativePositionBias
from pe.nn.functional import relative_position_bucket


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(("num_buckets", "max_distance"), [(32, 128), (8, 20), (64, 512)])
def test_buckets_match_t5_in_transformers(
    bidirectional: bool, num_buckets: int, max_distance: int
) -> None:
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    offsets = torch.arange(-1500, 1500)
    ours = relative_position_bucket(
        offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    theirs = t5.T5Attention._relative_position_bucket(
        offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    assert torch.equal(ours, theirs)


def test_bucket_structure() -> None:
    offsets = torch.arange(-300, 301)
    buckets = relative_position_bucket(offsets)
    # small offsets are exact, each direction uses its own half, far ones share a bucket
    assert buckets[300 + 0] == 0
    assert buckets[300 + 5] == 16 + 5
    assert buckets[300 - 5] == 5
    assert buckets[300 + 200] == buckets[300 + 300] == 31
    assert buckets[300 - 200] == buckets[300 - 300] == 15
    # monotone in distance within each direction
    right = buckets[300:]
    assert torch.all(right[1:] >= right[:-1])
    causal = relative_position_bucket(offsets, bidirectional=False)
    assert torch.all(causal[300:] == 0)  # keys at or after the query: bucket 0


def test_bias_depends_only_on_the_offset() -> None:
    bias = RelativePositionBias(num_heads=3)
    values = bias(12, 20)
    assert values.shape == (3, 12, 20)
    for i in range(11):
        for j in range(19):
            torch.testing.assert_close(values[:, i, j], values[:, i + 1, j + 1])
    shifted = bias(4, 20, offset=8)  # the last 4 queries of a 12-token prefix
    torch.testing.assert_close(shifted, values[:, 8:12])


def test_clipped_variant() -> None:
    bias = RelativePositionBias(num_heads=2, kind="clipped", max_distance=4)
    assert bias.num_buckets == 9
    buckets = bias.buckets(1, 12, offset=5)  # query at position 5
    assert buckets.tolist() == [[0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 8]]
    causal = RelativePositionBias(num_heads=2, kind="clipped", max_distance=4, bidirectional=False)
    assert causal.buckets(1, 8, offset=6).tolist() == [[4, 4, 4, 3, 2, 1, 0, 0]]


def test_parameters_and_device() -> None:
    bias = RelativePositionBias(num_heads=4, num_buckets=16)
    assert bias.bias.weight.shape == (16, 4)
    assert bias.to(torch.float64)(3, 3).dtype == torch.float64
    meta = RelativePositionBias(num_heads=4).to("meta")
    assert meta(2, 2).device.type == "meta"


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"num_heads": 0}, ValueError, "num_heads must be an integer >= 1"),
        ({"num_heads": 2, "kind": "alibi"}, ValueError, "kind must be one of 't5', 'clipped'"),
        ({"num_heads": 2, "num_buckets": 3}, ValueError, "num_buckets must be an integer >= 4"),
        ({"num_heads": 2, "max_distance": 0}, ValueError, "max_distance must be"),
        ({"num_heads": 2, "bidirectional": "yes"}, TypeError, "bidirectional"),
    ],
)
def test_errors(kwargs: dict[str, Any], error: type[Exception], pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        RelativePositionBias(**kwargs)


def test_bucket_errors() -> None:
    with pytest.raises(TypeError, match="relative_position must be an integer tensor"):
        relative_position_bucket(torch.zeros(3))


@pytest.mark.parametrize(
    ("bidirectional", "max_distance"), [(True, 8), (True, 4), (False, 16), (False, 10)]
)
def test_small_max_distance_stays_in_range_where_t5_does_not(
    bidirectional: bool, max_distance: int
) -> None:
    transformers_t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    offsets = torch.arange(-40, 41)
    theirs = transformers_t5.T5Attention._relative_position_bucket(
        offsets, bidirectional=bidirectional, num_buckets=32, max_distance=max_distance
    )
    assert int(theirs.min()) < 0  # T5's formula leaves the table's range here
    ours = relative_position_bucket(
        offsets, bidirectional=bidirectional, num_buckets=32, max_distance=max_distance
    )
    half = 16 if bidirectional else 32
    distance = offsets.abs() if bidirectional else (-offsets).clamp(min=0)
    direction = (offsets > 0).long() * 16 if bidirectional else 0
    assert torch.equal(ours, direction + distance.clamp(max=half - 1))


@pytest.mark.parametrize(("bidirectional", "max_distance"), [(True, 9), (False, 17), (True, 128)])
def test_matches_t5_when_max_distance_exceeds_the_exact_buckets(
    bidirectional: bool, max_distance: int
) -> None:
    transformers_t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    offsets = torch.arange(-300, 301)
    theirs = transformers_t5.T5Attention._relative_position_bucket(
        offsets, bidirectional=bidirectional, num_buckets=32, max_distance=max_distance
    )
    ours = relative_position_bucket(
        offsets, bidirectional=bidirectional, num_buckets=32, max_distance=max_distance
    )
    assert torch.equal(ours, theirs)


def test_extreme_offsets_land_in_the_last_buckets() -> None:
    # abs(-2**63) overflows int64: the farthest key before the query got bucket -2**63.
    offsets = torch.tensor([-(2**63), -(2**40), 2**40, 2**63 - 1])
    assert relative_position_bucket(offsets).tolist() == [15, 15, 31, 31]
    causal = relative_position_bucket(offsets, bidirectional=False)
    assert causal.tolist() == [31, 31, 0, 0]
    small = relative_position_bucket(offsets, num_buckets=8, max_distance=2)  # no log part
    assert small.tolist() == [3, 3, 7, 7]


@pytest.mark.parametrize(
    ("offsets", "pattern"),
    [
        (torch.tensor([1 + 2j]), "dtype torch.complex64"),  # the imaginary part was dropped
        (torch.tensor([True]), "dtype torch.bool"),
        (torch.tensor([5], dtype=torch.uint64), "torch.uint64"),
        ([1, 2], "got list"),
    ],
)
def test_offsets_that_are_not_real_integers_are_refused(offsets: Any, pattern: str) -> None:
    with pytest.raises(TypeError, match=f"relative_position must be .*{pattern}"):
        relative_position_bucket(offsets)


@pytest.mark.parametrize("flag", ["yes", None, 1, 0])
def test_bidirectional_must_be_a_bool(flag: Any) -> None:
    with pytest.raises(TypeError, match="bidirectional must be True or False"):
        relative_position_bucket(torch.tensor([1]), bidirectional=flag)


@pytest.mark.parametrize("name", ["num_buckets", "max_distance"])
def test_huge_counts_are_named(name: str) -> None:
    arguments: dict[str, Any] = {name: 10**30}
    with pytest.raises(ValueError, match=f"{name} must be an integer from .* to 2,147,483,647"):
        relative_position_bucket(torch.tensor([1]), **arguments)
    with pytest.raises(ValueError, match=f"{name} must be an integer from"):
        RelativePositionBias(2, **arguments)


def test_reset_parameters_keeps_the_small_initial_spread() -> None:
    torch.manual_seed(0)
    module = RelativePositionBias(num_heads=8, num_buckets=256)
    module.bias.weight.data.fill_(5.0)
    module.reset_parameters()
    assert 0.015 < float(module.bias.weight.detach().std()) < 0.025
    module.bias.reset_parameters()  # the embedding's own reset, as a generic re-init calls it
    assert 0.015 < float(module.bias.weight.detach().std()) < 0.025
    with torch.device("meta"):
        lazy = RelativePositionBias(num_heads=8, num_buckets=256)
    lazy.to_empty(device="cpu")
    for child in lazy.modules():
        reset = getattr(child, "reset_parameters", None)
        if callable(reset):
            reset()
    assert 0.015 < float(lazy.bias.weight.detach().std()) < 0.025


def test_t5_adds_the_bias_to_the_unscaled_dot_product() -> None:  # beyond/relative-bias.md
    """T5's score is q·k + b, with no 1/sqrt(d_h), as the page writes it."""
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")
    config = t5.T5Config(d_model=16, d_kv=8, num_heads=2, relative_attention_num_buckets=8)
    torch.manual_seed(0)
    attention = t5.T5Attention(config, has_relative_attention_bias=True).eval()
    x = torch.randn(1, 5, 16)
    with torch.no_grad():
        out, position_bias, _ = attention(x)
        q = attention.q(x).view(1, 5, 2, 8).transpose(1, 2)
        k = attention.k(x).view(1, 5, 2, 8).transpose(1, 2)
        v = attention.v(x).view(1, 5, 2, 8).transpose(1, 2)
        bias = attention.compute_bias(5, 5)  # (1, heads, q_len, k_len)

        def mixed(scores: torch.Tensor) -> torch.Tensor:
            weights = scores.softmax(dim=-1)
            out: torch.Tensor = attention.o((weights @ v).transpose(1, 2).reshape(1, 5, 16))
            return out

        unscaled = mixed(q @ k.transpose(-1, -2) + bias)
        scaled = mixed(q @ k.transpose(-1, -2) / 8**0.5 + bias)
    torch.testing.assert_close(position_bias, bias)
    torch.testing.assert_close(out, unscaled)
    assert (out - scaled).abs().max() > 1e-3
