"""pe.nn._kernels, RoPE's one-kernel rotation, run by Triton's interpreter on the CPU.

Triton comes with the CUDA builds of torch, not with the CPU build the tests
install, so this file skips itself where Triton is missing (CI, the developers'
machines); where it is installed (a GPU machine) it runs the kernel's code in
Triton's interpreter, on CPU tensors, in a child process (``TRITON_INTERPRET``
must be set before Triton compiles anything). ``tests/test_cuda.py`` runs the
compiled kernel on a GPU through `pe.nn.RotaryEmbedding`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from reference import rope_rotation

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("triton") is None, reason="needs Triton (CUDA builds of torch)"
)

ROOT = Path(__file__).resolve().parents[1]

# Each case: shape, rotated width, interleaved, dtype. Widths not a power of two (the
# kernel masks the pairs past them), a part left unrotated, rows that do not fill a
# program's block, and the three dtypes.
CASES = [
    ((2, 3, 5, 16), 16, False, "float32"),
    ((2, 3, 5, 16), 16, True, "float32"),
    ((1, 2, 7, 24), 12, False, "float32"),
    ((1, 2, 7, 24), 12, True, "bfloat16"),
    ((3, 9, 20), 20, False, "float16"),
    ((1, 1, 300, 8), 8, True, "float32"),
]

CHILD = """
import json, sys
import numpy as np
import torch
from pe.nn import _kernels

results = []
for shape, rotary, interleaved, dtype in json.loads(sys.argv[1]):
    torch.manual_seed(len(results))
    x = torch.randn(shape).to(getattr(torch, dtype))
    positions = np.arange(100, 100 + shape[-2])
    angles = torch.from_numpy(positions[:, None] / 10000.0 ** (np.arange(0, rotary, 2) / rotary))
    cos, sin = angles.cos().float(), angles.sin().float()
    if interleaved:  # the complex table's real view: cos and sin of each pair side by side
        cos = sin = torch.stack((cos, sin), dim=-1)
    out = _kernels._launch(x, cos, sin, rotary, interleaved=interleaved)
    results.append(
        {"x": x.double().tolist(), "out": out.double().tolist(), "dtype": str(out.dtype)}
    )
print(json.dumps(results))
"""


def test_the_kernel_turns_each_pair_as_the_formula_says() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(CASES)],
        cwd=ROOT,
        env={
            **os.environ,
            "TRITON_INTERPRET": "1",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        },
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    outputs = json.loads(result.stdout.splitlines()[-1])
    for (shape, rotary, interleaved, dtype), got in zip(CASES, outputs, strict=True):
        assert got["dtype"] == f"torch.{dtype}"
        x, out = np.array(got["x"]), np.array(got["out"])
        assert out.shape == tuple(shape)
        expected = rope_rotation(
            x,
            np.arange(100, 100 + shape[-2]),
            "interleaved" if interleaved else "concatenated",
            rotary,
        )
        # Relative to each value: float32, a few units in its last place; float16, rounded
        # once (half a unit); bfloat16, one unit (the interpreter cuts bfloat16 down where
        # a GPU rounds it to nearest; tests/test_cuda.py checks half a unit there).
        relative = {"float32": 1e-6, "bfloat16": 2.0**-7, "float16": 2.0**-11}[dtype]
        scale = np.maximum(np.abs(expected), 1.0 if dtype == "float32" else 2.0**-14)
        assert (np.abs(out - expected) <= relative * scale).all()
        np.testing.assert_array_equal(out[..., rotary:], x[..., rotary:])
