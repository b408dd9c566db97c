"""2-D sin-cos grids and their resampling: against MAE's algorithm, diffusers and timm.

Three references, each independent of `pe`:

* MAE (facebookresearch/mae, ``util/pos_embed.py``) is not on PyPI. `mae_table`
  below is written here from a reading of that file: a ``meshgrid`` of (w, h)
  whose first plane (the column coordinate) fills the first half of the
  columns, each half ``[sin | cos]`` with ``omega = 1 / 10000 ** (i / (D / 4))``,
  in float64, and a zero row for the class token.
* diffusers 0.42.1 (``get_2d_sincos_pos_embed``), imported.
* timm 1.0.31 is installed without its dependencies, so ``import timm`` fails
  (it needs torchvision). `load_timm` loads ``timm/layers/pos_embed_sincos.py``
  and ``pos_embed.py`` from the installed package with importlib, under stub
  parent packages whose ``__path__`` points at the installed folders, so that
  ``timm/__init__.py`` and ``timm/layers/__init__.py`` never run.

Tolerances: `pe` rounds float64 values once (within ``2**-24`` of the float64
reference). diffusers computes in float64 and rounds to float32 like `pe`, so it
must agree within one float32 unit. timm computes angles in float32: its
entries may differ by a few roundings of the angle, ``EPS32 * (2 + 4 * angle)``.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import os
from collections.abc import Callable, Iterator
from typing import Any, cast

import numpy as np
import pytest
import torch

import pe
from pe.nn import functional
from sitegen.timm_files import timm_files

EPS32 = 2.0**-24


def mae_table(
    size: int, dim: int, class_token: bool = False, dtype: type = np.float64
) -> np.ndarray:
    """MAE's 2-D table, written from the algorithm of util/pos_embed.py.

    MAE itself runs in float32 (``np.arange(..., dtype=np.float32)`` for the
    grid and the frequencies); ``dtype=np.float32`` follows it, float64 gives
    the exact values.
    """
    grid: np.ndarray = np.arange(size, dtype=dtype)
    w_plane, h_plane = np.meshgrid(grid, grid)  # the first plane varies along a row: x
    quarter = dim // 4
    omega: np.ndarray = np.arange(quarter, dtype=dtype)
    omega /= quarter
    omega = 1.0 / 10000**omega

    def one_axis(coordinates: np.ndarray) -> np.ndarray:
        angles = np.outer(coordinates.reshape(-1), omega)
        return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)

    table = np.concatenate([one_axis(w_plane), one_axis(h_plane)], axis=1)
    if class_token:
        table = np.concatenate([np.zeros((1, dim), dtype), table], axis=0)
    return table


def timm_table(height: int, width: int, dim: int, temperature: float) -> np.ndarray:
    """timm's default layout, from its docstring's description: sines of (y, x), then cosines."""
    quarter = dim // 4
    omega = temperature ** (-np.arange(quarter) / quarter)
    y = np.repeat(np.arange(height, dtype=float), width)[:, None] * omega
    x = np.tile(np.arange(width, dtype=float), height)[:, None] * omega
    return np.concatenate([np.sin(y), np.sin(x), np.cos(y), np.cos(x)], axis=1)


def require(module: str, package: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        message = f"{package} is not installed ({error}); `make test` installs it"
        if os.environ.get("CI"):
            pytest.fail(message + ", so CI must have it")
        pytest.skip(message)


@pytest.fixture
def load_timm() -> Iterator[tuple[Any, ...]]:
    """timm's pos_embed_sincos and pos_embed modules, loaded without timm/__init__.py."""
    try:
        with timm_files("layers.pos_embed_sincos", "layers.pos_embed") as modules:
            yield modules
    except ModuleNotFoundError as error:
        if error.name != "timm":
            raise
        message = "timm is not installed; `make test` installs it without dependencies"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


