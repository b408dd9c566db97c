r"""Recover the four settings of a diffusion timestep embedding by calling it.

A timestep embedding of width $D = 2h$ is $[\sin(c\,t\,\omega_i) \mid
\cos(c\,t\,\omega_i)]$ (or the cosines first), with $\omega_i = P^{-i/(h -
s)}$ (see `pe.timestep_embedding`). The probe calls the function at a few
chosen timesteps and two widths, and reads the settings back:

- **flip**: at $t = 0$ the sines are 0 and the cosines 1, so the half that
  holds ones is the cosine half;
- **scale** $c$: the fastest pair has $\omega_0 = 1$, so its angle at a small
  timestep $t$ is $c\,t$;
- **the exponent's slope** $\alpha = \log P / (h - s)$: a line through
  $\log \omega_i = -\alpha\,i$. One width gives only that ratio (shift 1
  with period 10000 is shift 0 with a larger period), so a second width
  separates them: $1/\alpha = (h - s) / \log P$ is a line in $h$ with slope
  $1 / \log P$.

Each angle is read at the largest probe timestep where it is still below
$\pi$, so slow pairs are measured as precisely as fast ones. The function is
called with a float32 numpy array; if it refuses one and torch is already
imported (the function's own module imported it), with a torch tensor. pe
never imports torch itself.
"""

from __future__ import annotations

import inspect
import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pe._identify_common import Identification, check_finite, read_array, to_float64, tolerance
from pe._timesteps import timestep_embedding, timestep_presets

__all__ = ["PROBE_DIMS", "PROBE_TIMESTEPS", "identify_timestep"]

#: The timesteps the function is called with: zero (the layout), a few small
#: ones (the scale, the fast pairs), a pipeline's range (the slow pairs) and
#: a fractional one (a flow model's 1000 * sigma).
PROBE_TIMESTEPS = np.array([0.0, 2.0**-10, 2.0**-6, 2.0**-2, 1.0, 3.0, 10.0, 100.0, 999.0, 500.5])
#: The two widths it is called at (shift and period need two).
PROBE_DIMS = (64, 96)


def _name_of(function: Any) -> str:
    return str(getattr(function, "__qualname__", None) or type(function).__name__)


def _call(function: Callable[..., Any], dim: int | None) -> tuple[NDArray[np.float64], str]:
    """Call `function` at the probe timesteps (and `dim`); return its output as float64."""
    steps = PROBE_TIMESTEPS.astype(np.float32)
    arguments: tuple[Any, ...] = (steps,) if dim is None else (steps, dim)
    shown = f"{_name_of(function)}(timesteps{'' if dim is None else f', {dim}'})"
    try:
        output = function(*arguments)
    except Exception as first_error:  # the caller's function: any error
        torch = sys.modules.get("torch")
        if torch is None:
            raise ValueError(
                f"calling {shown} with a float32 numpy array of timesteps raised "
                f"{type(first_error).__name__}: {first_error}"
            ) from first_error
        try:
            output = function(torch.from_numpy(steps), *arguments[1:])
        except Exception as error:
            raise ValueError(
                f"calling {shown} raised {type(error).__name__}: {error} (with a torch "
                f"tensor of timesteps; with a numpy array: {first_error})"
            ) from error
    array, dtype = read_array(output, name=f"the output of {shown}")
    if array.ndim != 2 or array.shape[0] != steps.size or (dim and array.shape[1] != dim):
        want = f"({steps.size}, {dim if dim else 'dim'})"
        raise ValueError(
            f"{shown} must return one row per timestep, shape {want}; got shape "
            f"{tuple(array.shape)}"
        )
    values = to_float64(array)
    check_finite(values, name=f"the output of {shown}")
    return values, dtype


def _takes_dim(function: Callable[..., Any]) -> bool:
    """Whether `function` takes the width as a second positional argument."""
    forward = getattr(function, "forward", None)  # a torch module: its forward's arguments
    try:
        signature = inspect.signature(forward if callable(forward) else function)
    except (TypeError, ValueError):
        return True
    positional = [
        p
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    ]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in positional)


