"""Every public entry point rejects bad input with a clear TypeError or ValueError.

Each message must name the parameter and show the offending value.
"""

import math
from collections.abc import Callable

import numpy as np
import pytest

import pe

BAD_D_MODEL = [
    (3, ValueError, "3"),
    (0, ValueError, "0"),
    (-4, ValueError, "-4"),
    (8.0, TypeError, "8.0"),
    ("8", TypeError, "'8'"),
    (True, TypeError, "True"),
    (None, TypeError, "None"),
]
BAD_BASE = [
    (1.0, ValueError, "1.0"),
    (0.5, ValueError, "0.5"),
    (-10000.0, ValueError, "-10000.0"),
    (math.nan, ValueError, "nan"),
    (math.inf, ValueError, "inf"),
    ("10000", TypeError, "'10000'"),
    (True, TypeError, "True"),
    (1 + 2j, TypeError, "(1+2j)"),
    (10**400, ValueError, "401 digits"),  # float() raised OverflowError
]
BAD_POSITIONS = [
    (-1, ValueError, "-1"),
    (2.5, TypeError, "2.5"),
    (math.nan, TypeError, "nan"),
    (True, TypeError, "True"),
    (None, TypeError, "None"),
    ("12", TypeError, "'12'"),
    (np.array([0.0, 1.0]), TypeError, "floating-point"),
    ([1, math.nan], TypeError, "floating-point"),
    (np.array([True, False]), TypeError, "bool"),
    (2**31, ValueError, str(2**31)),
    (np.array([0, -(2**40)]), ValueError, str(-(2**40))),
    ([[1, 2], [3]], TypeError, "could not read"),
]

FUNCTIONS_OF_D_MODEL: dict[str, Callable[..., np.ndarray]] = {
    "frequencies": lambda d_model=8, base=10000.0: pe.frequencies(d_model, base),
    "wavelengths": lambda d_model=8, base=10000.0: pe.wavelengths(d_model, base),
    "angles": lambda d_model=8, base=10000.0, positions=4: pe.angles(positions, d_model, base),
    "sinusoidal": lambda d_model=8, base=10000.0, positions=4: pe.sinusoidal(
        positions, d_model, base=base
    ),
}


@pytest.mark.parametrize("function", FUNCTIONS_OF_D_MODEL)
@pytest.mark.parametrize(("value", "error", "shown"), BAD_D_MODEL)
def test_bad_d_model(function: str, value: object, error: type[Exception], shown: str) -> None:
    with pytest.raises(error, match="d_model") as caught:
        FUNCTIONS_OF_D_MODEL[function](d_model=value)
    assert shown in str(caught.value)


@pytest.mark.parametrize("function", FUNCTIONS_OF_D_MODEL)
@pytest.mark.parametrize(("value", "error", "shown"), BAD_BASE)
def test_bad_base(function: str, value: object, error: type[Exception], shown: str) -> None:
    with pytest.raises(error, match="base") as caught:
        FUNCTIONS_OF_D_MODEL[function](base=value)
    assert shown in str(caught.value)
    assert "greater than 1" in str(caught.value)


@pytest.mark.parametrize("function", ["angles", "sinusoidal"])
@pytest.mark.parametrize(("value", "error", "shown"), BAD_POSITIONS)
def test_bad_positions(function: str, value: object, error: type[Exception], shown: str) -> None:
    with pytest.raises(error, match="positions") as caught:
        FUNCTIONS_OF_D_MODEL[function](positions=value)
    assert shown in str(caught.value)


@pytest.mark.parametrize("dtype", [np.int32, np.complex64, "float128", "bogus", object])
def test_bad_dtype(dtype: object) -> None:
    with pytest.raises(TypeError, match="dtype must be numpy float16, float32 or float64"):
        pe.sinusoidal(4, 8, dtype=dtype)


