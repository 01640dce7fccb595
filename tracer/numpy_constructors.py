"""How numpy's API on tensors maps to ``ir`` primitives: constructors that take traced
values (full, linspace) and cleaning (nan_to_num, real_if_close).
"""

import numpy as np

from ir.bindings import array_rank, array_shape
from tracer.arguments import plain
from tracer.core import is_traced, tracks_any, value_of, wrap


def _full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """np.full(shape, t, like=t): a traced fill value broadcast to ``shape``.

    numpy dispatches np.full on ``like`` alone: without it, np.full converts a
    tensor fill value to an array (a warned escape), or with ``dtype=`` hands it
    to np.copyto, which raises with this advice.
    """
    shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    dtype = np.dtype(dtype) if dtype is not None else np.asarray(value_of(fill_value)).dtype
    if not is_traced(fill_value):
        return wrap(np.full(shape, fill_value, dtype=dtype))
    return np.broadcast_to(np.astype(fill_value, dtype), shape)


def _copyto(dst, src, casting="same_kind", where=True):
    if hasattr(dst, "assign"):
        raise TypeError(
            "np.copyto writes into its first argument, and a tracer.Variable changes only "
            "through its assign methods (a write into its value would bypass the versions "
            "tapes read): use v.assign(np.broadcast_to(src, v.shape)) or "
            "v.assign(np.where(mask, src, v))")
    if is_traced(dst) or tracks_any((src, where)):
        raise TypeError(
            "np.copyto writes into its first argument: a tensor is immutable, and a numpy array "
            "cannot carry a tensor's gradient (np.full with a traced fill value and a dtype "
            "calls it); use np.broadcast_to(t, shape), np.full(shape, t, like=t) or "
            "np.where(mask, t, dst) instead")
    np.copyto(value_of(dst), plain(src), casting=casting, where=plain(where))


def _linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
              device=None):
    num = int(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    # numpy computes in the type of ``start * 1.0``, ``stop * 1.0`` and ``float(num)``.
    computed = np.result_type(np.asarray(value_of(start)) * 1.0, np.asarray(value_of(stop)) * 1.0,
                              float(num))
    start, stop = (np.astype(v, computed) if is_traced(v) else np.asarray(v, computed)
                   for v in (start, stop))
    delta = stop - start
    ramp = np.arange(num, dtype=computed).reshape((-1,) + (1,) * array_rank(delta))
    div = num - 1 if endpoint else num
    step = delta / div if div > 0 else np.nan
    if div > 0 and endpoint:
        # numpy writes ``stop`` itself into the last sample.
        last = np.broadcast_to(stop, array_shape(delta))
        samples = np.concatenate([ramp[:-1] * step + start, np.expand_dims(last, 0)])
    else:
        samples = ramp * (step if div > 0 else delta) + start
    samples = np.moveaxis(samples, 0, axis)
    if dtype is not None and np.dtype(dtype).kind in "iu":
        samples = np.floor(samples)
    if dtype is not None:
        samples = np.astype(samples, dtype)
    return (samples, step) if retstep else samples


def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    kind = np.asarray(value_of(x)).dtype
    if kind.kind == "c":
        raise TypeError("np.nan_to_num on complex tracer tensors is not supported; "
                        "apply it to np.real(t) and np.imag(t) separately")
    if kind.kind != "f":
        return x
    limits = np.finfo(kind)
    posinf = float(limits.max) if posinf is None else posinf
    neginf = float(limits.min) if neginf is None else neginf
    # The gradient passes where x is finite; the replaced elements are constants.
    cleaned = np.where(np.isnan(x), nan, x)
    cleaned = np.where(x == np.inf, posinf, cleaned)
    return np.where(x == -np.inf, neginf, cleaned)


def _real_if_close(a, tol=100):
    """On real input np.real_if_close is the identity."""
    if not np.iscomplexobj(value_of(a)):
        return a
    if tracks_any((a,)):
        raise TypeError("np.real_if_close on a complex tensor a tape records is not supported: "
                        "its result type depends on the values; use np.real(t) where the "
                        "imaginary part is known to vanish")
    return wrap(np.asarray(np.real_if_close(value_of(a), tol)))


FUNCTIONS = {
    np.full: _full, np.copyto: _copyto, np.linspace: _linspace, np.nan_to_num: _nan_to_num,
    np.real_if_close: _real_if_close,
}
REFUSED = frozenset({np.copyto})
"""Mapped only to refuse, with an error that says what to write instead."""
