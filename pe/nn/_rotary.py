r"""Rotary position embedding (RoPE): rotate queries and keys by their positions.

RoPE (Su et al., 2021) applies the rotation of the sinusoidal encoding (the
rotation chapter of the guide) to the queries and keys themselves: pair $i$
of a vector at position $m$ is turned by the angle $m\theta_i$, with
$\theta_i = b^{-2i/d}$ as in the sinusoidal encoding. Since rotations compose,
$\langle R_m q, R_n k\rangle = \langle q, R_{n-m} k\rangle$: the score depends on
the positions only through $n - m$.

Two layouts are in use. *Interleaved* pairs dimensions $(2i, 2i+1)$ (RoFormer,
GPT-J); *half* pairs $(i, i + d/2)$ (GPT-NeoX, LLaMA). They are the same
rotation after a fixed permutation of the head dimensions
(`convert_rotary_layout`).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn

from pe._layout import layout_permutation
from pe._validation import check_base, check_d_model, check_offset
from pe.nn._common import check_layout_choice
from pe.nn._sinusoidal import sinusoidal

__all__ = ["RotaryEmbedding", "convert_rotary_layout"]

_LAYOUTS = ("interleaved", "half")


def convert_rotary_layout(x: Tensor, source: str, target: str) -> Tensor:
    """Reorder the last dimension of queries, keys (or projection rows) between layouts.

    ``interleaved`` pairs dimensions ``(2i, 2i + 1)``; ``half`` pairs ``(i, i + d/2)``.
    Converting both queries and keys leaves every attention score unchanged; for
    a model's weights, permute the output rows of the query and key projections.

    Parameters
    ----------
    x : torch.Tensor
        Any tensor with at least one dimension; the last one is reordered.
    source, target : {"interleaved", "half"}
        The layouts to convert from and to.

    Returns
    -------
    torch.Tensor
        A new tensor of the same shape, dtype and device.

    Raises
    ------
    TypeError, ValueError
        For an `x` that is not a tensor of at least one dimension, or an
        unknown layout.

    Examples
    --------
    >>> import torch
    >>> from pe.nn import convert_rotary_layout
    >>> convert_rotary_layout(torch.arange(6.0), "interleaved", "half")
    tensor([0., 2., 4., 1., 3., 5.])
    """
    if not isinstance(x, Tensor) or x.dim() == 0:
        got = "a 0-d tensor" if isinstance(x, Tensor) else type(x).__name__
        raise TypeError(f"x must be a tensor with at least one dimension; got {got}")
    check_layout_choice(source, "source", _LAYOUTS)
    check_layout_choice(target, "target", _LAYOUTS)
    names = {"interleaved": "interleaved", "half": "concatenated"}
    perm = layout_permutation(x.shape[-1], names[source], names[target])  # type: ignore[arg-type]
    return x[..., torch.from_numpy(np.asarray(perm)).to(x.device)]


class RotaryEmbedding(nn.Module):
    r"""Rotate queries and keys by their positions (no parameters, no table kept).

    Parameters
    ----------
    head_dim : int
        Size of each head's query and key vectors; a positive even integer.
    base : float, default 10000.0
        The base $b$ of the frequencies $\theta_i = b^{-2i/d}$.
    layout : {"interleaved", "half"}, default "interleaved"
        Which dimensions form a rotated pair (see `convert_rotary_layout`).

    Notes
    -----
    The cosines and sines come from `pe.nn.sinusoidal`, accurate to a few float32
    roundings at any position; the rotation is done in float32 and the result
    cast back to the input's dtype.

    Raises
    ------
    TypeError, ValueError
        At construction, for a `head_dim` that is not a positive even integer,
        a `base` that is not a finite number greater than 1, or an unknown
        `layout`. When called, for queries or keys that are not floating-point
        tensors of shape ``(..., seq, head_dim)``, an `offset` that is not an
        integer, or positions beyond ``±(2**31 - 1)``.

    Examples
    --------
    >>> import torch
    >>> from pe.nn import RotaryEmbedding
    >>> rope = RotaryEmbedding(head_dim=8)
    >>> q, k = torch.randn(2, 4, 10, 8), torch.randn(2, 4, 10, 8)  # (batch, heads, seq, dim)
    >>> q_rot, k_rot = rope(q, k)
    >>> q_rot.shape
    torch.Size([2, 4, 10, 8])
    """

    def __init__(
        self, head_dim: int, *, base: float = 10000.0, layout: str = "interleaved"
    ) -> None:
        super().__init__()
        self.head_dim = check_d_model(head_dim, name="head_dim")
        self.base = check_base(base)
        self.layout = check_layout_choice(layout, "layout", _LAYOUTS)

    def rotate(self, x: Tensor, *, offset: int = 0, positions: Tensor | None = None) -> Tensor:
        """Rotate `x` (``(..., seq, head_dim)``) by positions ``offset + 0, 1, ...``.

        `positions`, if given, replaces them: shape ``(seq,)`` or broadcastable
        to ``x.shape[:-1]``.
        """
        return self._rotate(x, "x", offset=offset, positions=positions)

    def _rotate(
        self, x: Tensor, name: str, *, offset: int = 0, positions: Tensor | None = None
    ) -> Tensor:
        if not isinstance(x, Tensor) or not x.is_floating_point() or x.dim() < 2:
            got = type(x).__name__
            if isinstance(x, Tensor):
                got = f"shape {tuple(x.shape)}, {x.dtype}"
            raise TypeError(
                f"{name} must be a floating-point tensor of shape (..., seq, head_dim); got {got}"
            )
        if x.shape[-1] != self.head_dim:
            raise ValueError(
                f"{name} must have last dimension head_dim={self.head_dim}; "
                f"got shape {tuple(x.shape)}"
            )
        if positions is None:
            start = check_offset(offset)
            positions = torch.arange(start, start + x.shape[-2], device=x.device)
        # --8<-- [start:rotate]
        table = sinusoidal(positions, self.head_dim, base=self.base, device=x.device)
        sin, cos = table[..., 0::2], table[..., 1::2]  # (..., seq, head_dim / 2), float32
        values = x.float()
        if self.layout == "interleaved":
            first, second = values[..., 0::2], values[..., 1::2]
        else:
            first, second = values.chunk(2, dim=-1)
        turned_first = first * cos - second * sin
        turned_second = first * sin + second * cos
        if self.layout == "interleaved":
            out = torch.stack((turned_first, turned_second), dim=-1).flatten(-2)
        else:
            out = torch.cat((turned_first, turned_second), dim=-1)
        return out.to(x.dtype)
        # --8<-- [end:rotate]

    def forward(
        self,
        q: Tensor,
        k: Tensor,
        *,
        q_positions: Tensor | None = None,
        k_positions: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """Rotate queries and keys; positions default to ``0 .. seq-1`` for each.

        Parameters
        ----------
        q, k : torch.Tensor
            Floating-point tensors of shape ``(..., seq, head_dim)``; the
            sequence lengths of the two may differ.
        q_positions, k_positions : torch.Tensor, optional
            Integer positions within ``±(2**31 - 1)``, of shape ``(seq,)`` or
            broadcastable to the tensor's shape without its last dimension.

        Returns
        -------
        tuple of torch.Tensor
            The rotated queries and keys, in their own dtypes.

        Raises
        ------
        TypeError, ValueError
            Naming `q` or `k` for a tensor of the wrong kind or width, or for
            positions out of range.
        """
        return (
            self._rotate(q, "q", positions=q_positions),
            self._rotate(k, "k", positions=k_positions),
        )

    def extra_repr(self) -> str:
        return f"head_dim={self.head_dim}, base={self.base}, layout={self.layout!r}"