def test_messages_say_what_is_accepted() -> None:
    with pytest.raises(ValueError, match="positive even integer") as caught:
        pe.sinusoidal(4, 7)
    assert "got 7" in str(caught.value)
    with pytest.raises(ValueError, match="non-negative integer; got -3"):
        pe.sinusoidal(-3, 8)


def test_largest_position_is_accepted() -> None:
    table = pe.sinusoidal(np.array([pe.MAX_POSITION, -pe.MAX_POSITION]), 4)
    assert np.isfinite(table).all()


# -- messages that used to mislead ------------------------------------------------


def test_huge_python_integers_are_out_of_range_not_objects() -> None:
    with pytest.raises(ValueError, match=r"positions must lie in .*got a value of 10{30}"):
        pe.sinusoidal([10**30], 8)
    with pytest.raises(ValueError, match=r"got a value of -10{20}"):
        pe.angles([[0, -(10**20)]], 8)


@pytest.mark.parametrize(
    ("positions", "kind"),
    [([1j, 2j], "complex"), (np.array(["a"], dtype=object), "object"), ([None], "object")],
)
def test_non_integer_arrays_are_named_by_kind(positions: object, kind: str) -> None:
    with pytest.raises(TypeError, match=rf"positions must hold integers; got an? {kind} array"):
        pe.sinusoidal(positions, 8)


def test_masked_positions_are_refused_not_unmasked() -> None:
    masked = np.ma.masked_array([0, 1, 2], mask=[False, True, False])
    with pytest.raises(TypeError, match=r"positions must be a plain array .* masked array"):
        pe.sinusoidal(masked, 8)
    assert pe.sinusoidal(masked.compressed(), 8).shape == (2, 8)


def test_dtype_none_is_refused() -> None:
    with pytest.raises(
        TypeError, match=r"dtype must be numpy float16, float32 or float64; got None"
    ):
        pe.sinusoidal(4, 8, dtype=None)


def test_convert_a_scalar_says_so() -> None:
    with pytest.raises(ValueError, match=r"values must have at least one axis .* got a scalar"):
        pe.convert_layout(3.0, "distilbert", "marian")
    with pytest.raises(ValueError, match=r"got shape \(2, 0\)"):
        pe.convert_layout(np.zeros((2, 0)), "distilbert", "marian")


def test_similarity_measure_must_be_a_string() -> None:
    with pytest.raises(TypeError, match=r"measure must be one of the strings .* got ndarray"):
        pe.analysis.similarity(0, 1, 8, measure=np.array(["dot", "cosine"]))  # type: ignore[arg-type]  # wrong on purpose


def test_convention_encode_start_and_emulate() -> None:
    fairseq = pe.conventions["fairseq"]
    assert fairseq.encode(1, 8, start=-2).shape == (1, 8)  # row 0: allowed
    with pytest.raises(
        ValueError, match=r"start must be >= -2 for the fairseq convention.*got -10"
    ):
        fairseq.encode(3, 8, start=-10)
    with pytest.raises(ValueError, match=r"start must be >= 0 for the paper convention.*got -1"):
        pe.conventions["paper"].encode(3, 8, start=-1)
    with pytest.raises(TypeError, match=r"emulate must be True or False; got 'no'"):
        fairseq.table(4, 8, emulate="no")  # type: ignore[arg-type]  # wrong on purpose
    with pytest.raises(TypeError, match=r"length must be a non-negative integer; got 2.0"):
        fairseq.encode(2.0, 8)  # type: ignore[arg-type]  # wrong on purpose


