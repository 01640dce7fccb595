"""Pieces that several of the ``tracer.numpy`` modules build numpy functions from (splitting,
adding unit axes), and the merge of their tables.  Indexing along one axis
(``indexed``, ``key_along``) is ``ir.primitives.shape``'s, beside ``getitem``.

One way of composing holds across modules: a module's handlers may call each
other directly, but a composite that needs a function another module maps
calls numpy's public function on tensors (``np.reshape``, ``np.ravel``), which
numpy dispatches to that mapping.  The call then takes the same path, checks
and shortcuts as the user's own, plain operands stay plain as numpy keeps
them, and no module depends on another's private names.  The extra dispatch
costs only composites, never the recording of an operator or a ufunc.
"""

import itertools

import numpy as np

from ir.bindings import array_rank, array_shape, one_axis
from ir.primitives.shape import getitem, key_along
from tracer.core import apply
from tracer.sizes.declared import Dim


def split(ary, indices_or_sections, axis, equal):
    """np.split (``equal``: the sections must divide the axis) and np.array_split: the
    pieces between consecutive bounds, as plain slices, as numpy's own split takes them,
    so negative and out-of-range indices mean what they mean there.

    numpy dispatches them on tensor indices too: ``apply`` makes the pieces of a plain
    ``ary`` tensors then, where calling ``getitem`` would give arrays."""
    axis = one_axis(axis, array_rank(ary))
    length = array_shape(ary)[axis]
    if not isinstance(indices_or_sections, (list, tuple)) and np.ndim(indices_or_sections) == 0:
        bounds = _section_bounds(length, int(indices_or_sections), equal)
    else:
        bounds = [0] + [i if isinstance(i, Dim) else int(i) for i in indices_or_sections] + [length]
    return [apply(getitem, (ary,), {"key": key_along(axis, slice(start, stop))})
            for start, stop in zip(bounds[:-1], bounds[1:])]


def _section_bounds(length, sections, equal):
    """Bounds of ``sections`` pieces, the first ``length % sections`` one longer."""
    if equal and (sections <= 0 or length % sections):
        raise ValueError("array split does not result in an equal division")
    if sections <= 0:
        raise ValueError("number sections must be larger than 0.")
    each, extras = divmod(length, sections)
    if equal:  # (a symbolic length stays symbolic)
        return [0] + list(itertools.accumulate([each] * sections))
    sizes = [each + 1] * extras + [each] * (sections - extras)
    return [0] + list(itertools.accumulate(sizes))


def at_least(a, ndim):
    """``a`` with unit axes added as np.atleast_1d, np.atleast_2d and np.atleast_3d add them."""
    shape = tuple(array_shape(a))
    if len(shape) >= ndim:
        return a
    if ndim < 3:
        return np.reshape(a, (1,) * (ndim - len(shape)) + shape)
    return np.reshape(a, {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)])


def at_least_all(ndim):
    """np.atleast_{ndim}d: one array for one argument, a tuple for several."""
    def at_least_each(*arys):
        results = tuple(at_least(a, ndim) for a in arys)
        return results[0] if len(results) == 1 else results
    return at_least_each


def merge_tables(tables):
    """One table of numpy functions from several, refusing a function mapped twice."""
    merged = {}
    for table in tables:
        twice = set(merged) & set(table)
        if twice:
            raise AssertionError(f"numpy functions mapped twice: {sorted(map(str, twice))}")
        merged.update(table)
    return merged
