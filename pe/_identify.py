"""`pe.identify`: name the positional encoding an implementation computes, or its mistake.

One entry point dispatches on what it is given:

- an array (numpy or torch) of shape ``(positions, d_model)``: a sinusoidal
  table (`identify_table`); if it is not one and its width is a multiple of
  4, a 2-D patch grid (`identify_grid`);
- a function of ``(timesteps, dim)``: a diffusion timestep embedding
  (`identify_timestep`);
- a ``(cos, sin)`` pair of caches, or a rotary function or module:
  `identify_rope` (``pe._identify_rope``).

``kind=`` picks one of them by name. Each returns a report with the same
fields (``recognised``, ``name``, ``parameters`` or ``config``, ``lines``,
``residual``, ``as_dict()``); printing it gives the report in words.
"""

from __future__ import annotations

from typing import Any

from pe._identify_common import Identification, read_array
from pe._identify_grid import identify_grid
from pe._identify_rope import identify_rope
from pe._identify_table import identify_table
from pe._identify_timestep import identify_timestep
from pe._validation import _describe, _is_torch_tensor, check_choice

__all__ = [
    "KINDS",
    "Identification",
    "identify",
    "identify_grid",
    "identify_rope",
    "identify_table",
    "identify_timestep",
]

#: What `identify` can be asked to examine.
KINDS = ("sinusoid", "timestep", "grid", "rope")


def _is_pair(obj: Any) -> bool:
    return isinstance(obj, (tuple, list)) and len(obj) == 2 and not isinstance(obj[0], (int, float))


def _is_array(obj: Any) -> bool:
    return _is_torch_tensor(obj) or hasattr(obj, "__array__") or isinstance(obj, (list, tuple))


def identify(obj: Any, kind: str | None = None, **options: Any) -> Any:
    """Name the positional encoding `obj` computes, with its parameters, or say how it differs.

    Parameters
    ----------
    obj : array, callable, module or (cos, sin) pair
        A sinusoidal table or grid table (numpy array or torch tensor), a
        timestep-embedding function ``f(timesteps, dim)``, a rotary function or
        module, or the ``(cos, sin)`` caches of one.
    kind : {"sinusoid", "timestep", "grid", "rope"}, optional
        What `obj` is. Without it: a pair or a module with ``inv_freq`` is
        RoPE; an array is tried as a table, then as a grid; a callable as a
        timestep embedding, then as RoPE.
    **options
        Passed to the identifier (``grid=`` for a grid; RoPE's options).

    Returns
    -------
    Identification
        ``recognised``, ``name``, ``parameters``, ``lines`` (the report in
        words), ``residual``; ``str()`` gives the report, ``as_dict()`` a
        JSON-able dict. RoPE returns `identify_rope`'s report, which has the
        same fields and a ``config``.

    Raises
    ------
    TypeError
        If `kind` is not one of the four, or `obj` is none of the above.
    ValueError
        If `obj` has the wrong shape or non-finite values, or calling it
        raises (the message names the call and the error).

    Examples
    --------
    >>> import pe
    >>> print(pe.identify(pe.conventions["musicgen"].table(32, 16)))  # doctest: +ELLIPSIS
    musicgen (sinusoid, recognised; residual 0.00e+00)
      musicgen: Hugging Face MusicGen (and MusicGen Melody)
      layout: concatenated, cosines first (cos in columns 0-7, sin in 8-15)
      ...
    >>> pe.identify(pe.grid_sincos((4, 6), 32), kind="grid").parameters["grid"]
    [4, 6]
    """
    if kind is not None:
        kind = check_choice(kind, name="kind", choices=KINDS)
    if kind == "rope" or (kind is None and (_is_pair(obj) or hasattr(obj, "inv_freq"))):
        return identify_rope(obj, **options)
    if kind == "timestep":
        return identify_timestep(obj, **options)
    if kind == "grid":
        return identify_grid(obj, **options)
    if kind == "sinusoid":
        return identify_table(obj, **options)
    if _is_array(obj) and not callable(obj):
        found = identify_table(obj)
        if found.recognised:
            return found
        array, _ = read_array(obj, name="table")
        if array.shape[-1] % 4 == 0:
            grid = identify_grid(obj)
            if grid.recognised:
                return grid
        return found
    if callable(obj):
        try:
            return identify_timestep(obj)
        except ValueError as timestep_error:
            try:
                return identify_rope(obj, **options)
            except (TypeError, ValueError) as rope_error:
                raise ValueError(
                    f"{timestep_error}; as a rotary function: {rope_error}"
                ) from rope_error
    raise TypeError(
        "obj must be an array (a table), a callable (a timestep embedding or a rotary "
        f"function), a module or a (cos, sin) pair; got {_describe(obj)}"
    )
