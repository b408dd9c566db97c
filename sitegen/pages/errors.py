"""The errors page: call each public function with bad input and record what it says.

Nothing on the page is typed by hand: each row is a real call made while the
site is built, with the exception and message it raised. Each bad call is
written once, as source text: the page shows that text and the build runs it,
so the call shown and the call made cannot drift apart. The function column is
read off the same text (the name called first, or ``Convention.<method>``).

Each call runs as a line of a reader's program would: with the module's public
names and Python's builtins. (Without builtins, torch's first
``torch.tensor(...)`` of a process fails: its C code imports ``torch.storage``
through the calling frame's ``__import__``.)
"""

from __future__ import annotations

import ast
import builtins
import importlib
from typing import Any

import numpy as np

from sitegen.cache import cached_markdown
from sitegen.markdown import table

#: The bad calls, written once each, by the module whose public names (its
#: ``__all__``) they run with, beside ``np`` and ``nan`` (and ``torch`` for pe.nn).
CALLS: dict[str, tuple[str, ...]] = {
    "pe": (
        "sinusoidal(10, 7)",
        "sinusoidal(10, 8.0)",
        "sinusoidal(-1, 8)",
        "sinusoidal(2.5, 8)",
        "sinusoidal([0.0, 1.0], 8)",
        "sinusoidal([1, nan], 8)",
        "sinusoidal([2**40], 8)",
        "sinusoidal(10, 8, base=1.0)",
        "sinusoidal(10, 8, base=nan)",
        "sinusoidal(10, 8, dtype=np.int32)",
        "sinusoidal([10**30], 8)",
        "sinusoidal([1j, 2j], 8)",
        "sinusoidal(np.ma.masked_array([0, 1], mask=[0, 1]), 8)",
        "sinusoidal(10, 8, dtype=None)",
        "sinusoidal(4, 10**12)",
        "frequencies(0)",
        "angles(10**9, 4096)",
        "angles('12', 8)",
        "rope_decay_bound([0.5, 1.5], 128)",
        "rope_critical_dimension(128, 0)",
        "rope_min_base(4096, 128, max_base=1e3)",
        "rotation_matrix(1.5, 8)",
        "convert_layout(np.zeros((2, 8)), 'gpt', 'paper')",
        "conventions['paper'].table(4, 7)",
        "conventions['paper'].table(4, 8, emulate='no')",
        "conventions['fairseq'].encode(3, 8, start=-10)",
        "convert_layout(3.0, 'distilbert', 'marian')",
        "convert_layout(np.zeros((2, 8)), 'paper', 'whisper')",
        "layout_permutation(8, 'rows', 'interleaved')",
        "convert_layout(np.zeros((2, 8)), 'interleaved', 'concatenated', axis=2)",
        "alibi_slopes(0)",
        "rope_frequencies(64, scaling={'rope_type': 'ntk', 'factor': 2.0})",
        "rope_frequencies(64, scaling={'rope_type': ['yarn']})",
        "rope_frequencies(64, scaling={'rope_type': 'axial'})",
        "rope_frequencies(64, scaling={'rope_type': 'linear', 'factor': '2'})",
        "rope_frequencies(64, scaling={'rope_type': 'linear', 'factor': 10**400})",
        "rope_frequencies(64, base=10**400)",
        "rope_frequencies(64, scaling={'rope_type': 'dynamic', 'factor': 1e300}, max_position_embeddings=4096, seq_len=8192)",  # noqa: E501
        "rope_frequencies(4, scaling={'rope_type': 'longrope', 'factor': 2.0, 'short_factor': [1, 1], 'long_factor': [2, 2], 'original_max_position_embeddings': 1})",  # noqa: E501
        "rope_frequencies(64, scaling={'rope_type': 'yarn', 'factor': 4.0, 'beta_fast': -1}, max_position_embeddings=4096)",  # noqa: E501
        "rope_frequencies(64, scaling={'full_attention': {'rope_type': 'default'}, 'sliding_attention': {'rope_type': 'default'}})",  # noqa: E501
        "rope_frequencies(64, seq_len=-1)",
        "sinusoidal(4, 8, base=10**400)",
        "sinusoidal(torch.ones(3).requires_grad_(), 8)",
        "rotation_matrix(1, 2**24)",
        "layout_permutation(10**12, 'interleaved', 'concatenated')",
        "conventions['fairseq'].encode(2**30, 64)",
        "timestep_embedding([1.0], 2)",
        "timestep_embedding([True, False], 8)",
        "timestep_embedding([0.5, nan], 8)",
        "timestep_embedding([1.0], 8, flip_sin_to_cos='yes')",
        "grid_sincos(14, 766)",
        "grid_sincos((14, 0), 768)",
        "grid_sincos(14, 768, layout='vit')",
        "grid_sincos(14, 768, layout=np.array(['mae']))",
        "grid_sincos(3, 8, scale=1e308)",
        "grid_sincos(2**16, 4)",
        "grid_sincos(1, 2**28)",
        "grid_coordinates(2**16)",
        "timestep_embedding([1.0], 8, scale=10**400)",
        "timestep_embedding(np.broadcast_to(1.0, (2**27,)), 256)",
        "rope_min_base(4096, 2**24)",
        "rope_min_base(4096, 2, points_per_decade=100000)",
        "rope_decay_bound([3], 2**24)",
        # RoPE on grids
        "axial_rope((16, 7))",
        "mrope(16, (2, 3, 2))",
        "grid_rope_angles([[1, 2]], axial_rope((4, 4, 4)))",
        "mrope_position_ids([0, 1, 1, 0], image_grid_thw=[(1, 4, 4)])",
        "mrope_position_ids([0, 1, 1, 1, 1])",
        "grid_positions((2**16, 2**15))",
        "axial_rope((2**24, 2**24))",
    ),
    "pe.analysis": (
        "similarity([0, 1], [0, 1, 2], 8)",
        "similarity(0, 1, 8, measure='euclid')",
        "similarity(0, 1, 8, measure=np.array(['dot']))",
        "closest_return(9, 8, max_offset=10)",
        "uniqueness(1, 8)",
        "extrapolation(100, 50, 8)",
        "value_range([], 8)",
        "rotation_error([0, 1], [5, 2**31 - 1], 8)",
        "closest_return(0, 8, max_offset=2**40)",
    ),
    "pe.nn": (
        "ALiBi(10**9)",
        "SinusoidalPositionalEncoding(8, max_len=0)",
        "SinusoidalPositionalEncoding(8, max_len=16)(torch.zeros(1, 20, 8))",
        "SinusoidalPositionalEncoding(8)(torch.zeros(2, 3, 6))",
        "SinusoidalPositionalEncoding(8)(torch.zeros(2, 3, 8, dtype=torch.long))",
        "LearnedPositionalEmbedding(8, 4)(torch.zeros(1, 10, 4))",
        "LearnedPositionalEmbedding(8, 4)(torch.zeros(1, 3, 4), offset=2, positions=torch.arange(3))",  # noqa: E501
        "LearnedPositionalEmbedding(8, 4)(torch.zeros(1, 3, 4), positions=torch.arange(2))",
        "LearnedPositionalEmbedding(8, 4)(torch.zeros(1, 2, 3, 4))",
        "LearnedPositionalEmbedding(8, 4, init_std=-1.0)",
        "RelativePositionBias(4, kind='alibi')",
        "RotaryEmbedding(7)",
        "RotaryEmbedding(8)(torch.zeros(1, 4, 6), torch.zeros(1, 4, 6))",
        "RotaryEmbedding.from_config({'hidden_size': 64, 'num_attention_heads': 0})",
        "RotaryEmbedding.from_config({'hidden_size': '64', 'num_attention_heads': 4})",
        "RotaryEmbedding.from_config({'head_dim': 88, 'rotary_dim': 61})",
        "RotaryEmbedding.from_config({'head_dim': 64, 'layer_types': ['full_attention']}, layer_type='sliding_attention')",  # noqa: E501
        "ALiBi(0)",
        "ALiBi(2)(-1, 4)",
        "LearnedPositionalEmbedding(8, 4, dropout=10**400)",
        "SinusoidalPositionalEncoding(8, max_len=None)(torch.zeros(1, 3, 8), offset=2**31 - 2)",
        "SinusoidalTimestepEmbedding(256, downscale_freq_shift=128)",
        "SinusoidalTimestepEmbedding(256)(torch.tensor([1j]))",
        "GridSinCosEmbedding(14, 768, class_token=True)(torch.zeros(2, 196, 768))",
        "SinusoidalTimestepEmbedding.from_preset(['flux'])",
        # RoPE on grids
        "MultimodalRotaryEmbedding(16, (2, 3, 3))(torch.zeros(1, 2, 4, 16), torch.zeros(1, 2, 4, 16), torch.arange(4)[None])",  # noqa: E501
        "AxialRotaryEmbedding((4, 4))(torch.zeros(3, 8), torch.zeros(3, 8), torch.zeros(3, 3))",
    ),
    "pe.nn.functional": (
        "sinusoidal(torch.zeros(3), 8)",
        "timestep_embedding([999.0], 256)",
        "resample_grid_embedding(torch.zeros(1, 51, 8), 8)",
        "resample_grid_embedding(torch.zeros(1, 51, 8), 8, old_size=(7, 8))",
        "resample_grid_embedding(torch.zeros(1, 1, 8), 4)",
        "resample_grid_embedding(torch.zeros(17, 8), 4, antialias='no')",
        "resample_grid_embedding(torch.zeros(17, 8), (10**5, 10**5))",
        "timestep_embedding(torch.zeros(1).expand(2**27), 256)",
        "relative_position_bucket(torch.zeros(3))",
        "position_ids(torch.zeros(2, 3), 0)",
        "position_ids(torch.zeros(2, 3, dtype=torch.uint8), 257)",
        "position_ids(torch.zeros(2, 3, dtype=torch.long), 0, pad_value=2**70)",
        "relative_position_bucket(torch.zeros(3, dtype=torch.complex64))",
        "relative_position_bucket(torch.zeros(3, dtype=torch.long), bidirectional='yes')",
        "sinusoidal(4, 8, device='nowhere')",
        # RoPE on grids
        "mrope_position_ids(torch.zeros(1, 3))",
    ),
}


