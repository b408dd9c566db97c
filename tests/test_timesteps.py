"""Diffusion timestep embeddings: against a float64 formula written here, and against diffusers.

diffusers (0.42.1, the conventions extra) is imported where it installs; a
missing diffusers skips the library tests locally and fails them in CI. Each
preset is compared with the diffusers module its pipeline runs, built through
the class that sets the preset's values (its hard-coded arguments or its
constructor defaults), not through `pe`'s own numbers.

Tolerances. `pe` rounds float64 sines once, so it is within ``2**-24`` of the
float64 reference. diffusers computes the exponent, the frequencies and the
angles in float32: its angle ``a`` carries a relative error of a few float32
roundings (``2**-23`` each), so its entries may differ from the exact value by
up to ``EPS32 * (2 + 4 |a|)`` with ``EPS32 = 2**-24``, and that is the bound
used against it (for a timestep of 999 it is about 2.4e-4).
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import torch

import pe
from pe.nn import SinusoidalTimestepEmbedding, functional

EPS32 = 2.0**-24
TIMESTEPS = np.array([0.0, 1.0, 0.5, 17.25, 250.0, 999.0, 1000 * 0.7312345, 981.0])


def reference(
    timesteps: np.ndarray,
    dim: int,
    *,
    flip: bool = False,
    shift: float = 1.0,
    scale: float = 1.0,
    period: float = 10000.0,
) -> np.ndarray:
    """The embedding from the DDPM code's formula, term by term in float64 (math module)."""
    half = dim // 2
    rows = []
    for t in np.asarray(timesteps, dtype=np.float64).reshape(-1):
        angles = [scale * t * math.exp(-math.log(period) * i / (half - shift)) for i in range(half)]
        sines = [math.sin(a) for a in angles]
        cosines = [math.cos(a) for a in angles]
        row = (cosines + sines) if flip else (sines + cosines)
        rows.append(row + [0.0] * (dim % 2))
    return np.array(rows, dtype=np.float64).reshape(*np.shape(timesteps), dim)


