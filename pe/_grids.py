r"""2-D sin-cos tables for a grid of image patches, as MAE and timm lay them out.

A vision Transformer cuts an image into an ``H x W`` grid of patches and reads
them row by row; token ``k`` sits at row $y = \lfloor k / W \rfloor$ and
column $x = k \bmod W$. A 2-D sin-cos table gives each axis a quarter of the
width per function: with $q = D / 4$ frequencies

$$
\omega_i = b^{-i/q}, \qquad i = 0, \dots, q - 1,
$$

each token gets $\sin(x\omega)$, $\cos(x\omega)$, $\sin(y\omega)$ and
$\cos(y\omega)$ (four blocks of $q$ columns). Where the blocks go is the
convention:

- ``"mae"`` (MAE's ``util/pos_embed.py``, and diffusers'
  ``get_2d_sincos_pos_embed``): ``[sin x | cos x | sin y | cos y]``, the
  column coordinate first;
- ``"timm"`` (timm's ``build_sincos2d_pos_embed`` with its defaults):
  ``[sin y | sin x | cos y | cos x]``, the row coordinate first and the
  sines together.

Both use the same frequencies ($b$ is MAE's 10000 and timm's
``temperature``). Angles are float64 and every value is rounded once.
"""

from __future__ import annotations

import numbers
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from pe._validation import check_base, check_dtype, check_flag, check_size, is_integer

__all__ = ["GridLayout", "grid_coordinates", "grid_sincos"]

GridLayout = Literal["mae", "timm"]
_LAYOUTS = ("mae", "timm")


def _check_grid(grid: Any) -> tuple[int, int]:
    """Return ``(height, width)`` from an integer or a pair of positive integers."""
    sizes = (grid, grid) if is_integer(grid) else grid
    if (
        not isinstance(sizes, (tuple, list))
        or len(sizes) != 2
        or not all(is_integer(size) for size in sizes)
    ):
        raise TypeError(
            f"grid must be a positive integer or a (height, width) pair of them; got {grid!r}"
        )
    height, width = int(sizes[0]), int(sizes[1])
    if height < 1 or width < 1:
        raise ValueError(f"grid sizes must be positive integers; got {(height, width)}")
    return height, width


def _check_scale(scale: Any) -> tuple[float, float]:
    """Return per-axis ``(row, column)`` scales from a positive number or a pair."""
    pair = scale if isinstance(scale, (tuple, list)) else (scale, scale)
    if len(pair) != 2 or not all(
        isinstance(s, numbers.Real) and not isinstance(s, (bool, np.bool_)) for s in pair
    ):
        raise TypeError(
            f"scale must be a positive real number or a (row, column) pair of them; got {scale!r}"
        )
    values = float(pair[0]), float(pair[1])
    if not all(np.isfinite(v) and v > 0 for v in values):
        raise ValueError(f"scale must be finite and positive; got {scale!r}")
    return values


