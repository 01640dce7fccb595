"""The n-dimensional convolution that numpy's ``convolve`` and ``correlate`` and
``tracer.scipy.signal``'s functions are written with.

Written with numpy's shape functions and one contraction, so that its derivatives of
every order, forward mode, batching and generated code all come from their rules.
Along each convolved axis one input is laid out as all its shifts: padded with zeros,
repeated ``m`` times end to end and read back in rows one place shorter.  Slices and
reshapes do it, not an index array (which the array API target refuses), and symbolic
sizes stay symbolic; the other input is then contracted with the shifts, at the cost
of a direct convolution.  It needs numpy only (scipy stays optional).
"""

import string

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ir.sizes.traced import TracedSize


def convolve(in1, in2, mode, axes=None, dot_axes=((), ()), batch_axes=((), ())):
    """The convolution of ``in1`` and ``in2`` in ``mode`` (``full``, ``valid`` or
    ``same``, as scipy's), differentiable in both.

    ``axes=(in1_axes, in2_axes)`` pairs the axes convolved (``None``: every axis not
    otherwise named, in order), ``dot_axes`` the axes contracted and ``batch_axes`` the
    axes taken element by element (of equal lengths); each other axis is kept as in an
    outer product.  The result's axes are the batch ones, ``in1``'s kept ones, ``in2``'s,
    then the convolved ones.  ``same`` keeps ``in1``'s length along each convolved axis;
    ``valid`` needs one input at least as large as the other along all of them.
    """
    in1, in2 = _operand(in1), _operand(in2)
    conv, dots, batch = _axis_pairs(in1.ndim, in2.ndim, axes, dot_axes, batch_axes)
    _check_sizes(in1.shape, in2.shape, conv, dots + batch)
    if in1.ndim == in2.ndim == 0:
        return in1 * in2
    larger = _valid_larger(in1.shape, in2.shape, conv) if mode == "valid" else None
    labels = [[("in1", i) for i in range(in1.ndim)], [("in2", j) for j in range(in2.ndim)]]
    operands = [in1, in2]
    for p, (i, j) in enumerate(conv):
        sizes = in1.shape[i], in2.shape[j]
        side = _shifted_side(mode, *sizes, larger)
        axis = labels[side].index(("in1", i) if side == 0 else ("in2", j))
        window = None if mode == "full" else _window(mode, *sizes, side)
        operands[side] = _shifts(operands[side], axis, sizes[1 - side], window)
        labels[side].insert(axis + 1, ("out", p))
    used1, used2 = ({pair[k] for pair in conv + dots + batch} for k in (0, 1))
    kept = ([("in1", i) for i, _ in batch] + [("in1", i) for i in range(in1.ndim) if i not in used1]
            + [("in2", j) for j in range(in2.ndim) if j not in used2])
    order = kept + [("out", p) for p in range(len(conv))]
    if batch:
        return _contract_batched(operands, labels, conv + dots, batch, order)
    return _contract(operands, labels, conv + dots, order)


def _operand(x):
    """``x`` as an array or tensor (a tensor as it is, so its gradient is kept)."""
    return x if hasattr(x, "shape") and hasattr(x, "ndim") else np.asarray(x)


def _axis_pairs(ndim1, ndim2, axes, dot_axes, batch_axes):
    """``(convolved, contracted, batch)`` pairs of ``(in1 axis, in2 axis)``, non-negative."""
    dots = _pairs("dot_axes", dot_axes, ndim1, ndim2)
    batch = _pairs("batch_axes", batch_axes, ndim1, ndim2)
    if axes is None:
        rest1 = [i for i in range(ndim1) if i not in {a for a, _ in dots + batch}]
        rest2 = [j for j in range(ndim2) if j not in {b for _, b in dots + batch}]
        if len(rest1) != len(rest2):
            raise ValueError(f"convolve: in1 and in2 should have the same dimensionality "
                             f"(got {len(rest1)} and {len(rest2)} axes to convolve); to "
                             "convolve some axes only, pass axes=(in1_axes, in2_axes)")
        conv = list(zip(rest1, rest2))
    else:
        conv = _pairs("axes", axes, ndim1, ndim2)
    for k, name in enumerate(("in1", "in2")):
        used = [pair[k] for pair in conv + dots + batch]
        if len(set(used)) != len(used):
            raise ValueError(f"convolve: an axis of {name} is named twice in axes, dot_axes "
                             f"and batch_axes ({sorted(used)}); name each axis at most once")
    return conv, dots, batch


def _pairs(name, given, ndim1, ndim2):
    """``given = (in1_axes, in2_axes)`` as a list of non-negative ``(i, j)`` pairs."""
    try:
        first, second = ([int(a) for a in axes] for axes in given)
    except (TypeError, ValueError):
        raise ValueError(f"convolve: {name} must be a pair (in1_axes, in2_axes) of axis "
                         f"lists, got {given!r}") from None
    if len(first) != len(second):
        raise ValueError(f"convolve: {name} pairs in1's axes {first} with in2's {second}: "
                         "give both the same number of axes")
    return [(normalize_axis_index(i, ndim1, "in1"), normalize_axis_index(j, ndim2, "in2"))
            for i, j in zip(first, second)]


def _check_sizes(shape1, shape2, conv, paired):
    for i, j in paired:
        if shape1[i] != shape2[j]:
            raise ValueError(f"convolve: in1's axis {i} (length {shape1[i]}) is paired with "
                             f"in2's axis {j} (length {shape2[j]}) in dot_axes or batch_axes; "
                             "paired axes must have the same length")
    for i, j in conv:
        if shape1[i] == 0 or shape2[j] == 0:
            raise ValueError(f"convolve: in1's axis {i} has length {shape1[i]} and in2's "
                             f"axis {j} length {shape2[j]}; a convolved axis cannot be empty")