def library_bound(timesteps: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """Per-row bound on a float32 library's error: a few roundings of the largest angle."""
    return EPS32 * (2 + 4 * scale * np.abs(np.asarray(timesteps, dtype=np.float64)))[:, None]


def require_diffusers() -> ModuleType:
    try:
        return importlib.import_module("diffusers.models.embeddings")
    except ImportError as error:
        message = f"diffusers is not installed ({error}); `make test` installs it"
        if os.environ.get("CI"):
            pytest.fail(message + ", so CI must have it")
        pytest.skip(message)


# ------------------------------------------------------------------ the formula
SETTINGS = [
    {"flip": False, "shift": 1.0, "scale": 1.0, "period": 10000.0},
    {"flip": True, "shift": 0.0, "scale": 1.0, "period": 10000.0},
    {"flip": True, "shift": 1.0, "scale": 1000.0, "period": 10000.0},
    {"flip": False, "shift": 0.5, "scale": 2.5, "period": 100.0},
    {"flip": True, "shift": -2.0, "scale": 1.0, "period": 5000.0},
]


@pytest.mark.parametrize(
    ("dim", "settings"),
    [
        (dim, settings)
        for dim in (2, 3, 8, 17, 320)
        for settings in SETTINGS
        if dim // 2 - settings["shift"] > 0  # the others are among the errors below
    ],
    ids=str,
)
def test_embedding_is_the_float64_formula_rounded_once(
    dim: int, settings: dict[str, float]
) -> None:
    flip, shift, scale, period = settings.values()
    timesteps = TIMESTEPS / (1000.0 if scale == 1000.0 else 1.0)
    expected = reference(timesteps, dim, flip=bool(flip), shift=shift, scale=scale, period=period)
    kwargs: dict[str, Any] = {
        "flip_sin_to_cos": bool(flip),
        "downscale_freq_shift": shift,
        "scale": scale,
        "max_period": period,
    }
    ours = pe.timestep_embedding(timesteps, dim, **kwargs)
    assert ours.dtype == np.float32
    assert ours.shape == (len(timesteps), dim)
    assert np.abs(ours - expected).max() <= EPS32
    wide = pe.timestep_embedding(timesteps, dim, dtype=np.float64, **kwargs)
    assert np.abs(wide - expected).max() <= 1e-12 * (1 + scale * 1000)
    torch_ours = functional.timestep_embedding(torch.from_numpy(timesteps), dim, **kwargs)
    assert torch_ours.dtype == torch.float32
    assert np.abs(torch_ours.numpy() - expected).max() <= EPS32
    module = SinusoidalTimestepEmbedding(dim, **kwargs)
    assert torch.equal(module(torch.from_numpy(timesteps)), torch_ours)


def test_hand_values() -> None:
    # dim 6, shift 1: h = 3, frequencies 10000**(-i/2) = 1, 1/100, 1/10000.
    row = pe.timestep_embedding(2.0, 6, dtype=np.float64)
    expected = [math.sin(2), math.sin(0.02), math.sin(0.0002)]
    expected += [math.cos(2), math.cos(0.02), math.cos(0.0002)]
    assert row.tolist() == pytest.approx(expected, abs=1e-15)
    # shift 0: 10000**(-i/3); the slowest pair no longer reaches 1/10000.
    slow = pe.timestep_frequencies(6, downscale_freq_shift=0)[-1]
    assert slow == pytest.approx(10000 ** (-2 / 3), rel=1e-15)
    # t = 0 tells the order: sines read 0, cosines 1; an odd width ends in a zero.
    assert pe.timestep_embedding(0, 5).tolist() == [0, 0, 1, 1, 0]
    assert pe.timestep_embedding(0, 5, flip_sin_to_cos=True).tolist() == [1, 1, 0, 0, 0]


def test_shapes_and_dtypes() -> None:
    assert pe.timestep_embedding(3.0, 4).shape == (4,)
    assert pe.timestep_embedding(np.zeros((2, 3)), 4).shape == (2, 3, 4)
    assert pe.timestep_embedding([], 4).shape == (0, 4)
    assert pe.timestep_embedding(np.arange(3), 8, dtype=np.float16).dtype == np.float16
    assert functional.timestep_embedding(torch.zeros(2, 3), 4).shape == (2, 3, 4)
    assert (
        functional.timestep_embedding(torch.arange(3), 4, dtype=torch.bfloat16).dtype
        == torch.bfloat16
    )
    # integer and float timesteps of the same values give the same rows
    assert torch.equal(
        functional.timestep_embedding(torch.arange(5), 16),
        functional.timestep_embedding(torch.arange(5.0), 16),
    )


def test_module_keeps_float64_frequencies_and_is_not_state() -> None:
    module = SinusoidalTimestepEmbedding(16).half()
    assert module.frequencies.dtype == torch.float64
    assert module.state_dict() == {}
    assert module(torch.tensor([3.0])).dtype == torch.float32
    with torch.device("meta"):
        on_meta = SinusoidalTimestepEmbedding(16)
    moved = on_meta.to_empty(device="cpu")
    assert torch.equal(moved.frequencies, torch.from_numpy(pe.timestep_frequencies(16)))


def test_presets_are_complete_records() -> None:
    assert {"ddpm", "stable-diffusion-1", "stable-diffusion-2", "sdxl", "flux", "wan"} <= set(
        pe.timestep_presets
    )
    for name, preset in pe.timestep_presets.items():
        assert preset.name == name
        read = {setting for setting, *_ in preset.sources}
        assert {"dim", "flip_sin_to_cos", "downscale_freq_shift"} <= read, name
        for setting, repo, path, key in preset.sources:
            assert "/" in repo, (name, setting)
            assert path, (name, setting)
            assert key, (name, setting)
        assert np.array_equal(
            preset.embedding(TIMESTEPS),
            pe.timestep_embedding(TIMESTEPS, preset.dim, **preset.settings()),
        )


# ------------------------------------------------------------------ the errors
WRONG_DIM: Any = 4.0
WRONG_FLAG: Any = 1
NOT_A_TENSOR: Any = [1.0]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: pe.timestep_embedding([1.0], 1), ValueError, "dim must be an integer >= 2"),
        (lambda: pe.timestep_embedding([1.0], WRONG_DIM), TypeError, "dim must be an integer"),
        (lambda: pe.timestep_embedding([1.0], 2), ValueError, "downscale_freq_shift must be below"),
        (
            lambda: pe.timestep_embedding([1.0], 8, downscale_freq_shift=4),
            ValueError,
            "dim // 2 = 4",
        ),
        (lambda: pe.timestep_embedding([True], 4), TypeError, "dtype bool"),
        (lambda: pe.timestep_embedding(["1"], 4), TypeError, "real numbers"),
        (lambda: pe.timestep_embedding([1j], 4), TypeError, "complex"),
        (lambda: pe.timestep_embedding([np.nan], 4), ValueError, "timesteps must be finite"),
        (lambda: pe.timestep_embedding([3e9], 4), ValueError, "within"),
        (lambda: pe.timestep_embedding([1.0], 4, scale=0), ValueError, "scale must be"),
        (lambda: pe.timestep_embedding([1.0], 4, max_period=1), ValueError, "max_period"),
        (
            lambda: pe.timestep_embedding([1.0], 4, flip_sin_to_cos=WRONG_FLAG),
            TypeError,
            "True or False",
        ),
        (lambda: pe.timestep_embedding([1.0], 4, dtype=np.int32), TypeError, "dtype"),
        (lambda: functional.timestep_embedding(NOT_A_TENSOR, 4), TypeError, "tensor"),
        (lambda: functional.timestep_embedding(torch.tensor([True]), 4), TypeError, "torch.bool"),
        (lambda: functional.timestep_embedding(torch.tensor([math.inf]), 4), ValueError, "finite"),
        (lambda: SinusoidalTimestepEmbedding.from_preset("sd9"), ValueError, "'ddpm'"),
        (lambda: SinusoidalTimestepEmbedding(4)(torch.tensor([1j])), TypeError, "complex"),
    ],
)
def test_bad_input_names_the_parameter(call: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()  # type: ignore[operator]


# ------------------------------------------------------------------ diffusers itself
def _diffusers_module(name: str) -> torch.nn.Module:
    """The diffusers module that computes preset `name`, built through its own class."""
    embeddings = require_diffusers()
    if name == "flux":
        return embeddings.CombinedTimestepGuidanceTextProjEmbeddings(32, 8).time_proj  # type: ignore[no-any-return]
    if name == "wan":
        from diffusers.models.transformers.transformer_wan import (
            WanTimeTextImageEmbedding,
            WanTransformer3DModel,
        )

        freq_dim = inspect.signature(WanTransformer3DModel.__init__).parameters["freq_dim"].default
        return WanTimeTextImageEmbedding(32, freq_dim, 96, 16).timesteps_proj  # type: ignore[no-any-return]
    if name in ("stable-diffusion-1", "stable-diffusion-2", "sdxl", "sdxl-size"):
        from diffusers import UNet2DConditionModel

        defaults = inspect.signature(UNet2DConditionModel.__init__).parameters
        width = (
            256 if name == "sdxl-size" else 320
        )  # addition_time_embed_dim, block_out_channels[0]
        return embeddings.Timesteps(  # type: ignore[no-any-return]
            width, defaults["flip_sin_to_cos"].default, defaults["freq_shift"].default
        )
    assert name == "ddpm"
    function = embeddings.get_timestep_embedding
    defaults = inspect.signature(function).parameters

    class Defaults(torch.nn.Module):
        def forward(self, timesteps: torch.Tensor) -> torch.Tensor:
            return function(timesteps, 128)  # type: ignore[no-any-return]

    assert defaults["flip_sin_to_cos"].default is False
    return Defaults()


@pytest.mark.parametrize("name", sorted(pe.timestep_presets))
def test_preset_matches_diffusers(name: str) -> None:
    preset = pe.timestep_presets[name]
    library = _diffusers_module(name)
    timesteps = TIMESTEPS.astype(np.float32).astype(np.float64)  # what diffusers sees
    theirs = library(torch.from_numpy(timesteps).float()).numpy()
    ours = preset.embedding(timesteps)
    exact = reference(
        timesteps,
        preset.dim,
        flip=preset.flip_sin_to_cos,
        shift=preset.downscale_freq_shift,
        scale=preset.scale,
        period=preset.max_period,
    )
    assert theirs.shape == ours.shape == (len(timesteps), preset.dim)
    bound = library_bound(timesteps, preset.scale)
    assert (np.abs(theirs - ours) <= bound + EPS32).all(), name
    assert (np.abs(theirs - exact) <= bound).all(), name
    # pe is the closer of the two to the exact values, row by row.
    assert (np.abs(ours - exact).max(axis=1) <= np.abs(theirs - exact).max(axis=1) + EPS32).all()
    # and the row of t = 0, where every angle is exactly 0, is diffusers' own
    assert np.array_equal(ours[0], theirs[0])


@pytest.mark.parametrize("dim", [5, 17])
@pytest.mark.parametrize("settings", SETTINGS[:4], ids=lambda s: "-".join(map(str, s.values())))
def test_odd_widths_and_every_knob_match_get_timestep_embedding(
    dim: int, settings: dict[str, float]
) -> None:
    embeddings = require_diffusers()
    flip, shift, scale, period = settings.values()
    timesteps = TIMESTEPS / (1000.0 if scale == 1000.0 else 1.0)
    timesteps = timesteps.astype(np.float32).astype(np.float64)
    theirs = embeddings.get_timestep_embedding(
        torch.from_numpy(timesteps).float(),
        dim,
        flip_sin_to_cos=bool(flip),
        downscale_freq_shift=shift,
        scale=scale,
        max_period=period,
    ).numpy()
    ours = pe.timestep_embedding(
        timesteps,
        dim,
        flip_sin_to_cos=bool(flip),
        downscale_freq_shift=shift,
        scale=scale,
        max_period=period,
    )
    assert (np.abs(theirs - ours) <= library_bound(timesteps, scale) + EPS32).all()
    assert (theirs[:, -1] == 0).all()
    assert (ours[:, -1] == 0).all()


# ------------------------------------------------------------------ limits and odd input
def test_settings_past_float64_and_preset_names_of_the_wrong_type() -> None:
    """Each was a bare OverflowError, or 'unhashable type: list'."""
    for setting in ("scale", "downscale_freq_shift", "max_period"):
        # The keyword is chosen at run time, so mypy cannot match it to one parameter.
        too_small: dict[str, Any] = {setting: -(10**400)}
        too_large: dict[str, Any] = {setting: 10**400}
        with pytest.raises(ValueError, match=rf"{setting} must be .*401 digits"):
            pe.timestep_embedding([1.0], 8, **too_small)
        with pytest.raises(ValueError, match=rf"{setting} must be .*401 digits"):
            SinusoidalTimestepEmbedding(8, **too_large)
    with pytest.raises(ValueError, match=r"timesteps times scale must lie within \+-2\*\*31"):
        pe.timestep_embedding([1, 10**400], 8)  # numpy keeps the integer as an object
    for name in (["flux"], None, b"flux"):
        with pytest.raises(TypeError, match=r"name must be one of 'ddpm', .*; got"):
            SinusoidalTimestepEmbedding.from_preset(name)  # type: ignore[arg-type]


def test_meta_timesteps_give_a_meta_embedding() -> None:
    """Torch's 'item() cannot be called on meta tensors' came from the finite check."""
    timesteps = torch.zeros(3, 2, device="meta")
    for embed in (SinusoidalTimestepEmbedding(9), lambda t: functional.timestep_embedding(t, 9)):
        out = embed(timesteps)
        assert out.is_meta
        assert out.shape == (3, 2, 9)
        assert out.dtype == torch.float32
    with torch.device("meta"):
        built_on_meta = SinusoidalTimestepEmbedding(8, dtype=torch.float64)
    assert built_on_meta(timesteps).dtype == torch.float64
    moved = SinusoidalTimestepEmbedding(8).to("meta")
    assert moved.frequencies.is_meta
    back = moved.to_empty(device="cpu")
    expected = torch.from_numpy(reference(np.array([7.0]), 8)).float()
    assert (back(torch.tensor([7])) - expected).abs().max() <= EPS32


def test_huge_batches_of_timesteps_are_refused_before_anything_is_converted() -> None:
    """2**27 timesteps: numpy's float64 copy and torch's .double() came first (1 to 2 GiB)."""
    from allocation import headroom

    numpy_view = np.broadcast_to(np.float32(500.0), (2**28,))  # no memory of its own
    torch_view = torch.tensor([500]).expand(2**28)
    module = SinusoidalTimestepEmbedding(256)
    calls: list[Callable[[], object]] = [
        lambda: pe.timestep_embedding(numpy_view, 256),
        lambda: pe.timestep_presets["flux"].embedding(numpy_view),
        lambda: functional.timestep_embedding(torch_view, 256),
        lambda: module(torch_view),
    ]
    for call in calls:
        with headroom(), pytest.raises(ValueError, match=r"timesteps of shape \(268435456,\)"):
            call()
    with pytest.raises(ValueError, match="dim must be at most 16,777,216"):
        pe.timestep_embedding([1.0], 2**24 + 2)
