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

from typing import Any

from torch import Tensor, nn

from pe._validation import check_d_model, check_offset
from pe.nn._common import apply_temperature, check_integer_tensor, check_temperature

__all__ = ["NoRotation"]


class NoRotation(nn.Module):
    r"""The positions of a layer that a model leaves unrotated (NoPE): none.

    Parameters
    ----------
    head_dim : int
        The width of each head; inputs must end in it.
    reason : str
        Why the layer is not rotated, naming the config key.
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
    >>> rope
    NoRotation(head_dim=16, reason="config['no_rope_layers']: layer 3 is not rotated (NoPE)")
    >>> q = k = torch.randn(1, 4, 5, 16)
    >>> all(torch.equal(a, b) for a, b in zip(rope(q, k), (q, k)))
    True
    """

    rule = "none"
    rotary_dim = 0
    attention_factor = 1.0

    def __init__(
        self,
        head_dim: int,
        *,
        reason: str,
        query_temperature: tuple[float, float, int] | None = None,
    ) -> None:
        super().__init__()
        self.head_dim = check_d_model(head_dim, name="head_dim")
        if not isinstance(reason, str) or not reason:
            raise TypeError(f"reason must be a non-empty string; got {reason!r}")
        self.reason = reason
        self.query_temperature = check_temperature(query_temperature)

    def _check(self, x: Any, name: str) -> Tensor:
        if not isinstance(x, Tensor) or not x.is_floating_point() or x.dim() < 2:
            got = (
                f"shape {tuple(x.shape)}, {x.dtype}" if isinstance(x, Tensor) else type(x).__name__
            )
            raise TypeError(
                f"{name} must be a floating-point tensor of shape (..., seq, head_dim); got {got}"
            )
        if x.shape[-1] != self.head_dim:
            raise ValueError(
                f"{name} must have last dimension head_dim={self.head_dim}; "
                f"got shape {tuple(x.shape)}"
            )
        return x

    def rotate(self, x: Tensor, *, offset: int = 0, positions: Tensor | None = None) -> Tensor:
        """Return `x` unchanged (after checking its shape): this layer has no RoPE."""
        return self._check(x, "x")

    def forward(
        self,
        q: Tensor,
        k: Tensor,
        *,
        q_positions: Tensor | None = None,
        k_positions: Tensor | None = None,
        offset: int = 0,
    ) -> tuple[Tensor, Tensor]:
        """Return `q` and `k` unturned (after checking their shapes): this layer has no RoPE.

        With a `temperature`, the queries are multiplied by it at their
        positions (``offset + 0 .. seq - 1``, or `q_positions`).
        """
        q, k = self._check(q, "q"), self._check(k, "k")
        if self.query_temperature is None:
            return q, k
        if q_positions is not None:
            q_positions = check_integer_tensor(q_positions, "q_positions")
        return apply_temperature(q, self.query_temperature, q_positions, check_offset(offset)), k

    def extra_repr(self) -> str:
        temperature = self.query_temperature
        extra = "" if temperature is None else f", query_temperature={temperature}"
        return f"head_dim={self.head_dim}, reason={self.reason!r}{extra}"