def grid_coordinates(
    grid: Any, *, scale: Any = 1.0
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Return the row and column coordinate of every token of a grid, row by row.

    Parameters
    ----------
    grid : int or (int, int)
        ``n`` for an ``n x n`` grid, or ``(height, width)``.
    scale : float or (float, float), default 1.0
        Multiplies the row and column indices (one number for both, or a
        ``(row, column)`` pair); ``old / new`` keeps a resized grid on the old
        range of coordinates.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        float64 row coordinates ``y`` and column coordinates ``x``, each of
        shape ``(height * width,)``.

    Raises
    ------
    TypeError, ValueError
        If `grid` or `scale` is not as described.

    Examples
    --------
    >>> import pe
    >>> rows, columns = pe.grid_coordinates((2, 3))
    >>> rows.tolist(), columns.tolist()
    ([0.0, 0.0, 0.0, 1.0, 1.0, 1.0], [0.0, 1.0, 2.0, 0.0, 1.0, 2.0])
    """
    height, width = _check_grid(grid)
    row_scale, column_scale = _check_scale(scale)
    rows = np.repeat(np.arange(height, dtype=np.float64), width) * row_scale
    columns = np.tile(np.arange(width, dtype=np.float64), height) * column_scale
    return rows, columns


def grid_sincos(
    grid: Any,
    dim: int,
    *,
    layout: GridLayout = "mae",
    base: float = 10000.0,
    scale: Any = 1.0,
    class_token: bool = False,
    dtype: Any = np.float32,
) -> NDArray[np.floating[Any]]:
    r"""Build the fixed 2-D sin-cos position table of a grid of patches.

    Parameters
    ----------
    grid : int or (int, int)
        ``n`` for an ``n x n`` grid of patches, or ``(height, width)``.
    dim : int
        Width of each token's embedding; a positive multiple of 4.
    layout : {"mae", "timm"}, default "mae"
        ``"mae"``: ``[sin x | cos x | sin y | cos y]`` (MAE, diffusers);
        ``"timm"``: ``[sin y | sin x | cos y | cos x]`` (timm's defaults).
    base : float, default 10000.0
        $b$ in $\omega_i = b^{-i/(D/4)}$ (timm's ``temperature``).
    scale : float or (float, float), default 1.0
        Multiplies the row and column indices before the sinusoid (see
        `grid_coordinates`); diffusers' ``base_size / n / interpolation_scale``.
    class_token : bool, default False
        Prepend one all-zero row for a class token, as MAE does.
    dtype : numpy dtype, default numpy.float32
        ``float16``, ``float32`` or ``float64``; angles are float64.

    Returns
    -------
    numpy.ndarray
        Shape ``(height * width + class_token, dim)``: token ``k`` (after the
        class token) is row ``k // width``, column ``k % width``.

    Raises
    ------
    TypeError
        If `grid`, `dim`, `scale`, `class_token` or `dtype` has the wrong type.
    ValueError
        If `dim` is not a positive multiple of 4, `layout` is unknown, or a
        size, `base` or `scale` is out of range.

    Examples
    --------
    >>> import pe
    >>> table = pe.grid_sincos((2, 3), 4, class_token=True)
    >>> table.shape
    (7, 4)
    >>> table[[0, 1, 2, 4]].round(4)  # the class token, then (0, 0), (0, 1), (1, 0)
    array([[0.    , 0.    , 0.    , 0.    ],
           [0.    , 1.    , 0.    , 1.    ],
           [0.8415, 0.5403, 0.    , 1.    ],
           [0.    , 1.    , 0.8415, 0.5403]], dtype=float32)
    >>> pe.grid_sincos((2, 3), 4, layout="timm")[3].round(4)  # (1, 0): [sin y, sin x, cos y, cos x]
    array([0.8415, 0.    , 0.5403, 1.    ], dtype=float32)
    """
    if not is_integer(dim):
        raise TypeError(f"dim must be a positive multiple of 4; got {dim!r}")
    if int(dim) < 4 or int(dim) % 4:
        raise ValueError(
            f"dim must be a positive multiple of 4 (sin and cos of two axes); got {int(dim)}"
        )
    if layout not in _LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(map(repr, _LAYOUTS))}; got {layout!r}")
    base = check_base(base)
    with_class = check_flag(class_token, name="class_token")
    out_dtype = check_dtype(dtype)
    rows, columns = grid_coordinates(grid, scale=scale)
    check_size((rows.size + with_class, int(dim)), name="the table")
    quarter = int(dim) // 4
    omega = np.power(base, -np.arange(quarter, dtype=np.float64) / quarter)
    x = columns[:, np.newaxis] * omega  # float64 angles
    y = rows[:, np.newaxis] * omega
    blocks = (
        (np.sin(x), np.cos(x), np.sin(y), np.cos(y))
        if layout == "mae"
        else (np.sin(y), np.sin(x), np.cos(y), np.cos(x))
    )
    table = np.zeros((rows.size + with_class, int(dim)), out_dtype)
    table[with_class:] = np.concatenate(blocks, axis=1)  # rounded once
    return table
