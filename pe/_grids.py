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
``temperature``). Angles are float64 and every value is rounded once. A
block's values depend on one coordinate only, so each sine and cosine is
computed once per row or column of the grid and copied to its tokens.

Limits, checked before anything is built: ``dim`` at most `MAX_D_MODEL`
(``2**24``), a table of at most `MAX_ELEMENTS` (``2**31``) values, and coordinates
(an index times its scale) within ``±MAX_POSITION`` (``2**31 - 1``), the range
of positions everywhere in `pe`.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

import numpy as np
from numpy.typing import NDArray

from pe._validation import (
    MAX_D_MODEL,
    MAX_POSITION,
    _describe,
    check_base,
    check_choice,
    check_dtype,
    check_flag,
    check_real,
    check_size,
    is_integer,
)

__all__ = ["GridLayout", "grid_coordinates", "grid_sincos"]

GridLayout = Literal["mae", "timm"]
_LAYOUTS = ("mae", "timm")


def _check_grid(grid: Any, *, name: str = "grid") -> tuple[int, int]:
    """Return ``(height, width)`` from an integer or a pair of positive integers."""
    sizes = (grid, grid) if is_integer(grid) else grid
    if (
        not isinstance(sizes, (tuple, list))
        or len(sizes) != 2
        or not all(is_integer(size) for size in sizes)
    ):
        raise TypeError(
            f"{name} must be a positive integer or a (height, width) pair of them; "
            f"got {_describe(grid)}"
        )
    height, width = int(sizes[0]), int(sizes[1])
    if height < 1 or width < 1:
        raise ValueError(
            f"{name} must be a positive integer or a (height, width) pair of them; "
            f"got {(height, width)}"
        )
    return height, width


def _check_scale(scale: Any) -> tuple[float, float]:
    """Return per-axis ``(row, column)`` scales from a positive number or a pair."""
    pair = scale if isinstance(scale, (tuple, list)) else (scale, scale)
    if len(pair) != 2:
        raise TypeError(
            f"scale must be a positive real number or a (row, column) pair of them; "
            f"got {_describe(scale)}"
        )
    return (
        check_real(pair[0], name="scale", positive=True),
        check_real(pair[1], name="scale", positive=True),
    )


def _check_coordinates(
    grid: tuple[int, int], scales: tuple[float, float], cells: tuple[int, ...]
) -> None:
    """Refuse a grid whose last row or column lies beyond ``MAX_POSITION``, before building."""
    check_size(
        cells,
        name=f"the coordinates of grid {grid} (a row and a column per token)",
        hint="Ask for a smaller grid",
    )
    last = (grid[0] - 1, grid[1] - 1)
    if max(last[0] * scales[0], last[1] * scales[1]) > MAX_POSITION:  # inf past float64
        raise ValueError(
            f"scale times the last row and column index must be at most {MAX_POSITION} "
            f"(2**31 - 1, the largest position); got scale {scales} for grid {grid}, whose "
            f"last row and column indices are {last}"
        )


def _check_dim(dim: Any) -> int:
    if not is_integer(dim):
        raise TypeError(f"dim must be a positive multiple of 4; got {_describe(dim)}")
    value = int(dim)
    if value < 4 or value % 4:
        raise ValueError(
            f"dim must be a positive multiple of 4 (sin and cos of two axes); got {value}"
        )
    if value > MAX_D_MODEL:
        raise ValueError(f"dim must be at most {MAX_D_MODEL:,} (2**24); got {value:,}")
    return value


class _Table(NamedTuple):
    """The checked settings of `grid_sincos`."""

    grid: tuple[int, int]
    dim: int
    layout: str
    base: float
    scales: tuple[float, float]
    class_token: bool

    @property
    def shape(self) -> tuple[int, int]:
        return (self.grid[0] * self.grid[1] + self.class_token, self.dim)


