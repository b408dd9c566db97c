"""Implementations readers copy, and the common mistakes, each run through pe.identify.

The "Check your own code" page includes each named section as a block a
reader can copy (it needs only pe, numpy and torch) and shows what it prints;
`tests/test_examples.py` runs this file, and the checks at the bottom assert
what each report says.
"""

# --8<-- [start:tutorial]
import math

import torch
from torch import nn

import pe


class PositionalEncoding(nn.Module):
    """The PyTorch tutorial's encoding: a sequence-first table added to the input."""

    table: torch.Tensor

    def __init__(self, d_model: int, max_len: int = 5000) -> None:
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        table = torch.zeros(max_len, 1, d_model)
        table[:, 0, 0::2] = torch.sin(position * div_term)
        table[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("table", table)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.table[: x.size(0)]


print(pe.identify(PositionalEncoding(64, max_len=512).table))
# --8<-- [end:tutorial]


# --8<-- [start:tf-tutorial]
import numpy as np

import pe


def positional_encoding(length: int, depth: int) -> np.ndarray:
    """The TensorFlow tutorial's encoding: all sines, then all cosines."""
    half = depth / 2
    positions = np.arange(length)[:, np.newaxis]
    depths = np.arange(half)[np.newaxis, :] / half
    angle_rates = 1 / (10000**depths)
    angle_rads = positions * angle_rates
    return np.concatenate([np.sin(angle_rads), np.cos(angle_rads)], axis=-1).astype(np.float32)


print(pe.identify(positional_encoding(512, 64)))
# --8<-- [end:tf-tutorial]


# --8<-- [start:fairseq]
import math

import torch

import pe


def get_embedding(num_embeddings: int, embedding_dim: int, padding_idx: int = 1) -> torch.Tensor:
    """fairseq's table (and M2M100's): sines then cosines, a zero padding row."""
    half_dim = embedding_dim // 2
    step = math.log(10000) / (half_dim - 1)
    rates = torch.exp(torch.arange(half_dim, dtype=torch.float) * -step)
    angles = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * rates.unsqueeze(0)
    table = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)
    table[padding_idx, :] = 0
    return table


print(pe.identify(get_embedding(512, 64)))
# --8<-- [end:fairseq]


# --8<-- [start:mae]
import numpy as np

import pe


