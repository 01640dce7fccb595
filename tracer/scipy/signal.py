"""``tracer.scipy.signal``: ``convolve`` (as scipy's and as autograd's extended form),
``correlate``, ``convolve2d``, ``correlate2d`` and ``fftconvolve``.

Every one is ``tracer.numpy.convolution.convolve``, written with numpy's shape functions and
one contraction, so that derivatives of every order, forward mode, batching and
generated code all come from their rules.  A correlation is the convolution with the
kernel flipped and conjugated, aligned as scipy aligns each function's output (which
``correlate`` and ``correlate2d`` do differently in ``same`` mode).  Values match
scipy's up to rounding: the sums are taken in another order.
"""

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from tracer.numpy import convolution

MODES = ("full", "valid", "same")
METHODS = ("auto", "direct", "fft")
BOUNDARIES = ("fill", "circular", "wrap", "symmetric", "symm")


def convolve(in1, in2, mode="full", method="auto", *, axes=None, dot_axes=((), ())):
    """The convolution of ``in1`` and ``in2``, differentiable in both.

    Without ``axes`` and ``dot_axes`` it is ``scipy.signal.convolve``: every axis
    convolved, the result ``full`` (``in1.shape + in2.shape - 1``), ``valid`` (where one
    input covers the other, which must be at least as large on every axis) or ``same``
    (``in1``'s size, centred on ``full``).  ``method`` is checked as scipy checks it;
    every method gives the direct sum (where an input is not finite, its padding's
    products are NaN, as with scipy's ``fft`` method).

    As autograd's ``convolve``, ``axes=(in1_axes, in2_axes)`` convolves those axes
    pairwise and ``dot_axes=(in1_axes, in2_axes)`` contracts those; each other axis is
    kept as in an outer product.  The result's axes are ``in1``'s kept ones, then
    ``in2``'s, then the convolved ones.  ``axes=None`` convolves every axis not in
    ``dot_axes``; ``same`` keeps ``in1``'s length along each convolved axis.
    """
    _check_choice("convolve", "mode", mode, MODES)
    _check_choice("convolve", "method", method, METHODS)
    return convolution.convolve(in1, in2, mode, axes, dot_axes)


def correlate(in1, in2, mode="full", method="auto"):
    """``scipy.signal.correlate``: ``in1`` correlated with ``in2`` along every axis,
    ``z[k] = sum_l in1[l + k] * conj(in2[l])`` laid out as ``convolve`` lays out the
    convolution with ``in2`` flipped and conjugated (scipy's own identity)."""
    _check_choice("correlate", "mode", mode, MODES)
    _check_choice("correlate", "method", method, METHODS)
    in1, in2 = _operand(in1), _operand(in2)
    return convolution.convolve(in1, _flipped_conjugate(in2), mode)


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """``scipy.signal.convolve2d`` of two 2-D inputs, ``in1`` padded with ``fillvalue``
    (``boundary="fill"``, the only boundary differentiated here)."""
    in1, in2 = _two_dimensional("convolve2d", in1, in2, mode, boundary, fillvalue)
    if mode == "valid" or _is_zero(fillvalue):
        return convolution.convolve(in1, in2, mode)
    # Padding with c is padding (in1 - c) with zeros, plus c times in2's sum.
    return convolution.convolve(in1 - fillvalue, in2, mode) + fillvalue * np.sum(in2)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """``scipy.signal.correlate2d`` of two 2-D inputs, ``in1`` padded with ``fillvalue``.

    It aligns as scipy does: ``same`` keeps the window one place later than
    ``correlate``'s along an axis where ``in2``'s length is even, and ``valid`` with
    ``in2`` the larger gives the conjugate of ``correlate``'s value (scipy swaps the
    inputs there without conjugating back)."""
    in1, in2 = _two_dimensional("correlate2d", in1, in2, mode, boundary, fillvalue)
    if mode == "valid":
        if all(a >= b for a, b in zip(in1.shape, in2.shape)):
            return convolution.convolve(in1, _flipped_conjugate(in2), mode)
        return convolution.convolve(_conjugate(in1), np.flip(in2), mode)
    filled = not _is_zero(fillvalue)
    shifted = in1 - fillvalue if filled else in1
    if mode == "full":
        out = convolution.convolve(shifted, _flipped_conjugate(in2), mode)
    else:
        out = np.flip(convolution.convolve(np.flip(shifted), _conjugate(in2), mode))
    return out + fillvalue * np.sum(_conjugate(in2)) if filled else out