def function_of(call: str, package: str) -> str:
    """Name the public function a bad call exercises, read off its source text.

    >>> function_of("sinusoidal(10, 7)", "pe"), function_of("ALiBi(2)(-1, 4)", "pe.nn")
    ('pe.sinusoidal', 'pe.nn.ALiBi')
    >>> function_of("conventions['paper'].table(4, 7)", "pe")
    'Convention.table'
    >>> function_of("RotaryEmbedding.from_config({})", "pe.nn")
    'pe.nn.RotaryEmbedding.from_config'
    """
    node: ast.expr = ast.parse(call, mode="eval").body
    while isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return f"{package}.{node.id}"
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Subscript):
        return f"Convention.{node.attr}"
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{package}.{node.value.id}.{node.attr}"  # a class method
    raise ValueError(f"call={call!r}: cannot tell which public function it calls")


def names(package: str) -> dict[str, Any]:
    """Return the names a bad call of `package` runs with: its ``__all__``, np, nan, torch."""
    import torch

    module = importlib.import_module(package)
    found = {name: getattr(module, name) for name in module.__all__}
    return found | {"np": np, "nan": np.nan, "torch": torch}


def run(call: str, package: str) -> Any:
    """Evaluate the source text `call` with the names of `package` and Python's builtins."""
    return eval(call, {"__builtins__": builtins}, names(package))  # the shown text is the call


