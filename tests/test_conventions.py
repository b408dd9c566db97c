"""Named conventions: against formulas written here, and against the libraries themselves.

The library tests import the real packages (transformers, keras-hub with the torch
backend, positional-encodings), which `make test` installs. Without them the tests
are skipped with the reason, except in CI, where a missing package fails the run.
Conventions whose library cannot be run here are skipped with the reason why.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import os
import re
import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

import pe
from pe._table import FLOAT32_BOUND

if TYPE_CHECKING:
    import torch

os.environ.setdefault("KERAS_BACKEND", "torch")

BASE = 10000.0
EPS32 = 2.0**-24


# ------------------------------------------------------------------ the formulas
def columns_of(name: str, d: int) -> list[tuple[str, float]]:
    """(function, frequency) of every column, written from each library's source."""
    half = d // 2
    if name in ("paper", "distilbert", "keras_hub", "tf_docs_tutorial"):
        return [("sin" if j % 2 == 0 else "cos", BASE ** (-2 * (j // 2) / d)) for j in range(d)]
    if name == "positional_encodings":
        c = 2 * math.ceil(d / 2)
        return [("sin" if j % 2 == 0 else "cos", BASE ** (-2 * (j // 2) / c)) for j in range(d)]
    if name in ("fairseq", "m2m100", "whisper", "tensor2tensor", "flax", "musicgen"):
        step = half - 1 if name != "tensor2tensor" else max(half - 1, 1)
        rates = [BASE ** (-i / step) for i in range(half)]
        sines, cosines = [("sin", r) for r in rates], [("cos", r) for r in rates]
        halves = cosines + sines if name == "musicgen" else sines + cosines
        return halves + [("zero", 0.0)] * (d % 2)
    if name == "marian":
        sine_rates = [BASE ** (-2 * k / d) for k in range((d + 1) // 2)]
        cosine_rates = [BASE ** (-2 * k / d) for k in range(d // 2)]
        return [("sin", r) for r in sine_rates] + [("cos", r) for r in cosine_rates]
    if name == "tf_tutorial":
        pairs = math.ceil(d / 2)
        rates = [BASE ** (-k / (d / 2)) for k in range(pairs)]
        return [("sin", r) for r in rates] + [("cos", r) for r in rates]
    raise AssertionError(name)


def expected_table(name: str, positions: np.ndarray, d: int) -> np.ndarray:
    table = np.zeros((positions.size, len(columns_of(name, d))))
    for column, (kind, rate) in enumerate(columns_of(name, d)):
        if kind != "zero":
            function = np.sin if kind == "sin" else np.cos
            table[:, column] = function(positions * rate)
    if name in ("fairseq", "m2m100"):
        table[positions == 1] = 0.0  # the padding row
    return table


WIDTHS = {
    "paper": (1, 2, 8, 64),
    "tensor2tensor": (1, 2, 3, 8, 63),
    "fairseq": (1, 4, 7, 64),
    "m2m100": (1, 4, 9, 64),
    "tf_docs_tutorial": (1, 5, 64),
    "musicgen": (1, 4, 7, 64),
    "flax": (1, 4, 7, 64),
    "marian": (1, 5, 64),
    "distilbert": (1, 5, 64),
    "whisper": (4, 8, 64),
    "keras_hub": (1, 5, 64),
    "tf_tutorial": (2, 7, 64),
    "positional_encodings": (1, 7, 64),
}


def test_every_convention_is_covered() -> None:
    assert set(WIDTHS) == set(pe.conventions)


@pytest.mark.parametrize("name", sorted(WIDTHS))
def test_exact_mode_matches_the_formula(name: str) -> None:
    convention = pe.conventions[name]
    positions = np.arange(0, 3000, 7)
    for d in WIDTHS[name]:
        got = convention.table(positions, d, emulate=False)
        np.testing.assert_allclose(got, expected_table(name, positions, d), rtol=0, atol=EPS32)
        ours, theirs = convention.columns(d), columns_of(name, d)
        assert [kind for kind, _ in ours] == [kind for kind, _ in theirs]
        np.testing.assert_allclose([r for _, r in ours], [r for _, r in theirs], rtol=1e-12)


@pytest.mark.parametrize("name", sorted(WIDTHS))
def test_emulated_mode_stays_within_the_libraries_own_rounding(name: str) -> None:
    convention = pe.conventions[name]
    positions = np.arange(0, 3000, 7)
    for d in WIDTHS[name]:
        got = convention.table(positions, d)
        # A float32 library rounds its angles: the error grows with the angle.
        tolerance = 4 * EPS32 * (1 + positions.max())
        assert np.abs(got - expected_table(name, positions, d)).max() <= tolerance


def test_paper_convention_is_pe_sinusoidal() -> None:
    got = pe.conventions["paper"].table(2048, 64, emulate=False)
    np.testing.assert_allclose(got, pe.sinusoidal(2048, 64), rtol=0, atol=FLOAT32_BOUND + EPS32)


def test_first_positions_and_padding_rows() -> None:
    fairseq = pe.conventions["fairseq"]
    assert np.all(fairseq.table([1], 8) == 0)
    np.testing.assert_array_equal(fairseq.encode(5, 8), fairseq.table(np.arange(2, 7), 8))
    np.testing.assert_array_equal(fairseq.encode(3, 8, start=10), fairseq.table([12, 13, 14], 8))
    keras = pe.conventions["keras_hub"]
    np.testing.assert_array_equal(keras.encode(4, 6, start=3), keras.table([3, 4, 5, 6], 6))


@pytest.mark.parametrize(
    ("name", "d_model", "pattern"),
    [
        ("paper", 7, "1 or an even integer >= 2 for the paper convention"),
        ("whisper", 9, "even integer >= 4 for the whisper convention"),
        ("whisper", 2, "even integer >= 4"),
        ("fairseq", 3, "1 or at least 4 for the fairseq convention"),
        ("m2m100", 2, "1 or at least 4 for the m2m100 convention"),
        ("musicgen", 2, "1 or at least 4 for the musicgen convention"),
        ("flax", 3, "1 or at least 4 for the flax convention"),
    ],
)
def test_widths_a_library_cannot_build_are_refused(name: str, d_model: int, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        pe.conventions[name].table(4, d_model)


def test_widths_odd_quirks() -> None:
    assert pe.conventions["tf_tutorial"].table(2, 7).shape == (2, 8)
    assert pe.conventions["fairseq"].table(3, 7)[:, -1].tolist() == [0, 0, 0]
    assert [k for k, _ in pe.conventions["positional_encodings"].columns(5)][-1] == "sin"


def test_lookup_errors() -> None:
    with pytest.raises(KeyError, match=r"no convention named 'gpt'; the names are .*paper"):
        pe.conventions["gpt"]
    assert pe.conventions.get("gpt") is None
    assert "gpt" not in pe.conventions
    with pytest.raises(ValueError, match=r"convention must be one of .*paper.*; got .gpt."):
        pe.convert_layout(np.zeros((2, 8)), "gpt", "paper")
    with pytest.raises(TypeError, match="d_model must be a positive integer"):
        pe.conventions["paper"].table(4, 8.0)  # type: ignore[arg-type]  # wrong on purpose
    with pytest.raises(TypeError, match="positions must hold integers"):
        pe.conventions["paper"].table(np.array([0.5]), 8)


def test_conventions_is_one_read_only_mapping() -> None:
    assert list(pe.conventions) == [c.name for c in pe.conventions.values()]
    assert pe.conventions["paper"].layout == "interleaved"
    with pytest.raises(TypeError):
        pe.conventions["gpt"] = pe.conventions["paper"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("name", "base"), [("paper", 500.0), ("whisper", 1e5), ("marian", 7.5), ("keras_hub", 42.0)]
)
def test_recipes_read_their_own_base(name: str, base: float) -> None:
    # Another base in the field must change the numbers, not only the printed field:
    # the frequencies against omega_i = b^(-2i/d) or b^(-i/(d/2-1)), written here in float64.
    d_model = 12
    changed = dataclasses.replace(pe.conventions[name], base=base)
    i = np.arange(d_model // 2, dtype=np.float64)
    denominator = d_model / 2 if changed.exponent == "2i/d" else d_model / 2 - 1
    expected = np.exp(-i / denominator * np.log(base))
    np.testing.assert_allclose(changed.frequencies(d_model), expected, rtol=1e-6)
    assert not np.allclose(changed.frequencies(d_model), pe.conventions[name].frequencies(d_model))
    angles = np.arange(5, dtype=np.float64)[:, None] * expected[None, :]
    if changed.layout == "interleaved":
        want = np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(5, d_model)
    else:
        want = np.concatenate([np.sin(angles), np.cos(angles)], axis=-1)
    np.testing.assert_allclose(changed.table(5, d_model, emulate=False), want, atol=FLOAT32_BOUND)


def test_conventions_carry_their_name_into_width_errors() -> None:
    renamed = dataclasses.replace(pe.conventions["whisper"], name="mine")
    with pytest.raises(ValueError, match="for the mine convention"):
        renamed.table(3, 7)


def test_old_lookup_names_warn_and_still_work() -> None:
    untyped: Any = pe  # the old names are reached through the module's __getattr__
    with pytest.warns(DeprecationWarning, match=r"pe\.convention .* use pe\.conventions\[name\]"):
        old = untyped.convention
    assert old("marian") is pe.conventions["marian"]
    assert old(pe.conventions["marian"]) is pe.conventions["marian"]
    table = pe.conventions["distilbert"].table(4, d_model=6)
    with pytest.warns(DeprecationWarning, match=r"pe\.convert is deprecated .* pe\.convert_layout"):
        converted = untyped.convert(table, "distilbert", "marian")
    np.testing.assert_array_equal(converted, pe.conventions["marian"].table(4, d_model=6))
    with pytest.warns(DeprecationWarning, match=r"pe\.permute_input_weight .* pe\.convert_layout"):
        permuted = untyped.permute_input_weight(np.eye(4), "interleaved", "concatenated")
    np.testing.assert_array_equal(permuted, np.eye(4)[:, [0, 2, 1, 3]])


# ------------------------------------------------------------------ layouts
@pytest.mark.parametrize("d_model", [1, 2, 5, 8, 64])
def test_layout_permutation_round_trips(d_model: int) -> None:
    forward = pe.layout_permutation(d_model, "interleaved", "concatenated")
    backward = pe.layout_permutation(d_model, "concatenated", "interleaved")
    assert sorted(forward.tolist()) == list(range(d_model))
    np.testing.assert_array_equal(forward[backward], np.arange(d_model))


def test_permutation_keeps_dot_products_and_exponent_change_does_not() -> None:
    paper = pe.conventions["paper"].table(256, 64, emulate=False).astype(np.float64)
    swapped = pe.convert_layout(paper, "interleaved", "concatenated")
    np.testing.assert_allclose(swapped @ swapped.T, paper @ paper.T, atol=1e-12)
    fairseq_like = pe.conventions["whisper"].table(256, 64, emulate=False).astype(np.float64)
    assert np.abs(fairseq_like @ fairseq_like.T - paper @ paper.T).max() > 1.0


def test_converted_layouts_equal_the_other_library() -> None:
    for d in (5, 6, 64):
        distilbert = pe.conventions["distilbert"].table(100, d)
        np.testing.assert_array_equal(
            pe.convert_layout(distilbert, "distilbert", "marian"),
            pe.conventions["marian"].table(100, d),
        )
    paper = pe.conventions["paper"].table(100, 64, emulate=False)
    tf = pe.conventions["tf_tutorial"].table(100, 64, emulate=False)
    np.testing.assert_allclose(pe.convert_layout(paper, "paper", "tf_tutorial"), tf, atol=EPS32)


def test_linear_layer_weights_follow_the_permutation() -> None:
    rng = np.random.default_rng(0)
    weight = rng.normal(size=(10, 32))
    x = pe.sinusoidal(50, 32, dtype=np.float64)
    x_cat = pe.convert_layout(x, "interleaved", "concatenated")
    weight_cat = pe.convert_layout(weight, "interleaved", "concatenated")
    np.testing.assert_allclose(x @ weight.T, x_cat @ weight_cat.T, atol=1e-12)


@pytest.mark.parametrize(
    ("source", "target", "pattern"),
    [
        ("paper", "fairseq", "frequencies"),
        ("paper", "whisper", r"frequencies \(2i/d vs i/\(d/2-1\)\)"),
        ("m2m100", "whisper", "first position 2 vs 0"),
        ("positional_encodings", "tf_tutorial", "columns at d_model=7"),
        ("distilbert", "paper", "1 or an even integer >= 2 for the paper convention"),
    ],
)
def test_convert_refuses_what_is_not_a_permutation(source: str, target: str, pattern: str) -> None:
    table = np.zeros((3, 7 if source in ("positional_encodings", "distilbert") else 8))
    with pytest.raises(ValueError, match=pattern):
        pe.convert_layout(table, source, target)


def test_layout_argument_errors() -> None:
    with pytest.raises(ValueError, match="source must be 'interleaved' or 'concatenated'"):
        pe.layout_permutation(4, "sideways", "interleaved")  # type: ignore[arg-type]  # wrong on purpose
    with pytest.raises(ValueError, match=r"d_model must be a positive integer .*; got 0"):
        pe.layout_permutation(0, "interleaved", "concatenated")
    with pytest.raises(ValueError, match=r"of at most 16,777,216 .*; got 1000000000000"):
        pe.layout_permutation(10**12, "interleaved", "concatenated")  # was a MemoryError


# ------------------------------------------------------------------ the libraries
def require(module: str, package: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        message = f"{package} is not installed ({error}); `make test` installs it"
        if os.environ.get("CI"):
            pytest.fail(message + ", so CI must have it")
        pytest.skip(message)


def tolerance(convention: pe.Convention, largest_position: int) -> float:
    """A float64 library matches to float32 rounding; a float32 one to that of its angle."""
    if convention.compute.startswith("float64"):
        return EPS32
    return 4 * EPS32 * (1 + largest_position)


def assert_matches(
    convention: pe.Convention, library_output: np.ndarray, ours: np.ndarray, largest_position: int
) -> None:
    difference = np.abs(np.asarray(library_output, dtype=np.float64) - ours.astype(np.float64))
    assert library_output.shape == ours.shape
    assert difference.max() <= tolerance(convention, largest_position)


SIZES = [(1, 4), (50, 5), (300, 64), (2048, 512)]


@pytest.mark.parametrize(("rows", "d_model"), [(2, 4), (50, 5), (300, 64), (2048, 512)])
def test_m2m100_and_speech2text(rows: int, d_model: int) -> None:
    require("transformers", "transformers")
    if d_model < 4:
        pytest.skip("M2M100 needs d_model >= 4 (it divides by d/2 - 1)")
    from transformers.models.m2m_100.modeling_m2m_100 import M2M100SinusoidalPositionalEmbedding
    from transformers.models.speech_to_text.modeling_speech_to_text import (
        Speech2TextSinusoidalPositionalEmbedding,
    )

    convention = pe.conventions["m2m100"]
    ours = convention.table(rows, d_model)
    for module in (M2M100SinusoidalPositionalEmbedding, Speech2TextSinusoidalPositionalEmbedding):
        theirs = module.get_embedding(rows, d_model, padding_idx=1).numpy()
        assert_matches(convention, theirs, ours, rows)


@pytest.mark.parametrize("past", [0, 7, 500])
def test_m2m100_positions_offsets_and_padding(past: int) -> None:
    torch = require("torch", "torch")
    require("transformers", "transformers")
    from transformers.models.m2m_100.modeling_m2m_100 import M2M100SinusoidalPositionalEmbedding

    convention = pe.conventions["m2m100"]
    module = M2M100SinusoidalPositionalEmbedding(1024, 16, padding_idx=1)
    tokens = torch.tensor([[5, 6, 7, 8, 9], [5, 6, 7, 1, 1]])  # the second row right-padded
    out = module(tokens, past_key_values_length=past).numpy()
    assert_matches(convention, out[0], convention.encode(5, 16, start=past), past + 7)
    assert_matches(convention, out[1, :3], convention.encode(3, 16, start=past), past + 7)
    assert np.all(out[1, 3:] == 0)  # padding tokens read the zero row


@pytest.mark.parametrize(("rows", "d_model"), SIZES)
def test_marian(rows: int, d_model: int) -> None:
    torch = require("torch", "torch")
    require("transformers", "transformers")
    from transformers.models.marian.modeling_marian import MarianSinusoidalPositionalEmbedding

    convention = pe.conventions["marian"]
    module = MarianSinusoidalPositionalEmbedding(rows + 10, d_model)
    weight = module.create_weight()
    assert_matches(convention, weight.numpy(), convention.table(rows + 10, d_model), rows)
    with torch.no_grad():
        module.weight.copy_(weight)
    out = module(torch.Size([1, rows]), past_key_values_length=10).numpy()
    assert_matches(convention, out, convention.encode(rows, d_model, start=10), rows + 10)


@pytest.mark.parametrize(("rows", "d_model"), SIZES)
def test_distilbert_and_xlm(rows: int, d_model: int) -> None:
    torch = require("torch", "torch")
    require("transformers", "transformers")
    from transformers.models.distilbert.modeling_distilbert import create_sinusoidal_embeddings
    from transformers.models.xlm import modeling_xlm

    convention = pe.conventions["distilbert"]
    ours = convention.table(rows, d_model)
    for create in (create_sinusoidal_embeddings, modeling_xlm.create_sinusoidal_embeddings):
        out = torch.empty(rows, d_model)
        create(rows, d_model, out)
        assert_matches(convention, out.numpy(), ours, rows)


@pytest.mark.parametrize(("rows", "d_model"), [(1, 4), (1500, 384), (3000, 1280), (100, 8)])
def test_whisper(rows: int, d_model: int) -> None:
    require("transformers", "transformers")
    from transformers.models.whisper.modeling_whisper import sinusoids

    convention = pe.conventions["whisper"]
    assert_matches(
        convention, sinusoids(rows, d_model).numpy(), convention.table(rows, d_model), rows
    )


@pytest.mark.parametrize(("rows", "d_model"), SIZES)
@pytest.mark.parametrize("start", [0, 37])
@pytest.mark.skipif(
    sys.version_info < (3, 11),
    reason="keras-hub 0.25.1, the newest for Python 3.10, imports TensorFlow as it loads; "
    "the keras_hub convention is checked against the library on Python 3.11+",
)
def test_keras_hub(rows: int, d_model: int, start: int) -> None:
    keras = require("keras", "keras")
    require("keras_hub", "keras-hub")
    if keras.backend.backend() != "torch":
        pytest.skip(f"keras runs on {keras.backend.backend()}, not the torch backend")
    from keras_hub.layers import SinePositionEncoding

    convention = pe.conventions["keras_hub"]
    torch = require("torch", "torch")
    inputs = torch.zeros(2, rows, d_model)
    out = SinePositionEncoding()(inputs, start_index=start).detach().cpu().numpy()
    ours = convention.encode(rows, d_model, start=start)
    assert_matches(convention, out[0], ours, rows + start)
    assert_matches(convention, out[1], ours, rows + start)


@pytest.mark.parametrize(("rows", "d_model"), SIZES)
def test_positional_encodings_package(rows: int, d_model: int) -> None:
    torch = require("torch", "torch")
    require("positional_encodings", "positional-encodings")
    from positional_encodings.torch_encodings import PositionalEncoding1D

    convention = pe.conventions["positional_encodings"]
    out = PositionalEncoding1D(d_model)(torch.zeros(3, rows, d_model)).numpy()
    assert_matches(convention, out[1], convention.table(rows, d_model), rows)


LIBRARY_TESTS = {
    "m2m100": "transformers",
    "musicgen": "transformers",
    "marian": "transformers",
    "distilbert": "transformers",
    "whisper": "transformers",
    "keras_hub": "keras-hub",
    "positional_encodings": "positional-encodings",
}


@pytest.mark.parametrize("name", sorted(pe.conventions))
def test_library_verification_status(name: str) -> None:
    convention = pe.conventions[name]
    if convention.verified_with is None:
        assert name not in LIBRARY_TESTS
        pytest.skip(f"{name} is checked from source reading only: {convention.note}")
    assert LIBRARY_TESTS[name] == convention.verified_with


# ------------------------------------------------------------------ added conventions and widths
def test_tensor2tensor_divides_in_float32_like_tensorflow() -> None:
    """TF divides float32 log(b) by float32 (n - 1); a float64 division differs at 341 widths."""
    torch = require("torch", "torch")
    convention = pe.conventions["tensor2tensor"]
    differs = 0
    for d in range(4, 4098, 2):
        count = d // 2
        numerator = torch.tensor(math.log(BASE), dtype=torch.float32)
        step = numerator / torch.tensor(float(max(count - 1, 1)), dtype=torch.float32)
        steps = torch.arange(count, dtype=torch.float32) * -step
        expected = torch.exp(steps).double().numpy()
        got = convention._rates(d, True, convention.base).astype(np.float64)
        # float32 exp may differ by an ulp between numpy and torch; the step itself may not
        np.testing.assert_allclose(got, expected, rtol=2 * EPS32, atol=0)
        assert pe._conventions._t2t_float32_step(d, convention.base) == step.item()
        differs += float(np.float32(math.log(BASE) / max(count - 1, 1))) != step.item()
    assert differs == 341


def test_width_one_builds_what_the_libraries_build() -> None:
    positions = np.arange(6)
    for name in ("tensor2tensor", "fairseq", "m2m100", "musicgen", "flax"):
        table = pe.conventions[name].table(positions, 1)
        assert table.shape == (6, 1)
        assert not table.any()  # no sine pair: one zero column
    np.testing.assert_allclose(
        pe.conventions["paper"].table(positions, 1)[:, 0], np.sin(positions), atol=EPS32
    )


def test_width_one_against_the_libraries() -> None:
    torch = require("torch", "torch")
    require("transformers", "transformers")
    from transformers.models.m2m_100.modeling_m2m_100 import M2M100SinusoidalPositionalEmbedding

    theirs = M2M100SinusoidalPositionalEmbedding.get_embedding(6, 1, padding_idx=1).numpy()
    np.testing.assert_array_equal(theirs, pe.conventions["m2m100"].table(6, 1))
    # The PyTorch tutorial's PositionalEncoding, written out at d_model = 1
    position = torch.arange(6).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, 1, 2) * (-math.log(BASE) / 1))
    table = torch.zeros(6, 1)
    table[:, 0::2] = torch.sin(position * div_term)
    table[:, 1::2] = torch.cos(position * div_term)
    np.testing.assert_array_equal(table.numpy(), pe.conventions["paper"].table(6, 1))


def test_tf_docs_tutorial_is_distilbert() -> None:
    for d in (1, 5, 64):
        a = pe.conventions["tf_docs_tutorial"].table(3000, d)
        b = pe.conventions["distilbert"].table(3000, d)
        assert np.abs(a - b).max() <= EPS32
    table = pe.conventions["tf_docs_tutorial"].table(100, 64)
    np.testing.assert_array_equal(pe.convert_layout(table, "tf_docs_tutorial", "distilbert"), table)


def test_musicgen_converts_to_tensor2tensor_by_swapping_halves() -> None:
    table = pe.conventions["musicgen"].table(50, 8, emulate=False)
    swapped = pe.convert_layout(table, "musicgen", "tensor2tensor")
    np.testing.assert_array_equal(swapped, np.concatenate([table[:, 4:], table[:, :4]], axis=1))
    np.testing.assert_allclose(
        swapped, pe.conventions["tensor2tensor"].table(50, 8, emulate=False), atol=EPS32
    )


def test_flax_sinusoidal_init_formula() -> None:
    """Flax's examples compute in float64 numpy and store float32 once."""
    for d in (4, 7, 64):
        half = d // 2
        div_term = np.exp(np.arange(half) * (-np.log(BASE) / (half - 1)))
        expected = np.zeros((300, d), dtype=np.float32)
        angle = np.arange(300)[:, None] * div_term
        expected[:, :half] = np.sin(angle)
        expected[:, half : 2 * half] = np.cos(angle)
        np.testing.assert_array_equal(pe.conventions["flax"].table(300, d), expected)


@pytest.mark.parametrize(("rows", "d_model"), [(1, 4), (50, 5), (300, 64), (2048, 512)])
def test_musicgen(rows: int, d_model: int) -> None:
    require("transformers", "transformers")
    from transformers.models.musicgen.modeling_musicgen import (
        MusicgenSinusoidalPositionalEmbedding,
    )

    convention = pe.conventions["musicgen"]
    theirs = MusicgenSinusoidalPositionalEmbedding.get_embedding(rows, d_model).numpy()
    assert_matches(convention, theirs, convention.table(rows, d_model), rows)


def _get_embedding(module_path: str, class_name: str) -> Callable[[int, int, int], torch.Tensor]:
    module = importlib.import_module(f"transformers.models.{module_path}")
    get_embedding: Callable[[int, int, int], torch.Tensor] = getattr(
        module, class_name
    ).get_embedding
    return get_embedding


MODEL_TABLES: dict[str, tuple[str, Callable[[int, int], torch.Tensor]]] = {
    "FSMT": (
        "fairseq",
        lambda rows, d: _get_embedding("fsmt.modeling_fsmt", "SinusoidalPositionalEmbedding")(
            rows, d, 1
        ),
    ),
    "XGLM": (
        "m2m100",
        lambda rows, d: _get_embedding("xglm.modeling_xglm", "XGLMSinusoidalPositionalEmbedding")(
            rows, d, 1
        ),
    ),
    "SpeechT5": (
        "m2m100",
        lambda rows, d: _get_embedding(
            "speecht5.modeling_speecht5", "SpeechT5SinusoidalPositionalEmbedding"
        )(rows, d, 1),
    ),
    "Kosmos-2": (
        "m2m100",
        lambda rows, d: _get_embedding(
            "kosmos2.modeling_kosmos2", "Kosmos2TextSinusoidalPositionalEmbedding"
        )(rows, d, 1),
    ),
    "TrOCR": (
        "m2m100",
        lambda rows, d: _get_embedding(
            "trocr.modeling_trocr", "TrOCRSinusoidalPositionalEmbedding"
        )(rows, d, 1),
    ),
}


def _create_weight(module_path: str, class_name: str, rows: int, d: int) -> torch.Tensor:
    module = importlib.import_module(f"transformers.models.{module_path}")
    weight: torch.Tensor = getattr(module, class_name)(rows, d).create_weight()
    return weight


MODEL_TABLES["Pegasus"] = (
    "marian",
    lambda rows, d: _create_weight(
        "pegasus.modeling_pegasus", "PegasusSinusoidalPositionalEmbedding", rows, d
    ),
)
MODEL_TABLES["RoFormer"] = (
    "marian",
    lambda rows, d: _create_weight(
        "roformer.modeling_roformer", "RoFormerSinusoidalPositionalEmbedding", rows, d
    ),
)


def _pegasus_x(rows: int, d: int) -> torch.Tensor:
    import torch
    from transformers.models.pegasus_x.modeling_pegasus_x import (
        PegasusXSinusoidalPositionalEmbedding,
    )

    table: torch.Tensor = PegasusXSinusoidalPositionalEmbedding(d)(torch.zeros(1, rows, d))[0]
    return table


MODEL_TABLES["Pegasus-X"] = ("tensor2tensor", _pegasus_x)


def test_every_listed_model_is_tested() -> None:
    listed = {model: c.name for c in pe.conventions.values() for model in c.models}
    assert listed == {model: name for model, (name, _) in MODEL_TABLES.items()}


@pytest.mark.parametrize("model", sorted(MODEL_TABLES))
@pytest.mark.parametrize(("rows", "d_model"), [(50, 5), (300, 64)])
def test_models_each_preset_covers(model: str, rows: int, d_model: int) -> None:
    require("torch", "torch")
    require("transformers", "transformers")
    name, build = MODEL_TABLES[model]
    if model == "Pegasus-X" and d_model % 2:
        d_model += 1  # it writes cosines into d // 2 columns from the middle: even widths
    convention = pe.conventions[name]
    theirs = build(rows, d_model).detach().numpy()
    assert_matches(convention, theirs, convention.table(rows, d_model), rows)


def test_float64_libraries_are_bit_equal_and_float32_ones_mostly() -> None:
    """What the conventions page says of its generated bit-equality table."""
    require("torch", "torch")
    require("transformers", "transformers")
    require("positional_encodings", "positional-encodings")
    from sitegen.pages.conventions import _library_tables

    for name, (_, theirs) in _library_tables(512, 64).items():
        ours = pe.conventions[name].table(512, 64)
        share = np.mean(ours == theirs)
        if pe.conventions[name].compute.startswith("float64"):
            assert share == 1.0
        else:
            assert share > 0.5
        # within one float32 rounding of the largest angle
        assert np.abs(ours.astype(np.float64) - theirs).max() <= 511 * EPS32


@pytest.mark.parametrize(
    ("base", "error", "shown"),
    [
        (float("nan"), ValueError, "nan"),  # gave a table of NaN
        (1.0, ValueError, "1.0"),  # every pair turned at the same speed
        (-1.0, ValueError, "-1.0"),
        (10**400, ValueError, "401 digits"),
        ("10000", TypeError, "'10000'"),
    ],
)
def test_replace_checks_the_base(base: Any, error: type[Exception], shown: str) -> None:
    with pytest.raises(error, match=f"base must be .*{re.escape(shown)}"):
        dataclasses.replace(pe.conventions["paper"], base=base)


@pytest.mark.parametrize("name", sorted(pe.conventions))
def test_conventions_pickle_and_copy(name: str) -> None:
    import copy
    import pickle

    convention = pe.conventions[name]
    assert pickle.loads(pickle.dumps(convention)) == convention
    derived = dataclasses.replace(convention, base=500.0, name="derived")
    restored = pickle.loads(pickle.dumps(derived))
    assert (restored.name, restored.base) == ("derived", 500.0)
    assert np.array_equal(restored.table(5, 8), derived.table(5, 8))
    assert copy.deepcopy(derived) == derived


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (lambda c: c.encode(2**40, 8), "length must be at most 2147483647"),
        (lambda c: c.encode(2**30, 64), "the result would have shape"),
        (lambda c: c.encode(10, 8, start=2**31), "start \\+ length must keep"),
        (lambda c: c.frequencies(10**12), "d_model must be at most 16,777,216"),
        (lambda c: c.columns(2**30), "d_model must be at most 16,777,216"),
        (lambda c: c.table(3, 10**10), "d_model must be at most 16,777,216"),
    ],
)
def test_huge_requests_are_refused_before_allocating(
    call: Callable[[pe.Convention], object], pattern: str
) -> None:
    with pytest.raises(ValueError, match=pattern):
        call(pe.conventions["fairseq"])
