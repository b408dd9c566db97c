r"""ALiBi's head slopes: a geometric sequence per power-of-two head count.

ALiBi (Press et al., 2022) adds $-m_h\,|i - j|$ to head $h$'s attention score
between query $i$ and key $j$. For $n$ heads with $n$ a power of two the slopes
are $m_h = 2^{-8h/n}$, $h = 1 \dots n$. For other $n$, take the slopes of the
largest power of two $p < n$, then every other slope of $2p$ heads until there
are $n$.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from pe._validation import is_integer

__all__ = ["MAX_HEADS", "alibi_slopes"]

#: Largest accepted head count: far beyond any model, small enough to allocate.
MAX_HEADS = 2**16


def _power_of_two_slopes(heads: int) -> NDArray[np.float64]:
    # m_h = 2^(-8h/n), h = 1 .. n: a geometric sequence starting at 2^(-8/n)
    return np.power(2.0, -8.0 * np.arange(1, heads + 1) / heads)


def alibi_slopes(num_heads: int) -> NDArray[np.float64]:
    """ALiBi's slope for each of `num_heads` attention heads.

    Parameters
    ----------
    num_heads : int
        Number of heads, from 1 to ``MAX_HEADS`` (65,536); any count, not only
        powers of two.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(num_heads,)``, every value in ``(0, 1)``.

    Raises
    ------
    TypeError
        If `num_heads` is not an integer.
    ValueError
        If `num_heads` is below 1 or above 65,536.

    Examples
    --------
    >>> import pe
    >>> pe.alibi_slopes(8).tolist()
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    >>> pe.alibi_slopes(12)[8:].round(4)  # the 4 heads past 8: every other slope of 16 heads
    array([0.7071, 0.3536, 0.1768, 0.0884])
    """
    if not is_integer(num_heads):
        raise TypeError(f"num_heads must be a positive integer; got {num_heads!r}")
    heads = int(num_heads)
    if heads < 1:
        raise ValueError(f"num_heads must be a positive integer; got {heads}")
    if heads > MAX_HEADS:
        raise ValueError(f"num_heads must be at most {MAX_HEADS:,} (2**16); got {heads:,}")
    # --8<-- [start:slopes]
    power = 2 ** int(np.floor(np.log2(heads)))
    slopes = _power_of_two_slopes(power)
    if power == heads:
        return slopes
    extra = _power_of_two_slopes(2 * power)[0::2][: heads - power]
    return np.concatenate([slopes, extra])
    # --8<-- [end:slopes]