# -- sizes are checked before anything is allocated ---------------------------------


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (
            lambda: pe.sinusoidal(4, 10**12),
            r"d_model must be at most 16,777,216 \(2\*\*24\); got 1,000,000,000,000",
        ),
        (lambda: pe.frequencies(10**12), r"d_model must be at most"),
        (
            lambda: pe.angles(10**9, 4096),
            r"would have shape \(1000000000, 2048\): 2,048,000,000,000 values",
        ),
        (lambda: pe.sinusoidal(2**31 - 1, 4), r"the table would have shape \(2147483647, 4\)"),
        (
            lambda: pe.sinusoidal(np.broadcast_to(np.int64(7), (2**20, 2**11)), 2),
            r"the table would have shape",
        ),
        (
            lambda: pe.conventions["marian"].table(10**9, 4096),
            r"would have shape \(1000000000, 4096\)",
        ),
        (lambda: pe.alibi_slopes(10**9), r"num_heads must be at most 65,536"),
    ],
)
def test_impossible_sizes_are_value_errors(call: Callable[[], object], pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        call()


def test_a_huge_request_is_refused_before_its_positions_are_read() -> None:
    """A broadcast view of 2**31 positions, all out of range: the size is what is named.

    Reading its values first took seconds (a min and a max over every position)
    before the same request was refused for its size.
    """
    huge = np.broadcast_to(np.int64(2**62), (2**20, 2**11))
    for call in (
        lambda: pe.sinusoidal(huge, 2),
        lambda: pe.angles(huge, 4),
        lambda: pe.conventions["marian"].table(huge, 2),
    ):
        with pytest.raises(ValueError, match=r"would have shape \(1048576, 2048, 2\)"):
            call()
    with pytest.raises(ValueError, match=r"positions must lie in"):  # small: its values are read
        pe.sinusoidal(np.broadcast_to(np.int64(2**62), (4, 4)), 2)


def test_torch_sizes_are_checked_too() -> None:
    import torch

    import pe.nn

    with pytest.raises(ValueError, match=r"the table would have shape \(2147483647, 4\)"):
        pe.nn.functional.sinusoidal(2**31 - 1, 4)
    with pytest.raises(ValueError, match=r"weight \(max_len, d_model\) would have shape"):
        pe.nn.LearnedPositionalEmbedding(2**30, 64)
    with pytest.raises(ValueError, match=r"d_model must be at most"):
        pe.nn.SinusoidalPositionalEncoding(10**12)
    with pytest.raises(ValueError, match=r"the bias \(num_heads, q_len, k_len\) would have shape"):
        pe.nn.RelativePositionBias(8)(2**20, 2**20)
    with pytest.raises(ValueError, match=r"the table would have shape \(1048576, 2048, 2\)"):
        pe.nn.functional.sinusoidal(torch.zeros((), dtype=torch.long).expand(2**20, 2**11), 2)
    with pytest.raises(ValueError, match=r"the table would have shape \(1048576, 2048, 2\)"):
        pe.nn.functional.sinusoidal(np.broadcast_to(np.int64(2**62), (2**20, 2**11)), 2)


def test_torch_tensors_as_positions_of_the_numpy_functions() -> None:
    torch = pytest.importorskip("torch")
    assert np.array_equal(pe.sinusoidal(torch.arange(5, 9), 8), pe.sinusoidal(np.arange(5, 9), 8))
    wide = torch.tensor([3, 2**40], dtype=torch.uint64)
    with pytest.raises(ValueError, match=r"positions must lie in .*1099511627776"):
        pe.sinusoidal(wide, 8)
    # torch's own errors were a RuntimeError (requires grad) and an obscure TypeError (meta)
    with pytest.raises(
        TypeError, match=r"positions must hold integers; .*float32 that requires grad"
    ):
        pe.sinusoidal(torch.arange(3.0, requires_grad=True), 8)
    with pytest.raises(ValueError, match="p is a tensor on the meta device"):
        pe.analysis.similarity(torch.arange(3, device="meta"), 0, 8)
    with pytest.raises(
        TypeError, match="positions must hold integers; got a torch tensor of dtype bool"
    ):
        pe.angles(torch.tensor([True]), 8)


# --- the shared checks: real settings, choices, sizes -----------------------------------
@pytest.mark.parametrize(
    ("value", "positive", "error", "words"),
    [
        (10**400, False, ValueError, "scale must be a finite real number; got an integer of 401"),
        (-(10**400), True, ValueError, "401 digits"),
        (math.nan, False, ValueError, "got nan"),
        (0, True, ValueError, "> 0; got 0"),
        (True, False, TypeError, "got True"),
        (np.array([1.0]), False, TypeError, "ndarray"),
        (1 + 0j, False, TypeError, "complex"),
    ],
)
def test_check_real_names_the_setting(
    value: object, positive: bool, error: type, words: str
) -> None:
    from pe._validation import check_real

    with pytest.raises(error, match=words):
        check_real(value, name="scale", positive=positive)


def test_check_real_returns_floats_of_any_real_type() -> None:
    from pe._validation import check_real

    assert check_real(np.uint64(2**64 - 1), name="scale") == 2.0**64
    assert check_real(np.float16(0.5), name="scale", positive=True) == 0.5
    assert check_real(-3, name="shift") == -3.0


def test_check_choice_refuses_arrays_and_lists_by_type() -> None:
    """An array would be compared element by element ('truth value is ambiguous')."""
    from pe._validation import check_choice

    assert check_choice(np.str_("mae"), name="layout", choices=("mae", "timm")) == "mae"
    for value in (np.array(["mae", "timm"]), np.array(["mae"]), ["mae"], None, 1):
        with pytest.raises(TypeError, match=r"layout must be one of 'mae', 'timm'; got"):
            check_choice(value, name="layout", choices=("mae", "timm"))
    with pytest.raises(ValueError, match="layout must be one of 'mae', 'timm'; got 'vit'"):
        check_choice("vit", name="layout", choices=("mae", "timm"))


def test_check_size_names_what_and_what_to_ask_for() -> None:
    from pe._validation import MAX_ELEMENTS, check_size

    check_size((MAX_ELEMENTS,))  # the largest accepted size
    with pytest.raises(
        ValueError,
        match=r"^the table of grid \(8, 8\) would have shape \(2, 1073741825\): .*"
        r"Ask for a smaller grid$",
    ):
        check_size((2, 2**30 + 1), name="the table of grid (8, 8)", hint="Ask for a smaller grid")
    with pytest.raises(ValueError, match=r"shape \(3, 1000000000\).*fewer positions"):
        check_size((np.int64(3), np.uint32(10**9)))  # numpy sizes print as plain integers


# --- the read-only mappings of named records ----------------------------------------
MAPPINGS = ["conventions", "timestep_presets", "grid_rope_presets"]


@pytest.mark.parametrize("name", MAPPINGS)
def test_named_mappings_copy_and_pickle_as_themselves(name: str) -> None:
    import copy
    import pickle

    mapping = getattr(pe, name)
    assert copy.deepcopy(mapping) is mapping
    assert copy.copy(mapping) is mapping
    assert pickle.loads(pickle.dumps(mapping)) is mapping
    # A structure holding one deep-copies, as a training configuration does.
    holder = {"presets": mapping, "chosen": [next(iter(mapping))]}
    copied = copy.deepcopy(holder)
    assert copied["presets"] is mapping
    assert copied["chosen"] == holder["chosen"]
    first = next(iter(mapping.values()))
    assert copy.deepcopy(first) == first


@pytest.mark.parametrize("name", MAPPINGS)
def test_named_mappings_are_read_only_and_list_their_names(name: str) -> None:
    mapping = getattr(pe, name)
    with pytest.raises(TypeError):
        mapping["new"] = None
    with pytest.raises(KeyError, match=r"no .* named 'nonsense'; the names are "):
        mapping["nonsense"]
    with pytest.raises(KeyError, match=r"named \['x'\]"):  # an unhashable key, not a TypeError
        mapping[["x"]]
    assert ["x"] not in mapping
    assert repr(mapping).startswith(f"<pe.{name}: ")
    assert sorted(mapping) == sorted(record.name for record in mapping.values())
