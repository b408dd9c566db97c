import numpy as np
import pytest
import torch

import pe
from pe.nn import ALiBi


def reference_slopes(n: int) -> list[float]:
    """Press et al.: 2^(-8k/n) for powers of two; otherwise fill from 2n's odd slopes."""

    def power_of_two(m: int) -> list[float]:
        return [2 ** (-8 * k / m) for k in range(1, m + 1)]

    p = 1
    while p * 2 <= n:
        p *= 2
    return power_of_two(p) + power_of_two(2 * p)[0::2][: n - p]


@pytest.mark.parametrize("heads", [1, 2, 3, 5, 6, 8, 12, 16, 20, 32, 40, 64, 96])
def test_slopes_follow_the_paper(heads: int) -> None:
    np.testing.assert_allclose(pe.alibi_slopes(heads), reference_slopes(heads), rtol=1e-15)


def test_eight_heads_are_halvings() -> None:
    assert pe.alibi_slopes(8).tolist() == [2.0**-k for k in range(1, 9)]


@pytest.mark.parametrize("heads", [8, 12, 16, 24, 112])
def test_slopes_match_bloom_in_transformers(heads: int) -> None:
    bloom = pytest.importorskip("transformers.models.bloom.modeling_bloom")
    # The public build_alibi_tensor: row h holds slope_h * (0, 1, ...) for an unpadded row.
    bias = bloom.build_alibi_tensor(torch.ones(1, 2), heads, torch.float32)
    theirs = bias.reshape(heads, 2)[:, 1]
    # BLOOM raises a float32 base to the k-th power: k roundings of 6e-8 at most.
    np.testing.assert_allclose(pe.alibi_slopes(heads), theirs.double().numpy(), rtol=heads * 1.2e-7)


def test_bias_is_minus_slope_times_distance() -> None:
    alibi = ALiBi(num_heads=4)
    bias = alibi(6, 6)
    distance = (torch.arange(6)[None, :] - torch.arange(6)[:, None]).abs().float()
    for h, slope in enumerate(pe.alibi_slopes(4)):
        torch.testing.assert_close(bias[h], -float(slope) * distance)
    torch.testing.assert_close(alibi(2, 6, offset=4), bias[:, 4:])


def test_buffer_is_not_saved_and_moves() -> None:
    alibi = ALiBi(num_heads=3)
    assert alibi.state_dict() == {}
    assert alibi.to("meta")(2, 2).device.type == "meta"


def test_errors() -> None:
    with pytest.raises(ValueError, match="num_heads must be a positive integer; got 0"):
        pe.alibi_slopes(0)
    with pytest.raises(TypeError, match="num_heads"):
        pe.alibi_slopes(2.0)  # type: ignore[arg-type]  # wrong on purpose
    with pytest.raises(ValueError, match="num_heads must be an integer >= 1"):
        ALiBi(0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_casting_keeps_the_slopes_float32(dtype: torch.dtype) -> None:
    # 12 heads: the paper's slopes are 2^(-8h/8) for h = 1..8, then 2^(-8(2h-1)/16) for h = 1..4
    exact = [2.0 ** (-h) for h in range(1, 9)] + [2.0 ** (-(2 * h - 1) / 2) for h in range(1, 5)]
    alibi = ALiBi(12).to(dtype)
    assert alibi.slopes.dtype == torch.float32
    bias = alibi(1, 4096)[:, 0, -1].double()  # distance 4095
    expected = -4095.0 * torch.tensor(exact, dtype=torch.float64)
    assert (bias - expected).abs().max() <= 4095 * 2**-24  # float32 slope rounding only
    rounded = -4095.0 * torch.tensor(exact).to(dtype).double()
    if dtype != torch.float64:
        assert (rounded - expected).abs().max() > 0.01  # what casting the slopes would cost


def test_meta_then_to_empty_restores_the_slopes() -> None:
    alibi = ALiBi(4).to("meta").to_empty(device="cpu")
    assert torch.equal(alibi.slopes, ALiBi(4).slopes)


def test_too_many_heads_is_a_clear_error_before_allocating() -> None:
    with pytest.raises(
        ValueError, match=r"num_heads must be at most 65,536 \(2\*\*16\); got 1,000,000,000"
    ):
        ALiBi(10**9)
    with pytest.raises(ValueError, match=r"the bias \(num_heads, q_len, k_len\) would have shape"):
        ALiBi(8)(2**20, 2**20)
