"""2-D grids in torch: the sin-cos table as a tensor, and timm-style resampling of a table.

`grid_sincos` is `pe.grid_sincos` on a device. `resample_grid_embedding`
resizes a table of absolute position embeddings (learned or fixed) to a new
grid the way timm's ``resample_abs_pos_embed`` does: prefix tokens kept,
the grid interpolated as an image (bicubic with antialiasing by default).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
import torch.nn.functional as torch_functional
from torch import Tensor, nn

from pe._grids import GridLayout, _build, _check_grid, _check_table, _Table
from pe._validation import check_choice, check_dtype, check_flag, check_size
from pe.nn._common import check_count, check_device, check_move
from pe.nn._sinusoidal import _check_torch_dtype

__all__ = ["GridSinCosEmbedding", "grid_sincos", "resample_grid_embedding"]

_NUMPY_DTYPE = {
    torch.float16: np.float16,
    torch.bfloat16: np.float32,  # no numpy bfloat16: rounded from float32's once-rounded values
    torch.float32: np.float32,
    torch.float64: np.float64,
}
_MODES = ("nearest", "bilinear", "bicubic", "area")


def grid_sincos(
    grid: Any,
    dim: int,
    *,
    layout: GridLayout = "mae",
    base: float = 10000.0,
    scale: Any = 1.0,
    class_token: bool = False,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
) -> Tensor:
    """Build `pe.grid_sincos` as a tensor on `device` (the arguments are the same).

    Returns
    -------
    torch.Tensor
        Shape ``(height * width + class_token, dim)``, dtype `dtype`.

    Raises
    ------
    TypeError, ValueError
        As `pe.grid_sincos`, and for a `dtype` that is not a torch float type
        or a `device` this torch cannot use. On the ``meta`` device only the
        shape is computed.

    Examples
    --------
    >>> import pe.nn.functional as F
    >>> F.grid_sincos(14, 768, class_token=True).shape
    torch.Size([197, 768])
    """
    dtype = _check_torch_dtype(dtype)
    target = check_device(device)
    settings = _check_table(grid, dim, layout, base, scale, class_token)
    if target is not None and target.type == "meta":
        return torch.empty(settings.shape, dtype=dtype, device=target)
    table = _build(settings, check_dtype(_NUMPY_DTYPE[dtype]))
    return torch.from_numpy(table).to(device=target, dtype=dtype)


def resample_grid_embedding(
    table: Tensor,
    new_size: Any,
    *,
    old_size: Any = None,
    prefix_tokens: int = 1,
    mode: str = "bicubic",
    antialias: bool = True,
) -> Tensor:
    """Resize a grid's absolute position table by interpolating it as an image, as timm does.

    Parameters
    ----------
    table : torch.Tensor
        ``(tokens, dim)`` or ``(batch, tokens, dim)``: `prefix_tokens` rows
        (class and register tokens) and then the grid, row by row.
    new_size : int or (int, int)
        The new grid.
    old_size : int or (int, int), optional
        The table's grid; by default square, from the number of grid tokens.
    prefix_tokens : int, default 1
        Rows before the grid, returned unchanged.
    mode : {"nearest", "bilinear", "bicubic", "area"}, default "bicubic"
        ``torch.nn.functional.interpolate``'s mode (timm's default is bicubic).
    antialias : bool, default True
        Passed to ``interpolate`` (for bilinear and bicubic).

    Returns
    -------
    torch.Tensor
        ``(prefix_tokens + new_h * new_w, dim)`` (with the batch axis if given),
        in `table`'s dtype; the interpolation runs in float32 as timm's does.

    Raises
    ------
    TypeError
        If `table` is not a floating-point tensor, a size is not integers,
        `mode` is not a string or `antialias` is not True or False.
    ValueError
        If `table` does not have 2 or 3 dimensions, has no columns or no grid
        tokens after `prefix_tokens`, its token count does not match
        `old_size` (or a square grid) plus `prefix_tokens`, or the result
        would hold more than ``2**31`` values (checked before interpolating).

    Examples
    --------
    >>> import pe.nn.functional as F
    >>> table = F.grid_sincos(14, 768, class_token=True)
    >>> F.resample_grid_embedding(table, (16, 16)).shape
    torch.Size([257, 768])
    """
    if not isinstance(table, Tensor) or not table.is_floating_point():
        kind = type(table).__name__ + (
            f" of dtype {table.dtype}" if isinstance(table, Tensor) else ""
        )
        raise TypeError(f"table must be a floating-point tensor; got {kind}")
    if table.dim() not in (2, 3):
        raise ValueError(
            f"table must have shape (tokens, dim) or (batch, tokens, dim); got {tuple(table.shape)}"
        )
    prefix = check_count(prefix_tokens, "prefix_tokens", minimum=0)
    mode = check_choice(mode, name="mode", choices=_MODES)
    smooth = check_flag(antialias, name="antialias") and mode in ("bilinear", "bicubic")
    new_h, new_w = _check_grid(new_size, name="new_size")
    batched = table if table.dim() == 3 else table[None]
    batch, rows, width = batched.shape
    if width < 1:
        raise ValueError(f"table must have at least one column; got shape {tuple(table.shape)}")
    tokens = rows - prefix
    if tokens < 1:
        raise ValueError(
            f"table has {rows} tokens, none left for the grid after prefix_tokens={prefix} "
            f"(shape {tuple(table.shape)})"
        )
    if old_size is None:
        side = math.isqrt(tokens)
        if side * side != tokens:
            raise ValueError(
                f"table has {tokens} grid tokens after {prefix} prefix tokens, not a square "
                "grid: pass old_size=(height, width)"
            )
        old_h, old_w = side, side
    else:
        old_h, old_w = _check_grid(old_size, name="old_size")
        if old_h * old_w != tokens:
            raise ValueError(
                f"old_size {(old_h, old_w)} holds {old_h * old_w} tokens, but table has "
                f"{tokens} after {prefix} prefix tokens (shape {tuple(table.shape)})"
            )
    # Sized before interpolating: new_size=(10**5, 10**5) would ask for 10**10 rows.
    check_size(
        (batch, prefix + new_h * new_w, width),
        name=f"the table resampled to new_size {(new_h, new_w)}",
        hint="Ask for a smaller new_size",
    )
    if batch == 0:
        return table.new_empty((*table.shape[:-2], prefix + new_h * new_w, width))
    head, body = batched[:, :prefix], batched[:, prefix:]
    image = body.float().reshape(batch, old_h, old_w, width).permute(0, 3, 1, 2)
    resized = torch_functional.interpolate(image, size=(new_h, new_w), mode=mode, antialias=smooth)
    body = resized.permute(0, 2, 3, 1).reshape(batch, new_h * new_w, width)
    result = torch.cat([head, body.to(table.dtype)], dim=1)
    return result if table.dim() == 3 else result[0]


class GridSinCosEmbedding(nn.Module):
    """Add a fixed 2-D sin-cos table to the tokens of a grid of patches (MAE, DiT, timm).

    The table (`pe.grid_sincos`, float64 angles rounded once to float32) is a
    buffer that is not saved in the state dict; it follows the module to a
    device but stays float32 when the module is cast, and is added in the
    input's dtype on the input's device (a meta input gives a meta output).
    A module moved to the meta device and back with ``to_empty`` rebuilds it.

    Parameters
    ----------
    grid : int or (int, int)
        ``n`` for an ``n x n`` grid, or ``(height, width)``.
    dim : int
        Token width; a positive multiple of 4.
    layout, base, scale, class_token
        As in `pe.grid_sincos`. With ``class_token=True`` the input's first
        token is the class token and gets the zero row.

    Raises
    ------
    TypeError, ValueError
        For invalid settings (at construction), or an input that is not a
        floating-point tensor of shape ``(..., tokens, dim)`` (in `forward`).

    Examples
    --------
    >>> import torch
    >>> from pe.nn import GridSinCosEmbedding
    >>> add = GridSinCosEmbedding(14, 768, class_token=True)
    >>> add(torch.zeros(2, 197, 768)).shape
    torch.Size([2, 197, 768])
    """

    table: Tensor

    def __init__(
        self,
        grid: Any,
        dim: int,
        *,
        layout: GridLayout = "mae",
        base: float = 10000.0,
        scale: Any = 1.0,
        class_token: bool = False,
    ) -> None:
        super().__init__()
        self._settings: _Table = _check_table(grid, dim, layout, base, scale, class_token)
        self.grid, self.dim, self.layout = self._settings.grid, self._settings.dim, layout
        self.class_token = self._settings.class_token
        table = _build(self._settings, np.dtype(np.float32))
        self.register_buffer("table", torch.from_numpy(table), persistent=False)

    def _apply(self, fn: Any, recurse: bool = True) -> GridSinCosEmbedding:
        # ``.to(device)`` moves the table; casting the module never lowers it. A table
        # leaving the meta device (``to_empty``) is rebuilt: it holds no learned state.
        check_move(fn)  # a device this torch cannot use: a ValueError, nothing moved
        table = self._buffers.pop("table")
        try:
            super()._apply(fn, recurse)  # type: ignore[no-untyped-call]
        finally:
            if table is not None:
                target = fn(table).device
                if table.is_meta and target.type != "meta":
                    rebuilt = _build(self._settings, np.dtype(np.float32))
                    table = torch.from_numpy(rebuilt).to(target)
                else:
                    table = table.to(device=target)
                self._buffers["table"] = table
        return self

    def forward(self, x: Tensor) -> Tensor:
        """Return ``x + table``; `x` has shape ``(..., tokens, dim)``, on any device."""
        tokens = self.table.shape[0]
        if not isinstance(x, Tensor) or not x.is_floating_point():
            kind = type(x).__name__ + (f" of dtype {x.dtype}" if isinstance(x, Tensor) else "")
            raise TypeError(f"x must be a floating-point tensor; got {kind}")
        if x.dim() < 2 or tuple(x.shape[-2:]) != (tokens, self.dim):
            grid = f"{self.grid[0]} x {self.grid[1]} grid" + (
                " plus a class token" if self.class_token else ""
            )
            raise ValueError(
                f"x must have shape (..., {tokens}, {self.dim}) for a {grid}; got {tuple(x.shape)}"
            )
        return x + self.table.to(device=x.device, dtype=x.dtype)

    def extra_repr(self) -> str:
        return (
            f"grid={self.grid}, dim={self.dim}, layout={self.layout!r}, "
            f"class_token={self.class_token}"
        )
