"""Seven common mistakes, each written out, with the symptom it causes measured.

The "Common mistakes" page includes the named sections and prints `symptoms()`;
`tests/test_examples.py` runs this file, so every assertion below holds.
"""

import numpy as np
import torch

import pe

BASE = 10000.0
D_MODEL = 64  # the width of every numeric symptom below
LENGTH = 2048  # positions 0 .. LENGTH - 1 of the full tables
SHORT_LENGTH = 300  # positions compared in the i-vs-2i check
OFFSET = 5  # the shift k of the rotation check
ODD = (8, 7)  # length and d_model of the odd-width attempt


# --8<-- [start:per-dimension]
import numpy as np

BASE = 10000.0


def wrong_per_dimension_exponent(length: int, d_model: int) -> np.ndarray:
    """WRONG: every column j gets its own exponent j/d, so sin and cos of a pair differ."""
    positions = np.arange(length)[:, None]
    columns = np.arange(d_model)[None, :]
    angles = positions / BASE ** (columns / d_model)  # should be 2 * (columns // 2) / d_model
    return np.where(columns % 2 == 0, np.sin(angles), np.cos(angles))


# --8<-- [end:per-dimension]


def rotation_residual(table: np.ndarray, offset: int) -> float:
    """Largest |M_k PE(p) - PE(p + k)| over the table, with pe's rotation matrix."""
    rotation = pe.rotation_matrix(offset, table.shape[1])
    return float(np.abs(table[:-offset] @ rotation.T - table[offset:]).max())


# --8<-- [start:i-vs-2i]
import numpy as np

BASE = 10000.0


def wrong_i_instead_of_2i(length: int, d_model: int) -> np.ndarray:
    """WRONG: the pair index i is used where the formula has 2i."""
    positions = np.arange(length)[:, None]
    pair = np.arange(d_model // 2)[None, :]
    angles = positions / BASE ** (pair / d_model)  # should be 2 * pair / d_model
    table = np.empty((length, d_model))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    return table


# --8<-- [end:i-vs-2i]


# --8<-- [start:multiply]
import numpy as np

BASE = 10000.0


def wrong_multiply_by_divisor(length: int, d_model: int) -> np.ndarray:
    """WRONG: multiplies the position by base**(2i/d) instead of dividing by it."""
    positions = np.arange(length)[:, None]
    divisor = BASE ** (np.arange(0, d_model, 2)[None, :] / d_model)
    angles = positions * divisor  # should be positions / divisor
    table = np.empty((length, d_model))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    return table


# --8<-- [end:multiply]


def neighbour_cosine(table: np.ndarray) -> float:
    """Mean cosine similarity between the encodings of neighbouring positions."""
    a, b = table[:-1], table[1:]
    cosine = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return float(cosine.mean())


# --8<-- [start:padding]
import numpy as np

import pe

mask = np.array(
    [
        [0, 0, 1, 1, 1],  # left-padded: two pads, then three tokens
        [1, 1, 1, 1, 0],
    ]
)  # right-padded: four tokens, then one pad
wrong_ids = np.cumsum(mask, axis=1) * mask - 1  # WRONG: padding gets -1
table = pe.sinusoidal(512, 16)  # a precomputed table of 512 rows
looked_up = table[wrong_ids]  # index -1 silently wraps to row 511

PAD_POSITION = 0  # choose a value on purpose, e.g. 0 (or mask the pads out)
right_ids = np.where(mask == 1, np.cumsum(mask, axis=1) - 1, PAD_POSITION)
# --8<-- [end:padding]


# --8<-- [start:layout]
import torch

import pe


class TutorialEncoding(torch.nn.Module):
    """Sequence-first code: expects x of shape (seq, batch, d_model)."""

    def __init__(self, d_model: int, max_len: int = 512) -> None:
        super().__init__()
        table = torch.from_numpy(pe.sinusoidal(max_len, d_model))
        self.register_buffer("table", table.unsqueeze(1))  # (max_len, 1, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.table[: x.size(0)]  # x.size(0) is the sequence length... or is it?


batch_first_input = torch.zeros(4, 10, 16)  # (batch, seq, d_model): the WRONG layout here
out = TutorialEncoding(16)(batch_first_input)  # no error: (4, 1, 16) broadcasts over seq
# --8<-- [end:layout]


# --8<-- [start:odd]
import numpy as np
import torch

BASE = 10000.0


def tutorial_table(length: int, d_model: int) -> torch.Tensor:
    """The widespread torch recipe, which assumes an even d_model."""
    position = torch.arange(length).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2) * (-np.log(BASE) / d_model))
    table = torch.zeros(length, d_model)
    table[:, 0::2] = torch.sin(position * div_term)
    table[:, 1::2] = torch.cos(position * div_term)  # d_model = 7: 3 slots, 4 values
    return table


# --8<-- [end:odd]


# --8<-- [start:low-precision]
import torch

import pe


def angles_in(dtype: torch.dtype, positions: torch.Tensor, d_model: int) -> torch.Tensor:
    """WRONG for long inputs: the angles themselves are computed in `dtype`."""
    omega = torch.from_numpy(pe.frequencies(d_model)).to(dtype)
    angles = positions.to(dtype)[:, None] * omega[None, :]  # rounded in dtype
    return torch.sin(angles.float())  # even an exact sin cannot undo that rounding


# --8<-- [end:low-precision]


