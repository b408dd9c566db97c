"""pe.identify: round trips, the real libraries, planted bugs, random input and bad input.

The buggy tables and the MAE and timm grids are written here from the papers'
and the libraries' formulas (float64 numpy or float32 torch, as each library
computes), not with pe's own code; the round trips use pe's generators on
purpose (identify(generate(x)) must name x).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pe
from pe.__main__ import main

D = 64
ROWS = 256


def same_or_named(found: Any, name: str) -> bool:
    """Whether `found` names `name`, or lists it as the same table to rounding."""
    return found.recognised and (
        found.name == name or name in found.parameters.get("same_table", [])
    )


# ---------------------------------------------------------------- round trips
@pytest.mark.parametrize("name", list(pe.conventions))
def test_every_convention_is_named_with_its_parameters(name: str) -> None:
    convention = pe.conventions[name]
    for width in (D, 37):
        try:
            table = convention.table(ROWS, width)
        except ValueError:
            continue  # a width the library refuses
        if table.shape[1] != width:
            continue  # tf_tutorial's odd widths return one more column
        found = pe.identify(table)
        assert same_or_named(found, name), (width, str(found))
        # the parameters found rebuild the table (a convention with the same values,
        # e.g. tf_tutorial's i/(d/2) is marian's 2i/d for an even width, may be named)
        named = replace(pe.conventions[found.name], base=found.parameters["base"])
        rebuilt = named.table(ROWS, width, emulate=False)
        assert np.abs(rebuilt - table).max() < 1e-4
        assert found.parameters["first_position"] == 0
        assert found.residual < 1e-6


def test_a_convention_s_encode_names_its_first_position_and_padding_row() -> None:
    fairseq = pe.conventions["fairseq"]
    found = pe.identify(fairseq.encode(100, D))
    assert found.parameters["first_position"] == 2
    assert same_or_named(found, "fairseq")
    weights = pe.identify(fairseq.table(100, D))  # rows 0.. with row 1 the padding row
    assert weights.parameters["zero_rows"] == [1]
    assert same_or_named(weights, "fairseq")


@pytest.mark.parametrize("base", [500.0, 10000.0, 1e6])
def test_another_base_is_named_with_it(base: float) -> None:
    found = pe.identify(pe.sinusoidal(ROWS, D, base=base))
    assert found.recognised
    assert found.name == "paper"
    assert found.parameters["base"] == base


def test_shapes_libraries_produce_are_read() -> None:
    table = pe.sinusoidal(ROWS, D)
    batch = pe.identify(table[None])
    sequence_first = pe.identify(table[:, None, :])
    transposed = pe.identify(table.T.copy())
    for found in (batch, sequence_first, transposed):
        assert found.recognised, str(found)
        assert found.name == "paper"
    assert "sequence-first" in " ".join(sequence_first.lines)
    assert "transposed" in " ".join(transposed.lines)


def test_torch_tables_are_read_without_changing_them() -> None:
    torch = pytest.importorskip("torch")
    table = torch.from_numpy(pe.conventions["musicgen"].table(ROWS, D))
    assert pe.identify(table).name == "musicgen"
    assert pe.identify(table.to(torch.bfloat16)).name == "musicgen"  # rounding only


@pytest.mark.parametrize("name", list(pe.timestep_presets))
def test_every_timestep_preset_is_named(name: str) -> None:
    preset = pe.timestep_presets[name]
    found = pe.identify(
        lambda t, dim: pe.timestep_embedding(t, dim, **preset.settings()), kind="timestep"
    )
    assert found.recognised
    assert name in found.parameters["presets"]
    for key, value in preset.settings().items():
        assert found.parameters[key] == value


@pytest.mark.parametrize("layout", ["mae", "timm"])
@pytest.mark.parametrize(
    ("grid", "class_token", "base"), [((14, 14), True, 10000.0), ((3, 5), False, 100.0)]
)
def test_every_grid_layout_is_named(
    layout: str, grid: tuple[int, int], class_token: bool, base: float
) -> None:
    table = pe.grid_sincos(grid, 32, layout=layout, class_token=class_token, base=base)  # type: ignore[arg-type]
    found = pe.identify(table)
    assert found.kind == "grid"
    assert found.recognised
    assert found.name == layout
    assert found.parameters["grid"] == list(grid)
    assert found.parameters["class_token"] is class_token
    assert found.parameters["base"] == base


def test_a_grid_s_scale_is_read() -> None:
    found = pe.identify_grid(pe.grid_sincos((6, 4), 16, scale=(0.5, 0.25)))
    assert found.recognised
    assert found.parameters["scale"] == [0.5, 0.25]


# ---------------------------------------------------------------- real libraries
def test_diffusers_get_timestep_embedding_settings() -> None:
    pytest.importorskip("torch")
    embeddings = pytest.importorskip("diffusers.models.embeddings")
    function = embeddings.get_timestep_embedding
    settings: list[dict[str, Any]] = [
        {},  # DDPM's defaults
        {"flip_sin_to_cos": True, "downscale_freq_shift": 0},  # Stable Diffusion's UNet
        {"flip_sin_to_cos": True, "downscale_freq_shift": 0, "scale": 1000},  # a flow model
        {"downscale_freq_shift": 0.5, "max_period": 500},
    ]
    expected: list[dict[str, Any]] = [
        {"flip_sin_to_cos": False, "downscale_freq_shift": 1, "scale": 1, "max_period": 10000},
        {"flip_sin_to_cos": True, "downscale_freq_shift": 0, "scale": 1, "max_period": 10000},
        {"flip_sin_to_cos": True, "downscale_freq_shift": 0, "scale": 1000, "max_period": 10000},
        {"flip_sin_to_cos": False, "downscale_freq_shift": 0.5, "scale": 1, "max_period": 500},
    ]
    for keywords, wanted in zip(settings, expected, strict=True):
        found = pe.identify(lambda t, dim, k=keywords: function(t, dim, **k), kind="timestep")
        assert found.recognised, str(found)
        assert {key: found.parameters[key] for key in wanted} == wanted
    assert "ddpm" in pe.identify(function).parameters["presets"]  # tried without kind
    sd = pe.identify(embeddings.Timesteps(320, True, 0))  # a module of fixed width
    assert "stable-diffusion-1" in sd.parameters["presets"]


def mae_table(height: int, width: int, dim: int, class_token: bool) -> np.ndarray:
    """MAE's util/pos_embed.py: float64 numpy, half the width per axis, the column first."""

    def one_axis(coordinates: np.ndarray, size: int) -> np.ndarray:
        omega = 1.0 / 10000 ** (np.arange(size // 2, dtype=np.float64) / (size / 2.0))
        angles = np.einsum("m,d->md", coordinates.reshape(-1), omega)
        return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)

    columns, rows = np.meshgrid(np.arange(width, dtype=np.float64), np.arange(height))
    table = np.concatenate([one_axis(columns, dim // 2), one_axis(rows, dim // 2)], axis=1)
    if class_token:
        table = np.concatenate([np.zeros((1, dim)), table], axis=0)
    return table.astype(np.float32)


def timm_float32_table(height: int, width: int, dim: int, temperature: float) -> np.ndarray:
    """timm's build_sincos2d_pos_embed defaults: float32, [sin y | sin x | cos y | cos x]."""
    quarter = dim // 4
    omega = (1.0 / temperature ** (np.arange(quarter, dtype=np.float32) / quarter)).astype(
        np.float32
    )
    y, x = np.meshgrid(np.arange(height, dtype=np.float32), np.arange(width, dtype=np.float32))
    y, x = y.T.reshape(-1, 1) * omega, x.T.reshape(-1, 1) * omega
    return np.concatenate([np.sin(y), np.sin(x), np.cos(y), np.cos(x)], axis=1)


def test_mae_and_timm_grids_written_from_their_formulas() -> None:
    mae = pe.identify(mae_table(7, 9, 48, class_token=True))
    assert (mae.name, mae.parameters["grid"], mae.parameters["class_token"]) == (
        "mae",
        [7, 9],
        True,
    )
    timm = pe.identify(timm_float32_table(8, 5, 64, 100.0))
    assert timm.recognised
    assert timm.name == "timm"
    assert (timm.parameters["grid"], timm.parameters["base"]) == ([8, 5], 100.0)


@pytest.fixture
def timm_sincos() -> Iterator[Any]:
    pytest.importorskip("torch")
    from sitegen.timm_files import timm_files

    try:
        with timm_files("layers.pos_embed_sincos") as (module,):
            yield module
    except ModuleNotFoundError as error:
        if error.name != "timm" or os.environ.get("CI"):
            raise
        pytest.skip("timm is not installed; `make test` installs it without dependencies")


def test_timm_s_own_grids(timm_sincos: Any) -> None:
    table = timm_sincos.build_sincos2d_pos_embed([6, 10], dim=32, temperature=10000.0)
    found = pe.identify(table)
    assert (found.name, found.parameters["grid"]) == ("timm", [6, 10])
    flagged = timm_sincos.build_sincos2d_pos_embed(
        [6, 10], dim=32, reverse_coord=True, interleave_sin_cos=True
    )
    assert not pe.identify(flagged, kind="grid").recognised  # not a layout pe has


# ---------------------------------------------------------------- planted bugs
def interleaved(angles: np.ndarray) -> np.ndarray:
    """The paper's layout: sin of pair i in column 2i, cos in 2i + 1."""
    table: np.ndarray = np.empty((angles.shape[0], 2 * angles.shape[1]))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    return table


def paper_rates(d_model: int, base: float = 10000.0) -> np.ndarray:
    return base ** (-np.arange(0, d_model, 2) / d_model)


POSITIONS = np.arange(ROWS, dtype=np.float64)[:, None]


def test_halves_swapped_are_named_column_by_column() -> None:
    angles = POSITIONS * base_rates_fairseq(D)
    swapped = np.concatenate([np.cos(angles), np.sin(angles)], axis=1)  # musicgen's layout
    assert pe.identify(swapped).name == "musicgen"
    cos_first = np.arange(D).reshape(-1, 2)[:, ::-1].reshape(-1)
    found = pe.identify(interleaved(POSITIONS * paper_rates(D))[:, cos_first])
    assert not found.recognised
    assert found.bugs == ("layout",)
    assert "columns 0, 2, 4" in " ".join(found.lines)
    assert "hold cos where paper has sin" in " ".join(found.lines)


def base_rates_fairseq(d_model: int) -> np.ndarray:
    """fairseq's rates: exp(-i log(10000) / (d/2 - 1))."""
    rates: np.ndarray = np.exp(np.arange(d_model // 2) * -(math.log(10000.0) / (d_model // 2 - 1)))
    return rates


def test_the_off_by_one_divisor() -> None:
    found = pe.identify(interleaved(POSITIONS * base_rates_fairseq(D)))
    assert not found.recognised
    assert found.bugs == ("off_by_one_divisor",)
    assert "off-by-one divisor" in found.name


def test_positions_offset_by_one() -> None:
    found = pe.identify(interleaved((POSITIONS + 1) * paper_rates(D)))
    assert found.parameters["first_position"] == 1
    assert found.recognised  # a table of positions 1, 2, ... is still the paper's


def test_low_precision_angles_are_named_with_their_dtype() -> None:
    torch = pytest.importorskip("torch")
    positions = torch.arange(1024)
    for dtype, name in ((torch.float16, "float16"), (torch.bfloat16, "bfloat16")):
        rates = torch.from_numpy(paper_rates(D)).to(dtype)
        angles = (positions.to(dtype)[:, None] * rates[None, :]).float()
        found = pe.identify(interleaved(angles.double().numpy()))
        assert not found.recognised
        assert found.bugs == ("low_precision",)
        assert found.parameters["bug"] == f"{name} angles"
        assert f"angles computed in {name}" in " ".join(found.lines)
    float32 = (positions.float()[:, None] * torch.from_numpy(paper_rates(D)).float()).double()
    assert pe.identify(interleaved(float32.numpy())).recognised  # float32 is rounding


def test_common_mistakes_tables() -> None:
    columns = np.arange(D)
    per_column = POSITIONS / 10000.0 ** (columns / D)
    found = pe.identify(np.where(columns % 2 == 0, np.sin(per_column), np.cos(per_column)))
    assert found.bugs == ("exponent_per_column",)
    multiplied = pe.identify(interleaved(POSITIONS * 10000.0 ** (np.arange(0, D, 2) / D)))
    assert multiplied.bugs == ("multiplied_divisor",)
    i_for_2i = pe.identify(interleaved(POSITIONS / 10000.0 ** (np.arange(D // 2) / D)))
    assert i_for_2i.bugs == ("i_instead_of_2i",)
    assert i_for_2i.residual > 0.5  # measured against the paper at base 10000


def test_random_input_is_unrecognised_with_its_residual() -> None:
    rng = np.random.default_rng(0)
    table = pe.identify(rng.normal(size=(ROWS, D)))
    assert not table.recognised
    assert table.name.startswith("closest: ")
    assert table.residual > 1
    function = pe.identify(lambda t, dim: rng.normal(size=(len(t), dim)), kind="timestep")
    assert not function.recognised
    assert function.residual > 1
    grid = pe.identify(rng.normal(size=(64, 32)), kind="grid")
    assert not grid.recognised
    assert grid.residual > 1


# ---------------------------------------------------------------- bad input
def raises_inside(t: Any, dim: int) -> Any:
    raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: pe.identify(np.zeros((3, 8))), ValueError, r"table .* at least 4 positions"),
        (lambda: pe.identify(np.zeros((2, 3, 8))), ValueError, r"table must have shape"),
        (lambda: pe.identify(np.arange(64).reshape(8, 8)), TypeError, r"table .* dtype int64"),
        (lambda: pe.identify(np.full((8, 8), np.nan)), ValueError, r"table must be finite"),
        (lambda: pe.identify(np.zeros((8, 8)), kind="table"), ValueError, r"kind must be one"),
        (lambda: pe.identify("table.npy"), TypeError, r"obj must be"),
        (lambda: pe.identify(raises_inside), ValueError, r"raises_inside.* RuntimeError: boom"),
        (
            lambda: pe.identify_timestep(lambda t, dim: np.zeros((3, dim))),
            ValueError,
            r"one row per timestep",
        ),
        (
            lambda: pe.identify_timestep(3),  # type: ignore[arg-type]  # wrong on purpose
            TypeError,
            r"function must be callable",
        ),
        (lambda: pe.identify_grid(np.zeros((4, 8)), grid=(2, 0)), TypeError, r"grid must be"),
    ],
)
def test_bad_input_is_refused_by_name(call: Callable[[], Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_a_large_table_is_read_only_as_far_as_the_probe_needs() -> None:
    from pe._identify_common import MAX_PROBE_ELEMENTS

    rows = MAX_PROBE_ELEMENTS // 32 + 100
    found = pe.identify_table(pe.sinusoidal(rows, 32))
    assert found.recognised
    assert f"rows 0-{MAX_PROBE_ELEMENTS // 32 - 1} of {rows} were compared" in found.lines[0]


# ---------------------------------------------------------------- the report and the CLI
def test_the_report_is_json_and_words() -> None:
    found = pe.identify(pe.conventions["whisper"].table(ROWS, D))
    data = json.loads(json.dumps(found.as_dict()))
    assert set(data) >= {"recognised", "name", "parameters", "lines", "residual", "bugs"}
    shown = str(found).splitlines()
    assert max(len(line) for line in shown[1:]) <= 88
    assert " ".join(" ".join(shown[1:]).split()) == " ".join(" ".join(found.lines).split())


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    torch = pytest.importorskip("torch")
    safetensors = pytest.importorskip("safetensors.numpy")
    np.save(tmp_path / "t.npy", pe.conventions["musicgen"].table(ROWS, D))
    torch.save(
        {"pe": torch.from_numpy(pe.grid_sincos(14, 64, class_token=True))}, tmp_path / "t.pt"
    )
    safetensors.save_file(
        {"table": pe.sinusoidal(ROWS, 32), "other": np.zeros(3, np.float32)},
        str(tmp_path / "t.safetensors"),
    )
    assert main(["identify", str(tmp_path / "t.npy")]) == 0
    assert capsys.readouterr().out.startswith("musicgen (sinusoid, recognised")
    assert main(["identify", str(tmp_path / "t.pt"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["parameters"]["grid"] == [14, 14]
    assert main(["identify", str(tmp_path / "t.safetensors"), "--tensor", "table"]) == 0
    assert capsys.readouterr().out.startswith("paper ")
    assert main(["identify", str(tmp_path / "t.safetensors")]) == 1
    assert "name one with --tensor" in capsys.readouterr().err
    assert main(["identify", "pe:timestep_embedding", "--kind", "timestep"]) == 0
    assert "presets with these settings: ddpm" in capsys.readouterr().out


def test_a_huge_table_is_probed_not_copied() -> None:
    """2**38 rows of 4 (a broadcast view: 4 TiB if copied) are read row by row, and
    never read transposed (rows as widths), which copied every row first."""
    huge = np.broadcast_to(np.float32(0.5), (2**38, 4))
    found = pe.identify(huge)
    assert not found.recognised


@pytest.mark.parametrize("kind", ["sinusoid", "grid"])
def test_a_table_wider_than_a_probe_is_refused_before_it_is_read(kind: str) -> None:
    """2**30 columns (a broadcast view): four rows of it were 32 GiB as float64."""
    wide = np.broadcast_to(np.float32(0.25), (50, 2**30))
    with pytest.raises(ValueError, match=r"table has 1073741824 columns.*up to 65536 columns"):
        pe.identify(wide, kind=kind)
