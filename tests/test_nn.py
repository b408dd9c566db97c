import re
from typing import Any

import numpy as np
import pytest
import torch
from conftest import count_checks
from reference import float64_table

import pe
from pe._table import FLOAT32_BOUND
from pe.nn import SinusoidalPositionalEncoding
from pe.nn.functional import sinusoidal


def table_of(module: SinusoidalPositionalEncoding) -> torch.Tensor:
    """The module's table buffer, which a module built with a max_len always has."""
    assert module.table is not None
    return module.table


@pytest.mark.parametrize("start", [0, 100, 2**24 - 600, -77])
def test_torch_table_matches_reference(start: int) -> None:
    positions = np.arange(start, start + 600)
    got = sinusoidal(torch.from_numpy(positions), 256)
    assert got.dtype == torch.float32
    assert torch.abs(got.double() - torch.from_numpy(float64_table(positions, 256))).max() <= (
        FLOAT32_BOUND
    )


def test_torch_table_agrees_with_numpy_core_to_one_rounding() -> None:
    a = sinusoidal(3000, 128).numpy()
    b = pe.sinusoidal(3000, 128)
    assert np.abs(a - b).max() <= np.finfo(np.float32).eps


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_torch_table_dtypes(dtype: torch.dtype) -> None:
    got = sinusoidal(500, 32, dtype=dtype)
    assert got.dtype == dtype
    reference = torch.from_numpy(float64_table(np.arange(500), 32))
    tolerance = {torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8, torch.float64: 1e-12}[dtype]
    assert torch.abs(got.double() - reference).max() <= tolerance


def test_torch_scattered_positions_and_shapes() -> None:
    positions = torch.tensor([[3, 1000, -4], [0, 2**21, 3]])
    got = sinusoidal(positions, 16, dtype=torch.float64)
    assert got.shape == (2, 3, 16)
    np.testing.assert_allclose(got.numpy(), float64_table(positions.numpy(), 16), atol=1e-11)


def test_module_adds_the_encoding() -> None:
    module = SinusoidalPositionalEncoding(d_model=32, max_len=64)
    x = torch.randn(3, 20, 32)
    expected = x + torch.from_numpy(float64_table(np.arange(20), 32)).float()
    torch.testing.assert_close(module(x), expected, atol=1e-6, rtol=0)


def test_module_offset_for_incremental_decoding() -> None:
    module = SinusoidalPositionalEncoding(d_model=16, max_len=64)
    x = torch.zeros(2, 5, 16)
    torch.testing.assert_close(
        module(x, offset=10)[0], torch.from_numpy(float64_table(np.arange(10, 15), 16)).float()
    )


def test_sequence_first_layout() -> None:
    module = SinusoidalPositionalEncoding(d_model=8, max_len=32, batch_first=False)
    x = torch.zeros(6, 4, 8)  # (seq, batch, d)
    out = module(x)
    assert out.shape == (6, 4, 8)
    expected = torch.from_numpy(float64_table(np.arange(6), 8)).float()
    for b in range(4):
        torch.testing.assert_close(out[:, b], expected)


def test_unbatched_input() -> None:
    module = SinusoidalPositionalEncoding(d_model=8, max_len=32)
    torch.testing.assert_close(
        module(torch.zeros(5, 8)), torch.from_numpy(float64_table(np.arange(5), 8)).float()
    )


def test_explicit_positions_per_sample() -> None:
    module = SinusoidalPositionalEncoding(d_model=8, max_len=32)
    positions = torch.tensor([[0, 1, 2], [5, 6, 7]])
    out = module(torch.zeros(2, 3, 8), positions=positions)
    reference = torch.from_numpy(float64_table(positions.numpy(), 8)).float()
    torch.testing.assert_close(out, reference)
    on_the_fly = SinusoidalPositionalEncoding(d_model=8, max_len=None)
    torch.testing.assert_close(on_the_fly(torch.zeros(2, 3, 8), positions=positions), out)


def test_table_is_a_non_persistent_float32_buffer() -> None:
    module = SinusoidalPositionalEncoding(d_model=8, max_len=16)
    assert "table" in dict(module.named_buffers())
    assert module.state_dict() == {}
    assert list(module.parameters()) == []
    for cast in (torch.float16, torch.bfloat16, torch.float64):
        assert table_of(module.to(cast)).dtype == torch.float32
    assert table_of(module.half()).dtype == torch.float32


