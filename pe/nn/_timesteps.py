"""The diffusion timestep embedding in torch: float64 angles, rounded once.

A thin layer over `pe._timesteps`: the settings are checked there and the
float64 frequencies come from there; torch multiplies, takes sin and cos in
float64 on the timesteps' device and rounds once to the output dtype.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn

from pe._timesteps import MAX_TIMESTEP, _frequencies, check_timestep_settings, timestep_presets
from pe._validation import _describe, check_size
from pe.nn._common import check_move, is_symbolic
from pe.nn._sinusoidal import _check_torch_dtype

__all__ = ["SinusoidalTimestepEmbedding", "timestep_embedding"]


def _check_timestep_tensor(timesteps: Any, scale: float, dim: int) -> Tensor:
    """Check a real tensor of timesteps; its embedding is sized before any value is read.

    A tensor on the meta device holds no values: only its dtype and the size of
    the embedding are checked, and the embedding is a meta tensor too.
    """
    if not isinstance(timesteps, Tensor):
        raise TypeError(
            f"timesteps must be a tensor of real numbers; got {type(timesteps).__name__}"
        )
    if timesteps.is_complex() or timesteps.dtype == torch.bool:
        raise TypeError(
            f"timesteps must hold real numbers (integers or floats); got dtype {timesteps.dtype}"
        )
    shape = (*timesteps.shape, dim)
    if not any(is_symbolic(size) for size in shape):
        check_size(
            shape,
            name=f"the embedding of timesteps of shape {tuple(timesteps.shape)} with dim {dim}",
            hint="Embed fewer timesteps at a time",
        )
    if timesteps.is_meta:
        return timesteps
    if torch.compiler.is_compiling():
        torch._assert_async(
            (torch.isfinite(timesteps) & (timesteps.abs() * scale <= MAX_TIMESTEP)).all(),
            "timesteps must be finite, with |timesteps * scale| <= 2**31",
        )
    elif timesteps.numel():
        values = timesteps.double()
        if not bool(torch.isfinite(values).all()):
            bad = values[~torch.isfinite(values)].flatten()[0].item()
            raise ValueError(f"timesteps must be finite; got {bad!r}")
        worst = float(values.abs().max()) * scale
        if worst > MAX_TIMESTEP:
            raise ValueError(
                f"timesteps times scale must lie within +-2**31; got {worst:.6g}. A timestep is "
                "a step index (0 .. 999) or a noise level times 1000"
            )
    return timesteps


def _embed(
    timesteps: Tensor, frequencies: Tensor, scale: float, flip: bool, dim: int, dtype: torch.dtype
) -> Tensor:
    """Embed checked `timesteps` with float64 `frequencies` (on their device)."""
    angles = (timesteps.to(torch.float64)[..., None] * frequencies) * scale
    first, second = (torch.cos, torch.sin) if flip else (torch.sin, torch.cos)
    halves = [first(angles), second(angles)]
    if dim % 2:  # an odd width: one zero column at the end, as diffusers pads
        halves.append(angles.new_zeros((*angles.shape[:-1], 1)))
    return torch.cat(halves, dim=-1).to(dtype)  # rounded once


def timestep_embedding(
    timesteps: Tensor,
    dim: int,
    *,
    flip_sin_to_cos: bool = False,
    downscale_freq_shift: float = 1.0,
    scale: float = 1.0,
    max_period: float = 10000.0,
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """Embed diffusion timesteps: `pe.timestep_embedding` as a tensor on `timesteps`' device.

    The arguments are those of `pe.timestep_embedding` (and of diffusers'
    ``get_timestep_embedding``); `timesteps` is a real tensor of any shape.

    Parameters
    ----------
    timesteps : torch.Tensor
        Real timesteps (integer or floating dtype) of any shape. On the
        ``meta`` device only the shape is computed (there are no values to
        check).
    dim : int
        Width of the embedding, an integer from 2 to ``2**24`` (an odd width gets
        a zero column).
    flip_sin_to_cos : bool, default False
        False: ``[sin, cos]`` halves; True: ``[cos, sin]``.
    downscale_freq_shift : float, default 1.0
        The shift in the exponent ``i / (dim // 2 - shift)``.
    scale : float, default 1.0
        Multiplies every angle.
    max_period : float, default 10000.0
        The period ``P`` in ``P ** (-i / (dim // 2 - shift))``.
    dtype : torch.dtype, default torch.float32
        Output dtype; angles, sines and cosines are float64 (so the device
        needs float64, which every CUDA and CPU device has).

    Returns
    -------
    torch.Tensor
        Shape ``timesteps.shape + (dim,)``, dtype `dtype`, on `timesteps`' device.

    Raises
    ------
    TypeError
        If `timesteps` is not a real tensor, or a setting has the wrong type.
    ValueError
        If a timestep is not finite, a setting is out of range, or the
        embedding would hold more than ``2**31`` values (checked before any
        value is read).

    Examples
    --------
    >>> import torch
    >>> import pe.nn.functional as F
    >>> F.timestep_embedding(torch.tensor([0, 1]), dim=4, max_period=100)
    tensor([[0.0000, 0.0000, 1.0000, 1.0000],
            [0.8415, 0.0100, 0.5403, 0.9999]])
    """
    dim, flip, shift, scale, period = check_timestep_settings(
        dim, flip_sin_to_cos, downscale_freq_shift, scale, max_period
    )
    dtype = _check_torch_dtype(dtype)
    timesteps = _check_timestep_tensor(timesteps, scale, dim)
    frequencies = torch.from_numpy(_frequencies(dim, shift, period)).to(timesteps.device)
    return _embed(timesteps, frequencies, scale, flip, dim, dtype)


class SinusoidalTimestepEmbedding(nn.Module):
    """Embed diffusion timesteps with the sinusoid, as diffusers' ``Timesteps`` does, exactly.

    The module holds the float64 frequencies as a buffer (not saved in the
    state dict) and embeds any tensor of timesteps on its device. Build one
    from a pipeline's settings with `from_preset`.

    Parameters
    ----------
    dim : int
        Width of the embedding, an integer >= 2.
    flip_sin_to_cos, downscale_freq_shift, scale, max_period
        As in `pe.timestep_embedding` (the same defaults).
    dtype : torch.dtype, default torch.float32
        Output dtype.

    Raises
    ------
    TypeError, ValueError
        If a setting is invalid (at construction), or the timesteps are not
        a real tensor of finite values (in `forward`), or their embedding
        would hold more than ``2**31`` values.

    Notes
    -----
    The frequencies follow the timesteps' device (a module on the meta
    device, or one moved there and back with ``to_empty``, recomputes them);
    timesteps on the meta device give a meta embedding of the right shape.

    Examples
    --------
    >>> import torch
    >>> from pe.nn import SinusoidalTimestepEmbedding
    >>> embed = SinusoidalTimestepEmbedding.from_preset("flux")
    >>> embed
    SinusoidalTimestepEmbedding(dim=256, flip_sin_to_cos=True, downscale_freq_shift=0.0, \
scale=1.0, max_period=10000.0)
    >>> embed(torch.tensor([1000 * 0.25, 1000.0])).shape
    torch.Size([2, 256])
    """

    frequencies: Tensor

    def __init__(
        self,
        dim: int,
        *,
        flip_sin_to_cos: bool = False,
        downscale_freq_shift: float = 1.0,
        scale: float = 1.0,
        max_period: float = 10000.0,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        super().__init__()
        settings = check_timestep_settings(
            dim, flip_sin_to_cos, downscale_freq_shift, scale, max_period
        )
        self.dim, self.flip_sin_to_cos, self.downscale_freq_shift = settings[:3]
        self.scale, self.max_period = settings[3:]
        self.dtype = _check_torch_dtype(dtype)
        frequencies = _frequencies(self.dim, self.downscale_freq_shift, self.max_period)
        self.register_buffer("frequencies", torch.from_numpy(frequencies), persistent=False)

    @classmethod
    def from_preset(
        cls, name: str, *, dtype: torch.dtype = torch.float32
    ) -> SinusoidalTimestepEmbedding:
        """Build the embedding of a named pipeline in `pe.timestep_presets`.

        Raises
        ------
        TypeError
            If `name` is not a string.
        ValueError
            If `name` is not a preset (the message lists them).
        """
        known = ", ".join(map(repr, sorted(timestep_presets)))
        if not isinstance(name, str):
            raise TypeError(f"name must be one of {known}; got {_describe(name)}")
        if name not in timestep_presets:
            raise ValueError(f"name must be one of {known}; got {name!r}")
        preset = timestep_presets[name]
        return cls(preset.dim, dtype=dtype, **preset.settings())

    def _apply(self, fn: Any, recurse: bool = True) -> SinusoidalTimestepEmbedding:
        # ``.to(device)`` moves the frequencies; ``.half()`` or ``.float()`` must
        # not lower them from float64, and a module leaving the meta device
        # (``to_empty``) gets them recomputed: they hold no learned state.
        check_move(fn)  # a device this torch cannot use: a ValueError, nothing moved
        frequencies = self._buffers.pop("frequencies")
        try:
            super()._apply(fn, recurse)  # type: ignore[no-untyped-call]
        finally:
            if frequencies is not None:
                target = fn(frequencies).device
                omega = _frequencies(self.dim, self.downscale_freq_shift, self.max_period)
                self._buffers["frequencies"] = torch.from_numpy(omega).to(target)
        return self

    def forward(self, timesteps: Tensor) -> Tensor:
        """Return the embedding of `timesteps`: shape ``timesteps.shape + (dim,)``."""
        timesteps = _check_timestep_tensor(timesteps, self.scale, self.dim)
        frequencies = self.frequencies.to(timesteps.device)  # a copy only across devices
        return _embed(
            timesteps, frequencies, self.scale, self.flip_sin_to_cos, self.dim, self.dtype
        )

    def extra_repr(self) -> str:
        return (
            f"dim={self.dim}, flip_sin_to_cos={self.flip_sin_to_cos}, "
            f"downscale_freq_shift={self.downscale_freq_shift}, scale={self.scale}, "
            f"max_period={self.max_period}"
        )
