"""RoPE's base: the three pe functions and the page's tables against references written here.

`pe.rope_decay_bound`, `pe.rope_critical_dimension` and `pe.rope_min_base`
are checked against mpmath sums, a count of wavelengths by hand and a
brute-force scan of every grid base; the tables of `sitegen.pages.rope_base`
against float64 formulas written out below, and the page's claims against the
numbers it prints.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

import mpmath
import numpy as np
import pytest

import pe
from sitegen.pages import rope_base as page

ROOT = Path(__file__).resolve().parents[1]
DOCS_PAGE = ROOT / "docs" / "beyond" / "rope-base.md"


def cells(markdown: str) -> list[list[str]]:
    rows = [line.strip("|").split("|") for line in markdown.splitlines() if line.startswith("|")]
    return [[c.strip() for c in row] for row in rows[2:]]


def value(cell: str) -> float:
    return float(cell.replace(",", "").replace("\u2212", "-").split()[0])


def bound_mpmath(r: int, d: int, base: float) -> float:
    """(1/(d/2)) Σ_{j=1}^{d/2} |Σ_{k<j} e^{i r θ_k}| with θ_k = base^(-2k/d), in mpmath."""
    mpmath.mp.dps = 30
    total, partial = mpmath.mpf(0), mpmath.mpc(0)
    for k in range(d // 2):
        theta = mpmath.power(mpmath.mpf(base), -mpmath.mpf(2 * k) / d)
        partial += mpmath.expj(r * theta)
        total += abs(partial)
    return float(total / (d // 2))


def men_sum(m: np.ndarray, base: float, d: int) -> np.ndarray:
    """Σ_i cos(m θ_i), θ_i = base^(-2i/d), written with a Python list of frequencies."""
    theta = np.array([base ** (-2 * i / d) for i in range(d // 2)])
    sums: np.ndarray = np.cos(m.astype(np.float64)[:, None] * theta[None, :]).sum(axis=1)
    return sums


def passes(base: float, context: int, d: int) -> bool:
    return all(
        (men_sum(np.arange(s, min(context, s + 4096)), base, d) >= 0).all()
        for s in range(0, context, 4096)
    )


# --- pe.rope_decay_bound -------------------------------------------------------------


@pytest.mark.parametrize(("d", "base"), [(8, 10000.0), (128, 10000.0), (128, 1e6), (256, 1e4)])
def test_decay_bound_matches_mpmath(d: int, base: float) -> None:
    distances = [0, 1, 7, 100, 4096, 123457]
    ours = pe.rope_decay_bound(distances, d, base)
    assert ours.dtype == np.float64
    expected = [bound_mpmath(r, d, base) for r in distances]
    np.testing.assert_allclose(ours, expected, rtol=1e-9, atol=1e-9)


def test_decay_bound_starts_at_half_of_pairs_plus_one_and_never_exceeds_it() -> None:
    bound = pe.rope_decay_bound(5000, 64)
    assert bound[0] == pytest.approx((32 + 1) / 2, abs=1e-12)
    assert bound.max() <= (32 + 1) / 2 + 1e-12
    assert bound.shape == (5000,)


def test_decay_bound_keeps_shape_and_is_even_in_distance() -> None:
    grid = np.array([[3, -3], [-40, 40]])
    bound = pe.rope_decay_bound(grid, 16)
    assert bound.shape == (2, 2)
    assert bound[0, 0] == bound[0, 1]
    assert bound[1, 0] == bound[1, 1]


def test_decay_bound_bounds_every_score_by_abel_summation() -> None:
    """|Σ h_i e^{irθ_i}| ≤ max_i |h_{i+1} - h_i| · Σ_j |S_j|, with h_{d/2} = 0."""
    d, base = 32, 10000.0
    rng = np.random.default_rng(3)
    for _ in range(20):
        q = rng.standard_normal(d // 2) + 1j * rng.standard_normal(d // 2)
        k = rng.standard_normal(d // 2) + 1j * rng.standard_normal(d // 2)
        h = np.append(q * np.conj(k), 0.0)
        step = np.abs(np.diff(h)).max()
        for r in (1, 10, 300, 5000):
            theta = np.array([base ** (-2 * i / d) for i in range(d // 2)])
            score = abs((h[:-1] * np.exp(1j * r * theta)).sum())
            assert score <= step * (d // 2) * pe.rope_decay_bound([r], d, base)[0] + 1e-9


# --- pe.rope_critical_dimension ------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "length", "base"),
    [(128, 4096, 1e4), (128, 8192, 5e5), (128, 16384, 1e6), (256, 32768, 1e6), (64, 2048, 1e4)],
)
def test_critical_dimension_is_twice_the_pairs_whose_wavelength_fits(
    d: int, length: int, base: float
) -> None:
    fits = sum(2 * math.pi * base ** (2 * i / d) <= length for i in range(d // 2))
    assert pe.rope_critical_dimension(d, length, base) == 2 * fits


def test_critical_dimension_of_llama2_by_hand() -> None:
    # 64 · log(4096 / 2π) / log(10000) = 45.03..., so 2 · 46.
    assert 64 * math.log(4096 / (2 * math.pi)) / math.log(10000) == pytest.approx(45.03, abs=0.01)
    assert pe.rope_critical_dimension(128, 4096) == 92


def test_critical_dimension_is_clipped() -> None:
    assert pe.rope_critical_dimension(128, 1) == 0  # shorter than pair 0's wavelength 2π
    assert pe.rope_critical_dimension(8, 10**12, base=10.0) == 8


# --- pe.rope_min_base ----------------------------------------------------------------


@pytest.mark.parametrize(("context", "d"), [(40, 8), (300, 16), (700, 32)])
def test_min_base_is_the_first_grid_point_that_passes(context: int, d: int) -> None:
    n = 200
    found = pe.rope_min_base(context, d, points_per_decade=n)
    k = round(n * math.log10(found))
    assert found == pytest.approx(10 ** (k / n), rel=1e-12)
    assert passes(found, context, d)
    assert not any(passes(10 ** (j / n), context, d) for j in range(1, k))


@pytest.mark.parametrize(
    ("start", "stop", "base"),
    [(0, 1, 10.0), (0, 255, 1e4), (3, 260, 1e4), (1000, 1700, 5e5), (130000, 131072, 8e6)],
)
def test_min_base_sums_runs_of_positions_as_the_direct_sum(
    start: int, stop: int, base: float
) -> None:
    """The full check's sums (a product of runs' and offsets' angles) equal the direct sum."""
    from pe._rope_base import _cos_sums

    theta = np.power(base, -np.arange(0, 128, 2) / 128)
    direct = np.cos(np.multiply.outer(np.arange(start, stop, dtype=np.float64), theta)).sum(-1)
    np.testing.assert_allclose(_cos_sums(start, stop, theta), direct, rtol=0, atol=1e-10)


