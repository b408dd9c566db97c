"""Every exercise solution runs, prints its answer, and the answer is right.

The solutions in ``examples/exercises/`` are complete programs that the guide
pages run at build time. Each prints a last line ``Answer: ...``; the numbers
on it are checked here against a derivation written independently (plain
``math`` in float64, mpmath, or an identity derived by hand).
"""

import math
import re
import runpy
from collections.abc import Callable
from pathlib import Path

import mpmath
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = ROOT / "examples" / "exercises"
DOCS = ROOT / "docs"
CHAPTERS = (
    "why-position",
    "formula",
    "frequencies",
    "rotation",
    "worked-examples",
    "implementation",
    "transformer",
    "visualizing",
    "properties",
    "mistakes",
    "grids/timesteps",
    "grids/images",
    "grids/rotary",
    "beyond/rope",
    "beyond/rope-derivation",
    "beyond/rope-base",
    "beyond/rope-scaling",
    "beyond/rope-variants",
    "beyond/rope-scaling-model",
    "beyond/alibi",
    "beyond/position-ids",
    "beyond/relative-bias",
    "beyond/learned",
    "beyond/rope-in-a-model",
    "beyond/comparison",
)
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def answer(name: str, capsys: pytest.CaptureFixture[str]) -> list[float]:
    """Run one solution and return the numbers on its ``Answer:`` line."""
    runpy.run_path(str(EXERCISES / f"{name}.py"), run_name="__main__")
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1].startswith("Answer:"), lines[-1]
    return [float(token) for token in _NUMBER.findall(lines[-1].removeprefix("Answer:"))]


