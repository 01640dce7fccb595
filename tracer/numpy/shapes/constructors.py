"""How numpy's API on tensors maps to ``ir`` primitives: constructors that take traced
values (full, linspace) or symbolic sizes, and cleaning (nan_to_num, real_if_close).

numpy dispatches a constructor to a tensor only when it is passed as ``like=``:
``np.ones((x.shape[0], 4), like=x)``, ``np.full``, ``np.eye`` and
``np.arange(x.shape[0], like=x)`` keep a symbolic size symbolic, where
``np.ones((n, 4))`` must turn it into an int.  (``np.zeros`` and ``np.empty`` read
their shape before they dispatch: ``np.full(shape, 0.0, like=x)`` is the zeros.)
"""

import numpy as np

from ir.bindings import array_rank, array_shape
from ir.primitives import sizes
from ir.sizes.traced import TracedSize
from tracer.numpy.arguments import plain
from tracer.core import apply, is_traced, tracks_any, value_of, wrap


def _as_shape(shape):
    """A shape argument as a tuple, without asking numpy (which would make a size an int)."""
    return tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)


def _sized(values):
    return any(isinstance(v, TracedSize) for v in values)


def _filled(fill):
    """np.ones (and np.full of a plain fill) with ``like=``: the fill broadcast to
    ``shape``, which follows the sizes it holds."""
    def make(shape, dtype=None, order="C", *, device=None, like=None):
        shape, dtype = _as_shape(shape), np.dtype(float if dtype is None else dtype)
        if not _sized(shape):
            return wrap(np.full(shape, fill, dtype))
        return np.broadcast_to(wrap(np.asarray(fill, dtype)), shape)
    return make


def _arange(*bounds, dtype=None, device=None, like=None, **named):
    """np.arange with ``like=``: integer bounds that may be sizes, and a positive int step."""
    if not _sized(bounds + tuple(named.values())):
        return wrap(np.arange(*bounds, dtype=dtype, **named))
    start, stop, step = _range_bounds(bounds, named)
    if not (all(isinstance(b, (int, np.integer, TracedSize)) for b in (start, stop))
            and isinstance(step, (int, np.integer)) and step > 0):
        return wrap(np.arange(start, stop, step, dtype=dtype))  # (numpy makes sizes ints)
    dtype = np.dtype(int if dtype is None else dtype)
    params = {"start": start, "stop": stop, "step": int(step), "dtype": dtype}
    return apply(sizes.arange, (), {k: int(v) if isinstance(v, np.integer) else v
                                    for k, v in params.items()})


def _range_bounds(bounds, named):
    """numpy's ``arange([start,] stop[, step])``, given by position or by name."""
    given = dict(zip(("start", "stop", "step") if len(bounds) > 1 else ("stop",), bounds))
    given.update(named)
    if "stop" not in given:
        given["start"], given["stop"] = 0, given.pop("start")
    return given.get("start", 0), given["stop"], given.get("step", 1)


def _eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    """np.eye with ``like=``: rows and columns compared, for sizes that may be symbolic."""
    if not _sized((N, M, k)):
        return wrap(np.eye(N, M, k, dtype=dtype))
    rows = _arange(N) + k
    columns = _arange(N if M is None else M)
    return np.astype(np.expand_dims(rows, 1) == np.expand_dims(columns, 0), dtype)


def _identity(n, dtype=None, *, like=None):
    return _eye(n, dtype=float if dtype is None else dtype)


def _full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """np.full(shape, t, like=t): a traced fill value broadcast to ``shape``.

    numpy dispatches np.full on ``like`` alone: without it, np.full converts a
    tensor fill value to an array (a warned escape), or with ``dtype=`` hands it
    to np.copyto, which raises with this advice.
    """
    shape = _as_shape(shape)
    dtype = np.dtype(dtype) if dtype is not None else np.asarray(value_of(fill_value)).dtype
    if not is_traced(fill_value):
        return _filled(fill_value)(shape, dtype)
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
    np.ones: _filled(1), np.arange: _arange, np.eye: _eye, np.identity: _identity,
    np.full: _full, np.copyto: _copyto, np.linspace: _linspace, np.nan_to_num: _nan_to_num,
    np.real_if_close: _real_if_close,
}
REFUSED = frozenset({np.copyto})
"""Mapped only to refuse, with an error that says what to write instead."""
