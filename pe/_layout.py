r"""Converting between the interleaved and the concatenated layout.

The two layouts hold the same numbers in a different column order:

* interleaved: $[\sin\theta_0, \cos\theta_0, \sin\theta_1, \cos\theta_1, \dots]$;
* concatenated: $[\sin\theta_0, \sin\theta_1, \dots, \cos\theta_0, \cos\theta_1, \dots]$.

So converting is a permutation of the last axis, which leaves every dot product
and distance between encodings unchanged. A model trained with one layout can
use the other if the first layer that reads the encoding has its input columns
permuted the same way (`convert_layout` on the weight's last axis). Given two
named conventions, `convert_layout` also converts between them when a
permutation can; a different *frequency rule* is not one, and it refuses that
with an explanation.

The same words name the rotary layouts of `pe.nn`: *interleaved* pairs
dimensions $(2i, 2i+1)$, *concatenated* pairs $(i, i + d/2)$ (what Hugging Face
calls ``rotate_half``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from pe._conventions import Convention, Layout, lookup
from pe._validation import MAX_D_MODEL, is_integer

__all__ = ["convert_layout", "layout_permutation"]

_LAYOUTS = ("interleaved", "concatenated")


def _check_layout(value: Any, name: str) -> Layout:
    if value not in _LAYOUTS:
        raise ValueError(f"{name} must be 'interleaved' or 'concatenated'; got {value!r}")
    return value  # type: ignore[no-any-return]


def layout_permutation(d_model: int, source: Layout, target: Layout) -> NDArray[np.int64]:
    """Column indices that turn `source` layout into `target`: ``target = source[..., perm]``.

    For odd `d_model` the sine block has one column more than the cosine block,
    as in Marian (concatenated) and DistilBERT/XLM (interleaved).

    Parameters
    ----------
    d_model : int
        Number of columns, a positive integer.
    source, target : {"interleaved", "concatenated"}
        The layouts to convert from and to.

    Returns
    -------
    numpy.ndarray
        int64 array of shape ``(d_model,)``, a permutation of ``0 .. d_model-1``.

    Raises
    ------
    TypeError, ValueError
        For a `d_model` that is not a positive integer (at most ``2**24``) or
        an unknown layout.

    Examples
    --------
    >>> import pe
    >>> pe.layout_permutation(6, "interleaved", "concatenated")
    array([0, 2, 4, 1, 3, 5])
    >>> pe.layout_permutation(6, "concatenated", "interleaved")
    array([0, 3, 1, 4, 2, 5])
    """
    if not is_integer(d_model) or not 0 < int(d_model) <= MAX_D_MODEL:
        raise (TypeError if not is_integer(d_model) else ValueError)(
            f"d_model must be a positive integer of at most {MAX_D_MODEL:,} (2**24); "
            f"got {d_model!r:.60}"
        )
    source = _check_layout(source, "source")
    target = _check_layout(target, "target")
    columns = np.arange(int(d_model))
    # interleaved column j holds sine j//2 (even j) or cosine j//2 (odd j);
    # concatenated column j holds sine j (j < n_sin) or cosine j - n_sin.
    to_concatenated: NDArray[np.int64] = np.concatenate([columns[0::2], columns[1::2]])
    if source == target:
        return columns
    if source == "interleaved":
        return to_concatenated
    return np.argsort(to_concatenated)


def convert_layout(
    values: Any,
    source: Layout | str | Convention,
    target: Layout | str | Convention,
    *,
    axis: int = -1,
) -> NDArray[Any]:
    """Reorder encodings from one layout (or convention) to another along `axis`.

    With two layouts, this is the fixed permutation of `layout_permutation`.
    It applies as well to the input columns of a linear layer that reads
    encodings: for ``y = W @ x`` (``W`` of shape ``(out_features, d_model)``, as
    ``torch.nn.Linear.weight``), a layer trained on `source`-layout inputs gives
    the same ``y`` on `target`-layout inputs with
    ``convert_layout(W, source, target)``.

    With two named conventions, it converts only where the two differ in layout
    alone. If they put different numbers in their columns at this width (other
    frequencies, a zero column, another first position or padding row), no
    reordering turns one into the other, and this raises instead of returning
    something plausible and wrong.

    Parameters
    ----------
    values : array_like
        Encodings (or anything laid out like them, such as a weight) with at
        least one axis.
    source, target : {"interleaved", "concatenated"}, or str or Convention
        The layouts to convert from and to, or two conventions (names in
        `pe.conventions`, or `Convention` objects).
    axis : int, default -1
        The axis that holds the ``d_model`` columns; ``-values.ndim`` to
        ``values.ndim - 1``.

    Returns
    -------
    numpy.ndarray
        A new array of the same shape and dtype with that axis reordered.

    Raises
    ------
    TypeError, ValueError
        For a scalar `values`, an `axis` that is not an integer in range, an
        unknown layout or convention, a layout given with a convention, or two
        conventions that differ in more than the layout (the message says what
        differs).

    Examples
    --------
    >>> import numpy as np
    >>> import pe
    >>> table = pe.sinusoidal(3, d_model=4)
    >>> flipped = pe.convert_layout(table, "interleaved", "concatenated")
    >>> bool(np.array_equal(flipped[:, :2], table[:, 0::2]))
    True
    >>> bool(np.array_equal(pe.convert_layout(flipped, "concatenated", "interleaved"), table))
    True

    A weight that reads encodings, permuted along its input axis:

    >>> W = np.random.default_rng(0).normal(size=(3, 8))
    >>> x = pe.sinusoidal(5, d_model=8, dtype=np.float64)
    >>> W_cat = pe.convert_layout(W, "interleaved", "concatenated")
    >>> x_cat = pe.convert_layout(x, "interleaved", "concatenated")
    >>> bool(np.allclose(x @ W.T, x_cat @ W_cat.T))
    True

    Two conventions:

    >>> distilbert = pe.conventions["distilbert"].table(4, d_model=6)
    >>> marian = pe.convert_layout(distilbert, "distilbert", "marian")
    >>> bool((marian == pe.conventions["marian"].table(4, d_model=6)).all())
    True
    >>> pe.convert_layout(distilbert, "distilbert", "fairseq")
    Traceback (most recent call last):
    ...
    ValueError: cannot convert distilbert to fairseq by reordering columns: ...
    """
    array = np.asarray(values)
    if array.ndim == 0:
        raise ValueError("values must have at least one axis to reorder; got a scalar")
    if not is_integer(axis):
        raise TypeError(f"axis must be an integer; got {axis!r}")
    if not -array.ndim <= int(axis) < array.ndim:
        raise ValueError(
            f"axis must be in [{-array.ndim}, {array.ndim - 1}] for values with "
            f"{array.ndim} dimension(s); got {axis!r}"
        )
    layouts = [side in _LAYOUTS for side in (source, target)]
    if all(layouts):
        perm = layout_permutation(array.shape[int(axis)], source, target)  # type: ignore[arg-type]
    elif any(layouts):
        name, value, other = (
            ("target", target, "source") if layouts[0] else ("source", source, "target")
        )
        raise ValueError(
            f"{name} must be 'interleaved' or 'concatenated' like {other}, or both must be "
            f"conventions (names in pe.conventions); got {value!r}"
        )
    else:
        if array.shape[int(axis)] == 0:
            raise ValueError(
                "values must be an array of encodings whose width axis has at least one "
                f"column; got shape {array.shape}"
            )
        perm = _convention_permutation(array.shape[int(axis)], lookup(source), lookup(target))
    return np.take(array, perm, axis=axis)


def _convention_permutation(width: int, first: Convention, second: Convention) -> NDArray[Any]:
    """Column indices that turn `first`'s table of this width into `second`'s, or raise."""
    problems = []
    if first.first_position != second.first_position:
        problems.append(f"first position {first.first_position} vs {second.first_position}")
    if first.padding_idx != second.padding_idx:
        problems.append(f"padding row {first.padding_idx} vs {second.padding_idx}")
    try:
        source_columns, target_columns = first.columns(width), second.columns(width)
    except ValueError as error:
        problems.append(str(error))
    else:
        # Sort each side's columns by (function, frequency): equal lists mean a
        # permutation exists, and the two sort orders give it.
        source_order = sorted(range(width), key=lambda j: source_columns[j])
        target_order = sorted(range(len(target_columns)), key=lambda j: target_columns[j])
        mine = [source_columns[j] for j in source_order]
        theirs = [target_columns[j] for j in target_order]
        same = len(mine) == len(theirs) and all(
            a[0] == b[0] and np.isclose(a[1], b[1], rtol=1e-12, atol=0)
            for a, b in zip(mine, theirs, strict=True)
        )
        if not same:
            problems.append(
                f"frequencies ({first.exponent} vs {second.exponent}) or columns at d_model={width}"
            )
    if problems:
        raise ValueError(
            f"cannot convert {first.name} to {second.name} by reordering columns: they differ "
            f"in {'; '.join(problems)}. Only the layout (interleaved vs concatenated) is a "
            "permutation; the other differences change the numbers themselves"
        )
    permutation = np.empty(width, dtype=np.int64)
    permutation[target_order] = source_order  # target column j reads source column perm[j]
    return permutation