# ------------------------------------------------------------------ MAE
@pytest.mark.parametrize(("size", "dim"), [(1, 4), (2, 8), (14, 768), (16, 1024)])
@pytest.mark.parametrize("class_token", [False, True])
def test_mae_layout_is_mae_s_algorithm(size: int, dim: int, class_token: bool) -> None:
    expected = mae_table(size, dim, class_token)
    ours = pe.grid_sincos(size, dim, class_token=class_token)
    assert ours.shape == expected.shape
    assert ours.dtype == np.float32
    assert np.abs(ours - expected).max() <= EPS32
    wide = pe.grid_sincos(size, dim, class_token=class_token, dtype=np.float64)
    assert np.abs(wide - expected).max() <= 1e-13
    # MAE's own float32 arithmetic drifts by a few roundings of its largest angle
    mae32 = mae_table(size, dim, class_token, dtype=np.float32)
    assert mae32.dtype == np.float32
    assert np.abs(mae32 - expected).max() <= EPS32 * (2 + 4 * size)


def test_hand_values_of_a_two_by_three_grid() -> None:
    table = pe.grid_sincos((2, 3), 4, dtype=np.float64)  # one frequency, omega = 1
    # token 5 is row 1, column 2: MAE [sin x, cos x, sin y, cos y]
    assert table[5].tolist() == pytest.approx([np.sin(2), np.cos(2), np.sin(1), np.cos(1)])
    timm = pe.grid_sincos((2, 3), 4, layout="timm", dtype=np.float64)
    assert timm[5].tolist() == pytest.approx([np.sin(1), np.sin(2), np.cos(1), np.cos(2)])


def test_the_two_layouts_are_one_permutation_of_columns() -> None:
    mae = pe.grid_sincos((3, 5), 16)
    timm = pe.grid_sincos((3, 5), 16, layout="timm")
    q = 4
    # timm [sin y | sin x | cos y | cos x] from MAE [sin x | cos x | sin y | cos y]
    order = np.r_[2 * q : 3 * q, 0:q, 3 * q : 4 * q, q : 2 * q]
    assert np.array_equal(mae[:, order], timm)


# ------------------------------------------------------------------ diffusers
@pytest.mark.parametrize(("size", "dim"), [(2, 8), (14, 768), (32, 1152)])
def test_mae_layout_matches_diffusers(size: int, dim: int) -> None:
    embeddings = require("diffusers.models.embeddings", "diffusers")
    theirs = embeddings.get_2d_sincos_pos_embed(
        dim, size, cls_token=True, extra_tokens=1, base_size=size
    ).numpy()
    ours = pe.grid_sincos(size, dim, class_token=True)
    assert theirs.shape == ours.shape
    assert np.abs(theirs.astype(np.float64) - ours).max() <= 2 * EPS32


def test_diffusers_base_size_and_interpolation_scale_are_a_coordinate_scale() -> None:
    embeddings = require("diffusers.models.embeddings", "diffusers")
    # SD3's PatchEmbed: base_size = sample size / patch size, interpolation_scale = 1;
    # PixArt at 1024 px: grid 64, base_size 64, interpolation_scale 2.
    for size, base_size, interpolation in ((64, 64, 2.0), (32, 16, 1.0), (24, 16, 1.5)):
        theirs = embeddings.get_2d_sincos_pos_embed(
            1152, size, base_size=base_size, interpolation_scale=interpolation
        ).numpy()
        ours = pe.grid_sincos(size, 1152, scale=base_size / size / interpolation)
        largest_angle = size * base_size / size / interpolation
        assert np.abs(theirs - ours).max() <= EPS32 * (2 + 4 * largest_angle)


# ------------------------------------------------------------------ timm
@pytest.mark.parametrize(
    ("shape", "dim", "temperature"),
    [((2, 3), 8, 10000.0), ((14, 14), 768, 10000.0), ((7, 12), 64, 100.0)],
)
def test_timm_layout_matches_timm(
    load_timm: tuple[Any, Any], shape: tuple[int, int], dim: int, temperature: float
) -> None:
    sincos, _ = load_timm
    theirs = sincos.build_sincos2d_pos_embed(list(shape), dim=dim, temperature=temperature)
    ours = pe.grid_sincos(shape, dim, layout="timm", base=temperature)
    assert np.abs(ours - timm_table(*shape, dim, temperature)).max() <= EPS32
    bound = EPS32 * (2 + 4 * max(shape))
    assert np.abs(theirs.numpy() - ours).max() <= bound