def sincos_1d(dim: int, coordinates: np.ndarray) -> np.ndarray:
    omega = 1.0 / 10000 ** (np.arange(dim // 2, dtype=np.float64) / (dim / 2.0))
    angles = np.outer(coordinates.reshape(-1), omega)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)


def sincos_2d(dim: int, grid_size: int, cls_token: bool = False) -> np.ndarray:
    """MAE's 2-D table: the column coordinate in the first half, the row in the second."""
    columns, rows = np.meshgrid(np.arange(grid_size, dtype=np.float64), np.arange(grid_size))
    table = np.concatenate([sincos_1d(dim // 2, columns), sincos_1d(dim // 2, rows)], axis=1)
    if cls_token:
        table = np.concatenate([np.zeros((1, dim)), table], axis=0)
    return table


print(pe.identify(sincos_2d(768, 14, cls_token=True)))
# --8<-- [end:mae]


# --8<-- [start:per-dimension]
import numpy as np

import pe


def wrong_per_dimension(length: int, d_model: int) -> np.ndarray:
    """WRONG: column j gets the exponent j/d, so sin and cos of a pair differ in rate."""
    positions = np.arange(length)[:, None]
    columns = np.arange(d_model)[None, :]
    angles = positions / 10000.0 ** (columns / d_model)
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


print(pe.identify(wrong_per_dimension(512, 64)))
# --8<-- [end:per-dimension]


# --8<-- [start:i-vs-2i]
import numpy as np

import pe


def wrong_i_for_2i(length: int, d_model: int) -> np.ndarray:
    """WRONG: the pair index i where the exponent has 2i."""
    angles = np.arange(length)[:, None] / 10000.0 ** (np.arange(d_model // 2) / d_model)
    table = np.empty((length, d_model))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    return table


print(pe.identify(wrong_i_for_2i(512, 64)))
# --8<-- [end:i-vs-2i]


# --8<-- [start:off-by-one]
import numpy as np

import pe


def wrong_divisor(length: int, d_model: int) -> np.ndarray:
    """WRONG for the paper's table: the exponent divides by d/2 - 1 instead of d/2."""
    pair = np.arange(d_model // 2)
    angles = np.arange(length)[:, None] / 10000.0 ** (pair / (d_model // 2 - 1))
    table = np.empty((length, d_model))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    return table


print(pe.identify(wrong_divisor(512, 64)))
# --8<-- [end:off-by-one]


# --8<-- [start:swapped]
import numpy as np

import pe


def wrong_order(length: int, d_model: int) -> np.ndarray:
    """WRONG for the paper's table: cos in the even columns, sin in the odd ones."""
    angles = np.arange(length)[:, None] / 10000.0 ** (np.arange(0, d_model, 2) / d_model)
    table = np.empty((length, d_model))
    table[:, 0::2], table[:, 1::2] = np.cos(angles), np.sin(angles)
    return table


print(pe.identify(wrong_order(512, 64)))
# --8<-- [end:swapped]


# --8<-- [start:float16]
import torch

import pe


def angles_in_float16(length: int, d_model: int) -> torch.Tensor:
    """WRONG for long inputs: positions, rates and angles computed in float16."""
    rates = torch.from_numpy(pe.frequencies(d_model)).half()
    angles = (torch.arange(length).half()[:, None] * rates[None, :]).float()
    table = torch.empty(length, d_model)
    table[:, 0::2], table[:, 1::2] = torch.sin(angles), torch.cos(angles)
    return table


print(pe.identify(angles_in_float16(2048, 64)))
# --8<-- [end:float16]


# --8<-- [start:multiply]
import numpy as np

import pe


def wrong_multiply(length: int, d_model: int) -> np.ndarray:
    """WRONG: multiplies the position by base**(2i/d) instead of dividing by it."""
    angles = np.arange(length)[:, None] * 10000.0 ** (np.arange(0, d_model, 2) / d_model)
    table = np.empty((length, d_model))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    return table


print(pe.identify(wrong_multiply(512, 64)))
# --8<-- [end:multiply]


from collections.abc import Callable

#: Each section's object, built again for the page's summary table and the checks.
CASES: dict[str, Callable[[], object]] = {
    "tutorial": lambda: PositionalEncoding(64, max_len=512).table,
    "tf-tutorial": lambda: positional_encoding(512, 64),
    "fairseq": lambda: get_embedding(512, 64),
    "mae": lambda: sincos_2d(768, 14, cls_token=True),
    "per-dimension": lambda: wrong_per_dimension(512, 64),
    "i-vs-2i": lambda: wrong_i_for_2i(512, 64),
    "off-by-one": lambda: wrong_divisor(512, 64),
    "swapped": lambda: wrong_order(512, 64),
    "float16": lambda: angles_in_float16(2048, 64),
    "multiply": lambda: wrong_multiply(512, 64),
}

#: What pe.identify must say of each: recognised, and the bug it names (if any).
EXPECTED = {
    "tutorial": (True, ()),
    "tf-tutorial": (True, ()),
    "fairseq": (True, ()),
    "mae": (True, ()),
    "per-dimension": (False, ("exponent_per_column",)),
    "i-vs-2i": (False, ("i_instead_of_2i",)),
    "off-by-one": (False, ("off_by_one_divisor",)),
    "swapped": (False, ("layout",)),
    "float16": (False, ("low_precision",)),
    "multiply": (False, ("multiplied_divisor",)),
}


if __name__ == "__main__":
    for case, build in CASES.items():
        found = pe.identify(build())
        assert (found.recognised, found.bugs) == EXPECTED[case], (case, str(found))