def test_half_module_output_has_input_dtype_and_exact_rounding() -> None:
    module = SinusoidalPositionalEncoding(d_model=64, max_len=2048).to(torch.bfloat16)
    x = torch.zeros(1, 2048, 64, dtype=torch.bfloat16)
    out = module(x)
    assert out.dtype == torch.bfloat16
    # One rounding, from the float32 table straight to bfloat16 ...
    assert torch.equal(out[0], table_of(module).to(torch.bfloat16))
    # ... which leaves every value within half a bfloat16 step of the exact one.
    exact = torch.from_numpy(float64_table(np.arange(2048), 64))
    half_step = 2.0**-8 * exact.abs()  # bfloat16 keeps 8 significant bits
    assert ((out[0].double() - exact).abs() <= half_step + FLOAT32_BOUND).all()


def test_too_long_sequence_raises_naming_both_lengths() -> None:
    module = SinusoidalPositionalEncoding(d_model=8, max_len=16)
    with pytest.raises(ValueError, match=r"length 20.*max_len=16"):
        module(torch.zeros(1, 20, 8))
    with pytest.raises(ValueError, match=r"max_len=16"):
        module(torch.zeros(1, 10, 8), offset=10)


def test_on_the_fly_matches_the_table_exactly() -> None:
    x = torch.randn(2, 300, 48)
    table_mode = SinusoidalPositionalEncoding(d_model=48, max_len=1024)
    fly_mode = SinusoidalPositionalEncoding(d_model=48, max_len=None)
    assert fly_mode.table is None
    assert torch.equal(table_mode(x), fly_mode(x))
    assert torch.equal(table_mode(x, offset=700), fly_mode(x, offset=700))
    assert fly_mode(torch.zeros(1, 5000, 48)).shape == (1, 5000, 48)


def test_dropout_is_applied_in_training_only() -> None:
    module = SinusoidalPositionalEncoding(d_model=16, max_len=32, dropout=0.5)
    x = torch.ones(4, 8, 16)
    torch.manual_seed(0)
    assert (module.train()(x) == 0).any()
    assert not (module.eval()(x) == 0).all()
    torch.testing.assert_close(module.eval()(x), SinusoidalPositionalEncoding(16, 32)(x))


def test_meta_device_and_cast_keep_shapes() -> None:
    module = SinusoidalPositionalEncoding(d_model=8, max_len=16).to("meta")
    assert table_of(module).device.type == "meta"
    assert table_of(module).dtype == torch.float32


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"d_model": 7}, ValueError, "d_model.*got 7"),
        ({"d_model": 8, "max_len": -1}, ValueError, "max_len.*-1"),
        ({"d_model": 8, "max_len": 0}, ValueError, "max_len.*got 0"),
        ({"d_model": 8, "max_len": 2.5}, TypeError, "max_len.*2.5"),
        ({"d_model": 8, "dropout": 1.0}, ValueError, "dropout.*1.0"),
        ({"d_model": 8, "dropout": "0.1"}, TypeError, "dropout.*'0.1'"),
        ({"d_model": 8, "base": 1.0}, ValueError, "base.*1.0"),
        ({"d_model": 8, "batch_first": 1}, TypeError, "batch_first.*1"),
    ],
)
def test_module_constructor_errors(
    kwargs: dict[str, Any], error: type[Exception], pattern: str
) -> None:
    with pytest.raises(error, match=pattern):
        SinusoidalPositionalEncoding(**kwargs)


def test_forward_errors() -> None:
    module = SinusoidalPositionalEncoding(d_model=8, max_len=16)
    with pytest.raises(ValueError, match=r"d_model=8; got shape \(2, 3, 6\)"):
        module(torch.zeros(2, 3, 6))
    with pytest.raises(TypeError, match=r"floating-point tensor.*int64"):
        module(torch.zeros(2, 3, 8, dtype=torch.long))
    with pytest.raises(ValueError, match=r"positions must have shape"):
        module(torch.zeros(2, 3, 8), positions=torch.arange(4))
    with pytest.raises(TypeError, match=r"integer tensor.*float32"):
        module(torch.zeros(2, 3, 8), positions=torch.zeros(3))
    with pytest.raises(ValueError, match=r"\[0, 16\).*from 0 to 40"):
        module(torch.zeros(1, 3, 8), positions=torch.tensor([0, 1, 40]))
    with pytest.raises(TypeError, match="offset must be an integer"):
        module(torch.zeros(1, 3, 8), offset=1.5)