def error_row(call: str, package: str) -> list[str]:
    """Run one bad call; return its row (function, call, exception, message).

    A call that does not raise a `TypeError` or `ValueError` is a bug, and fails
    the build.
    """
    try:
        run(call, package)
    except (TypeError, ValueError) as error:
        message = str(error).replace("|", "\\|")
        return [
            f"`{function_of(call, package)}`",
            f"`{call}`",
            f"`{type(error).__name__}`",
            message,
        ]
    raise AssertionError(f"{call} did not raise")


@cached_markdown
def error_table() -> str:
    """Run every bad call of `CALLS`, in order, into the page's table."""
    rows = [error_row(call, package) for package, calls in CALLS.items() for call in calls]
    return table(["function", "call", "raises", "message"], rows, align="llll")


#: The limits the checks enforce, by the module that defines each.
LIMITS = (
    ("pe._validation", "MAX_POSITION"),
    ("pe._validation", "MAX_D_MODEL"),
    ("pe._validation", "MAX_ELEMENTS"),
    ("pe._timesteps", "MAX_TIMESTEP"),
    ("pe._alibi", "MAX_HEADS"),
    ("pe._rope_base", "MAX_BASE_HEAD_DIM"),
    ("pe._rope_base", "MAX_BASE_TERMS"),
    ("pe._rope_base", "MAX_MIN_BASE_CONTEXT"),
)


