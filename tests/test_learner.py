"""What a learner misses: the tutorial claims, equivariance and the encoding in a model.

Every value `sitegen.learner` puts on a page is checked here against a formula
written out independently (float64, math module) or a hand-derived identity.
"""

import math

import numpy as np
import pytest

from sitegen import learner


def paper_dot(p: int, q: int, d_model: int, base: float = 10000.0) -> float:
    """PE(p)·PE(q) = Σ_i cos((q - p) ω_i), ω_i = base^(-2i/d), from the rotation identity."""
    return sum(math.cos((q - p) * base ** (-2 * i / d_model)) for i in range(d_model // 2))


def per_column_dot(p: int, q: int, d_model: int, base: float = 10000.0) -> float:
    """The dot product when column j uses the exponent j/d, written out column by column."""
    total = 0.0
    for j in range(d_model):
        rate = base ** (-j / d_model)
        f = math.sin if j % 2 == 0 else math.cos
        total += f(p * rate) * f(q * rate)
    return total


def test_the_notebook_numbers_come_from_the_per_column_exponent() -> None:
    near, far = learner.notebook_dots(
        "exponent i/d, i the column (the notebook's i; the site's j/d)"
    )
    assert round(near, 4) == 2.4374 == round(per_column_dot(3, 4, 6), 4)
    assert round(far, 4) == 1.5401 == round(per_column_dot(3, 10, 6), 4)


def test_the_paper_does_not_give_the_notebook_numbers() -> None:
    near, far = learner.notebook_dots("the paper: exponent 2⌊j/2⌋/d, sin/cos interleaved")
    assert near == pytest.approx(paper_dot(3, 4, 6), abs=1e-12)
    assert far == pytest.approx(paper_dot(3, 10, 6), abs=1e-12)
    assert far > near  # under the paper's formula position 10 is the closer one
    assert round(near, 4) != 2.4374
    assert round(far, 4) != 1.5401


def test_only_one_formula_matches_and_the_table_says_so() -> None:
    matches = [
        name
        for name in learner.FORMULAS
        if tuple(round(v, 4) for v in learner.notebook_dots(name)) == (2.4374, 1.5401)
    ]
    assert matches == ["exponent i/d, i the column (the notebook's i; the site's j/d)"]
    markdown = learner.notebook_formulas()
    assert markdown.count("**yes**") == 1
    assert "2.5392" in markdown
    assert "2.7015" in markdown


def test_layout_and_counting_do_not_change_the_paper_dot_products() -> None:
    for name in ("the paper's angles, sines then cosines (halves)", "positions counted from 1"):
        near, far = learner.notebook_dots(name)
        assert near == pytest.approx(paper_dot(3, 4, 6), abs=1e-12)
        assert far == pytest.approx(paper_dot(3, 10, 6), abs=1e-12)


def test_base_100_and_i_for_2i_are_the_same_formula_at_d6() -> None:
    # base^(-2i/d) with base 100 equals 10000^(-i/d): 100^(2i/d) = 10000^(i/d).
    a = learner.notebook_dots("base 100 instead of 10000")
    b = learner.notebook_dots("exponent i/d, i the pair (the site's i, where the paper has 2i)")
    assert a == pytest.approx(b, abs=1e-12)


def test_dot_by_offset_table_matches_the_identity() -> None:
    markdown = learner.dot_by_offset(6, 4, 12)
    for q in range(4, 13):
        assert f"{paper_dot(3, q, 6):.4f}" in markdown
        assert f"{per_column_dot(3, q, 6):.4f}" in markdown


def test_neighbour_dots_constant_only_for_the_paper() -> None:
    markdown = learner.neighbour_dots(6, (0, 3, 10, 50))
    assert markdown.count(f"{paper_dot(0, 1, 6):.4f}") == 4
    values = {round(per_column_dot(p, p + 1, 6), 4) for p in (0, 3, 10, 50)}
    assert len(values) == 4


def test_pair0_returns_are_the_record_approaches_to_a_multiple_of_two_pi() -> None:
    records = learner.pair0_returns(1000)
    positions = [p for p, _ in records]
    # Brute force in plain float64: distance of p from the nearest multiple of 2π.
    best, expected = math.inf, []
    for p in range(1, 1001):
        gap = 2 * abs(math.sin(p / 2))
        if gap < best:
            best = gap
            expected.append(p)
    assert positions == expected
    assert 44 in positions
    assert 710 in positions
    assert 41 not in positions
    # At 41 pair 0 is nearly opposite its start; at 44 nearly back (44 ≈ 7 · 2π).
    assert math.cos(41) < -0.98
    assert math.cos(44) > 0.9998
    assert abs(44 - 7 * 2 * math.pi) < 0.02


def test_blog_table_separates_the_returns_with_the_slow_pairs() -> None:
    markdown = learner.blog_returns(64, (41,))
    assert "**41**" in markdown
    for p in (44, 333, 710):
        distance = math.sqrt(2 * (32 - paper_dot(0, p, 64)))  # |a - b|² = |a|² + |b|² - 2a·b
        assert distance > 4
        assert f"{distance:.4f}" in markdown


def test_attention_is_equivariant_not_invariant() -> None:
    checks = learner.equivariance_checks()
    values = list(checks.values())
    assert values[0] < 1e-12  # equivariant
    assert values[1] > 0.1  # not invariant
    assert values[2] < 1e-12  # pooling makes it invariant
    assert values[3] > 0.1  # the encoding breaks the symmetry


def test_embedding_balance_matches_the_expected_norms() -> None:
    markdown = learner.embedding_balance((64, 512))
    rows = [line.split(" | ") for line in markdown.splitlines()[2:]]
    for row in rows:
        d_model = int(row[0].strip("| "))
        norm, encoding, ratio = (float(cell.strip(" |")) for cell in row[2:5])
        assert encoding == pytest.approx(math.sqrt(d_model / 2), abs=0.01)
        if "default" in row[1]:
            # each entry √d · N(0,1): ‖row‖ ≈ √d · √d = d; ratio ≈ √(2d)
            assert norm == pytest.approx(d_model, rel=0.02)
            assert ratio == pytest.approx(math.sqrt(2 * d_model), rel=0.02)
        else:
            # each entry N(0,1): ‖row‖ ≈ √d; ratio ≈ √2
            assert norm == pytest.approx(math.sqrt(d_model), rel=0.02)
            assert ratio == pytest.approx(math.sqrt(2), rel=0.02)


def test_concatenation_then_linear_is_a_sum() -> None:
    assert learner.concatenation_identity() < 1e-10


def test_width_cost_is_four_times() -> None:
    markdown = learner.width_cost(512, 6)
    assert f"{6 * 4 * 512 * 512:,}" in markdown
    assert f"{6 * 4 * 1024 * 1024:,}" in markdown


def test_incremental_decoding_needs_the_offset() -> None:
    result = learner.incremental_decoding()
    assert result["step t encoded with offset=t"] == 0.0
    # Without offset every step is position 0; the worst row differs from position t
    assert result["every step encoded without offset"] > 1.0


def test_dropout_acts_on_the_sum() -> None:
    result = learner.dropout_on_sum(rate=0.1)
    assert 0.05 < result["share of entries set to zero"] < 0.15
    assert result["largest |output - sum/(1 - rate)| where kept"] < 1e-6


def test_paper_helper_is_the_paper_formula() -> None:
    row = learner.paper(7, 8)
    for j in range(8):
        angle = 7 / 10000.0 ** (2 * (j // 2) / 8)
        assert row[j] == pytest.approx(
            math.sin(angle) if j % 2 == 0 else math.cos(angle), abs=1e-12
        )
    assert np.allclose(learner.halves(7, 8), np.concatenate([row[0::2], row[1::2]]))


def test_blog_summary_names_the_true_returns() -> None:
    text = learner.blog_summary(d_model=64, claimed=41, limit=1000, heatmap_rows=10)
    assert f"{math.cos(41):.3f}" in text
    assert "return is at 44" in text
    assert f"{44 / (2 * math.pi):.3f} turns" in text
    assert "333 and 710" in text
    assert f"{10 / (2 * math.pi):.2f} turns" in text
    closest = min(math.sqrt(2 * (32 - paper_dot(0, p, 64))) for p in (44, 333, 710))
    assert f"at least {closest:.2f}" in text


def test_paper_table3_quotes_the_paper() -> None:
    markdown = learner.paper_table3()
    # Vaswani et al. 2017, Table 3: base 4.92 / 25.8; row (E) 4.92 / 25.7.
    assert "| base, sinusoidal encoding | 4.92 | 25.8 |" in markdown
    assert "instead of sinusoids | 4.92 | 25.7 |" in markdown


def _page(name: str) -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parents[1] / "docs" / f"{name}.md").read_text(encoding="utf-8")


def test_gentle_example_comes_before_the_long_trace() -> None:
    page = _page("worked-examples")
    assert page.index("## A 4-wide encoding") < page.index("## Step by step: 8 positions, d = 20")
    assert "## Step by step" not in _page("formula")


def test_unit_circle_figure_lives_in_the_rotation_chapter() -> None:
    rotation = _page("rotation")
    assert rotation.index('figure("rotation"') < rotation.index("## Derivation")
    assert 'figure("rotation"' not in _page("visualizing")


def test_simple_module_comes_before_the_exact_method() -> None:
    page = _page("implementation")
    assert page.index("## The torch module") < page.index("## The numpy function")


def test_transformer_page_is_in_the_guide_after_implementation() -> None:
    from pathlib import Path

    nav = (Path(__file__).resolve().parents[1] / "mkdocs.yml").read_text(encoding="utf-8")
    where = [nav.index(page) for page in ("implementation.md", "transformer.md", "visualizing.md")]
    assert where == sorted(where)


def test_column0_alone_returns_near_multiples_of_pi() -> None:
    records = learner.sine_zero_records(1000)
    expected, best = [], abs(math.sin(1))
    for p in range(2, 1001):
        if abs(math.sin(p)) < best:
            best = abs(math.sin(p))
            expected.append(p)
    assert records == expected
    assert records == [3, 22, 333, 355]
    markdown = learner.column0_returns(41, 1000)
    # 41 ≈ 13π (odd): the sine is near 0 but the cosine near -1.
    assert abs(41 / math.pi - 13) < 0.06
    assert markdown.count("no: the pair is opposite its start") == 4  # 3, 22, 41, 355
    assert markdown.count("yes: an even multiple of π") == 1  # 333 ≈ 106π
