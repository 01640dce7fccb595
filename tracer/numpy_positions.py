"""How numpy's API on tensors maps to ``ir`` primitives: functions that return integer
positions (argsort, argpartition, nonzero, flatnonzero, searchsorted).

They carry no gradient, but are recorded, so that code generated from a
graph computes the positions again instead of keeping those seen while tracing.
"""

import numpy as np

from ir.primitives import reductions
from ir.bindings import along_axis, array_rank, no_extras
from tracer.core import NO_PARAMS, apply


def _argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    no_extras("argsort", order=order)
    a, axis = along_axis(a, axis)
    return apply(reductions.argsort, (a,), {"axis": axis})


def _argpartition(a, kth, axis=-1, kind="introselect", order=None):
    no_extras("argpartition", order=order)
    kth = kth if isinstance(kth, (int, np.integer)) else tuple(int(k) for k in kth)
    a, axis = along_axis(a, axis)
    return apply(reductions.argpartition, (a,), {"kth": kth, "axis": axis})


def _nonzero(a):
    """One recorded array of positions per axis, so code generated from the graph
    recomputes them (they are never differentiated)."""
    return tuple(apply(reductions.nonzero, (a,), {"axis": k}) for k in range(array_rank(a)))


def _flatnonzero(a):
    return apply(reductions.flatnonzero, (a,), NO_PARAMS)


def _searchsorted(a, v, side="left", sorter=None):
    no_extras("searchsorted", sorter=sorter)
    return apply(reductions.searchsorted, (a, v), {"side": side})


FUNCTIONS = {
    np.argsort: _argsort, np.argpartition: _argpartition, np.nonzero: _nonzero,
    np.flatnonzero: _flatnonzero, np.searchsorted: _searchsorted,
}