def test_torch_function_errors() -> None:
    with pytest.raises(TypeError, match="dtype must be torch"):
        sinusoidal(4, 8, dtype=np.float32)  # type: ignore[arg-type]  # the bad call under test
    with pytest.raises(TypeError, match="positions must be an integer tensor"):
        sinusoidal(torch.zeros(3), 8)
    with pytest.raises(ValueError, match="d_model"):
        sinusoidal(4, 5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_collisions_warn(dtype: torch.dtype) -> None:
    with pytest.warns(pe.PrecisionWarning, match=r"positions \d+ and \d+ get identical"):
        sinusoidal(1000, 2, dtype=dtype)


def test_half_precision_without_collisions_is_silent() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sinusoidal(4096, 64, dtype=torch.bfloat16)


def test_to_empty_from_meta_rebuilds_the_table() -> None:
    module = SinusoidalPositionalEncoding(64, max_len=32).to("meta").to_empty(device="cpu")
    assert table_of(module).device.type == "cpu"
    np.testing.assert_allclose(
        table_of(module).numpy(), float64_table(np.arange(32), 64), atol=FLOAT32_BOUND, rtol=0
    )


def test_built_under_the_meta_device_holds_a_meta_table() -> None:
    with torch.device("meta"):
        module = SinusoidalPositionalEncoding(64, max_len=32)
        assert table_of(module).device.type == "meta"
        assert module(torch.zeros(2, 5, 64)).device.type == "meta"
        assert module(torch.zeros(2, 5, 64, dtype=torch.float16)).dtype == torch.float16
        assert sinusoidal(7, 16).shape == (7, 16)
    assert table_of(module.to_empty(device="cpu")).device.type == "cpu"
    torch.testing.assert_close(module.table, SinusoidalPositionalEncoding(64, max_len=32).table)


def test_meta_positions_compute_only_the_shape() -> None:
    # what RotaryEmbedding does with meta queries: no value is read (no .item())
    positions = torch.arange(10, device="meta").reshape(2, 5)
    for dtype in (torch.float32, torch.float16, torch.float64):
        table = sinusoidal(positions, 8, dtype=dtype)
        assert (table.device.type, table.shape, table.dtype) == ("meta", (2, 5, 8), dtype)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("max_len", [1000, None])
def test_module_warns_where_the_function_warns(dtype: torch.dtype, max_len: int | None) -> None:
    # d_model = 2: rows 0..999 collide after rounding (the function warns too)
    module = SinusoidalPositionalEncoding(2, max_len=max_len)
    x = torch.zeros(1, 1000, 2, dtype=dtype)
    with pytest.warns(pe.PrecisionWarning, match=r"positions (\d+) and (\d+) get identical"):
        sinusoidal(1000, 2, dtype=dtype)
    with pytest.warns(pe.PrecisionWarning, match=r"positions \d+ and \d+ get identical") as record:
        module(x)
    found = re.search(r"positions (\d+) and (\d+)", str(record[0].message))
    assert found is not None
    first, second = map(int, found.groups())
    assert first != second
    assert torch.equal(
        sinusoidal(torch.tensor([first]), 2).to(dtype),
        sinusoidal(torch.tensor([second]), 2).to(dtype),
    )
    with pytest.warns(pe.PrecisionWarning):
        module(x[:, :4], positions=torch.tensor([first, second, 0, 1]))


def test_module_in_half_precision_without_collisions_is_silent() -> None:
    import warnings

    module = SinusoidalPositionalEncoding(64, max_len=4096)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module(torch.zeros(1, 4096, 64, dtype=torch.bfloat16))
        module(torch.zeros(1, 8, 64, dtype=torch.float16), offset=100)
    # short windows of a table with collisions elsewhere do not warn either
    tiny = SinusoidalPositionalEncoding(2, max_len=1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tiny(torch.zeros(1, 3, 2, dtype=torch.float16))


def test_each_argument_is_checked_once_on_its_way_down(monkeypatch: pytest.MonkeyPatch) -> None:
    # Public functions check their arguments and call private cores, which do not check
    # again: count the calls of the d_model and base checks in both modules.
    import pe._table
    import pe.nn._sinusoidal

    calls = count_checks(
        monkeypatch, (pe._table, pe.nn._sinusoidal), ("check_d_model", "check_base")
    )
    for build in (
        lambda: pe.sinusoidal(8, 4),
        lambda: pe.sinusoidal(np.array([3, 9]), 4),
        lambda: sinusoidal(8, 4),
        lambda: sinusoidal(torch.tensor([3, 9]), 4, dtype=torch.float16),
        lambda: SinusoidalPositionalEncoding(4, max_len=8),
    ):
        calls.clear()
        build()
        assert sorted(calls) == ["check_base", "check_d_model"]
    encoding = SinusoidalPositionalEncoding(4, max_len=None)
    calls.clear()
    encoding(torch.zeros(2, 5, 4), offset=3)
    encoding(torch.zeros(2, 5, 4), positions=torch.tensor([0, 4, 1, 2, 9]))
    assert calls == []


def test_a_huge_broadcast_request_is_refused_before_it_is_copied() -> None:
    # Zero-stride positions of 2**31 entries: flattening would copy 16 GB first.
    positions = np.broadcast_to(np.int64(7), (2**20, 2**11))
    with pytest.raises(ValueError, match=r"the table would have shape \(1048576, 2048, 2\)"):
        sinusoidal(positions, 2)


@pytest.mark.parametrize("d_model", [2, 6, 64])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a_window_of_the_table_is_the_table_bit_for_bit(d_model: int, dtype: torch.dtype) -> None:
    # torch's vectorized complex product rounds differently from its scalar one:
    # at d_model 2 a window read one float32 unit off the full table.
    full = sinusoidal(torch.arange(-700, 700), d_model, dtype=dtype)
    for start in range(-700, 680, 37):
        window = sinusoidal(torch.arange(start, start + 17), d_model, dtype=dtype)
        assert torch.equal(window, full[start + 700 : start + 717]), start
        scattered = sinusoidal(torch.tensor([start + 16, start]), d_model, dtype=dtype)
        assert torch.equal(scattered, full[[start + 716, start + 700]]), start
    numpy_dtype = np.float32 if dtype == torch.float32 else np.float64
    assert (full.numpy() == pe.sinusoidal(np.arange(-700, 700), d_model, dtype=numpy_dtype)).all()


def test_many_distinct_offsets_keep_few_cached_entries() -> None:
    from pe.nn import _sinusoidal

    _sinusoidal._device_heads.cache_clear()
    module = SinusoidalPositionalEncoding(64, max_len=None)
    for step in range(300):  # a decoding loop: a new offset each call
        module(torch.zeros(1, 1, 64), offset=step * 300)
    assert len(_sinusoidal._device_heads._entries) <= pe._table.RUN_CACHE_ENTRIES


@pytest.mark.parametrize("max_len", [None, 8])
def test_positions_past_the_largest_are_refused(max_len: int | None) -> None:
    module = SinusoidalPositionalEncoding(8, max_len=max_len)
    if max_len is None:
        last = module(torch.zeros(1, 2, 8), offset=2**31 - 2)[0, -1]
        assert torch.equal(last, sinusoidal(torch.tensor([2**31 - 1]), 8)[0])
    with pytest.raises(ValueError, match=r"run past the largest position, 2147483647"):
        module(torch.zeros(1, 3, 8), offset=2**31 - 2)


def _cuda_missing() -> bool:
    return not torch.cuda.is_available()


@pytest.mark.skipif(not _cuda_missing(), reason="needs a torch without a usable CUDA device")
@pytest.mark.parametrize(
    "call",
    [
        lambda: sinusoidal(4, 8, device="cuda"),
        lambda: sinusoidal(torch.arange(3), 8, device="cuda"),
        lambda: SinusoidalPositionalEncoding(8, max_len=None).encoding(3, device="cuda"),
        lambda: pe.nn.RelativePositionBias(2).buckets(3, 3, device="cuda"),
    ],
)
def test_an_unusable_device_is_named(call: Any) -> None:
    # torch answers with a bare AssertionError ("Torch not compiled with CUDA enabled")
    with pytest.raises(ValueError, match="device 'cuda' cannot be used here: Torch not compiled"):
        call()


@pytest.mark.skipif(not _cuda_missing(), reason="needs a torch without a usable CUDA device")
@pytest.mark.parametrize(
    "build",
    [
        lambda: SinusoidalPositionalEncoding(8, max_len=4),
        lambda: pe.nn.LearnedPositionalEmbedding(4, 8),
        lambda: pe.nn.ALiBi(4),
        lambda: pe.nn.RelativePositionBias(2),
    ],
)
def test_moving_a_module_to_an_unusable_device_is_named(build: Any) -> None:
    module = build()
    before = {name: tensor.clone() for name, tensor in module.state_dict(keep_vars=False).items()}
    with pytest.raises(ValueError, match="device: the module cannot move there"):
        module.to("cuda")
    for name, tensor in module.state_dict().items():  # nothing moved or lost
        assert tensor.device.type == "cpu"
        assert torch.equal(tensor, before[name])


@pytest.mark.parametrize(
    ("device", "error", "pattern"),
    [("bogus", ValueError, "device must name a torch device"), (3.5, TypeError, "device must be")],
)
def test_a_device_that_is_not_one_is_named(
    device: Any, error: type[Exception], pattern: str
) -> None:
    with pytest.raises(error, match=pattern):
        sinusoidal(4, 8, device=device)
