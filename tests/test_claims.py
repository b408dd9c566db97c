"""Claims the guide makes in prose, each checked against an independent computation."""

import re
from pathlib import Path

import numpy as np
import pytest
from reference import float64_table

import pe


def test_log_exp_divisor_equals_power_form() -> None:  # formula.md
    two_i = np.arange(0, 512, 2, dtype=np.float64)
    power = 1.0 / 10000.0 ** (two_i / 512)
    log_exp = np.exp(two_i * (-np.log(10000.0) / 512))
    assert np.max(np.abs(log_exp - power) / power) < 1e-14


@pytest.mark.parametrize("d_model", [16, 64, 128, 512, 4096])
def test_longest_wavelength_falls_short_of_two_pi_base(d_model: int) -> None:  # frequencies.md
    assert pe.wavelengths(d_model)[-1] < 2 * np.pi * 10000.0


def test_aliased_pair_zero_is_separated_by_the_slow_pairs() -> None:  # frequencies.md
    offset, gap = pe.analysis.closest_return(0, 16, max_offset=100)
    table = float64_table(np.array([0, offset]), 16)
    assert np.hypot(*(table[1, :2] - table[0, :2])) == pytest.approx(gap)
    assert gap < 0.05
    assert np.linalg.norm(table[1] - table[0]) > 1.0


@pytest.mark.parametrize("d_model", [64, 128, 512])
def test_dot_product_is_not_monotone_near_zero(d_model: int) -> None:  # rotation.md
    table = float64_table(np.arange(101), d_model)
    dots = table @ table[0]
    assert np.any(np.diff(dots) > 0)


def test_dot_product_dips_below_zero_then_returns() -> None:  # rotation.md
    dip = pe.analysis.similarity(0, np.arange(10_000, 20_000, 3), 512)
    later = np.arange(100_000, 300_000, 7)
    late = pe.analysis.similarity(0, later, 512)
    assert dip.mean() < -0.02
    assert abs(late.mean()) < 0.01
    # smaller d swings further around zero
    assert pe.analysis.similarity(0, later, 64).std() > late.std()


def test_far_positions_can_be_more_similar_than_nearer_ones() -> None:  # rotation.md
    far = pe.analysis.similarity(0, np.arange(2000, 10_001), 64).max()
    near = pe.analysis.similarity(0, np.arange(200, 501), 64).min()
    assert far > near


def test_closest_positions_are_neighbours_for_wide_encodings() -> None:  # properties.md
    for d_model in (16, 64, 512):
        assert pe.analysis.uniqueness(65_536, d_model).offset == 1
    for d_model in (2, 4, 8):
        assert pe.analysis.uniqueness(65_536, d_model).offset > 1


def test_scaled_embeddings_match_the_encoding_scale() -> None:  # implementation.md
    rng = np.random.default_rng(0)
    d_model = 256
    embedding = rng.normal(0.0, d_model**-0.5, size=(20_000, d_model))
    assert embedding.var() == pytest.approx(1 / d_model, rel=0.02)
    assert (embedding * np.sqrt(d_model)).var() == pytest.approx(1.0, rel=0.02)
    encoding = float64_table(np.arange(20_000), d_model)
    assert np.mean(encoding**2) == pytest.approx(0.5, rel=1e-12)


DOCS = Path(__file__).resolve().parents[1] / "docs"


def page(name: str) -> str:
    """A page's Markdown source, with line breaks folded into spaces."""
    return " ".join((DOCS / name).read_text(encoding="utf-8").split())


def test_binary_analogy_does_not_claim_a_smooth_fall() -> None:  # frequencies.md
    assert "falls off smoothly" not in page("frequencies.md")
    # the 16-wide encoding of the binary figure: similarity rises again at small offsets
    table = float64_table(np.arange(64), 16)
    cosine = table @ table[0] / (16 / 2)
    assert cosine[1] < cosine[0]
    assert np.any(np.diff(cosine[:12]) > 0)
    assert cosine[1:].max() > cosine[1:8].min()