def _read(values: NDArray[np.float64]) -> dict[str, Any] | str:
    """Read flip, scale and the exponent's slope from one width's output, or say why not."""
    width = values.shape[1]
    half = width // 2
    first, second = values[:, :half], values[:, half : 2 * half]
    if np.allclose(values[0, :half], 0, atol=1e-3) and np.allclose(second[0], 1, atol=1e-3):
        flip, sines, cosines = False, first, second
    elif np.allclose(values[0, :half], 1, atol=1e-3) and np.allclose(second[0], 0, atol=1e-3):
        flip, sines, cosines = True, second, first
    else:
        return "at timestep 0 neither half is all zeros with the other all ones"
    if float(np.abs(np.hypot(sines, cosines) - 1).max()) > 0.05:
        return "the two halves are not the sine and cosine of the same angles"
    angles = np.arctan2(sines, cosines)
    small = PROBE_TIMESTEPS[1]
    scale = float(angles[1, 0]) / small
    if scale <= 0:
        return "the first pair does not turn forward with the timestep"
    omega = np.full(half, np.nan)
    for row, step in enumerate(PROBE_TIMESTEPS[1:], start=1):
        estimate = np.where(np.isnan(omega), angles[1] / (scale * small), omega)
        usable = scale * step * estimate < 2.5
        omega = np.where(usable, angles[row] / (scale * step), omega)
    if half < 2:
        return {"flip": flip, "scale": scale, "slope": math.nan, "misfit": 0.0}
    index = np.arange(1, half)
    logs = np.log(np.clip(omega[1:], 1e-300, None))
    slope = -float((index * logs).sum() / (index**2).sum())
    misfit = float(np.abs(logs + slope * index).max())
    return {"flip": flip, "scale": scale, "slope": slope, "misfit": misfit}


def _nice(value: float, digits: int = 4) -> float:
    rounded = float(f"{value:.{digits}g}")
    return rounded if math.isclose(rounded, value, rel_tol=1e-4) else value


