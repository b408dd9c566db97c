"""Every warning pe gives names the user's line, however pe was reached.

A warning that points into pe or torch tells the reader nothing about their own
code, and Python hides a `DeprecationWarning` that does not point into the
script it warns about. Each case below reaches a warning one way a reader
would (a function, a module called through ``nn.Module.__call__``, a
classmethod, a moved name) and checks the warning names this file.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import pe
import pe.nn
from pe.nn.functional import sinusoidal

#: A scaling dict with a key the rule does not read (a UserWarning of pe._rope).
EXTRA_KEY = {"rope_type": "linear", "factor": 2.0, "unread": 1}
DYNAMIC = {
    "head_dim": 64,
    "max_position_embeddings": 4096,
    "rope_scaling": {"type": "dynamic", "factor": 4.0},
}

CASES: dict[str, tuple[type[Warning], Callable[[], Any]]] = {
    "a moved name of pe": (DeprecationWarning, lambda: pe.Measure),
    "layout='half' to the constructor": (
        DeprecationWarning,
        lambda: pe.nn.RotaryEmbedding(8, layout="half"),
    ),
    "layout='half' to from_config": (
        DeprecationWarning,
        lambda: pe.nn.RotaryEmbedding.from_config({"head_dim": 8}, layout="half"),
    ),
    "an unread key to rope_frequencies": (
        UserWarning,
        lambda: pe.rope_frequencies(8, scaling=EXTRA_KEY),
    ),
    "an unread key to the module": (
        UserWarning,
        lambda: pe.nn.RotaryEmbedding(8, scaling=EXTRA_KEY),
    ),
    "dynamic without seq_len to from_config": (
        UserWarning,
        lambda: pe.nn.RotaryEmbedding.from_config(DYNAMIC),
    ),
    "merged positions from numpy": (
        pe.PrecisionWarning,
        lambda: pe.sinusoidal(1000, 2, dtype=np.float16),
    ),
    "merged positions from the function": (
        pe.PrecisionWarning,
        lambda: sinusoidal(1000, 2, dtype=torch.float16),
    ),
    "merged positions from a module call": (
        pe.PrecisionWarning,
        lambda: pe.nn.SinusoidalPositionalEncoding(2, max_len=1000)(
            torch.zeros(1, 1000, 2, dtype=torch.float16)
        ),
    ),
    "merged positions from a module without a table": (
        pe.PrecisionWarning,
        lambda: pe.nn.SinusoidalPositionalEncoding(2, max_len=None)(
            torch.zeros(1, 1000, 2, dtype=torch.float16)
        ),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_warning_names_the_callers_line(case: str) -> None:
    category, call = CASES[case]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    ours = [w for w in caught if issubclass(w.category, category)]
    assert ours, f"{case}: no {category.__name__}"
    assert {Path(w.filename).name for w in ours} == {Path(__file__).name}, [
        (w.filename, w.lineno) for w in ours
    ]


@pytest.mark.parametrize(
    ("module", "fails"),
    [
        ("torch._inductor.codecache", False),  # torch's own deprecations are torch's business
        ("torch", False),
        ("triton.runtime.jit", False),
        ("pe._rope", True),  # pe's own warnings still fail the suite
        ("test_warning_lines", True),  # and so does one attributed to a caller's line
        ("torchvision_like_but_not_torch", True),  # the rule names torch, not a prefix
    ],
)
def test_the_suite_fails_on_every_warning_but_torch_and_tritons_own(
    module: str, fails: bool
) -> None:
    """pyproject's filterwarnings, as pytest applies it inside each test: a stock CUDA
    build of torch imports inductor in torch._dynamo.reset(), and inductor calls APIs
    that torch marks deprecated; that warning is attributed to a torch module."""

    def warn() -> None:
        warnings.warn_explicit(
            "planted", DeprecationWarning, "somewhere.py", 1, module=module, registry={}
        )

    if fails:
        with pytest.raises(DeprecationWarning, match="planted"):
            warn()
    else:
        warn()
