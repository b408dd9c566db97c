"""The errors page: call each public function with bad input and record what it says.

Nothing on the page is typed by hand: each row is a real call made while the
site is built, with the exception and message it raised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sitegen.cache import cached_markdown
from sitegen.markdown import table


def _cases() -> list[tuple[str, str, Callable[[], Any]]]:
    import torch

    import pe.nn

    return [
        ("`pe.sinusoidal`", "`sinusoidal(10, 7)`", lambda: pe.sinusoidal(10, 7)),
        ("`pe.sinusoidal`", "`sinusoidal(10, 8.0)`", lambda: pe.sinusoidal(10, 8.0)),
        ("`pe.sinusoidal`", "`sinusoidal(-1, 8)`", lambda: pe.sinusoidal(-1, 8)),
        ("`pe.sinusoidal`", "`sinusoidal(2.5, 8)`", lambda: pe.sinusoidal(2.5, 8)),
        ("`pe.sinusoidal`", "`sinusoidal([0.0, 1.0], 8)`", lambda: pe.sinusoidal([0.0, 1.0], 8)),
        (
            "`pe.sinusoidal`",
            "`sinusoidal([1, nan], 8)`",
            lambda: pe.sinusoidal([1, float("nan")], 8),
        ),
        ("`pe.sinusoidal`", "`sinusoidal([2**40], 8)`", lambda: pe.sinusoidal([2**40], 8)),
        (
            "`pe.sinusoidal`",
            "`sinusoidal(10, 8, base=1.0)`",
            lambda: pe.sinusoidal(10, 8, base=1.0),
        ),
        (
            "`pe.sinusoidal`",
            "`sinusoidal(10, 8, base=nan)`",
            lambda: pe.sinusoidal(10, 8, base=float("nan")),
        ),
        (
            "`pe.sinusoidal`",
            "`sinusoidal(10, 8, dtype=np.int32)`",
            lambda: pe.sinusoidal(10, 8, dtype=np.int32),
        ),
        ("`pe.sinusoidal`", "`sinusoidal([10**30], 8)`", lambda: pe.sinusoidal([10**30], 8)),
        ("`pe.sinusoidal`", "`sinusoidal([1j, 2j], 8)`", lambda: pe.sinusoidal([1j, 2j], 8)),
        (
            "`pe.sinusoidal`",
            "`sinusoidal(np.ma.masked_array([0, 1], mask=[0, 1]), 8)`",
            lambda: pe.sinusoidal(np.ma.masked_array([0, 1], mask=[0, 1]), 8),
        ),
        (
            "`pe.sinusoidal`",
            "`sinusoidal(10, 8, dtype=None)`",
            lambda: pe.sinusoidal(10, 8, dtype=None),
        ),
        ("`pe.sinusoidal`", "`sinusoidal(4, 10**12)`", lambda: pe.sinusoidal(4, 10**12)),
        ("`pe.frequencies`", "`frequencies(0)`", lambda: pe.frequencies(0)),
        ("`pe.angles`", "`angles(10**9, 4096)`", lambda: pe.angles(10**9, 4096)),
        ("`pe.angles`", "`angles('12', 8)`", lambda: pe.angles("12", 8)),
        ("`pe.rotation_matrix`", "`rotation_matrix(1.5, 8)`", lambda: pe.rotation_matrix(1.5, 8)),
        (
            "`pe.similarity`",
            "`similarity([0, 1], [0, 1, 2], 8)`",
            lambda: pe.similarity([0, 1], [0, 1, 2], 8),
        ),
        (
            "`pe.similarity`",
            "`similarity(0, 1, 8, measure='euclid')`",
            lambda: pe.similarity(0, 1, 8, measure="euclid"),
        ),
        (
            "`pe.similarity`",
            "`similarity(0, 1, 8, measure=np.array(['dot']))`",
            lambda: pe.similarity(0, 1, 8, measure=np.array(["dot"])),
        ),
        (
            "`pe.closest_return`",
            "`closest_return(9, 8, max_offset=10)`",
            lambda: pe.closest_return(9, 8, max_offset=10),
        ),
        ("`pe.uniqueness`", "`uniqueness(1, 8)`", lambda: pe.uniqueness(1, 8)),
        ("`pe.extrapolation`", "`extrapolation(100, 50, 8)`", lambda: pe.extrapolation(100, 50, 8)),
        ("`pe.convention`", "`convention('gpt')`", lambda: pe.convention("gpt")),
        (
            "`Convention.table`",
            "`conventions['paper'].table(4, 7)`",
            lambda: pe.conventions["paper"].table(4, 7),
        ),
        (
            "`Convention.table`",
            "`conventions['paper'].table(4, 8, emulate='no')`",
            lambda: pe.conventions["paper"].table(4, 8, emulate="no"),
        ),
        (
            "`Convention.encode`",
            "`conventions['fairseq'].encode(3, 8, start=-10)`",
            lambda: pe.conventions["fairseq"].encode(3, 8, start=-10),
        ),
        (
            "`pe.convert`",
            "`convert(3.0, 'distilbert', 'marian')`",
            lambda: pe.convert(3.0, "distilbert", "marian"),
        ),
        (
            "`pe.convert`",
            "`convert(table, 'paper', 'whisper')`",
            lambda: pe.convert(np.zeros((2, 8)), "paper", "whisper"),
        ),
        (
            "`pe.layout_permutation`",
            "`layout_permutation(8, 'rows', 'interleaved')`",
            lambda: pe.layout_permutation(8, "rows", "interleaved"),
        ),
        (
            "`pe.convert_layout`",
            "`convert_layout(table, 'interleaved', 'concatenated', axis=2)`",
            lambda: pe.convert_layout(np.zeros((2, 8)), "interleaved", "concatenated", axis=2),
        ),
        ("`pe.alibi_slopes`", "`alibi_slopes(0)`", lambda: pe.alibi_slopes(0)),
        ("`pe.nn.ALiBi`", "`ALiBi(10**9)`", lambda: pe.nn.ALiBi(10**9)),
        (
            "`pe.nn.sinusoidal`",
            "`sinusoidal(torch.zeros(3), 8)`",
            lambda: pe.nn.sinusoidal(torch.zeros(3), 8),
        ),
        (
            "`pe.nn.SinusoidalPositionalEncoding`",
            "`SinusoidalPositionalEncoding(8, max_len=0)`",
            lambda: pe.nn.SinusoidalPositionalEncoding(8, max_len=0),
        ),
        (
            "`pe.nn.SinusoidalPositionalEncoding`",
            "16-row table, input of 20 tokens",
            lambda: pe.nn.SinusoidalPositionalEncoding(8, max_len=16)(torch.zeros(1, 20, 8)),
        ),
        (
            "`pe.nn.SinusoidalPositionalEncoding`",
            "input of width 6 for d_model = 8",
            lambda: pe.nn.SinusoidalPositionalEncoding(8)(torch.zeros(2, 3, 6)),
        ),
        (
            "`pe.nn.SinusoidalPositionalEncoding`",
            "integer input",
            lambda: pe.nn.SinusoidalPositionalEncoding(8)(torch.zeros(2, 3, 8, dtype=torch.long)),
        ),
        (
            "`pe.nn.LearnedPositionalEmbedding`",
            "8 rows, positions up to 9",
            lambda: pe.nn.LearnedPositionalEmbedding(8, 4)(torch.zeros(1, 10, 4)),
        ),
        (
            "`pe.nn.LearnedPositionalEmbedding`",
            "both `offset=2` and `positions`",
            lambda: pe.nn.LearnedPositionalEmbedding(8, 4)(
                torch.zeros(1, 3, 4), offset=2, positions=torch.arange(3)
            ),
        ),
        (
            "`pe.nn.LearnedPositionalEmbedding`",
            "positions of shape (2,) for 3 tokens",
            lambda: pe.nn.LearnedPositionalEmbedding(8, 4)(
                torch.zeros(1, 3, 4), positions=torch.arange(2)
            ),
        ),
        (
            "`pe.nn.LearnedPositionalEmbedding`",
            "4-D input",
            lambda: pe.nn.LearnedPositionalEmbedding(8, 4)(torch.zeros(1, 2, 3, 4)),
        ),
        (
            "`pe.nn.LearnedPositionalEmbedding`",
            "`LearnedPositionalEmbedding(8, 4, init_std=-1.0)`",
            lambda: pe.nn.LearnedPositionalEmbedding(8, 4, init_std=-1.0),
        ),
        (
            "`pe.nn.RelativePositionBias`",
            "`RelativePositionBias(4, kind='alibi')`",
            lambda: pe.nn.RelativePositionBias(4, kind="alibi"),
        ),
        ("`pe.nn.RotaryEmbedding`", "`RotaryEmbedding(7)`", lambda: pe.nn.RotaryEmbedding(7)),
        (
            "`pe.nn.RotaryEmbedding`",
            "queries of width 6 for head_dim = 8",
            lambda: pe.nn.RotaryEmbedding(8)(torch.zeros(1, 4, 6), torch.zeros(1, 4, 6)),
        ),
        (
            "`pe.nn.relative_position_bucket`",
            "float offsets",
            lambda: pe.nn.relative_position_bucket(torch.zeros(3)),
        ),
        ("`pe.nn.ALiBi`", "`ALiBi(0)`", lambda: pe.nn.ALiBi(0)),
        ("`pe.nn.ALiBi`", "`ALiBi(2)(-1, 4)`", lambda: pe.nn.ALiBi(2)(-1, 4)),
        ("`pe.nn.position_ids`", "float ids", lambda: pe.nn.position_ids(torch.zeros(2, 3), 0)),
        (
            "`pe.nn.position_ids`",
            "uint8 ids, `pad_id=257`",
            lambda: pe.nn.position_ids(torch.zeros(2, 3, dtype=torch.uint8), 257),
        ),
        (
            "`pe.nn.position_ids`",
            "`pad_value=2**70`",
            lambda: pe.nn.position_ids(torch.zeros(2, 3, dtype=torch.long), 0, pad_value=2**70),
        ),
    ]


@cached_markdown
def error_table() -> str:
    """Run every case; a case that does not raise is a bug, and fails the build."""
    rows = []
    for function, call, action in _cases():
        try:
            action()
        except (TypeError, ValueError) as error:
            message = str(error).replace("|", "\\|")
            rows.append([function, call, f"`{type(error).__name__}`", message])
        else:
            raise AssertionError(f"{call} did not raise")
    return table(["function", "call", "raises", "message"], rows, align="llll")