def pe_value(position: float, column: int, d_model: int, base: float = 10000.0) -> float:
    """The paper's formula for one entry, in float64."""
    angle = position / base ** (2 * (column // 2) / d_model)
    return math.sin(angle) if column % 2 == 0 else math.cos(angle)


def dot_for_offset(offset: int, d_model: int) -> float:
    """PE(p)·PE(p+k) = Σ_i cos(k ω_i), the identity of the rotation chapter."""
    return sum(math.cos(offset * 10000.0 ** (-2 * i / d_model)) for i in range(d_model // 2))


def _past_arc(new: list[float], old: list[float], trained: int, target: int) -> int:
    """Pairs whose arc over `target` positions passes the arc over `trained` (capped at 2π)."""
    return sum(
        min(target * n, 2 * math.pi) > min(trained * o, 2 * math.pi) + 1e-9
        for n, o in zip(new, old, strict=True)
    )


def _llama3(
    theta: float, trained: int = 4096, s: float = 8.0, low: float = 1.0, high: float = 4.0
) -> float:
    """Meta's Llama 3.1 rule for one frequency, from its wavelength."""
    wavelength = 2 * math.pi / theta
    if wavelength < trained / high:
        return theta
    if wavelength > trained / low:
        return theta / s
    smooth = (trained / wavelength - low) / (high - low)
    return (1 - smooth) * theta / s + smooth * theta


_THETA = [10000.0 ** (-2 * i / 128) for i in range(64)]


def _rope_scaling_1() -> list[float]:
    # Static NTK-aware: θ_i · 8^(-2i/126), written from the YaRN paper's b' = b·s^(d/(d-2)).
    ntk = [t * 8.0 ** (-2 * i / 126) for i, t in enumerate(_THETA)]
    rules = ([t / 8 for t in _THETA], ntk, [_llama3(t) for t in _THETA])
    out: list[float] = []
    for new in rules:
        out += [_past_arc(new, _THETA, 4096, 32768), round(new[0], 4)]
    return out


def _rope_scaling_2() -> list[float]:
    scale = (0.1 * math.log(8) + 1) ** 2
    ratio = (math.exp(2 * scale) / (math.exp(2 * scale) + 4095)) / (
        math.exp(2) / (math.exp(2) + 4095)
    )
    return [scale, 1 / scale, ratio]


def _rope_self_score(offset: int, head_dim: int) -> float:
    """RoPE score of an all-ones query and key `offset` apart: 2·Σ_i cos(offset·θ_i)."""
    return sum(2 * math.cos(offset * 10000.0 ** (-2 * i / head_dim)) for i in range(head_dim // 2))


def _llama4_scale(position: int) -> float:
    """Llama 4's NoPE-layer query scale, from the formula in modeling_llama4.py, in mpmath."""
    return float(1 + mpmath.mpf("0.1") * mpmath.log(1 + (position + 1) // 8192))


# The model of beyond/rope-scaling-model.md: 8 pairs, base 10000, trained on 64 positions.
_SMALL = [10000.0 ** (-2 * i / 16) for i in range(8)]


def _yarn_small(
    s: float = 8.0, trained: int = 64, fast: float = 32, slow: float = 1
) -> list[float]:
    """YaRN's frequencies from the paper's ramp, with transformers' rounded bounds."""

    def pair_for_turns(turns: float) -> float:  # the pair index that makes `turns` turns
        return 16 * math.log(trained / (turns * 2 * math.pi)) / (2 * math.log(10000.0))

    low = max(math.floor(pair_for_turns(fast)), 0)
    high = min(math.ceil(pair_for_turns(slow)), 7)
    out = []
    for i, theta in enumerate(_SMALL):
        ramp = min(max((i - low) / (high - low), 0.0), 1.0)  # 0 keeps, 1 interpolates
        out.append(theta * (1 - ramp) + theta / s * ramp)
    return out


def _rope_scaling_model_1() -> list[float]:
    ntk = [t * 8.0 ** (-2 * i / 14) for i, t in enumerate(_SMALL)]
    llama3 = [_llama3(t, trained=64) for t in _SMALL]
    rules = (_SMALL, [t / 8 for t in _SMALL], ntk, _yarn_small(), llama3)
    return [float(_past_arc(new, _SMALL, 64, 512)) for new in rules]


def _rope_scaling_model_2() -> list[float]:
    out: list[float] = []
    for new in (_yarn_small(), [_llama3(t, trained=64) for t in _SMALL]):
        slower = [old / n for old, n in zip(_SMALL, new, strict=True)]
        out += [
            float(sum(abs(x - 1) < 1e-9 for x in slower)),
            float(sum(abs(x - 8) < 1e-9 for x in slower)),
        ]
    return out


def _t5_bucket(offset: int, num_buckets: int = 32, max_distance: int = 128) -> int:
    """T5's bidirectional bucket, from the formula: half per direction, exact then log."""
    half = num_buckets // 2
    bucket = half if offset > 0 else 0
    distance = abs(offset)
    exact = half // 2
    if distance < exact:
        return bucket + distance
    wide = exact + int(math.log(distance / exact) / math.log(max_distance / exact) * (half - exact))
    return bucket + min(wide, half - 1)


def _relative_bias_2() -> list[int]:
    last = [n for n in range(1, 4096) if _t5_bucket(n) == 31]
    return [min(last), len(last)]


def _rope_base_1() -> list[float]:
    # Wavelength 2π·10^(6·2i/128) ≤ 32768 counted pair by pair; the critical dimension
    # is twice that count (no pair sits exactly on the boundary here).
    waves = [2 * math.pi * 1e6 ** (2 * i / 128) for i in range(64)]
    full = sum(wave <= 32768 for wave in waves)
    return [full, 2 * full, waves[-1]]


def _passes_men(base: float, context: int, head_dim: int = 128) -> bool:
    """Σ_i cos(m·base^(-2i/d)) ≥ 0 for every m < context, in float64 (numpy, blocks of m)."""
    import numpy as np

    theta = np.array([base ** (-2 * i / head_dim) for i in range(head_dim // 2)])
    for start in range(0, context, 4096):
        m = np.arange(start, min(context, start + 4096), dtype=np.float64)
        if (np.cos(m[:, None] * theta[None, :]).sum(axis=1) < 0).any():
            return False
    return True


def _rope_base_2(answer: float) -> bool:
    # The printed base (4 significant digits) is a point 10^(k/1000) that passes over
    # 65,536 positions; the grid point below it fails, and so does the NTK-aware base.
    k = round(1000 * math.log10(answer))
    base = 10 ** (k / 1000)
    ntk = 1e4 * 16 ** (128 / 126)
    return (
        abs(base - answer) / answer < 5e-4
        and _passes_men(base, 65536)
        and not _passes_men(10 ** ((k - 1) / 1000), 65536)
        and not _passes_men(ntk, 65536)
        and not _passes_men(1e4, 65536)
    )


EXPECTED: dict[str, Callable[[list[float]], bool]] = {
    # Equivariance is exact up to rounding; invariance fails by the size of the values.
    "why_position_1": lambda a: a[0] == 1 and a[1] > 0.1,
    "why_position_2": lambda a: (
        a == pytest.approx([0.3, 0.3, round(math.sin(3), 4), round(math.sin(6), 4)], abs=1e-12)
    ),
    "formula_1": lambda a: a == pytest.approx([math.sin(0.5), math.cos(0.5)], abs=5e-7),
    "formula_2": lambda a: (
        a[0] == pytest.approx(float(mpmath.mpf(10000) ** (mpmath.mpf(510) / 512)), abs=1e-4)
    ),
    "frequencies_1": lambda a: a[0] == pytest.approx(2 * math.pi * 10**1.5, abs=1e-4),
    # 2π·10000^(2i/128) < 100  ⇔  i < 16·log10(100/2π): pairs 0..floor of that.
    "frequencies_2": lambda a: a[0] == math.floor(16 * math.log10(100 / (2 * math.pi))) + 1,
    "rotation_1": lambda a: a == pytest.approx([math.sin(7), math.cos(7)], abs=5e-7),
    "rotation_2": lambda a: a[0] == pytest.approx(math.cos(3) + math.cos(3 / 100), abs=5e-7),
    "worked_examples_1": lambda a: (
        a
        == pytest.approx(
            max(([k, dot_for_offset(k, 6)] for k in range(1, 21)), key=lambda row: row[1]),
            abs=5e-5,
        )
    ),
    "worked_examples_2": lambda a: (
        a[0] == pytest.approx(math.sqrt(16 - 2 * dot_for_offset(44, 16)), abs=5e-5)
    ),
    "implementation_1": lambda a: (
        a == pytest.approx([pe_value(4, j, 8) for j in range(8)], abs=5e-6)
    ),
    "implementation_2": lambda a: a[0] == 8192 * 1024 * 4,
    "transformer_1": lambda a: a[0] == 6 * 4 * (576**2 - 512**2),
    "transformer_2": lambda a: a == [9.0, 0.0],
    "transformer_3": lambda a: a[0] == pytest.approx(1 / math.sqrt(2 * 256), abs=5e-7),
    "visualizing_1": lambda a: (
        a[0]
        == sum(
            1
            for j in range(64)
            if max(pe_value(p, j, 64) for p in range(10))
            - min(pe_value(p, j, 64) for p in range(10))
            > 0.1
        )
    ),
    "visualizing_2": lambda a: (
        a == pytest.approx([dot_for_offset(1, 16) / 8, dot_for_offset(10, 16) / 8], abs=5e-5)
    ),
    "properties_1": lambda a: a[0] == pytest.approx(math.sqrt(50), abs=5e-7),
    "properties_2": lambda a: (
        a
        == pytest.approx(
            min(
                ([k, math.sqrt(4 - 2 * dot_for_offset(k, 4))] for k in range(1, 1000)),
                key=lambda row: row[1],
            ),
            abs=5e-5,
        )
    ),
    # q = k = (1, 1, 1, 1): each pair of squared length 2 meets its copy at 3·θ_i.
    "rope_derivation_1": lambda a: (
        a[0] == pytest.approx(2 * math.cos(3) + 2 * math.cos(3 * 10000 ** (-2 / 4)), abs=5e-7)
    ),
    # Concatenated slot j holds interleaved dimension 2j (j < d/2) or 2(j - d/2) + 1.
    "rope_derivation_2": lambda a: (
        a[:8] == [2 * j if j < 4 else 2 * (j - 4) + 1 for j in range(8)] and a[8] < 1e-12
    ),
    # Equal content: every pair of (1, 1) adds 2·cos(offset·θ_i), θ_i = 10000^(-2i/64).
    "rope_1": lambda a: (
        a == pytest.approx([_rope_self_score(1, 64), _rope_self_score(1000, 64)], abs=5e-5)
    ),
    # Query at 150, key at 120: offset 30; renumbering only the query: 50 - 120 = -70;
    # renumbering both keeps the offset 30.
    "rope_2": lambda a: (
        a
        == pytest.approx(
            [_rope_self_score(30, 8), _rope_self_score(-70, 8), _rope_self_score(30, 8)],
            abs=5e-7,
        )
    ),
    # DeepSeek-V3: 61 layers; MLA caches 512 + 64 per token and layer, MHA 2·128·128.
    "rope_variants_1": lambda a: (
        a
        == pytest.approx(
            [(512 + 64) * 61 * 131072 * 2 / 2**30, 2 * 128 * 128 * 61 * 131072 * 2 / 2**30],
            abs=5e-5,
        )
    ),
    # A rotary key per head: 512 + 128·64 against 512 + 64; heads still score differently.
    "rope_variants_2": lambda a: (
        a[:2] == [576, 8704] and a[2] == pytest.approx(8704 / 576, abs=5e-5) and a[3] > 0.1
    ),
    # τ = 1 + 0.1·ln(1 + floor(10^6 / 8192)); half the weight needs a lead of ln(n - 1)/τ.
    "rope_variants_3": lambda a: (
        a
        == pytest.approx(
            [
                _llama4_scale(999_999),
                float(mpmath.log(999_999)),
                float(mpmath.log(999_999)) / _llama4_scale(999_999),
            ],
            abs=5e-5,
        )
    ),
    "mistakes_1": lambda a: a == [2.4374, 1.5401],
    # Flux: pairs 0-7 follow the index, 8-35 the row (each axis restarts θ = b^(-2j/d_a)),
    # so pair 10 is the row's pair j = 2 of d_a = 56: the row 5 times 10000^(-4/56).
    "grids_rotary_1": lambda a: a[0] == pytest.approx(5 * 10000 ** (-4 / 56), abs=5e-7),
    # Qwen2.5-VL: text 0, 1, 2; the video starts at 3 with frames 2 ids apart
    # (2 tokens/s x 1 s): temporal 3, 5, 7, 9; rows and columns 3..6; the text after it
    # resumes at 3 + max(4, 4) = 7. Largest id 9, 3 + 64 + 2 = 69 tokens: delta
    # 9 + 1 - 69, and the first new token (index 69) sits at 69 + delta = 10.
    "grids_rotary_2": lambda a: a == [9 + 1 - 69, 10],
    "mistakes_2": lambda a: (
        a
        == pytest.approx(
            [2 * math.pi * 10000 ** (510 / 512), 2 * math.pi * 10000 ** (255 / 512)], abs=0.05
        )
    ),
    # Pair 0 of Stable Diffusion's embedding turns at frequency 1: cos t, then sin t.
    "timesteps_1": lambda a: a == pytest.approx([math.cos(500), math.sin(500)], abs=5e-7),
    # 1000 * 10000**(-i/128) < 2π  ⇔  i > 32·log10(1000/2π): pairs above that, up to 127.
    # Token 100 of a 14-wide grid: column 100 mod 14 = 2, row 7; entry 384 is sin(7 * 1).
    "images_1": lambda a: a == pytest.approx([2, 7, math.sin(7)], abs=5e-7),
    # Column 23 at scale 14/24 sits at 23 * 14 / 24; pair 0's frequency is 1.
    "images_2": lambda a: a == pytest.approx([23 * 14 / 24, math.sin(23 * 14 / 24)], abs=5e-7),
    # Linear: nothing past its arc, pair 0 at 1/8; NTK-aware: pair 0 kept, middle pairs
    # past their arc; llama3: neither.
    "rope_scaling_1": lambda a: a == _rope_scaling_1() and a[2] > 0 and a[4] == 0,
    "rope_scaling_2": lambda a: a == pytest.approx(_rope_scaling_2(), abs=5e-5),
    # No rule: pairs 3-7 never close a turn in 64 positions; NTK-aware slows only pair 7 by 8.
    "rope_scaling_model_1": lambda a: a == _rope_scaling_model_1() == [5, 0, 4, 0, 0],
    # Both rules keep pair 0 only and divide pairs 3-7 by the full factor at L = 64.
    "rope_scaling_model_2": lambda a: a == _rope_scaling_model_2() == [1, 5, 1, 5],
    # Slopes 2^-(h+1) for 8 heads: bias -10 at distance 10·2^(h+1), 20 to 2560.
    "alibi_1": lambda a: a == [10 * 2**1, 10 * 2**8],
    # The gentlest slope is 2^-8: -8192/256 = -32.
    "alibi_2": lambda a: a == pytest.approx([-32, math.exp(-32)], rel=1e-3),
    # Real tokens count 0, 1, 2 from their first; padding sits at 0.
    "position_ids_1": lambda a: a == [0, 0, 0, 0, 1, 2, 0, 1, 2, 0, 0, 0],
    # Three pads shift every real token by 3: RoPE's scores keep (offsets only),
    # an added encoding's do not.
    "position_ids_2": lambda a: a[0] == 3 and a[1] < 1e-12 and a[2] > 0.1,
    "relative_bias_1": lambda a: a == [_t5_bucket(n) for n in (-1, 1, 7, 8, 20, 127, 128, 1000)],
    "relative_bias_2": lambda a: a == _relative_bias_2(),
    "learned_1": lambda a: a == [1024 * 768, 4 * 1024 * 768],
    "learned_2": lambda a: a == [1, 4096 - 512, (4096 - 512) * 768],
    # Dynamic NTK: alpha = s·n/L - (s - 1) divides the slowest pair.
    "rope_in_a_model_1": lambda a: (
        a == pytest.approx([4 * 1000 / 512 - 3, 4 * 1024 / 512 - 3], abs=5e-5)
    ),
    "rope_in_a_model_2": lambda a: a == pytest.approx([1.0, 4 * 2048 / 512 - 3], abs=5e-5),
    # Learned: 512 rows of 768; T5: 32 buckets for each of 12 heads; the formulas learn nothing.
    "comparison_1": lambda a: a == [0, 512 * 768, 32 * 12, 0, 0],
    # RoPE, head 64: pair i (θ = 10^(-i/8)) is past its arc when 512·θ < 2π.
    # ALiBi's gentlest slope of 8 heads is 1/256: the bias reaches -1023/256.
    "comparison_2": lambda a: (
        a[:3] == [512, sum(512 * 10 ** (-i / 8) < 2 * math.pi for i in range(32)), 0]
        and a[3] == pytest.approx(-1023 / 256, abs=5e-5)
    ),
    # Pairs whose wavelength fits in 32,768 positions, twice that, the slowest wavelength.
    "rope_base_1": lambda a: a == pytest.approx(_rope_base_1(), abs=0.06),
    "rope_base_2": lambda a: len(a) == 1 and _rope_base_2(a[0]),
    "timesteps_2": lambda a: a[0] == 127 - math.floor(32 * math.log10(1000 / (2 * math.pi))),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_solution_answer_is_right(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    numbers = answer(name, capsys)
    assert EXPECTED[name](numbers), (name, numbers)


def test_every_solution_file_is_checked() -> None:
    assert sorted(path.stem for path in EXERCISES.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_ends_with_exercises_whose_solutions_run_on_the_page(chapter: str) -> None:
    text = (DOCS / f"{chapter}.md").read_text(encoding="utf-8")
    assert "\n## Exercises\n" in text
    section = text.split("\n## Exercises\n", 1)[1]
    included = re.findall(r'--8<-- "examples/exercises/(\w+)\.py"', section)
    assert 2 <= len(included) <= 3
    assert all(
        name.startswith((Path(chapter).name.replace("-", "_"), re.sub(r"[-/]", "_", chapter)))
        for name in included
    )
    assert section.count('??? example "Solution"') == len(included)
    assert section.count('```python exec="on" source="above" result="text"') == len(included)
    assert "session=" not in section


def test_solutions_are_standalone_programs() -> None:
    for path in EXERCISES.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "sitegen" not in source, path.name
        assert "print(" in source, path.name