def doc_comment(module: str, name: str) -> str:
    """Return the ``#:`` comment above ``name = ...`` in `module`'s source, as one line.

    >>> doc_comment("pe._alibi", "MAX_HEADS")
    'Largest accepted head count: far beyond any model, small enough to allocate.'
    """
    import inspect

    lines = inspect.getsource(importlib.import_module(module)).splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith(f"{name} = "))
    start = end
    while start > 0 and lines[start - 1].startswith("#:"):
        start -= 1
    if start == end:
        raise ValueError(f"{module}.{name} has no #: comment to show")
    text = " ".join(line.removeprefix("#:").strip() for line in lines[start:end])
    return text.replace("``", "`")


def power_of_two(value: float) -> str:
    """Write a limit with its power of two.

    >>> power_of_two(2**31), power_of_two(2**31 - 1), power_of_two(2.0**31)
    ('2,147,483,648 (2**31)', '2,147,483,647 (2**31 - 1)', '2,147,483,648 (2**31)')
    """
    number = int(value)
    for offset, suffix in ((0, ""), (1, " - 1")):
        exponent = (number + offset).bit_length() - 1
        if number + offset == 2**exponent:
            return f"{number:,} (2**{exponent}{suffix})"
    return f"{number:,}"


def limits_table() -> str:
    """Each limit: its name, its value and the comment that documents it in the code."""
    rows = [
        [
            f"`{name}`",
            power_of_two(getattr(importlib.import_module(module), name)),
            doc_comment(module, name),
        ]
        for module, name in LIMITS
    ]
    return table(["limit", "value", "what it bounds"], rows, align="lrl")


#: Calls that are accepted, as transformers accepts the same configuration, with a
#: warning that names what was odd (the RoPE settings of a model's config).
WARNINGS: dict[str, tuple[str, ...]] = {
    "pe": (
        "rope_frequencies(64, scaling={'rope_type': 'yarn', 'factor': 4.0, 'original_max_position_embeddings': 4096, 'beta_fast': 0})",  # noqa: E501
        "rope_frequencies(128, scaling={'rope_type': 'llama3', 'factor': 8.0, 'low_freq_factor': 2.0, 'high_freq_factor': 2.0, 'original_max_position_embeddings': 8192})",  # noqa: E501
        "rope_frequencies(64, base=10000.0, scaling={'rope_theta': 500000.0})",
        "rope_frequencies(64, scaling={'rope_type': 'default', 'mrope_section': [8, 12, 12]})",
        "rope_frequencies(64, scaling={'rope_type': 'yarn', 'factor': 16.0, 'original_max_position_embeddings': 16384, 'llama_4_scaling_beta': 0.1})",  # noqa: E501
        "rope_frequencies(64, scaling={'rope_type': 'linear', 'factor': 2.0, 'beta_fast': 32})",
    ),
    "pe.nn": (
        "RotaryEmbedding.from_config({'head_dim': 64, 'max_position_embeddings': 4096, 'rope_scaling': {'rope_type': 'dynamic', 'factor': 4.0}})",  # noqa: E501
    ),
}


@cached_markdown
def warning_table() -> str:
    """Run every call of `WARNINGS`; one that raises or gives no warning fails the build."""
    import warnings

    rows = []
    for package, calls in WARNINGS.items():
        for call in calls:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                run(call, package)
            messages = [str(w.message).replace("|", "\\|") for w in caught]
            if not messages:
                raise AssertionError(f"{call} gave no warning")
            rows.append([f"`{function_of(call, package)}`", f"`{call}`", "<br>".join(messages)])
    return table(["function", "call", "warning"], rows, align="lll")