def _valid_larger(shape1, shape2, conv):
    """0 or 1: the input at least as large as the other along every convolved axis."""
    if all(shape1[i] >= shape2[j] for i, j in conv):
        return 0
    if all(shape2[j] >= shape1[i] for i, j in conv):
        return 1
    raise ValueError("convolve: for 'valid' mode, one must be at least as large as the "
                     f"other in every dimension (in1 {tuple(shape1)}, in2 {tuple(shape2)})")


def _shifted_side(mode, size1, size2, larger):
    """Which input (0 or 1) is laid out as shifts along one convolved axis: the longer,
    so that the contraction runs over the shorter.  Symbolic sizes are not compared
    (the answer would be a guard): ``in1`` is taken then."""
    if mode == "valid":
        return larger
    return int(not _symbolic(size1) and not _symbolic(size2) and size2 > size1)


def _window(mode, size1, size2, side):
    """``(start, length)``: the positions of the full convolution ``mode`` keeps."""
    if mode == "same":
        return (size2 - 1) // 2, size1
    shorter = (size2, size1)[side]
    return shorter - 1, (size1, size2)[side] - shorter + 1


def _shifts(x, axis, m, window):
    """``x`` with ``axis`` (length ``n``) made two, ``(m, length)``: ``[k, i]`` holds the
    element ``start + i - k`` (zero outside ``x``), as a convolution with an input of
    length ``m`` reads it at the output positions of ``window = (start, length)``, or
    all ``n + m - 1`` of them for ``None``."""
    if window is None:
        return _laid_out(x, axis, m, before=0, after=m, offset=0, length=None)
    start, length = window
    return _laid_out(x, axis, m, before=m - 1 - start, after=start + length - x.shape[axis] + 1,
                     offset=m - 1, length=length)


def _laid_out(x, axis, m, before, after, offset, length):
    """``x`` padded by zeros along ``axis`` (to length ``P``), then ``m`` copies of it
    end to end read back in rows of ``P - 1`` from ``offset``: row ``k`` is the copy
    moved ``k`` places on, ``[k, i] = padded[(offset + i - k) % P]``.  ``length`` keeps
    the first positions of each row (``None``: all ``P - 1``)."""
    x = _padded(x, axis, before, after)
    shape = tuple(x.shape)
    size = shape[axis]
    head, tail = shape[:axis], shape[axis + 1:]
    # (added to zeros, not np.broadcast_to, which would guard on whether a symbolic m is 1)
    zeros = np.full(head + (m, size) + tail, 0, dtype=x.dtype, like=x)
    copies = np.expand_dims(x, axis) + zeros
    flat = np.reshape(copies, head + (m * size,) + tail)
    rows = np.reshape(_slice(flat, axis, offset, offset + m * (size - 1)),
                      head + (m, size - 1) + tail)
    return rows if length is None else _slice(rows, axis + 1, 0, length)


def _padded(x, axis, before, after):
    """``x`` with ``before`` and ``after`` zeros along ``axis``; a negative width cuts as
    many elements off instead.  A symbolic width is taken as positive (it is, where
    ``_shifted_side`` lets a size be symbolic)."""
    def zeros(width):
        shape = tuple(x.shape[:axis]) + (width,) + tuple(x.shape[axis + 1:])
        return np.full(shape, 0, dtype=x.dtype, like=x)
    cuts = [0 if _symbolic(width) else max(-width, 0) for width in (before, after)]
    if any(cuts):
        x = _slice(x, axis, cuts[0], x.shape[axis] - cuts[1])
    parts = [x]
    if _symbolic(before) or before > 0:
        parts.insert(0, zeros(before))
    if _symbolic(after) or after > 0:
        parts.append(zeros(after))
    return np.concatenate(parts, axis=axis) if len(parts) > 1 else x


def _symbolic(size):
    return isinstance(size, TracedSize)


def _slice(x, axis, start, stop):
    return x[(slice(None),) * axis + (slice(start, stop),)]


def _contract(operands, labels, pairs, order):
    """The two operands contracted over ``pairs`` of ``(in1 axis, in2 axis)`` labels,
    with the remaining axes put in ``order``."""
    first = [labels[0].index(("in1", i)) for i, _ in pairs]
    second = [labels[1].index(("in2", j)) for _, j in pairs]
    out = np.tensordot(operands[0], operands[1], axes=(first, second))
    remaining = ([a for k, a in enumerate(labels[0]) if k not in first]
                 + [b for k, b in enumerate(labels[1]) if k not in second])
    permutation = [remaining.index(label) for label in order]
    if permutation == sorted(permutation):
        return out
    return np.transpose(out, permutation)


def _contract_batched(operands, labels, pairs, batch, order):
    """As ``_contract``, with the ``batch`` pairs of axes taken element by element: one
    ``np.einsum``, a letter per label (a batch pair's two labels share one)."""
    letters, unused = {}, iter(string.ascii_letters)
    for i, j in batch + pairs:
        letters[("in1", i)] = letters[("in2", j)] = next(unused)
    for label in labels[0] + labels[1]:
        if label not in letters:
            letters[label] = next(unused)
    spec = (",".join("".join(letters[label] for label in side) for side in labels)
            + "->" + "".join(letters[label] for label in order))
    return np.einsum(spec, *operands)