def test_timm_flags_give_mae_s_columns_in_transposed_token_order(
    load_timm: tuple[Any, Any],
) -> None:
    sincos, _ = load_timm
    theirs = sincos.build_sincos2d_pos_embed(
        [4, 6], dim=32, reverse_coord=True, interleave_sin_cos=True
    ).numpy()
    # reverse_coord puts the column coordinate first, so tokens run column by column
    mae = pe.grid_sincos((4, 6), 32).reshape(4, 6, 32).transpose(1, 0, 2).reshape(24, 32)
    assert np.abs(theirs - mae).max() <= EPS32 * (2 + 4 * 6)


@pytest.mark.parametrize(
    ("old", "new", "prefix", "mode"),
    [
        ((14, 14), (16, 16), 1, "bicubic"),
        ((14, 14), (7, 7), 1, "bicubic"),
        ((8, 8), (12, 6), 0, "bilinear"),
        ((6, 9), (9, 6), 2, "bicubic"),
    ],
)
def test_resampling_matches_timm(
    load_timm: tuple[Any, Any],
    old: tuple[int, int],
    new: tuple[int, int],
    prefix: int,
    mode: str,
) -> None:
    _, pos_embed = load_timm
    torch.manual_seed(0)
    table = torch.randn(1, prefix + old[0] * old[1], 32)
    theirs = pos_embed.resample_abs_pos_embed(
        table, list(new), old_size=list(old), num_prefix_tokens=prefix, interpolation=mode
    )
    ours = functional.resample_grid_embedding(
        table, new, old_size=old, prefix_tokens=prefix, mode=mode
    )
    assert torch.equal(ours, theirs)
    assert torch.equal(
        functional.resample_grid_embedding(
            table[0], new, old_size=old, prefix_tokens=prefix, mode=mode
        ),
        theirs[0],
    )


def test_torch_table_is_the_numpy_table() -> None:
    table = functional.grid_sincos((5, 7), 64, layout="timm", class_token=True)
    assert table.dtype == torch.float32
    assert np.array_equal(
        table.numpy(), pe.grid_sincos((5, 7), 64, layout="timm", class_token=True)
    )
    assert functional.grid_sincos(4, 8, dtype=torch.float64).dtype == torch.float64


def test_resampling_compiles() -> None:
    table = functional.grid_sincos(6, 32, class_token=True)
    eager = functional.resample_grid_embedding(table, (8, 8))
    torch._dynamo.reset()
    compiled = torch.compile(
        lambda t: functional.resample_grid_embedding(t, (8, 8)), fullgraph=True, backend="eager"
    )
    assert torch.equal(compiled(table), eager)