def low_precision_error(dtype: torch.dtype, start: int, stop: int, d_model: int = D_MODEL) -> float:
    """Largest error of sin(angle) over positions [start, stop) with angles in `dtype`."""
    positions = torch.arange(start, stop)
    exact = np.sin(pe.angles(np.arange(start, stop), d_model))
    return float(np.abs(angles_in(dtype, positions, d_model).double().numpy() - exact).max())


def settings() -> dict[str, str]:
    """The width, lengths and shapes behind each symptom, for the page to print beside it."""
    full = f"d_model = {D_MODEL}, positions 0 to {LENGTH - 1:,}"
    rotation = f"{full}, k = {OFFSET}"
    angles = f"d_model = {D_MODEL}"
    return {
        "rotation residual, right": rotation,
        "rotation residual, per-dimension exponent": rotation,
        "norm spread, per-dimension exponent": full,
        "longest wavelength, right": f"d_model = {D_MODEL}",
        "longest wavelength, i instead of 2i": f"d_model = {D_MODEL}",
        "i-vs-2i equals base sqrt(b)": (
            f"d_model = {D_MODEL}, positions 0 to {SHORT_LENGTH - 1:,}"
        ),
        "neighbour cosine, right": full,
        "neighbour cosine, multiplied": full,
        "padding rows equal to row 511": (
            f"a table of {table.shape[0]:,} rows, d_model = {table.shape[1]}, "
            f"mask of shape {tuple(mask.shape)}"
        ),
        "layout: distinct encodings along the sequence": (
            f"input of shape (batch, seq, d_model) = {tuple(batch_first_input.shape)}"
        ),
        "layout: distinct encodings along the batch": (
            f"input of shape (batch, seq, d_model) = {tuple(batch_first_input.shape)}"
        ),
        "bfloat16 angles, positions 0-255": angles,
        "bfloat16 angles, positions 2048-4095": angles,
        "float16 angles, positions 2048-4095": angles,
        "float32 angles, positions 2048-4095": angles,
        "odd d_model error": f"d_model = {ODD[1]}, {ODD[0]} positions",
    }


def symptoms() -> dict[str, float | int | bool | str]:
    """Measure every symptom; the page prints these and the assertions check them."""
    d = D_MODEL
    right = pe.sinusoidal(LENGTH, d, dtype=np.float64)
    wrong_norms = np.sum(wrong_per_dimension_exponent(LENGTH, d) ** 2, axis=1)
    odd_message = ""
    try:
        tutorial_table(*ODD)
    except RuntimeError as error:
        odd_message = str(error).splitlines()[0]
    result: dict[str, float | int | bool | str] = {
        "rotation residual, right": rotation_residual(right, OFFSET),
        "rotation residual, per-dimension exponent": rotation_residual(
            wrong_per_dimension_exponent(LENGTH, d), OFFSET
        ),
        "norm spread, per-dimension exponent": float(wrong_norms.max() - wrong_norms.min()),
        "longest wavelength, right": float(pe.wavelengths(d)[-1]),
        "longest wavelength, i instead of 2i": float(2 * np.pi * BASE ** ((d // 2 - 1) / d)),
        "i-vs-2i equals base sqrt(b)": float(
            np.abs(
                wrong_i_instead_of_2i(SHORT_LENGTH, d)
                - pe.sinusoidal(SHORT_LENGTH, d, base=100.0, dtype=np.float64)
            ).max()
        ),
        "neighbour cosine, right": neighbour_cosine(right),
        "neighbour cosine, multiplied": neighbour_cosine(wrong_multiply_by_divisor(LENGTH, d)),
        "padding rows equal to row 511": bool(np.all(looked_up[wrong_ids == -1] == table[511])),
        "layout: distinct encodings along the sequence": len(torch.unique(out[0], dim=0)),
        "layout: distinct encodings along the batch": len(torch.unique(out[:, 0], dim=0)),
        "bfloat16 angles, positions 0-255": low_precision_error(torch.bfloat16, 0, 256),
        "bfloat16 angles, positions 2048-4095": low_precision_error(torch.bfloat16, 2048, 4096),
        "float16 angles, positions 2048-4095": low_precision_error(torch.float16, 2048, 4096),
        "float32 angles, positions 2048-4095": low_precision_error(torch.float32, 2048, 4096),
    }
    result["odd d_model error"] = odd_message
    assert set(result) == set(settings()), "every symptom states its settings"
    return result


if __name__ == "__main__":
    found = symptoms()
    assert float(found["rotation residual, right"]) < 1e-12
    assert float(found["rotation residual, per-dimension exponent"]) > 0.1
    assert float(found["norm spread, per-dimension exponent"]) > 1.0
    assert (
        float(found["longest wavelength, i instead of 2i"])
        < float(found["longest wavelength, right"]) / 50
    )
    assert float(found["i-vs-2i equals base sqrt(b)"]) < 1e-12
    assert float(found["neighbour cosine, right"]) > 0.9
    assert abs(float(found["neighbour cosine, multiplied"])) < 0.2
    assert found["padding rows equal to row 511"] is True
    assert np.array_equal(right_ids, [[0, 0, 0, 1, 2], [0, 1, 2, 3, 0]])
    assert found["layout: distinct encodings along the sequence"] == 1
    assert found["layout: distinct encodings along the batch"] == 4
    assert float(found["bfloat16 angles, positions 2048-4095"]) > 0.5
    assert float(found["float32 angles, positions 2048-4095"]) < 1e-3
    assert "size" in str(found["odd d_model error"])
    for name, value in found.items():
        print(f"{name}: {value}")