def test_determinism_is_not_claimed_across_libraries() -> None:  # why-position.md
    text = page("why-position.md")
    assert "identical in every run and every library" not in text
    assert "conventions.md" in text
    # two libraries' encodings of the same positions differ (by up to 2 in one entry)
    paper = float64_table(np.arange(64), 16)
    concatenated = np.concatenate([paper[:, 0::2], paper[:, 1::2]], axis=1)
    assert np.abs(paper - concatenated).max() > 1.9


def test_mistake_counts_match_the_page_list() -> None:  # index.md, mistakes.md
    from sitegen import claims

    for name in ("index.md", "mistakes.md"):
        assert "seven silent" not in page(name).lower()
    sections = claims.mistake_sections()
    assert len(sections) == 7
    assert "odd" in sections
    # exactly one mistake raises: the odd width, with torch's own error
    import torch

    with pytest.raises(RuntimeError):
        torch.zeros(8, 7)[:, 1::2] = torch.ones(8, 4)
    census = claims.mistakes_census()
    assert "seven mistakes" in census
    assert "Six of them raise no error" in census
    assert "all but one silent" in page("mistakes.md")


def test_precision_intro_does_not_tie_speed_to_position() -> None:  # precision.md
    text = page("precision.md")
    assert "it is neither" not in text
    assert "speed does not depend on the position" in text.lower()


def test_float16_overflows_from_65520_not_65504() -> None:  # precision.md
    from sitegen import claims

    assert "overflows at 65504" not in page("precision.md")
    assert float(np.float16(65504.0)) == 65504.0
    assert float(np.float16(65519.0)) == 65504.0  # still rounds down
    with np.errstate(over="ignore"):
        assert np.isinf(np.float16(65520.0))
    assert float(np.float16(2048.0)) == 2048.0
    assert float(np.float16(2049.0)) != 2049.0
    limits = claims.float16_limits()
    assert limits["float16 first integer to overflow"] == 65520
    assert limits["float16 largest finite"] == 65504.0
    assert limits["float16 first inexact integer"] == 2049
    assert limits["bfloat16 first inexact integer"] == 257
    assert "65,520" in claims.float16_sentence()


def test_low_precision_errors_are_true_maxima() -> None:  # precision.md
    from sitegen import claims

    low, high, d_model = 3000, 3600, 16
    whole = claims._low_precision_errors(low, high, d_model)
    # the whole range's maximum is the larger of its halves' (nothing is sampled away) ...
    halves = [
        claims._low_precision_errors(a, b, d_model, chunk=97)
        for a, b in ((3000, 3301), (3301, 3600))
    ]
    assert whole == [max(a, b) for a, b in zip(*halves, strict=True)]
    # ... and the float16 output error equals that of rounding the float64 reference
    reference = float64_table(np.arange(low, high), d_model)
    rounded = np.abs(reference.astype(np.float16).astype(np.float64) - reference).max()
    assert whole[0] == pytest.approx(rounded, rel=1e-3)
    assert "1,024" not in page("precision.md")


def test_low_precision_table_holds_the_mistakes_windows() -> None:  # precision.md, mistakes.md
    from sitegen import claims

    lines = claims.low_precision_agreement(64).splitlines()
    assert len(lines) == 4
    for line in lines:
        shown = [float(x) for x in re.findall(r"\*\*([-\d.e]+)\*\*", line)]
        assert shown[0] <= shown[1]


def _rotation_check_error(position: int, offset: int, pair: int, d_model: int) -> float:
    """Rotate pair `pair` of the float64 reference by k·ω_i and compare with PE(p+k)."""
    omega = 10000.0 ** (-2 * pair / d_model)
    start = float64_table(np.array([position]), d_model)[0, 2 * pair : 2 * pair + 2]
    target = float64_table(np.array([position + offset]), d_model)[0, 2 * pair : 2 * pair + 2]
    c, s = np.cos(offset * omega), np.sin(offset * omega)
    rotated = np.array([c * start[0] + s * start[1], -s * start[0] + c * start[1]])
    return float(np.abs(rotated - target).max())


