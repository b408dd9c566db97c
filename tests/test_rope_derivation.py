"""The RoPE derivation page: every table against float64 formulas written out here.

`sitegen.pages.rope_derivation` computes with `pe`; these tests recompute each
quantity from the definitions (cos and sin of m·θ_i with θ_i = 10000^(-2i/d),
the 2017 table from its formula, the layout permutation from its index rule)
and compare with the numbers the page shows.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch

from sitegen.markdown import MINUS, plain
from sitegen.pages import rope_derivation as page

DOCS_PAGE = "docs/beyond/rope-derivation.md"


def turn(x: list[float], position: int, base: float = 10000.0) -> list[float]:
    """Interleaved RoPE written from its definition: pair i turned by position·base^(-2i/d)."""
    d = len(x)
    out = []
    for i in range(d // 2):
        angle = position * base ** (-2 * i / d)
        a, b = x[2 * i], x[2 * i + 1]
        out += [
            a * math.cos(angle) - b * math.sin(angle),
            a * math.sin(angle) + b * math.cos(angle),
        ]
    return out


def cells(markdown: str) -> list[list[str]]:
    rows = [line.strip("|").split("|") for line in markdown.splitlines() if line.startswith("|")]
    return [[c.strip() for c in row] for row in rows[2:]]


def floats(text: str) -> list[float]:
    text = text.replace(MINUS, "-")  # the pages write negative numbers with the minus sign
    return [float(t) for t in re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]


def test_hand_case_matches_the_definition() -> None:
    q, k = list(page.HAND_Q), list(page.HAND_K)
    rq, rk = turn(q, page.HAND_M), turn(k, page.HAND_N)
    rows = cells(page.hand_case())
    assert len(rows) == 2
    for i, row in enumerate(rows):
        assert floats(row[1])[0] == pytest.approx(10000 ** (-2 * i / 4), abs=5e-5)
        assert floats(row[4]) == pytest.approx(rq[2 * i : 2 * i + 2], abs=5e-5)
        assert floats(row[7]) == pytest.approx(rk[2 * i : 2 * i + 2], abs=5e-5)
        share = rq[2 * i] * rk[2 * i] + rq[2 * i + 1] * rk[2 * i + 1]
        assert floats(row[8])[0] == pytest.approx(share, abs=5e-5)
    # The score in its complex form: Re(q k̄ e^{i(m-n)θ}) summed over pairs.
    offset = page.HAND_M - page.HAND_N
    expected = sum(
        (
            complex(q[2 * i], q[2 * i + 1])
            * complex(k[2 * i], -k[2 * i + 1])
            * complex(math.cos(offset * 10000 ** (-i / 2)), math.sin(offset * 10000 ** (-i / 2)))
        ).real
        for i in range(2)
    )
    score, relative = page.hand_score()
    assert score == pytest.approx(expected, abs=1e-12)
    assert relative == pytest.approx(expected, abs=1e-12)
    assert f"= {expected:.4f}".replace("-", MINUS) in page.hand_summary()


def test_additive_scores_move_and_rotary_scores_do_not() -> None:
    rows = cells(page.additive_vs_rotary())
    additive = [float(plain(r[2])) for r in rows]
    rotary = [float(plain(r[3])) for r in rows]
    norms = [float(plain(r[4])) for r in rows]
    assert max(additive) - min(additive) > 0.1
    assert max(rotary) - min(rotary) <= 1e-6
    assert max(norms) - min(norms) <= 1e-6
    # Recompute the additive score from the 2017 formula and the rotary one by definition.
    rng = np.random.default_rng(0)
    x_q, x_k = rng.standard_normal((2, 8))
    w_q, w_k = np.random.default_rng(1).standard_normal((2, 8, 8)) / math.sqrt(8)

    def sinusoid(p: int) -> np.ndarray:
        return np.array(
            [
                math.sin(p / 10000 ** (2 * (j // 2) / 8))
                if j % 2 == 0
                else math.cos(p / 10000 ** (2 * (j // 2) / 8))
                for j in range(8)
            ]
        )

    for row in rows:
        m, n = int(plain(row[0])), int(plain(row[1]))
        add = ((x_q + sinusoid(m)) @ w_q) @ ((x_k + sinusoid(n)) @ w_k)
        assert float(plain(row[2])) == pytest.approx(add, abs=5e-6)
        rot = np.dot(turn(list(x_q @ w_q), m), turn(list(x_k @ w_k), n))
        assert float(plain(row[3])) == pytest.approx(rot, abs=5e-6)
        assert float(plain(row[4])) == pytest.approx(float(np.linalg.norm(x_q @ w_q)), abs=5e-6)


def test_layout_table() -> None:
    rows = cells(page.layouts())
    assert floats(rows[0][1]) == [0, 2, 4, 6, 1, 3, 5, 7]
    assert floats(rows[1][1])[0] < 1e-13
    assert floats(rows[2][1])[0] > 0.1


def test_cost_is_the_arithmetic_of_the_config() -> None:
    values = {r[0]: r[1] for r in cells(page.cost(8192))}
    # Llama 3 8B: d = 4096/32 = 128; 40 heads rotated; 3 flops per rotated number.
    assert values["head size *d*"] == "128"
    assert int(plain(values["RoPE floating-point operations per token"])) == 3 * 128 * 40
    projections = 2 * 4096 * (4096 + 2 * 1024)
    assert int(plain(values["q, k, v projections, operations per token"])) == projections
    share = 100 * 3 * 128 * 40 / (2 * 4096 * 6144)
    assert values["RoPE as a share of the q, k, v projections"] == f"{share:.3f} %"
    table = 8192 * 64 * 2 * 4 / 2**20
    assert floats(values[next(k for k in values if k.startswith("cos and sin"))])[0] == table


def test_values_are_not_rotated() -> None:
    rows = cells(page.values_not_rotated())
    assert floats(rows[0][1])[0] < 1e-13
    assert floats(rows[1][1])[0] > 0.1
    assert floats(rows[2][1])[0] < 1e-12
    assert floats(rows[3][1])[0] < 1e-13


def test_rotation_direction_matches_the_definition() -> None:
    """pe's interleaved RoPE is the `turn` used above (so the tests compare like with like)."""
    from pe.nn import RotaryEmbedding

    x = torch.tensor([[0.3, -1.2, 0.7, 2.0, -0.4, 1.1]], dtype=torch.float64)
    out = RotaryEmbedding(6).rotate(x, offset=5)[0].tolist()
    assert out == pytest.approx(turn(x[0].tolist(), 5), abs=1e-12)


def test_page_uses_every_table() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / DOCS_PAGE).read_text(encoding="utf-8")
    for name in (
        "hand_case",
        "hand_summary",
        "additive_vs_rotary",
        "layouts",
        "cost",
        "values_not_rotated",
    ):
        assert f"rope_derivation.{name}()" in text, name


def test_the_page_ends_with_exercises_whose_solutions_run_on_the_page() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / DOCS_PAGE).read_text(encoding="utf-8")
    section = text.split("\n## Exercises\n", 1)[1]
    included = re.findall(r'--8<-- "examples/exercises/(\w+)\.py"', section)
    assert included == ["rope_derivation_1", "rope_derivation_2"]
    assert section.count('```python exec="on" source="above" result="text"') == 2
