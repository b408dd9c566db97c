r"""The rotation property: a shift of position is a fixed rotation of every pair.

From the angle-addition identities, for pair $i$ and an offset $k$,

$$
\begin{pmatrix} PE(p+k, 2i) \\ PE(p+k, 2i+1) \end{pmatrix}
=
\begin{pmatrix} \cos k\omega_i & \sin k\omega_i \\ -\sin k\omega_i & \cos k\omega_i \end{pmatrix}
\begin{pmatrix} PE(p, 2i) \\ PE(p, 2i+1) \end{pmatrix},
$$

and the matrix does not depend on $p$. Stacking the $d/2$ blocks on the diagonal
gives one $d \times d$ matrix $M_k$ with $PE(p+k) = M_k\,PE(p)$ for every $p$.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from pe._frequencies import cached_frequencies
from pe._validation import check_base, check_d_model, check_offset, check_size

__all__ = ["rotation_blocks", "rotation_matrix"]


def rotation_blocks(offset: int, d_model: int, *, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Return the $2 \times 2$ rotation of each (sin, cos) pair for a shift by `offset`.

    Block $i$ is $\begin{pmatrix} \cos k\omega_i & \sin k\omega_i \\
    -\sin k\omega_i & \cos k\omega_i \end{pmatrix}$, which in terms of the
    encoding of position $k$ itself reads $\begin{pmatrix} PE(k, 2i+1) &
    PE(k, 2i) \\ -PE(k, 2i) & PE(k, 2i+1) \end{pmatrix}$.

    Parameters
    ----------
    offset : int
        The shift $k$ (any integer; negative shifts rotate backwards).
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(d_model // 2, 2, 2)``; each block is orthogonal
        with determinant 1.

    Raises
    ------
    TypeError
        If `offset` or `d_model` is not an integer, or `base` is not a real number.
    ValueError
        If `d_model` is not positive and even, `base` is not finite and above 1,
        or ``|offset| > 2**31 - 1``.

    Examples
    --------
    >>> import numpy as np
    >>> import pe
    >>> pe.rotation_blocks(1, d_model=2).round(4)
    array([[[ 0.5403,  0.8415],
            [-0.8415,  0.5403]]])
    >>> table = pe.sinusoidal(10, d_model=2, dtype=np.float64)
    >>> bool(np.allclose(pe.rotation_blocks(3, 2)[0] @ table[4], table[7]))
    True
    """
    return _blocks(check_offset(offset), check_d_model(d_model), check_base(base))


def _blocks(offset: int, d_model: int, base: float) -> NDArray[np.float64]:
    """`rotation_blocks` for checked arguments."""
    omega = cached_frequencies(d_model, base)
    theta = offset * omega
    cos, sin = np.cos(theta), np.sin(theta)
    blocks = np.empty((omega.size, 2, 2))
    blocks[:, 0, 0] = cos
    blocks[:, 0, 1] = sin
    blocks[:, 1, 0] = -sin
    blocks[:, 1, 1] = cos
    return blocks


def rotation_matrix(offset: int, d_model: int, *, base: float = 10000.0) -> NDArray[np.float64]:
    r"""Return the block-diagonal $M_k$ with $PE(p + k) = M_k\,PE(p)$ for every $p$.

    Parameters
    ----------
    offset : int
        The shift $k$ (any integer).
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, default 10000.0
        The base $b$; a finite real number greater than 1.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(d_model, d_model)``: the blocks of
        `rotation_blocks` on the diagonal, zeros elsewhere. It is orthogonal,
        ``M(k) @ M(j) == M(k + j)`` and ``M(-k) == M(k).T``.

    Raises
    ------
    TypeError, ValueError
        As for `rotation_blocks`; also a `ValueError`, before allocating, when
        the ``d_model x d_model`` matrix would pass the limit of one call.

    Examples
    --------
    >>> import numpy as np
    >>> import pe
    >>> M = pe.rotation_matrix(5, d_model=8)
    >>> M.shape
    (8, 8)
    >>> table = pe.sinusoidal(100, d_model=8, dtype=np.float64)
    >>> float(np.abs(table[5:] - table[:-5] @ M.T).max()) < 1e-14
    True
    """
    offset, d_model, base = check_offset(offset), check_d_model(d_model), check_base(base)
    check_size((d_model, d_model), name="the rotation matrix")
    return _matrix(offset, d_model, base)


def _matrix(offset: int, d_model: int, base: float) -> NDArray[np.float64]:
    """`rotation_matrix` for checked arguments."""
    blocks = _blocks(offset, d_model, base)
    half = blocks.shape[0]
    matrix = np.zeros((2 * half, 2 * half))
    pairs = np.arange(half)
    for row in range(2):
        for col in range(2):
            matrix[2 * pairs + row, 2 * pairs + col] = blocks[:, row, col]
    return matrix