def test_min_base_for_1k_matches_men_et_al() -> None:
    found = pe.rope_min_base(1024, 128)
    assert found == pytest.approx(4.3e3, rel=0.01)  # Men et al. 2024, d = 128, 1k
    assert passes(found, 1024, 128)
    assert not passes(found / 10 ** (1 / 1000), 1024, 128)


def test_min_base_raises_when_no_base_passes() -> None:
    with pytest.raises(ValueError, match="no base up to max_base"):
        pe.rope_min_base(10, 2, max_base=1e4)  # one pair at frequency 1: cos(2) < 0 always


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: pe.rope_min_base(0, 128), ValueError, "context must be a positive integer"),
        (lambda: pe.rope_min_base(2.5, 128), TypeError, "context"),  # type: ignore[arg-type]
        (lambda: pe.rope_min_base(2**23, 128), ValueError, "context must be at most"),
        (lambda: pe.rope_min_base(100, 127), ValueError, "head_dim"),
        (lambda: pe.rope_min_base(100, 8, points_per_decade=0), ValueError, "points_per_decade"),
        (lambda: pe.rope_min_base(100, 8, max_base=1.0), ValueError, "max_base"),
        (lambda: pe.rope_min_base(100, 8, max_base="1e9"), TypeError, "max_base"),  # type: ignore[arg-type]
        (lambda: pe.rope_critical_dimension(128, 0), ValueError, "train_length"),
        (lambda: pe.rope_critical_dimension(128, 4096, base=1.0), ValueError, "base"),
        (lambda: pe.rope_critical_dimension(128.0, 4096), TypeError, "head_dim"),  # type: ignore[arg-type]
        (lambda: pe.rope_decay_bound([0.5], 8), TypeError, "distances"),
        (lambda: pe.rope_decay_bound(10, 9), ValueError, "head_dim"),
        (lambda: pe.rope_decay_bound(10**9, 4096), ValueError, "values"),
    ],
)
def test_bad_input_names_the_parameter(call: object, error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        call()  # type: ignore[operator]


# --- the page's tables ---------------------------------------------------------------

# The settings as their sources publish them: (head size, base, trained context).
SOURCES = {
    "Llama 2 7B": (128, 1e4, 4096),
    "Code Llama 7B": (128, 1e6, 16384),
    "Llama 3.1 8B": (128, 5e5, 8192),
    "Gemma 3 4B, local layers": (256, 1e4, 1024),
    "Gemma 3 4B, global layers": (256, 1e6, 32768),
}


def test_settings_are_read_from_the_published_configs() -> None:
    read = {s.name: (s.head_dim, s.base, s.trained) for s in page.settings()}
    assert read == SOURCES


def test_decay_table_against_the_formula() -> None:
    rows = cells(page.decay_table())
    assert [row[0] for row in rows] == list(SOURCES)
    for row in rows:
        d, base, _ = SOURCES[row[0]]
        for cell, r in zip(row[3:], page.DECAY_DISTANCES, strict=True):
            theta = np.array([base ** (-2 * i / d) for i in range(d // 2)])
            expected = np.abs(np.cumsum(np.exp(1j * r * theta))).mean()
            assert value(cell) == pytest.approx(expected, abs=0.006)
    # The page: by distance 1,024 Llama 2's bound has lost most of its height; the bases
    # of a million keep far more of theirs.
    kept = {row[0]: value(row[6]) / value(row[3]) for row in rows}
    assert page.DECAY_DISTANCES[3] == 1024  # column 6 of the table
    assert kept["Llama 2 7B"] < 0.5
    for name in ("Code Llama 7B", "Gemma 3 4B, global layers"):
        assert kept[name] > 2 * kept["Llama 2 7B"]


def test_score_table_decays_only_for_aligned_queries_and_keys() -> None:
    rows = cells(page.score_table())
    d = page.SCORE_DIM
    for row, r in zip(rows, page.SCORE_DISTANCES, strict=True):
        ones = 2 * sum(math.cos(r * 10000.0 ** (-2 * i / d)) for i in range(d // 2)) / d
        assert value(row[1]) == pytest.approx(ones, abs=6e-4)
        assert value(row[2]) == pytest.approx(ones, abs=0.05)  # E[q·R_r q] = 2Σcos(rθ_i)
        assert abs(value(row[3])) < 0.01  # mean 0 (Barbero et al., Proposition 3.2)
        assert value(row[4]) == pytest.approx(1.0, abs=0.05)  # spread √d at every r
    assert value(rows[0][1]) > 0.9
    assert value(rows[-1][1]) < 0.1


def test_p_rope_frequencies_are_those_of_the_papers_algorithm() -> None:
    """Barbero et al., Appendix D: timescale = wavelength^(2i/d) for the kept pairs, ∞ after."""
    d, p, wavelength = 128, 0.75, 10000.0
    rope_angles = int(p * d // 2)
    paper = [1 / wavelength ** (2 * i / d) for i in range(rope_angles)]
    paper += [0.0] * (d // 2 - rope_angles)
    ours = pe.rope_frequencies(
        d, base=wavelength, scaling={"rope_type": "proportional", "partial_rotary_factor": p}
    ).frequencies
    np.testing.assert_allclose(ours, paper, rtol=1e-14, atol=0)
    assert "48 of the 64 pairs" in page.p_rope_summary()


def test_slow_pairs_table_against_the_formula() -> None:
    rows = cells(page.slow_pairs_table())
    for row, pair in zip(rows, page.SLOW_PAIRS, strict=True):
        theta = 10000.0 ** (-2 * pair / 128)
        assert value(row[1]) == pytest.approx(2 * math.pi / theta, abs=0.5)
        for cell, context in zip(row[2:4], page.SLOW_CONTEXTS, strict=True):
            assert value(cell) == pytest.approx(context * theta / (2 * math.pi), abs=6e-4)
        kept = pair < int(0.75 * 64)
        assert value(row[4]) == (value(row[3]) if kept else 0.0)


def first_negative(base: float, d: int, limit: int) -> int | None:
    for start in range(0, limit, 8192):
        sums = men_sum(np.arange(start, min(limit, start + 8192)), base, d)
        negative = np.flatnonzero(sums < 0)
        if negative.size:
            return start + int(negative[0])
    return None


def test_base_table_against_hand_formulas_and_the_pages_claims() -> None:
    rows = {row[0]: row for row in cells(page.base_table())}
    for name, (d, base, trained) in SOURCES.items():
        row = rows[name]
        waves = [2 * math.pi * base ** (2 * i / d) for i in range(d // 2)]
        assert value(row[4]) == pytest.approx(waves[-1], abs=0.5)
        full = sum(wave <= trained for wave in waves)
        assert row[5] == f"{full} of {d // 2}"
        assert row[3].startswith(f"{trained:,} (")
        assert int(row[6]) == 2 * full
        smallest = value(row[7])
        found = pe.rope_min_base(trained, d)
        assert smallest == pytest.approx(found, rel=0.05)
        assert passes(found, trained, d)
        first = first_negative(base, d, 1 << 20)
        assert first is not None
        assert value(row[8]) == first
        # The page: Llama 2 fails inside its context, the others pass over theirs.
        assert (first < trained) == (name == "Llama 2 7B")
        assert (smallest > base) == (name == "Llama 2 7B")
    # The figure's caption: B_r crosses zero first for the bases of 10,000.
    firsts = {name: value(row[8]) for name, row in rows.items()}
    small = [firsts[n] for n, (_, base, _) in SOURCES.items() if base == 1e4]
    large = [firsts[n] for n, (_, base, _) in SOURCES.items() if base >= 5e5]
    assert max(small) < min(large)


def test_min_base_table_rows_pass_and_the_grid_point_below_fails() -> None:
    rows = cells(page.min_base_table())
    assert [value(row[0]) for row in rows] == list(page.MEN_REPORTED)
    # Up to 8,192 positions, and the longest context (131,072: a few tenths of a second of
    # brute force), where the full checks sum over runs of positions (`_cos_sums`).
    for row in [*rows[:4], rows[-1]]:
        context = int(value(row[0]))
        base = pe.rope_min_base(context, page.MEN_DIM)
        assert value(row[1]) == pytest.approx(base, rel=0.006)
        assert passes(base, context, 128)
        assert not passes(base / 10 ** (1 / 1000), context, 128)
        assert value(row[4]) == pytest.approx(base / context, abs=0.06)
    # The page: pe agrees (to the digits shown) with Su's values at most lengths, and
    # with the paper's less often.
    shown = [f"{value(row[1]):.1e}" for row in rows]
    with_su = sum(a == f"{b:.1e}" for a, b in zip(shown, page.SU_RECOMPUTED.values(), strict=True))
    with_men = sum(a == f"{b:.1e}" for a, b in zip(shown, page.MEN_REPORTED.values(), strict=True))
    assert with_su > len(rows) / 2
    assert with_men < with_su


def test_page_uses_every_table_and_figure() -> None:
    text = DOCS_PAGE.read_text(encoding="utf-8")
    for name in (
        "decay_table",
        "score_table",
        "p_rope_summary",
        "slow_pairs_table",
        "base_table",
        "min_base_table",
    ):
        assert f"rope_base.{name}()" in text, name
    assert 'figure("rope_decay"' in text


def test_the_page_ends_with_exercises_whose_solutions_run_on_the_page() -> None:
    text = DOCS_PAGE.read_text(encoding="utf-8")
    section = text.split("\n## Exercises\n", 1)[1]
    included = re.findall(r'--8<-- "examples/exercises/(\w+)\.py"', section)
    assert included == ["rope_base_1", "rope_base_2"]


def test_the_prose_states_the_settings_the_tables_use() -> None:
    text = " ".join(DOCS_PAGE.read_text(encoding="utf-8").split())
    assert (page.SCORE_DIM, page.SCORE_BASE) == (128, 10000.0)
    assert "on Llama 2's head (\\(d = 128\\), base 10,000)" in text
    assert f"over {page.SCORE_SAMPLES:,} random pairs (seed {page.SCORE_SEED})" in text
    assert page.SLOW_CONTEXTS == (4096, 4096 * 32)
    assert "over 32 times that context, and over the longer one under 0.75-RoPE" in text
    assert page.SLOW_P == 0.75


# --- limits: sized before any term is summed ---------------------------------------------
def test_head_size_and_terms_are_limited_before_any_sum() -> None:
    from allocation import headroom

    calls: list[tuple[Callable[[], object], str]] = [
        # 256 positions x 2**23 pairs of offsets: 16 GiB before
        (lambda: pe.rope_min_base(4096, 2**24), "head_dim must be at most 65,536"),
        (lambda: pe.rope_decay_bound([3], 2**24), "head_dim must be at most 65,536"),
        (lambda: pe.rope_min_base(2**21, 512), r"context times head_dim / 2 .* 2,097,152 x 256"),
        (lambda: pe.rope_decay_bound(2**22, 256), r"number of distances times head_dim / 2"),
        (
            lambda: pe.rope_decay_bound(np.broadcast_to(5, (2**15, 2**4)), 2048),
            r"2\*\*28\) terms; got 524,288 x 1,024",
        ),
    ]
    for call, words in calls:
        with headroom(), pytest.raises(ValueError, match=words):
            call()
    # The largest head: a value checked against the page's hand formula at r = 0.
    widest = pe.rope_decay_bound([0], 2**16)
    assert widest[0] == pytest.approx((2**15 + 1) / 2, abs=1e-6)


def test_head_dim_2_fails_at_once_and_the_grid_stops_inside_float64(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """head_dim 2 scanned 1.2 million bases before saying what it knew: cos(2) < 0."""
    import pe._rope_base

    def no_scan(*args: object) -> object:
        raise AssertionError("a base was tried")

    monkeypatch.setattr(pe._rope_base, "_survivors", no_scan)
    monkeypatch.setattr(pe._rope_base, "_some_negative", no_scan)
    with pytest.raises(ValueError, match="head_dim 2 has one pair, turning at frequency 1"):
        pe.rope_min_base(4096, 2, points_per_decade=100_000)
    with pytest.raises(ValueError, match="no base up to max_base=5"):
        pe.rope_min_base(100, 8, points_per_decade=1, max_base=5.0)  # 10 is past 5
    monkeypatch.undo()
    assert pe.rope_min_base(2, 2) == pytest.approx(10 ** (1 / 1000), rel=1e-15)
    # A coarse grid up to the largest float64: 10**308 is its last point, not an OverflowError.
    from pe._rope_base import _grid_bases

    bases = _grid_bases(300, 20, 1, 1.7e308)
    assert len(bases) == 9
    assert bases[-1] == 1e308


def test_a_fine_grid_finds_a_base_that_passes_above_one_that_fails() -> None:
    """100,000 points per decade took 10 s (a cosine per base, witness and pair, in Python)."""
    found = pe.rope_min_base(64, 8, points_per_decade=100_000)
    k = round(100_000 * math.log10(found))
    assert found == pytest.approx(10 ** (k / 100_000), rel=1e-12)
    assert passes(found, 64, 8)
    assert not passes(10 ** ((k - 1) / 100_000), 64, 8)