def _check_table(
    grid: Any, dim: Any, layout: Any, base: Any, scale: Any, class_token: Any
) -> _Table:
    """Check every setting of `grid_sincos` and the size of its table; allocate nothing."""
    settings = _Table(
        _check_grid(grid),
        _check_dim(dim),
        check_choice(layout, name="layout", choices=_LAYOUTS),
        check_base(base),
        _check_scale(scale),
        check_flag(class_token, name="class_token"),
    )
    check_size(
        settings.shape,
        name=f"the table of grid {settings.grid} with dim {settings.dim}",
        hint="Ask for a smaller grid or dim",
    )
    _check_coordinates(settings.grid, settings.scales, (2, settings.grid[0] * settings.grid[1]))
    return settings


def _build(settings: _Table, dtype: np.dtype[Any]) -> NDArray[np.floating[Any]]:
    """Build the table of checked `settings`: each sine and cosine once per row or column."""
    (height, width), dim, layout, base, scales, class_token = settings
    quarter = dim // 4
    omega = np.power(base, -np.arange(quarter, dtype=np.float64) / quarter)
    y = (np.arange(height, dtype=np.float64) * scales[0])[:, np.newaxis] * omega  # float64 angles
    x = (np.arange(width, dtype=np.float64) * scales[1])[:, np.newaxis] * omega
    table = np.zeros(settings.shape, dtype)
    grid = table[int(class_token) :].reshape(height, width, dim)
    # Each block: (angles, function), with a row's angles broadcast over its columns.
    row_y, column_x = y[:, np.newaxis, :], x[np.newaxis, :, :]
    blocks = (
        ((column_x, np.sin), (column_x, np.cos), (row_y, np.sin), (row_y, np.cos))
        if layout == "mae"
        else ((row_y, np.sin), (column_x, np.sin), (row_y, np.cos), (column_x, np.cos))
    )
    for index, (angles, function) in enumerate(blocks):
        grid[..., index * quarter : (index + 1) * quarter] = function(angles)  # rounded once
    return table


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
        If `grid` or `scale` is not as described, the two arrays would hold
        more than 2**31 values, or a coordinate would lie beyond ``2**31 - 1``.

    Examples
    --------
    >>> import pe
    >>> rows, columns = pe.grid_coordinates((2, 3))
    >>> rows.tolist(), columns.tolist()
    ([0.0, 0.0, 0.0, 1.0, 1.0, 1.0], [0.0, 1.0, 2.0, 0.0, 1.0, 2.0])
    """
    height, width = _check_grid(grid)
    row_scale, column_scale = _check_scale(scale)
    _check_coordinates((height, width), (row_scale, column_scale), (2, height * width))
    rows = np.repeat(np.arange(height, dtype=np.float64) * row_scale, width)
    columns = np.tile(np.arange(width, dtype=np.float64) * column_scale, height)
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
        Width of each token's embedding; a positive multiple of 4, at most
        ``2**24``.
    layout : {"mae", "timm"}, default "mae"
        ``"mae"``: ``[sin x | cos x | sin y | cos y]`` (MAE, diffusers);
        ``"timm"``: ``[sin y | sin x | cos y | cos x]`` (timm's defaults).
    base : float, default 10000.0
        $b$ in $\omega_i = b^{-i/(D/4)}$ (timm's ``temperature``).
    scale : float or (float, float), default 1.0
        Multiplies the row and column indices before the sinusoid (see
        `grid_coordinates`); diffusers' ``base_size / n / interpolation_scale``.
        Every coordinate must stay within ``2**31 - 1``.
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
        If `grid`, `dim`, `layout`, `scale`, `class_token` or `dtype` has the
        wrong type.
    ValueError
        If `dim` is not a positive multiple of 4, `layout` is unknown, or a
        size, `base` or `scale` is out of range (the table may hold at most
        ``2**31`` values).

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
    settings = _check_table(grid, dim, layout, base, scale, class_token)
    return _build(settings, check_dtype(dtype))