def fftconvolve(in1, in2, mode="full", axes=None):
    """``scipy.signal.fftconvolve``: the values of ``convolve`` (up to rounding), over
    ``axes`` (every axis for ``None``); the other axes are broadcast against each other,
    element by element.  Empty inputs give scipy's empty float64 array."""
    _check_choice("fftconvolve", "mode", mode, MODES)
    in1, in2 = _operand(in1), _operand(in2)
    if in1.ndim == in2.ndim == 0:
        return in1 * in2
    if in1.ndim != in2.ndim:
        raise ValueError(f"fftconvolve: in1 and in2 should have the same dimensionality "
                         f"(got {in1.ndim} and {in2.ndim} axes)")
    if in1.size == 0 or in2.size == 0:
        return np.astype(np.real(np.ravel(in1 if in1.size == 0 else in2)), np.float64)
    conv, others = _fft_axes(in1.shape, in2.shape, axes)
    sizes = [in1.shape[a] if in1.shape[a] == in2.shape[a] or in2.shape[a] == 1
             else in2.shape[a] for a in others]
    in1, in2 = (_broadcast_along(x, others, sizes) for x in (in1, in2))
    if not others:
        return convolution.convolve(in1, in2, mode)
    out = convolution.convolve(in1, in2, mode, axes=(conv, conv), batch_axes=(others, others))
    order = others + conv
    return out if order == sorted(order) else np.transpose(out, [order.index(a) for a in
                                                                 range(len(order))])


def _fft_axes(shape1, shape2, axes):
    """``(convolved, others)``: the axes convolved and the rest, each sorted."""
    ndim = len(shape1)
    conv = sorted(set(range(ndim) if axes is None else normalize_axis_tuple(axes, ndim)))
    others = [a for a in range(ndim) if a not in conv]
    for a in others:
        if shape1[a] != shape2[a] and 1 not in (shape1[a], shape2[a]):
            raise ValueError(f"fftconvolve: incompatible shapes for in1 and in2: {shape1} "
                             f"and {shape2} differ along axis {a}, which is not convolved "
                             "(convolve it through axes=, or give one input length 1 there)")
    return conv, others


def _broadcast_along(x, axes, sizes):
    """``x`` broadcast to ``sizes`` along ``axes``, its other axes as they are."""
    target = list(x.shape)
    for a, size in zip(axes, sizes):
        target[a] = size
    return x if tuple(target) == tuple(x.shape) else np.broadcast_to(x, tuple(target))


def _two_dimensional(name, in1, in2, mode, boundary, fillvalue):
    """The inputs, checked as scipy's 2-D functions check them."""
    _check_choice(name, "mode", mode, MODES)
    _check_choice(name, "boundary", boundary, BOUNDARIES)
    if boundary != "fill":
        raise NotImplementedError(
            f"{name}: boundary={boundary!r} is not differentiated by tapegen; use "
            "boundary='fill' (with fillvalue=), or extend in1 yourself with slices and "
            "np.concatenate and take mode='valid'")
    in1, in2 = _operand(in1), _operand(in2)
    if in1.ndim != 2 or in2.ndim != 2:
        raise ValueError(f"{name} inputs must both be 2-D arrays (got {in1.ndim} and "
                         f"{in2.ndim} axes)")
    if np.iscomplexobj(fillvalue) and not (np.iscomplexobj(in1) or np.iscomplexobj(in2)):
        raise ValueError(f"{name}: fillvalue {fillvalue!r} is complex and the inputs are real, "
                         "as scipy refuses them (it cannot cast the fill value to the output "
                         "type); give a real fillvalue")
    return in1, in2


def _is_zero(fillvalue):
    """Whether the fill value is a plain zero (a traced one keeps its gradient)."""
    if hasattr(fillvalue, "shape") and not isinstance(fillvalue, np.ndarray):
        return False
    values = np.asarray(fillvalue)
    if values.size != 1:
        raise ValueError("fillvalue must be scalar or an array with one element, got shape "
                         f"{values.shape}")
    return values.item() == 0


def _flipped_conjugate(x):
    return np.flip(_conjugate(x))


def _conjugate(x):
    """``x`` conjugated (real values as they are, with no node recorded)."""
    return np.conj(x) if np.iscomplexobj(x) else x


def _check_choice(function, name, value, choices):
    if not isinstance(value, str) or value not in choices:
        hint = ("; autograd's third argument is axes: pass axes= and dot_axes= by keyword"
                if function == "convolve" and name == "mode" and not isinstance(value, str)
                else "")
        raise ValueError(f"{function}: {name} must be one of {', '.join(map(repr, choices))}, "
                         f"not {value!r}{hint}")


def _operand(x):
    """``x`` as an array or tensor (a tensor as it is, so its gradient is kept)."""
    return x if hasattr(x, "shape") and hasattr(x, "ndim") else np.asarray(x)
