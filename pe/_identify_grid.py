r"""Recover the layout, grid shape, class token and temperature of a 2-D sin-cos table.

A grid table (see `pe.grid_sincos`) has one row per patch, read row by row,
and four blocks of $q = D/4$ columns: sines and cosines of the column
coordinate $x$ and of the row coordinate $y$, at $\omega_i = b^{-i/q}$.
MAE puts them ``[sin x | cos x | sin y | cos y]``, timm ``[sin y | sin x |
cos y | cos x]``. The probe reads:

- **class token**: a first row of zeros in front of ``H * W`` rows;
- **grid shape**: every factorisation ``H x W`` of the patch count is tried
  (or the one given); in the right one the token at column 1 of row 0 has
  ``x = 1, y = 0``, and the token at row 1 has ``x = 0, y = 1``;
- **scale and temperature**: the angles of those two tokens are
  $\text{scale} \cdot \omega_i$, so the fastest pair gives each axis's scale
  and a least-squares line through $\log \omega_i = -(i/q) \log b$ the
  temperature $b$.

Every candidate is rebuilt with `pe.grid_sincos` and compared entry by entry.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pe._grids import grid_sincos
from pe._identify_common import Identification, tolerance
from pe._identify_table import table_rows
from pe._validation import _describe, is_integer

__all__ = ["identify_grid"]

#: Most grid shapes tried for one patch count.
MAX_SHAPES = 64


def _blocks(layout: str, quarter: int) -> dict[str, slice]:
    """Return the columns of each block of `layout`: sin x, cos x, sin y, cos y."""
    order = ("sx", "cx", "sy", "cy") if layout == "mae" else ("sy", "sx", "cy", "cx")
    return {key: slice(i * quarter, (i + 1) * quarter) for i, key in enumerate(order)}


def _shapes(count: int, grid: Any) -> list[tuple[int, int]]:
    if grid is not None:
        return [grid]
    shapes = [(h, count // h) for h in range(1, count + 1) if count % h == 0]
    shapes.sort(key=lambda s: (abs(s[0] - s[1]), s))  # square first
    return shapes[:MAX_SHAPES]


def _rates(angles: NDArray[np.float64]) -> tuple[float, float] | None:
    """``(scale, base)`` from the angles of one axis at coordinate 1, or None."""
    quarter = angles.size
    scale = float(angles[0])
    if scale <= 0:
        return None
    if quarter < 2:
        return scale, 10000.0
    exponents = np.arange(1, quarter) / quarter
    omega = angles[1:] / scale
    if bool((omega <= 0).any()):
        return None
    log_base = -float((exponents * np.log(omega)).sum() / (exponents**2).sum())
    return (scale, math.exp(log_base)) if 0 < log_base < 700 else None


def _nice(value: float) -> float:
    for digits in (1, 2, 3, 4, 6):
        rounded = float(f"{value:.{digits}g}")
        if math.isclose(rounded, value, rel_tol=1e-6):
            return rounded
    return value


def identify_grid(table: Any, *, grid: Any = None) -> Identification:
    """Say which 2-D sin-cos grid layout a table is: MAE or timm, grid shape, class token, base.

    Parameters
    ----------
    table : numpy.ndarray or torch.Tensor
        Floating-point values of shape ``(tokens, dim)`` (or ``(1, tokens,
        dim)``), ``tokens = H * W`` plus one for a class token.
    grid : (int, int), optional
        The grid shape ``(H, W)``, if known; otherwise every factorisation of
        the patch count is tried, the squarest first (at most 64).

    Returns
    -------
    Identification
        ``recognised`` when `pe.grid_sincos` rebuilds every value within
        rounding; ``parameters`` holds ``layout``, ``grid``, ``class_token``,
        ``base`` (timm's ``temperature``) and ``scale``.

    Raises
    ------
    TypeError
        If `table` is not an array of floats, or `grid` not a pair of
        positive integers.
    ValueError
        If the shape is not ``(tokens, dim)``, or a value is not finite.

    Examples
    --------
    >>> import pe
    >>> found = pe.identify_grid(pe.grid_sincos((14, 14), 64, layout="timm"))
    >>> found.name, found.parameters["grid"], found.parameters["class_token"]
    ('timm', [14, 14], False)
    """
    if grid is not None:
        if (
            not isinstance(grid, (tuple, list))
            or len(grid) != 2
            or not all(is_integer(g) and int(g) > 0 for g in grid)
        ):
            raise TypeError(
                f"grid must be a (height, width) pair of positive integers; got {_describe(grid)}"
            )
        grid = (int(grid[0]), int(grid[1]))
    values, dtype, notes = table_rows(table)
    tokens, width = values.shape
    best: tuple[float, dict[str, Any]] | None = None
    if width % 4 == 0:
        for class_token in (False, True):
            if class_token and float(np.abs(values[0]).max()) > 1e-6:
                continue
            count = tokens - class_token
            for shape in _shapes(count, grid):
                if shape[0] * shape[1] != count:
                    continue
                for layout in ("mae", "timm"):
                    found = _fit(values[class_token:], shape, layout)
                    if found is None:
                        continue
                    candidate = {"layout": layout, "grid": list(shape), **found}
                    candidate["class_token"] = class_token
                    rebuilt = _rebuild(candidate, width)
                    if rebuilt.shape != values.shape:
                        continue
                    residual = float(np.abs(values - rebuilt).max())
                    if best is None or residual < best[0]:
                        best = (residual, candidate)
                    if residual < 1e-3:
                        break
    if best is None:
        return _unrecognised(values, notes, "no grid shape and layout gives unit (sin, cos) pairs")
    residual, parameters = best
    rebuilt = _rebuild(parameters, width)
    height, columns = parameters["grid"]
    bound = tolerance(dtype, np.full(values.shape, float(max(height, columns))))
    scale = parameters["scale"]
    lines = [
        *notes,
        f"layout: {parameters['layout']} ("
        + (
            "[sin x | cos x | sin y | cos y], MAE's and diffusers'"
            if parameters["layout"] == "mae"
            else "[sin y | sin x | cos y | cos x], timm's build_sincos2d_pos_embed"
        )
        + ")",
        f"grid: {height} x {columns} patches, read row by row"
        + (", after a class-token row of zeros" if parameters["class_token"] else ""),
        f"base (timm's temperature): {parameters['base']:g}"
        + ("" if scale == [1.0, 1.0] else f"; coordinates scaled by {scale} (row, column)"),
    ]
    if bool((np.abs(values - rebuilt) <= bound).all()):
        lines.append(f"pe.grid_sincos with these settings reproduces it to {residual:.1e}")
        return Identification(
            "grid", True, parameters["layout"], parameters, tuple(lines), residual
        )
    lines.append(f"but pe.grid_sincos with these settings differs by up to {residual:.2g}")
    return Identification(
        "grid",
        False,
        f"closest: {parameters['layout']}",
        {"closest": parameters["layout"], **parameters},
        tuple(lines),
        residual,
    )


def _fit(values: NDArray[np.float64], shape: tuple[int, int], layout: str) -> dict[str, Any] | None:
    """Scale and base of each axis from the tokens at (0, 1) and (1, 0), or None."""
    height, columns = shape
    quarter = values.shape[1] // 4
    blocks = _blocks(layout, quarter)
    origin = values[0]
    if not (
        np.allclose(origin[blocks["sx"]], 0, atol=1e-3)
        and np.allclose(origin[blocks["sy"]], 0, atol=1e-3)
        and np.allclose(origin[blocks["cx"]], 1, atol=1e-3)
        and np.allclose(origin[blocks["cy"]], 1, atol=1e-3)
    ):
        return None
    found: list[tuple[float, float] | None] = []
    for axis, token, size in (("y", columns, height), ("x", 1, columns)):
        if size < 2:
            found.append(None)
            continue
        row = values[token]
        angles = np.arctan2(row[blocks["s" + axis]], row[blocks["c" + axis]])
        found.append(_rates(angles))
    known = [f for f in found if f is not None]
    if not known:
        if height * columns == 1:
            return {"base": 10000.0, "scale": [1.0, 1.0]}
        return None
    base = _nice(float(np.exp(np.mean([math.log(f[1]) for f in known]))))
    scales = [_nice(f[0]) if f is not None else 1.0 for f in found]
    return {"base": base, "scale": scales}


def _rebuild(parameters: dict[str, Any], width: int) -> NDArray[np.float64]:
    table = grid_sincos(
        tuple(parameters["grid"]),
        width,
        layout=parameters["layout"],
        base=parameters["base"],
        scale=tuple(parameters["scale"]),
        class_token=parameters["class_token"],
        dtype=np.float64,
    )
    return table.astype(np.float64, copy=False)


def _unrecognised(values: NDArray[np.float64], notes: list[str], why: str) -> Identification:
    tokens, width = values.shape
    side = max(1, math.isqrt(tokens))
    shape = (side, tokens // side)
    residual = math.inf
    if width % 4 == 0 and side * (tokens // side) == tokens:
        residual = float(np.abs(values - grid_sincos(shape, width, dtype=np.float64)).max())
    lines = (
        *notes,
        f"not a 2-D sin-cos grid table: {why}",
        f"closest: mae on a {shape[0]} x {shape[1]} grid, at most {residual:.2f} away",
    )
    return Identification("grid", False, "closest: mae", {"closest": "mae"}, lines, residual)