def test_rotation_error_follows_the_angle_not_the_position() -> None:  # rotation.md
    from sitegen import claims

    assert "grow slightly with the position" not in page("rotation.md")
    # the largest position, on a slow pair, has a smaller angle and error than a smaller one
    big_p = _rotation_check_error(123_456, -789, 31, 64)
    small_p = max(_rotation_check_error(1000 + j, 250, 7, 64) for j in range(200))
    assert big_p < small_p
    # the same position on pairs with ever larger angles: the error grows with the angle
    errors = [
        max(_rotation_check_error(p, 1, 0, 64) for p in range(n, n + 300)) for n in (10, 10**6)
    ]
    assert errors[0] < errors[1]
    rows = claims.rotation_error_by_angle(64, (1, 250)).splitlines()[2:]
    eps = float(np.finfo(np.float64).eps)
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert float(cells[2]) <= 4 * float(cells[3])
        if cells[0].startswith("10⁻"):  # below 1 radian: a floor near eps, not angle * eps
            assert float(cells[3]) == pytest.approx(eps, rel=0.05)
            assert float(cells[2]) > 0.5 * eps
    assert "tracks the angle times float64's epsilon:" not in page("rotation.md")


def test_every_mistake_symptom_states_its_settings() -> None:  # mistakes.md
    from sitegen.examples import load

    mistakes = load("mistakes")
    found, settings = mistakes["symptoms"](), mistakes["settings"]()
    assert set(found) == set(settings)
    assert "settings[name]" in page("mistakes.md")
    # the stated width is the one measured: the correct table's longest wavelength is
    # 2π·b^((d-2)/d) for d = 64, computed independently here
    assert "d_model = 64" in settings["longest wavelength, right"]
    assert found["longest wavelength, right"] == pytest.approx(2 * np.pi * 10000 ** (62 / 64))
    assert "(4, 10, 16)" in settings["layout: distinct encodings along the batch"]
    assert found["layout: distinct encodings along the batch"] == 4


def test_alibi_gets_a_fair_head_count_and_the_confound_is_stated() -> None:  # beyond/comparison.md
    import json

    from sitegen import claims

    data = json.loads((DOCS.parent / "benchmarks/results/trained.json").read_text())
    heads = data["settings"]["heads"]
    assert heads >= 4
    # ALiBi's rule for a power-of-two head count: slope h is 2^(-8h/n), h = 1..n
    expected = [2.0 ** (-8 * h / heads) for h in range(1, heads + 1)]
    assert data["alibi_slopes"] == pytest.approx(expected)
    # a steep head exists: across the trained positions it lowers the farthest key's score
    # by several nats (a weight below e^-5 of the nearest key's, all else equal)
    assert max(expected) * (data["settings"]["train_length"] - 1) > 5
    note = claims.alibi_heads_note()
    assert f"{heads} heads" in note
    assert "1/16 and 1/256" in note
    assert "as well as the method" in note


def test_modes_verdict_follows_the_paired_rounds() -> None:  # implementation.md
    import json

    from sitegen.pages import implementation

    data = json.loads((DOCS.parent / "benchmarks/results/modes.json").read_text())
    assert data["rounds"] >= 30
    shown = implementation.modes_benchmark()
    for row in data["rows"]:
        samples = {name: np.array(times) for name, times in row["samples_ms"].items()}
        assert all(times.size == data["rounds"] for times in samples.values())
        ratios = samples["on_the_fly"] / samples["table"]
        assert np.median(ratios) == pytest.approx(row["on_the_fly_over_table"]["median"], rel=1e-3)
        # an independent interval: a sign test on the paired rounds
        slower = int(np.sum(ratios > 1))
        low, high = row["on_the_fly_over_table"]["ci95"]
        if low > 1:
            assert slower > 0.6 * ratios.size
        assert f"{row['on_the_fly_over_table']['median']:.2f} ({low:.2f}\u2013{high:.2f})" in shown
    # the prose: the fixed cost "shows clearly for short sequences"
    assert data["rows"][0]["on_the_fly_over_table"]["ci95"][0] > 1
    text = page("implementation.md")
    assert "shows clearly for short sequences" in text
    assert "memory on the device" not in text
    assert "says nothing about speed or memory on a GPU" in text