def identify_timestep(function: Callable[..., Any]) -> Identification:
    """Recover a timestep embedding's settings by calling it, and name the presets that use them.

    Parameters
    ----------
    function : callable
        ``function(timesteps, dim)`` returning an array of shape
        ``(len(timesteps), dim)`` (diffusers' ``get_timestep_embedding``
        signature), or ``function(timesteps)`` of a fixed width (a module).
        It is called with a float32 numpy array, or a torch tensor if it
        refuses that and torch is already imported; at most 10 timesteps and
        widths 64 and 96.

    Returns
    -------
    Identification
        ``recognised`` when `pe.timestep_embedding` with the settings found
        reproduces every value within rounding; ``parameters`` holds
        ``flip_sin_to_cos``, ``downscale_freq_shift``, ``scale``,
        ``max_period`` and the matching ``presets``.

    Raises
    ------
    TypeError
        If `function` is not callable, or returns something other than an
        array of floats.
    ValueError
        If calling it raises (the message names the call and the error), or
        it returns the wrong shape or non-finite values.

    Examples
    --------
    >>> import pe
    >>> sd = pe.timestep_presets["stable-diffusion-1"]
    >>> found = pe.identify_timestep(lambda t, dim: pe.timestep_embedding(t, dim, **sd.settings()))
    >>> found.recognised, found.parameters["flip_sin_to_cos"], found.parameters["presets"][:2]
    (True, True, ['stable-diffusion-1', 'stable-diffusion-2'])
    """
    if not callable(function):
        raise TypeError(
            f"function must be callable as function(timesteps, dim); got {type(function).__name__}"
        )
    takes_dim = _takes_dim(function)
    outputs = [_call(function, dim) for dim in (PROBE_DIMS if takes_dim else (None,))]
    readings = [_read(values) for values, _ in outputs]
    failed = next((r for r in readings if isinstance(r, str)), None)
    if failed is not None or any(isinstance(r, dict) and r["misfit"] > 0.05 for r in readings):
        return _unrecognised(outputs, failed or "the frequencies do not fall geometrically")
    settings = [r for r in readings if isinstance(r, dict)]
    flip = bool(settings[0]["flip"])
    scale = _nice(float(np.mean([r["scale"] for r in settings])))
    lines: list[str] = []
    if len(settings) == 2:
        halves = [values.shape[1] // 2 for values, _ in outputs]
        inverse = [1 / r["slope"] for r in settings]
        log_period = (halves[1] - halves[0]) / (inverse[1] - inverse[0])
        shift = halves[0] - log_period * inverse[0]
    else:
        log_period = math.log(10000.0)
        shift = outputs[0][0].shape[1] // 2 - log_period / settings[0]["slope"]
        lines.append(
            "a fixed width: shift and period are read assuming max_period 10000 (one width "
            "gives only log(max_period) / (dim // 2 - shift))"
        )
    if not 0 < log_period < 700:
        return _unrecognised(outputs, f"the period found, exp({log_period:.3g}), is not > 1")
    period = _nice(math.exp(log_period))
    shift = round(shift) if abs(shift - round(shift)) < 0.02 else round(shift, 3)
    found = {
        "flip_sin_to_cos": flip,
        "downscale_freq_shift": float(shift),
        "scale": scale,
        "max_period": period,
    }
    residual, fits = _compare(outputs, found)
    presets = [
        name
        for name, preset in timestep_presets.items()
        if all(
            math.isclose(float(value), float(preset.settings()[key]), rel_tol=1e-9)
            for key, value in found.items()
        )
    ]
    parameters: dict[str, Any] = {**found, "presets": presets}
    lines[:0] = [
        f"flip_sin_to_cos={flip} ({'cosines' if flip else 'sines'} in the first half)",
        f"downscale_freq_shift={shift:g} (the exponent divides by dim // 2 - {shift:g})",
        f"scale={scale:g}, max_period={period:g}",
        "presets with these settings: " + (", ".join(presets) if presets else "none"),
    ]
    if fits:
        lines.append(f"pe.timestep_embedding with these settings reproduces it to {residual:.1e}")
        name = presets[0] if presets else "timestep embedding"
        if len(presets) > 1:
            name = f"{presets[0]} (and {len(presets) - 1} more)"
        return Identification("timestep", True, name, parameters, tuple(lines), residual)
    lines.append(
        f"but pe.timestep_embedding with these settings differs by up to {residual:.2g}: "
        "something else differs (angles in a low precision, another formula)"
    )
    return Identification(
        "timestep", False, "closest: timestep embedding", parameters, tuple(lines), residual
    )


def _compare(
    outputs: list[tuple[NDArray[np.float64], str]], settings: dict[str, Any]
) -> tuple[float, bool]:
    """Largest difference from `pe.timestep_embedding` at `settings`, and whether it is rounding."""
    residual, fits = 0.0, True
    for values, dtype in outputs:
        expected = timestep_embedding(
            PROBE_TIMESTEPS, values.shape[1], dtype=np.float64, **settings
        )
        angles = np.abs(PROBE_TIMESTEPS)[:, None] * settings["scale"] * np.ones(values.shape[1])
        difference = np.abs(values - expected)
        residual = max(residual, float(difference.max()))
        fits = fits and bool((difference <= tolerance(dtype, angles)).all())
    return residual, fits


def _unrecognised(outputs: list[tuple[NDArray[np.float64], str]], why: str) -> Identification:
    """Return the report for a function that is not a sinusoidal timestep embedding."""
    values, _ = outputs[0]
    expected = timestep_embedding(PROBE_TIMESTEPS, values.shape[1], dtype=np.float64)
    residual = float(np.abs(values - expected).max())
    lines = (
        f"not a sinusoidal timestep embedding: {why}",
        f"closest: diffusers' defaults (the ddpm preset), at most {residual:.2f} away",
    )
    return Identification("timestep", False, "closest: ddpm", {"closest": "ddpm"}, lines, residual)