# ------------------------------------------------------------------ errors
WRONG: Any = 2.5
WRONG_FLAG: Any = 1


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: pe.grid_sincos(4, 6), ValueError, "dim must be a positive multiple of 4"),
        (lambda: pe.grid_sincos(4, WRONG), TypeError, "dim must be"),
        (lambda: pe.grid_sincos((4, 0), 8), ValueError, r"grid must be a positive .* got \(4, 0\)"),
        (lambda: pe.grid_sincos((4, 4, 4), 8), TypeError, "grid must be"),
        (lambda: pe.grid_sincos(WRONG, 8), TypeError, "grid must be"),
        (
            lambda: pe.grid_sincos(4, 8, layout="vit"),  # type: ignore[arg-type]  # wrong on purpose
            ValueError,
            "layout must be one of",
        ),
        (lambda: pe.grid_sincos(4, 8, layout=WRONG), TypeError, "layout must be one of"),
        (
            lambda: pe.grid_sincos(4, 8, scale=0),
            ValueError,
            "scale must be a finite real number > 0",
        ),
        (lambda: pe.grid_sincos(4, 8, scale="1"), TypeError, "scale must be"),
        (lambda: pe.grid_sincos(4, 8, base=1), ValueError, "base"),
        (lambda: pe.grid_sincos(4, 8, class_token=WRONG_FLAG), TypeError, "class_token"),
        (
            lambda: functional.resample_grid_embedding(torch.zeros(1, 51, 8), 8),
            ValueError,
            "not a square grid",
        ),
        (
            lambda: functional.resample_grid_embedding(torch.zeros(1, 50, 8), 8, old_size=(7, 8)),
            ValueError,
            "holds 56 tokens",
        ),
        (
            lambda: functional.resample_grid_embedding(torch.zeros(50, 8, dtype=torch.long), 8),
            TypeError,
            "floating-point",
        ),
        (
            lambda: functional.resample_grid_embedding(torch.zeros(8), 8),
            ValueError,
            "shape",
        ),
        (
            lambda: functional.resample_grid_embedding(torch.zeros(17, 8), 4, mode="cubic"),
            ValueError,
            "mode must be one of",
        ),
    ],
)
def test_bad_input_names_the_parameter(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


# ------------------------------------------------------------------ the module
def test_module_adds_the_table_and_keeps_it_float32() -> None:
    from pe.nn import GridSinCosEmbedding

    module = GridSinCosEmbedding((3, 4), 16, layout="timm", class_token=True)
    x = torch.randn(2, 13, 16)
    table = torch.from_numpy(pe.grid_sincos((3, 4), 16, layout="timm", class_token=True))
    assert torch.equal(module(x), x + table)
    assert module.state_dict() == {}
    assert module.double().table.dtype == torch.float32
    assert module(x.double()).dtype == torch.float64
    with pytest.raises(ValueError, match=r"\(\.\.\., 13, 16\) for a 3 x 4 grid plus a class token"):
        module(torch.zeros(2, 12, 16))
    with pytest.raises(TypeError, match="floating-point"):
        module(torch.zeros(2, 13, 16, dtype=torch.long))


def test_module_on_the_meta_device_and_back() -> None:
    """A meta input gives a meta output; ``to_empty`` after ``to("meta")`` rebuilds the table."""
    from pe.nn import GridSinCosEmbedding

    module = GridSinCosEmbedding((2, 3), 8, class_token=True)
    out = module(torch.zeros(5, 7, 8, device="meta"))
    assert out.is_meta
    assert out.shape == (5, 7, 8)
    restored = module.to("meta").to_empty(device="cpu")
    assert torch.equal(
        restored.table, torch.from_numpy(pe.grid_sincos((2, 3), 8, class_token=True))
    )
    assert restored.table.dtype == torch.float32
    x = torch.randn(7, 8)
    assert torch.equal(restored(x), x + restored.table)


# ------------------------------------------------------------------ limits and odd input
def test_a_coordinate_past_the_largest_position_is_refused_not_nan() -> None:
    """``scale=1e308`` put the last row at 2e308 = inf in float64: a table of NaNs."""
    with pytest.raises(
        ValueError, match=r"scale times the last row .* got scale \(1e\+308, 1e\+308\) for grid"
    ):
        pe.grid_sincos(3, 8, scale=1e308)
    for scale in (10**400, (1.0, 10**400)):  # was a bare OverflowError
        with pytest.raises(ValueError, match=r"scale must be a finite real number > 0; .*401 dig"):
            pe.grid_coordinates(3, scale=scale)
    # The last index times the scale may reach 2**31 - 1, and not pass it.
    rows, columns = pe.grid_coordinates((2, 3), scale=(2**31 - 1, 0.5))
    assert rows.tolist() == [0, 0, 0, 2**31 - 1, 2**31 - 1, 2**31 - 1]
    assert columns.tolist() == [0, 0.5, 1, 0, 0.5, 1]
    with pytest.raises(ValueError, match=r"last row and column indices are \(1, 2\)"):
        pe.grid_coordinates((2, 3), scale=(2.0**31, 0.5))
    # At that coordinate the table is the float64 formula, written here with math.
    table = pe.grid_sincos((2, 1), 8, scale=2**31 - 1, dtype=np.float64)
    y = 2**31 - 1
    expected = [0, 0, 1, 1, math.sin(y), math.sin(y * 0.01), math.cos(y), math.cos(y * 0.01)]
    np.testing.assert_allclose(table[1], expected, rtol=0, atol=1e-12)


def test_choices_and_flags_must_be_strings_and_booleans() -> None:
    """An array was compared element by element: a table, or numpy's 'ambiguous' error."""
    from pe.nn import GridSinCosEmbedding

    not_strings: tuple[Any, ...] = (np.array(["mae"]), np.array(["mae", "timm"]), ["mae"])
    for layout in not_strings:
        with pytest.raises(TypeError, match="layout must be one of 'mae', 'timm'"):
            pe.grid_sincos(4, 8, layout=layout)
        with pytest.raises(TypeError, match="layout must be one of 'mae', 'timm'"):
            GridSinCosEmbedding(4, 8, layout=layout)
    table = functional.grid_sincos(4, 8, class_token=True)
    not_booleans: tuple[Any, ...] = ("no", np.array([True, False]), 1)
    for antialias in not_booleans:  # 'no' was read as True
        with pytest.raises(TypeError, match="antialias must be True or False"):
            functional.resample_grid_embedding(table, 6, antialias=antialias)
    two_modes: Any = np.array(["bilinear", "area"])
    with pytest.raises(TypeError, match="mode must be one of"):
        functional.resample_grid_embedding(table, 6, mode=two_modes)
    plain = functional.resample_grid_embedding(table, 6, mode="bilinear", antialias=False)
    # numpy's False is read as False; the annotation names only Python's bool.
    numpy_false = cast(bool, np.False_)
    same = functional.resample_grid_embedding(table, 6, mode="bilinear", antialias=numpy_false)
    assert torch.equal(plain, same)
    expected = torch.nn.functional.interpolate(
        table[1:].reshape(1, 4, 4, 8).permute(0, 3, 1, 2), size=(6, 6), mode="bilinear"
    )
    assert torch.equal(plain[1:], expected.permute(0, 2, 3, 1).reshape(36, 8))


@pytest.mark.parametrize(
    ("shape", "prefix", "words"),
    [
        ((1, 1, 8), 1, r"table has 1 tokens, none left for the grid after prefix_tokens=1"),
        ((1, 8), 1, r"none left for the grid"),
        ((3, 8), 5, r"table has 3 tokens, none left for the grid after prefix_tokens=5"),
        ((5, 0), 1, r"table must have at least one column; got shape \(5, 0\)"),
    ],
)
def test_resampling_a_table_without_a_grid_names_the_table(
    shape: tuple[int, ...], prefix: int, words: str
) -> None:
    """These were torch's reshape and interpolate errors."""
    with pytest.raises(ValueError, match=words):
        functional.resample_grid_embedding(torch.zeros(shape), 4, prefix_tokens=prefix)


def test_resampling_an_empty_batch_gives_an_empty_batch() -> None:
    table = torch.zeros(0, 17, 8, dtype=torch.float64)
    out = functional.resample_grid_embedding(table, (2, 3))
    assert out.shape == (0, 7, 8)
    assert out.dtype == torch.float64


def test_huge_grids_are_refused_before_anything_is_built() -> None:
    """Each asked for 4 to 80 GiB; the ValueError comes before numpy or torch allocates."""
    from allocation import headroom

    from pe.nn import GridSinCosEmbedding

    calls: list[tuple[Callable[[], object], str]] = [
        (lambda: pe.grid_sincos(2**16, 4), r"the table of grid \(65536, 65536\) with dim 4"),
        (lambda: pe.grid_coordinates(2**16), r"the coordinates of grid \(65536, 65536\)"),
        (lambda: pe.grid_sincos(1, 2**28), r"dim must be at most 16,777,216"),
        (lambda: functional.grid_sincos((2**15, 2**16), 4), r"grid \(32768, 65536\)"),
        (lambda: GridSinCosEmbedding(2**16, 4), r"grid \(65536, 65536\)"),
        (
            lambda: functional.resample_grid_embedding(torch.zeros(17, 8), (10**5, 10**5)),
            r"resampled to new_size \(100000, 100000\)",
        ),
    ]
    for call, words in calls:
        with headroom(), pytest.raises(ValueError, match=words):
            call()
    with headroom():  # a meta table has a shape and no values: nothing is built
        meta = functional.grid_sincos((2**14, 2**14), 8, device="meta")
    assert meta.is_meta
    assert meta.shape == (2**28, 8)
    with pytest.raises(ValueError, match="device"):
        functional.grid_sincos(2, 8, device="nowhere")
