"""How numpy's API on tensors maps to ``ir`` primitives: reductions (sum, prod, max, min,
mean, var, std, argmax, argmin).
"""

import numpy as np

from ir.primitives import reductions
from tracer.arguments import array_rank, array_shape, no_extras, normalize_axis, one_axis
from tracer.core import apply


def _reduction(prim, name):
    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        no_extras(name, dtype=dtype, out=out, initial=initial, where=where)
        axes = normalize_axis(axis, array_rank(a))
        return apply(prim, (a,), {"axis": axes, "keepdims": bool(keepdims)})
    return reduce


def _extremum(prim, name):
    """np.max and np.min take no ``dtype``: their third positional argument is ``out``."""
    reduce = _reduction(prim, name)

    def extremum(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        return reduce(a, axis, out=out, keepdims=keepdims, initial=initial, where=where)
    return extremum


def _mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    no_extras("mean", dtype=dtype, out=out, where=where)
    return apply(reductions.mean, (a,), {"axis": normalize_axis(axis, array_rank(a)),
                                         "keepdims": bool(keepdims)})


def _position(prim):
    def position(a, axis=None, out=None, *, keepdims=False):
        no_extras(prim.name, out=out)
        axis = None if axis is None else one_axis(axis, array_rank(a))
        return apply(prim, (a,), {"axis": axis, "keepdims": bool(keepdims)})
    return position


def _var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
         correction=None):
    no_extras("var", dtype=dtype, out=out, where=where, mean=mean)
    if correction is not None:
        ddof = correction
    axes = normalize_axis(axis, array_rank(a))
    centered = a - _mean(a, axis=axes, keepdims=True)
    # As numpy: complex values vary by mean(|x - mean(x)|**2), a real number.
    squares = (np.real(centered * np.conj(centered)) if np.iscomplexobj(a)
               else centered * centered)
    count = reductions.reduced_size(array_shape(a), axes)
    total = apply(reductions.sum_, (squares,), {"axis": axes, "keepdims": bool(keepdims)})
    return total / max(count - ddof, 0)


def _std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
         correction=None):
    return np.sqrt(_var(a, axis, dtype, out, ddof, keepdims, where, mean, correction))


FUNCTIONS = {
    np.sum: _reduction(reductions.sum_, "sum"),
    np.prod: _reduction(reductions.prod, "prod"),
    np.max: _extremum(reductions.max_, "max"),
    np.amax: _extremum(reductions.max_, "amax"),
    np.min: _extremum(reductions.min_, "min"),
    np.amin: _extremum(reductions.min_, "amin"),
    np.argmax: _position(reductions.argmax), np.argmin: _position(reductions.argmin),
    np.mean: _mean, np.var: _var, np.std: _std,
}