def _column_styles(markdown: str) -> list[set[str]]:
    """For each column of a Markdown table, the number styles found in it."""
    lines = [line for line in markdown.splitlines() if line.startswith("|")][2:]
    cells = [[cell.strip().strip("*") for cell in line.strip("|").split("|")] for line in lines]
    styles: list[set[str]] = [set() for _ in cells[0]]
    for row in cells:
        for j, cell in enumerate(row):
            if re.fullmatch(r"-?\d+\.\d+e-?\d+", cell):
                styles[j].add("scientific")
            elif match := re.fullmatch(r"-?\d+\.(\d+)", cell):
                styles[j].add(f"fixed {len(match.group(1))}")
            elif cell == "0":
                styles[j].add("zero")
            elif re.fullmatch(r"-?\d+", cell.replace(",", "")):
                styles[j].add("integer")
    return styles


@pytest.mark.parametrize(
    "name",
    [
        "encoding",
        "worked_angles",
        "closest_returns",
        "rotation_checks",
        "error_benchmark",
        "low_precision",
    ],
)
def test_each_number_column_has_one_style(name: str) -> None:  # formula.md, worked-examples.md, ...
    import inspect
    from collections.abc import Callable

    from sitegen import claims
    from sitegen.pages import frequencies, precision, rotation, shared, worked_examples

    calls: dict[str, Callable[[], str]] = {
        "encoding": lambda: shared.encoding(20, 20, digits=3),
        "worked_angles": lambda: worked_examples.worked_angles(5, 4),
        "closest_returns": lambda: frequencies.closest_returns(16, 0, (10, 100, 1000, 100_000)),
        "rotation_checks": lambda: rotation.rotation_checks(((0, 1, 0), (5, 3, 1)), 64),
        "error_benchmark": precision.error_benchmark,
        "low_precision": lambda: inspect.unwrap(claims.low_precision_exhaustive)(  # no cache
            16, ((0, 256), (256, 2049), (65_000, 66_000))
        ),
    }
    for styles in _column_styles(calls[name]()):
        if styles == {"zero", "integer"}:
            continue  # a column of whole numbers that starts at 0
        if "scientific" in styles:
            styles.discard("zero")  # an exact zero reads the same in scientific style
        assert len(styles) <= 1, styles


def test_column_formats_leave_default_tables_alone() -> None:  # sitegen/markdown.py
    from sitegen.markdown import number, table

    rows = [["a", 0.0, 0.00063], ["b", 1.0, 0.001]]
    default = table(["k", "x", "y"], rows)
    assert default == table(["k", "x", "y"], rows, formats=None)
    assert "| a | 0 | 0.0006 |" in default  # the default style, unchanged
    styled = table(["k", "x", "y"], rows, formats=[None, "f4", "e1"])
    assert "| a | 0.0000 | 6.3e-4 |" in styled
    assert "| b | 1.0000 | 1.0e-3 |" in styled
    assert number(0.001, 3) == "0.001"
    with pytest.raises(ValueError, match="one entry per column"):
        table(["x"], [[1.0]], formats=["f2", "f2"])
    with pytest.raises(ValueError, match="'f<decimals>'"):
        table(["x"], [[1.0]], formats=["%.2f"])


def test_rope_page_says_d_is_the_head_dimension() -> None:  # beyond/rope.md
    assert "is the *head* dimension" in page("beyond/rope.md")


def test_offset_44_beats_offset_10_because_pair_zero_nearly_returns() -> None:  # worked-examples.md
    from sitegen import claims

    omega = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    dots = {k: float(np.cos(k * omega).sum()) for k in (10, 44)}
    assert dots[44] > dots[10]
    assert 44 / (2 * np.pi) == pytest.approx(7, abs=0.01)  # pair 0 has made almost 7 turns
    assert np.cos(44.0) > 0.999
    text = claims.offset_surprise(16, 10, 44)
    assert f"{dots[44] - dots[10]:.3f} higher" in text
    assert "7.003 turns" in text
    assert "claims.offset_surprise" in page("worked-examples.md")


