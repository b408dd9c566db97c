"""A layer without RoPE (NoPE): the module that `RotaryEmbedding.from_config` gives for it.

Some models leave chosen layers unrotated: Llama 4 and SmolLM3 list them
(``no_rope_layers``), Cohere 2 rotates its sliding-window layers only, and a
``rope_parameters`` entry of ``None`` marks a layer type without RoPE. Such a
layer's attention sees positions only through the causal mask. Asking
`RotaryEmbedding.from_config` for one of those layers gives a `NoRotation`:
it takes the same calls as a `RotaryEmbedding`, checks them the same way, and
returns queries and keys unchanged; its ``reason`` names the key that says so.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from pe._validation import check_d_model, check_length, check_offset
from pe.nn._common import apply_temperature, check_integer_tensor, check_temperature
from pe.nn._rotary import RotaryEmbedding, _check_rotary_layout

__all__ = ["NoRotation"]


class NoRotation(RotaryEmbedding):
    r"""The positions of a layer that a model leaves unrotated (NoPE): none.

    A `RotaryEmbedding` that rotates no dimension: it takes the same calls,
    checks them the same way, and returns queries and keys unturned.

    Parameters
    ----------
    head_dim : int
        The width of each head; inputs must end in it.
    reason : str
        Why the layer is not rotated, naming the config key.
    layout : {"concatenated", "interleaved"}, default "concatenated"
        The model's pair layout (kept for the record: nothing is paired).
    query_temperature : (float, float, int), optional
        ``(scale, step, shift)``: `forward` multiplies the queries at position
        $p$ by $1 + \mathrm{scale}\,\ln(1 + \lfloor (p + \mathrm{shift}) /
        \mathrm{step} \rfloor)$, as Llama 4 does in its unrotated layers
        (``attn_temperature_tuning``: ``(attn_scale, floor_scale, 1)``); keys
        are left alone.

    Attributes
    ----------
    rule : str
        ``"none"``.
    rotary_dim : int
        0: no dimension is rotated.
    frequencies : numpy.ndarray
        Empty.
    base : float
        NaN: there is no base.
    attention_factor : float
        1.0.

    Examples
    --------
    >>> import torch
    >>> from pe.nn import RotaryEmbedding
    >>> smollm3 = {"model_type": "smollm3", "hidden_size": 64, "num_attention_heads": 4,
    ...            "num_hidden_layers": 4, "rope_theta": 2000000.0,
    ...            "no_rope_layers": [1, 1, 1, 0]}
    >>> rope = RotaryEmbedding.from_config(smollm3, layer=3)
    >>> rope.rule, rope.rotary_dim, rope.reason
    ('none', 0, "config['no_rope_layers'] is 0 for these layers: not rotated (NoPE)")
    >>> q = k = torch.randn(1, 4, 5, 16)
    >>> all(torch.equal(a, b) for a, b in zip(rope(q, k), (q, k)))
    True
    """

    def __init__(
        self,
        head_dim: int,
        *,
        reason: str,
        layout: str = "concatenated",
        query_temperature: tuple[float, float, int] | None = None,
    ) -> None:
        nn.Module.__init__(self)
        self.head_dim = check_d_model(head_dim, name="head_dim")
        if not isinstance(reason, str) or not reason:
            raise TypeError(f"reason must be a non-empty string; got {reason!r}")
        self.reason = reason
        self.layout = _check_rotary_layout(layout, "layout")
        self.query_temperature = check_temperature(query_temperature)
        frequencies = np.empty(0, dtype=np.float64)
        frequencies.flags.writeable = False
        self.frequencies = frequencies
        self.rule = "none"
        self.rotary_dim = 0
        self.attention_factor = 1.0
        self.base = math.nan

    def _copy_constants(self, device: torch.device) -> None:
        """Nothing to copy: there is no table."""

    def rotate(self, x: Tensor, *, offset: int = 0, positions: Tensor | None = None) -> Tensor:
        """Return `x` unturned (after checking it): this layer has no RoPE."""
        self._check_input(x, "x")
        check_offset(offset)
        if positions is not None:
            check_integer_tensor(positions, "positions")
        return x

    def table(
        self, length: int, *, device: Any = None, dtype: Any = torch.float32
    ) -> tuple[Tensor, Tensor]:
        """Return empty cos and sin of shape ``(length, 0)``: nothing is turned."""
        length = check_length(length)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise TypeError(f"dtype must be a floating-point torch dtype; got {dtype!r}")
        empty = torch.empty(length, 0, device=device, dtype=dtype)
        return empty, empty.clone()

    def forward(
        self,
        q: Tensor,
        k: Tensor,
        *,
        q_positions: Tensor | None = None,
        k_positions: Tensor | None = None,
        offset: int = 0,
    ) -> tuple[Tensor, Tensor]:
        """Return `q` and `k` unturned (after checking them): this layer has no RoPE.

        With a `query_temperature`, the queries are multiplied by it at their
        positions (``offset + 0 .. seq - 1``, or `q_positions`).
        """
        self._check_input(q, "q")
        self._check_input(k, "k")
        start = check_offset(offset)
        for positions, name in ((q_positions, "q_positions"), (k_positions, "k_positions")):
            if positions is not None:
                check_integer_tensor(positions, name)
        if self.query_temperature is None:
            return q, k
        return apply_temperature(q, self.query_temperature, q_positions, start), k

    def extra_repr(self) -> str:
        temperature = self.query_temperature
        extra = "" if temperature is None else f", query_temperature={temperature}"
        return f"head_dim={self.head_dim}, rule='none', reason={self.reason!r}{extra}"
