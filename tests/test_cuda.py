"""pe.nn on a CUDA device: values against float64 references, devices, dtypes, compile.

Skipped where torch sees no CUDA device (CI, the developers' machines); run on
a GPU with ``python -m pytest tests/test_cuda.py``. The CPU path of every module
is checked against independent references in the other test files; here the
sinusoid, RoPE and the timestep embedding are checked against float64 formulas
written below, and every module moved with ``.to("cuda")`` must give what it
gives on the CPU, on the device it was moved to, in the input's dtype.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from reference import float64_table, rope_rotation

import pe.nn
from pe._table import FLOAT32_BOUND
from pe.nn.functional import sinusoidal

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

CUDA = "cuda"


def test_the_sinusoid_on_the_device_is_within_the_float32_bound() -> None:
    positions = torch.tensor([0, 1, 7, 100, 4095, 65_535, 1_000_000, 16_000_000], device=CUDA)
    table = sinusoidal(positions, 64)
    assert table.device.type == CUDA
    assert table.dtype == torch.float32
    expected = float64_table(positions.cpu().numpy(), 64)
    assert np.abs(table.cpu().double().numpy() - expected).max() <= FLOAT32_BOUND


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize("offset", [0, 4000])
def test_rope_prefill_and_a_decoding_step_on_the_device(layout: str, offset: int) -> None:
    torch.manual_seed(0)
    rope = pe.nn.RotaryEmbedding(128, base=500000.0, layout=layout).to(CUDA)
    for seq in (1, 257):  # a decoding step (q and k turned as one) and a prefill
        q = torch.randn(2, 8, seq, 128, device=CUDA)
        k = torch.randn(2, 2, seq, 128, device=CUDA)
        q_out, k_out = rope(q, k, offset=offset)
        positions = np.arange(offset, offset + seq)
        for x, out in ((q, q_out), (k, k_out)):
            assert out.device.type == CUDA
            assert out.dtype == torch.float32
            expected = rope_rotation(x.cpu().numpy(), positions, layout, 128, 500000.0)
            # Each value is a sum of two products of |x| <= ~5 and a float32 cos/sin.
            assert np.abs(out.cpu().double().numpy() - expected).max() < 5e-6


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_rope_in_half_precision_keeps_the_dtype_and_rounds_once(dtype: torch.dtype) -> None:
    torch.manual_seed(1)
    rope = pe.nn.RotaryEmbedding(64, layout="concatenated").to(CUDA)
    x = torch.randn(1, 4, 300, 64, device=CUDA).to(dtype)
    out = rope.rotate(x, offset=1000)
    assert out.dtype == dtype
    assert out.device.type == CUDA
    expected = rope_rotation(x.cpu().double().numpy(), np.arange(1000, 1300), "concatenated", 64)
    # Turned in float32, then rounded once to the dtype: half a unit in the last place.
    # Either path of an accelerator (one Triton kernel, or three of torch's where Triton is
    # missing) gives the float32 formula's bits, rounded once.
    assert torch.equal(out, rope.rotate(x.float(), offset=1000).to(dtype))
    error = np.abs(out.cpu().double().numpy() - expected)
    spacing = torch.finfo(dtype).eps * np.maximum(np.abs(expected), 2.0**-14)
    assert (error <= spacing + 1e-5).all()


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("fraction", [1.0, 0.5])
def test_a_prefill_on_the_device_is_one_triton_kernel_where_that_helps(
    layout: str, dtype: torch.dtype, fraction: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pe.nn import _kernels

    launches: list[int] = []
    launch = _kernels._launch

    def counted(*args: Any, **kwargs: Any) -> torch.Tensor:
        launches.append(1)
        return launch(*args, **kwargs)

    monkeypatch.setattr(_kernels, "_launch", counted)
    torch.manual_seed(3)
    rope = pe.nn.RotaryEmbedding(
        128, base=500000.0, layout=layout, partial_rotary_factor=fraction
    ).to(CUDA)
    x = torch.randn(2, 4, 300, 128, device=CUDA).to(dtype)  # a prefill: over pe.nn's _FUSED
    out = rope.rotate(x, offset=4000)
    # Interleaved float32 pairs stay one complex product of torch's (see pe.nn._kernels).
    kernel = _kernels.available() and not (layout == "interleaved" and dtype == torch.float32)
    assert launches == ([1] if kernel else [])
    assert out.dtype == dtype
    assert out.device.type == CUDA
    rotary = rope.rotary_dim
    expected = rope_rotation(x.cpu().double(), np.arange(4000, 4300), layout, rotary, 500000.0)
    error = np.abs(out.cpu().double().numpy() - expected)
    if dtype == torch.float32:
        assert error.max() < 5e-6
    else:  # turned in float32 and rounded once: half a unit in the last place
        spacing = torch.finfo(dtype).eps * np.maximum(np.abs(expected), 2.0**-14)
        assert (error <= spacing + 1e-5).all()
        if layout == "concatenated":  # float32 takes the same kernel: the same bits, rounded
            assert torch.equal(out, rope.rotate(x.float(), offset=4000).to(dtype))
    assert torch.equal(out[..., rotary:], x[..., rotary:])  # the rest passes through


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_a_kernel_launch_that_fails_on_the_device_warns_once_then_torch_turns_it(
    dtype: torch.dtype, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pe.nn import _kernels

    tries: list[int] = []

    def broken(*args: Any, **kwargs: Any) -> torch.Tensor:
        tries.append(1)
        raise RuntimeError("Failed to find C compiler")

    monkeypatch.setattr(_kernels, "_launch", broken)
    monkeypatch.setattr(_kernels, "_FAILED", [])
    monkeypatch.setattr(_kernels, "available", lambda: True)
    torch.manual_seed(4)
    rope = pe.nn.RotaryEmbedding(128, layout="concatenated").to(CUDA)
    x = torch.randn(1, 8, 300, 128, device=CUDA).to(dtype)
    with pytest.warns(RuntimeWarning, match="Failed to find C compiler") as caught:
        first = rope.rotate(x)
    assert len([w for w in caught if issubclass(w.category, RuntimeWarning)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = rope.rotate(x)
    assert tries == [1]  # tried once, not again
    assert torch.equal(first, second)
    assert first.dtype == dtype
    assert first.device.type == CUDA
    expected = rope_rotation(x.cpu().double(), np.arange(300), "concatenated", 128)
    error = np.abs(first.cpu().double().numpy() - expected)
    if dtype == torch.float32:
        assert error.max() < 5e-6
    else:  # torch's half-precision path also rounds once
        spacing = torch.finfo(dtype).eps * np.maximum(np.abs(expected), 2.0**-14)
        assert (error <= spacing + 1e-5).all()


def test_pe_kernels_0_keeps_torchs_operations_on_the_device(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pe.nn import _kernels

    def launched(*args: Any, **kwargs: Any) -> torch.Tensor:
        raise AssertionError("the kernel ran under PE_KERNELS=0")

    monkeypatch.setattr(_kernels, "_launch", launched)
    monkeypatch.setenv("PE_KERNELS", "0")
    rope = pe.nn.RotaryEmbedding(128, layout="concatenated").to(CUDA)
    x = torch.randn(1, 8, 300, 128, device=CUDA, dtype=torch.bfloat16)
    out = rope.rotate(x)
    expected = rope_rotation(x.cpu().double(), np.arange(300), "concatenated", 128)
    spacing = torch.finfo(torch.bfloat16).eps * np.maximum(np.abs(expected), 2.0**-14)
    assert (np.abs(out.cpu().double().numpy() - expected) <= spacing + 1e-5).all()


def test_rope_matches_transformers_llama_on_the_device() -> None:
    llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    torch.manual_seed(2)
    q = torch.randn(1, 8, 64, 128, device=CUDA, dtype=torch.float64)
    k = torch.randn(1, 2, 64, 128, device=CUDA, dtype=torch.float64)
    inv_freq = 1.0 / 500000.0 ** (torch.arange(0, 128, 2, device=CUDA).double() / 128)
    angles = torch.arange(4000, 4064, device=CUDA).double()[:, None] * inv_freq
    emb = torch.cat((angles, angles), dim=-1)[None]
    q_ref, k_ref = llama.apply_rotary_pos_emb(q, k, emb.cos(), emb.sin())
    rope = pe.nn.RotaryEmbedding(128, base=500000.0, layout="concatenated").to(CUDA)
    q_ours, k_ours = rope(q.float(), k.float(), offset=4000)
    torch.testing.assert_close(q_ours.double(), q_ref, atol=5e-6, rtol=0)
    torch.testing.assert_close(k_ours.double(), k_ref, atol=5e-6, rtol=0)


def test_the_timestep_embedding_on_the_device_follows_the_formula() -> None:
    steps = torch.tensor([0.0, 1.0, 17.5, 500.0, 999.0], device=CUDA)
    out = pe.nn.SinusoidalTimestepEmbedding(64).to(CUDA)(steps)
    assert out.device.type == CUDA
    # DDPM's embedding as diffusers sets it by default: frequencies
    # exp(-ln(10000) * i / (half - 1)), then sines before cosines.
    half = 32
    frequencies = np.exp(-math.log(10000.0) * np.arange(half) / (half - 1.0))
    angles = steps.cpu().double().numpy()[:, None] * frequencies
    expected = np.concatenate((np.sin(angles), np.cos(angles)), axis=-1)
    assert np.abs(out.cpu().double().numpy() - expected).max() < 2e-4


def _cases() -> dict[str, tuple[torch.nn.Module, tuple[object, ...], dict[str, object]]]:
    """Each module with arguments, built on the CPU (tensors on the CPU too)."""
    torch.manual_seed(3)
    q, k = torch.randn(2, 4, 12, 32), torch.randn(2, 2, 12, 32)
    grid_q, grid_k = torch.randn(1, 2, 24, 32), torch.randn(1, 2, 24, 32)
    mrope_ids = torch.stack([torch.arange(12)] * 3)[:, None].expand(3, 2, 12)
    return {
        "sinusoidal": (
            pe.nn.SinusoidalPositionalEncoding(32, max_len=64),
            (torch.randn(2, 12, 32),),
            {},
        ),
        "sinusoidal, no table": (
            pe.nn.SinusoidalPositionalEncoding(32, max_len=None),
            (torch.randn(2, 12, 32),),
            {"offset": 40},
        ),
        "learned": (
            pe.nn.LearnedPositionalEmbedding(64, 32),
            (torch.randn(2, 12, 32),),
            {"offset": 3},
        ),
        "relative bias": (pe.nn.RelativePositionBias(4), (12, 20), {}),
        "alibi": (pe.nn.ALiBi(6), (12, 20), {"offset": 8}),
        "timesteps": (
            pe.nn.SinusoidalTimestepEmbedding(32),
            (torch.tensor([0.0, 3.5, 999.0]),),
            {},
        ),
        "grid sincos": (pe.nn.GridSinCosEmbedding((4, 6), 32), (torch.randn(2, 24, 32),), {}),
        "rotary": (pe.nn.RotaryEmbedding(32, layout="concatenated"), (q, k), {"offset": 5}),
        "rotary, llama3": (
            pe.nn.RotaryEmbedding.from_config(
                {
                    "head_dim": 32,
                    "rope_theta": 500000.0,
                    "max_position_embeddings": 131072,
                    "rope_scaling": {
                        "rope_type": "llama3",
                        "factor": 8.0,
                        "low_freq_factor": 1.0,
                        "high_freq_factor": 4.0,
                        "original_max_position_embeddings": 8192,
                    },
                }
            ),
            (q, k),
            {"offset": 20000},
        ),
        "axial": (
            pe.nn.AxialRotaryEmbedding((8, 12, 12)),
            (grid_q, grid_k, pe.nn.functional.grid_position_ids((2, 3, 4))),
            {},
        ),
        "multimodal": (pe.nn.MultimodalRotaryEmbedding(32, (4, 6, 6)), (q, k, mrope_ids), {}),
    }


def _moved(value: object) -> object:
    return value.to(CUDA) if isinstance(value, torch.Tensor) else value


@pytest.mark.parametrize("name", list(_cases()))
def test_a_module_moved_to_the_device_gives_its_cpu_values_there(name: str) -> None:
    module, args, kwargs = _cases()[name]
    with torch.no_grad():
        on_cpu = module(*args, **kwargs)
        module.to(CUDA)
        assert all(t.device.type == CUDA for t in [*module.parameters(), *module.buffers()])
        on_device = module(*[_moved(a) for a in args], **{n: _moved(v) for n, v in kwargs.items()})
    expected = on_cpu if isinstance(on_cpu, tuple) else (on_cpu,)
    got = on_device if isinstance(on_device, tuple) else (on_device,)
    for cpu_value, value in zip(expected, got, strict=True):
        assert value.device.type == CUDA
        assert value.dtype == cpu_value.dtype
        # The device's own sin, cos and fused multiply-adds: a few float32 roundings apart.
        torch.testing.assert_close(value.cpu(), cpu_value, atol=2e-6, rtol=2e-6)


@pytest.mark.parametrize("name", ["sinusoidal", "timesteps", "alibi", "rotary"])
def test_a_module_compiled_for_the_device_gives_the_eager_values(name: str) -> None:
    module, args, kwargs = _cases()[name]
    module.to(CUDA)
    args = tuple(_moved(a) for a in args)
    kwargs = {n: _moved(v) for n, v in kwargs.items()}
    torch._dynamo.reset()
    compiled = torch.compile(module, fullgraph=name != "rotary")
    with torch.no_grad(), warnings.catch_warnings():
        # Inductor itself calls APIs that torch marks deprecated (torch.jit.script_method).
        warnings.simplefilter("ignore", DeprecationWarning)
        eager, traced = module(*args, **kwargs), compiled(*args, **kwargs)
    for a, b in zip(
        eager if isinstance(eager, tuple) else (eager,),
        traced if isinstance(traced, tuple) else (traced,),
        strict=True,
    ):
        assert b.device.type == CUDA
        torch.testing.assert_close(b, a, atol=2e-6, rtol=2e-6)


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_rotating_on_the_device_waits_for_nothing_once_its_rows_are_cached(layout: str) -> None:
    rope = pe.nn.RotaryEmbedding(128, base=500000.0, layout=layout).to(CUDA)
    prefill = torch.randn(1, 8, 512, 128, device=CUDA), torch.randn(1, 2, 512, 128, device=CUDA)
    step = torch.randn(1, 8, 1, 128, device=CUDA), torch.randn(1, 2, 1, 128, device=CUDA)
    rope(*prefill)
    rope(*step, offset=511)
    torch.cuda.synchronize()
    try:
        with warnings.catch_warnings():  # "a prototype feature": it may miss some, not invent
            warnings.simplefilter("ignore", UserWarning)
            torch.cuda.set_sync_debug_mode("error")  # a call that waits for the device raises
        rope(*prefill)
        for offset in (512, 513):
            rope(*step, offset=offset)
    finally:
        torch.cuda.set_sync_debug_mode("default")


def test_a_compiled_rotation_reads_no_tensor_from_the_host() -> None:
    """Its float64 frequencies stay on the CPU (no .to(dtype) may round them); a copy
    on the device is made when the module moves, not in every call of the graph."""
    torch._dynamo.reset()
    rope = pe.nn.RotaryEmbedding(128, base=500000.0, layout="concatenated").to(CUDA)
    inputs: list[object] = []

    def keep(graph: torch.fx.GraphModule, example_inputs: list[object]) -> object:
        inputs.extend(example_inputs)
        return graph.forward

    compiled = torch.compile(rope, fullgraph=True, backend=keep)
    q, k = torch.randn(1, 8, 300, 128, device=CUDA), torch.randn(1, 2, 300, 128, device=CUDA)
    for ours, reference in zip(compiled(q, k, offset=9), rope(q, k, offset=9), strict=True):
        torch.testing.assert_close(ours, reference, atol=2e-6, rtol=2e-6)
    devices = {value.device.type for value in inputs if isinstance(value, torch.Tensor)}
    assert devices == {CUDA}