def _nav_pages() -> list[str]:
    """Every page of mkdocs.yml's navigation, in order."""
    config = (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8")
    nav = config[config.index("\nnav:") :]
    return re.findall(r":\s+([\w/-]+\.md)\s*$", nav, flags=re.MULTILINE)


def test_home_page_names_every_page_and_the_mistakes_table_every_chapter() -> None:  # index.md
    pages = _nav_pages()
    assert "beyond/rope.md" in pages
    assert "transformer.md" in pages
    home = page("index.md")
    missing = [name for name in pages if name not in {"index.md", "install.md", "changelog.md"}]
    assert [name for name in missing if f"]({name})" not in home] == []
    config = (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8")
    guide = config[config.index("  - Guide:") : config.index("  - Playground:")]
    chapters = re.findall(r":\s+([\w/-]+\.md)\s*$", guide, flags=re.MULTILINE)
    summary = page("mistakes.md")
    assert [
        name for name in chapters if name != "mistakes.md" and f"]({name})" not in summary
    ] == []


def test_the_blog_s_41_is_not_where_column_zero_returns() -> None:  # frequencies.md
    from sitegen import learner

    text = page("frequencies.md")
    assert "41 among them" not in text
    assert "popular blog post" not in text
    assert "albonwu.com" in text
    sentence = learner.column0_near_zero(claimed=41, close=0.02, span=60)
    # independently: |sin p| below 0.02 in 1..60 only at 22 and 44, and 41 is at 0.159
    near = [p for p in range(1, 61) if abs(np.sin(float(p))) < 0.02]
    assert near == [22, 44]
    assert "only at 22 (|sin 22| = 0.009) and 44 (|sin 44| = 0.018); 41 is not" in sentence
    assert "|sin 41| = 0.159" in sentence
    assert "(3, 19, 22 and 25)" in sentence


def test_the_notebook_is_named_and_both_exponent_variants_labelled() -> None:  # worked-examples.md
    from sitegen import learner

    text = page("worked-examples.md")
    assert "widely read notebook" not in text
    assert "CurtisChris7/Neurips2025-CMDX-Tutorial" in text
    names = list(learner.FORMULAS)
    assert any("i the pair" in name for name in names)
    assert any("i the column" in name and "notebook" in name for name in names)


def test_dog_bites_man_differs_under_a_causal_mask_alone() -> None:  # why-position.md
    from sitegen.examples import load

    results = load("permutation")["main"]()
    # independently: under a causal mask the first token attends only to itself, so
    # 'dog' first is exactly its own value vector; last, it mixes all three values
    rng = np.random.default_rng(2)
    vocabulary = {word: rng.normal(0, 1, 16) for word in ("dog", "bites", "man")}
    weights = np.random.default_rng(0)
    w_q, w_k, w_v = (weights.normal(0, 16**-0.5, (16, 16)) for _ in range(3))
    second = np.stack([vocabulary[w] for w in ("man", "bites", "dog")])
    scores = (second[2] @ w_q) @ (second @ w_k).T / 4.0
    mix = np.exp(scores - scores.max())
    dog_last = (mix / mix.sum()) @ (second @ w_v)
    expected = np.abs(vocabulary["dog"] @ w_v - dog_last).max()
    assert results["word order, causal mask, no positions"] == pytest.approx(expected, rel=1e-12)
    assert expected > 0.5
    assert results["word order, no positions"] < 1e-12
    assert "(NoPE)" in page("why-position.md")


def test_shift_equivariance_is_not_called_invariance() -> None:  # why-position.md
    from sitegen import claims

    assert "translation invariance" in page("why-position.md")
    rows = claims.shift_table(p=3, q=10, shift=100, d_model=16).splitlines()[2:5]
    sizes = [float(row.strip("|").split("|")[-1]) for row in rows]
    assert sizes[0] > 1
    assert sizes[1] < 1e-12
    assert sizes[2] < 1e-12


def test_the_sinusoid_is_not_said_to_extend_without_a_cost() -> None:  # why-position.md
    import json

    from sitegen import claims

    assert "meet all five" not in page("why-position.md")
    data = json.loads((DOCS.parent / "benchmarks/results/trained.json").read_text())
    lengths = data["settings"]["lengths"]
    runs = [r for r in data["runs"] if r["method"] == "sinusoidal"]
    at_train = [r["variants"]["sinusoidal"][0]["loss"] for r in runs]
    at_longest = [r["variants"]["sinusoidal"][-1]["loss"] for r in runs]
    sentence = claims.sinusoid_extrapolation_sentence()
    mean = sum(at_longest) / len(at_longest)
    assert f"{mean:.3f}" in sentence
    assert f"at {lengths[-1]:,}" in sentence
    # the verdict follows the seeds: a cost is claimed only if every seed is worse
    if min(at_longest) > max(at_train):
        assert "does not use the new ones well" in sentence
    else:
        assert "does not use the new ones well" not in sentence
    assert "no difference" not in page("transformer.md")


def test_the_no_encoding_row_states_its_depth() -> None:  # beyond/comparison.md
    import json

    from sitegen.pages import comparison

    data = json.loads((DOCS.parent / "benchmarks/results/trained.json").read_text())
    summary = comparison.extrapolation_summary()
    layers = data["settings"]["layers"]
    assert f"NoPE, with {layers} layer" in summary
    assert (DOCS.parent / "examples/tiny_decoder.py").is_file()
    assert not (DOCS.parent / "examples/tiny_encoder.py").exists()
    assert "tiny_encoder" not in page("beyond/comparison.md")


def test_precision_opening_follows_the_committed_run() -> None:  # precision.md
    import json

    from sitegen import claims

    text = page("precision.md")
    assert "several times faster" not in text
    assert "five full-size temporaries" not in text
    assert "four full-size temporaries and one half-size one" in text
    data = json.loads((DOCS.parent / "benchmarks/results/table.json").read_text())
    opening = claims.precision_opening()
    assert ("not all of which it met" in opening) == (not data["targets_met"])
    ratios = [
        row["seconds"]["(a) common float32"] / row["seconds"]["pe"]
        for framework in ("numpy", "torch")
        for row in data[framework]
    ]
    assert f"{min(ratios):.1f} to {max(ratios):.1f} times" in opening


def test_transformers_rotate_half_makes_one_half_size_temporary() -> None:  # precision.md
    import torch

    llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    q = torch.randn(2, 3, 8)
    halves = torch.cat((-q[..., 4:], q[..., :4]), dim=-1)  # the negated half, then the join
    torch.testing.assert_close(llama.rotate_half(q), halves)


def test_bloom_alibi_adds_slope_times_key_and_softmax_forgets_it() -> None:  # alibi.md
    import torch

    bloom = pytest.importorskip("transformers.models.bloom.modeling_bloom")
    from pe.nn import ALiBi

    heads, length = 4, 7
    theirs = bloom.build_alibi_tensor(torch.ones(1, length), heads, torch.float64)
    theirs = theirs.reshape(heads, 1, length).expand(heads, length, length)
    slopes = torch.tensor(pe.alibi_slopes(heads), dtype=torch.float64)
    keys = torch.arange(length, dtype=torch.float64)
    # +m·j for every query: the key's position, not the distance.
    torch.testing.assert_close(theirs, slopes[:, None, None] * keys.expand(heads, length, length))
    scores = torch.randn(heads, length, length, dtype=torch.float64, generator=torch.manual_seed(0))
    causal = torch.ones(length, length, dtype=torch.bool).tril()
    ours = ALiBi(num_heads=heads)(length, length).double()
    assert (ours - theirs).masked_select(causal).abs().max() > 1.0  # the scores differ ...
    weights = [
        torch.softmax((scores + bias).masked_fill(~causal, float("-inf")), dim=-1)
        for bias in (ours, theirs)
    ]
    torch.testing.assert_close(weights[0], weights[1])  # ... the weights do not
