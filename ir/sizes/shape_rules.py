"""Shapes with symbolic sizes: each primitive's result shape as an expression of its
arguments' sizes (``ir.sizes.dims``), and the sound answer where no rule says.

A primitive's shape is found by probing its numpy implementation (see
``Primitive.abstract``), which needs numbers.  With symbolic sizes, the probe
runs at the sizes being traced (``ir.sizes.guards``) and gives the dtype and the
shape at those sizes; the primitive's ``shape_rule`` gives the shape as
expressions, and must agree with the probe there (a wrong rule is an error,
never a wrong graph).  Elementwise primitives share ``broadcast``.  A
primitive without a rule is specialised: every symbol its arguments use is
fixed at its traced size, with a guard that says so, so what is traced stays
right, for those sizes only.

Rules ask questions about sizes (are two sizes equal?) through
``ir.sizes.guards.decide``.  A symbolic size is taken never to be 1 when numpy's
broadcasting asks: broadcast against a size-1 axis it stays itself, and code
traced so is right when that size is 1 at run time too (1 broadcast to 1).
"""

import numpy as np

from ir.sizes.dims import Size, quotient
from ir.sizes.guards import current, decide
from ir.sizes.traced import holds_sizes, map_sizes, product


def has_sizes(avals, params):
    """Whether symbolic sizes appear in the argument shapes or the params."""
    return (any(isinstance(a, tuple) and _symbolic(a[0]) for a in avals)
            or any(_symbolic(v) for v in params.values()))


def symbolic_type(prim, avals, params):
    """``(shape, dtype)`` of ``prim`` applied to arguments with symbolic sizes."""
    context = current()
    if context is None:
        raise TypeError(f"the shape of {prim.name} on symbolic sizes needs the sizes being "
                        "traced: build the graph inside ir.sizes.guards.guarding(sizes)")
    concrete_avals = [(tuple(context.value(d) for d in a[0]), a[1]) if isinstance(a, tuple)
                      else a for a in avals]
    concrete = prim.abstract(concrete_avals, _at(params, context))
    rule = prim.shape_rule or (broadcast if prim.elementwise else None)
    if getattr(rule, "reads_traced_shape", False):
        shape = rule(avals, params, concrete[0])
    else:
        shape = None if rule is None else rule(avals, params)
    if shape is None:  # (no rule, or none for these params)
        for name in sorted(_symbols_of(avals, params)):
            context.specialize(Size((((name,), 1),)), where=f"{prim.name}, which has no "
                                                          "rule for symbolic sizes here")
        return concrete
    shape = tuple(shape)
    if tuple(context.value(d) for d in shape) != tuple(concrete[0]):
        raise AssertionError(f"the shape rule of {prim.name} gives {shape}, which is not "
                             f"{concrete[0]} at the traced sizes")
    return shape, concrete[1]


# --- the rules --------------------------------------------------------------------------


def broadcast(avals, params):
    """numpy's broadcasting of the arguments' shapes (Python scalars have none)."""
    shapes = [a[0] for a in avals if isinstance(a, tuple)]
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(rank):
        sizes = [s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0]
        out.append(_broadcast_size(sizes))
    return out


def broadcast_shapes(*shapes):
    """``np.broadcast_shapes`` for shapes that may hold symbolic sizes."""
    if not any(_symbolic(s) or any(not isinstance(d, int) for d in s) for s in shapes):
        return np.broadcast_shapes(*shapes)
    return tuple(broadcast([(tuple(s), None) for s in shapes], {}))


def broadcast_target(avals, params):
    """``np.broadcast_to``: the target shape, which every size of the argument must meet
    (1, or the target's size: a guard where that is a question)."""
    shape, target = tuple(avals[0][0]), tuple(params["shape"])
    for size, wanted in zip(reversed(shape), reversed(target)):
        if not (type(size) is int and size == 1):
            _agree(size, wanted, "a size broadcast to the target's")
    return target


def summed_to(avals, params):
    """Summing to a shape (the adjoint of broadcasting): each of its sizes is 1 or the
    argument's."""
    shape, target = tuple(avals[0][0]), tuple(params["shape"])
    for size, wanted in zip(reversed(shape), reversed(target)):
        if not (type(wanted) is int and wanted == 1):
            _agree(size, wanted, "a size summed to the target's")
    return target


def square_matrices(avals, params):
    """The (stack of) square matrices a decomposition takes: its shape, with the two
    matrix sizes agreeing (a guard where that is a question)."""
    shape = tuple(avals[0][0])
    _agree(shape[-2], shape[-1], "a square matrix's sizes")
    return shape


def eigenvalues(avals, params):
    """``eigvalsh``, ``eig``'s values: one per row of each square matrix."""
    return square_matrices(avals, params)[:-1]


def thin_factor(part):
    """The shape of one result of a thin decomposition ``a = f1 @ f2`` of an ``(m, n)``
    matrix (``svd``, ``qr``) into ``(m, k)`` and ``(k, n)`` factors (``part`` "left" or
    "right") with ``k = min(m, n)``, or of its ``k`` singular values ("values").  A square
    matrix takes the tall side's guard, ``m >= n``, as the common data matrix does."""
    def rule(avals, params):
        shape = tuple(avals[0][0])
        rows, columns = shape[-2:]
        k = columns if decide(rows, ">=", columns, "a thin factor's size") else rows
        inner = {"left": (rows, k), "values": (k,), "right": (k, columns)}[part]
        return shape[:-2] + inner
    return rule


def data_dependent(avals, params, traced):
    """A result whose size depends on the values (``np.nonzero``): the size traced,
    which generated code does not check but reads from the arrays it computes, and which
    no symbolic size decides (so no guard fixes one)."""
    return traced


data_dependent.reads_traced_shape = True


def padded(avals, params):
    """``np.pad``: each axis grows by what is put before and after it."""
    return tuple(d + before + after for d, (before, after) in zip(avals[0][0], params["pad_width"]))


def diagonal_of(avals, params):
    """``np.diagonal``: the other axes, then the diagonal's length."""
    shape, offset = tuple(avals[0][0]), params["offset"]
    axis1, axis2 = params["axis1"] % len(shape), params["axis2"] % len(shape)
    rows, columns = shape[axis1] + min(offset, 0), shape[axis2] - max(offset, 0)
    length = rows if decide(rows, "<=", columns, "a diagonal's length") else columns
    length = length if decide(length, ">=", 0, "a diagonal's length") else 0
    return tuple(d for k, d in enumerate(shape) if k not in (axis1, axis2)) + (length,)


def same_shape(avals, params):
    """The first argument's shape."""
    return avals[0][0]


def reduction(avals, params):
    """The shape left by reducing ``axis`` (all axes if ``None``), kept as size 1 with
    ``keepdims``."""
    shape, axis = avals[0][0], params.get("axis")
    axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
    axes = {a % len(shape) for a in axes} if shape else set()
    if params.get("keepdims"):
        return [1 if k in axes else d for k, d in enumerate(shape)]
    return [d for k, d in enumerate(shape) if k not in axes]


def transposed(avals, params):
    shape, axes = avals[0][0], params.get("axes")
    return list(reversed(shape)) if axes is None else [shape[a] for a in axes]


def reshaped(avals, params):
    """The target shape, as the params hold it (sizes included), of as many elements as
    the argument has."""
    _agree(product(avals[0][0]), product(params["shape"]), "a reshape's element count")
    return params["shape"]


def given_shape(avals, params):
    """The shape the params give (a loop's result, typed by its loop)."""
    return params["shape"]


def embedded_diagonal(avals, params):
    """Zeros of the target shape with the values on a diagonal, which they fill."""
    target = tuple(params["shape"])
    wanted = diagonal_of([(target, None)], params)
    for size, length in zip(tuple(avals[0][0]), wanted):
        _agree(size, length, "a size put on the target's diagonal")
    return target


def scattered(avals, params):
    """Zeros of the target shape with the values added at ``key``: the values fill what
    ``key`` selects of that shape (numpy broadcasts a size 1)."""
    selected = indexed([(tuple(params["shape"]), None), *avals[1:]], params)
    if selected is None:
        return None
    for size, wanted in zip(reversed(tuple(avals[0][0])), reversed(tuple(selected))):
        if not (type(size) is int and size == 1):
            _agree(size, wanted, "a size scattered into the target's")
    return params["shape"]


def scattered_along(avals, params):
    """Zeros of the target shape with the values added along ``axis``: on the other
    axes the values fill the target."""
    shape, target = tuple(avals[0][0]), tuple(params["shape"])
    axis = params["axis"] % len(target)
    for k, (size, wanted) in enumerate(zip(shape, target)):
        if k != axis:
            _agree(size, wanted, "a size scattered into the target's")
    return target


def matrix_product(avals, params):
    """``a @ b``: stacks broadcast, then ``(n, k) @ (k, m)`` is ``(n, m)``; a vector
    operand loses its axis."""
    a, b = avals[0][0], avals[1][0]
    a2 = tuple(a) if len(a) > 1 else (1, *a)
    b2 = tuple(b) if len(b) > 1 else (*b, 1)
    _agree(a2[-1], b2[-2], "matmul's inner sizes")
    stacks = broadcast([(a2[:-2], None), (b2[:-2], None)], {})
    return [*stacks, *([a2[-2]] if len(a) > 1 else []), *([b2[-1]] if len(b) > 1 else [])]


def joined(avals, params):
    """``concatenate``: the sizes along ``axis`` summed, the others alike."""
    shapes, axis = [a[0] for a in avals], params["axis"]
    axis %= len(shapes[0])
    out = list(shapes[0])
    out[axis] = sum((s[axis] for s in shapes[1:]), shapes[0][axis])
    for k in range(len(out)):
        if k != axis:
            for s in shapes[1:]:
                _agree(out[k], s[k], "concatenated sizes")
    return out


def stacked(avals, params):
    """``stack``: a new axis of the number of arguments, at ``axis``."""
    shape = list(avals[0][0])
    for a in avals[1:]:
        for d, e in zip(shape, a[0]):
            _agree(d, e, "stacked sizes")
    axis = params["axis"] % (len(shape) + 1)
    return shape[:axis] + [len(avals)] + shape[axis:]


def contracted(avals, params):
    """``tensordot``: the free axes of ``a``, then of ``b``; contracted sizes agree."""
    a, b, axes = avals[0][0], avals[1][0], params["axes"]
    if isinstance(axes, int):
        a_axes, b_axes = list(range(len(a) - axes, len(a))), list(range(axes))
    else:
        a_axes, b_axes = ([x] if isinstance(x, int) else list(x) for x in axes)
    a_axes, b_axes = [k % len(a) for k in a_axes], [k % len(b) for k in b_axes]
    for i, j in zip(a_axes, b_axes):
        _agree(a[i], b[j], "tensordot's contracted sizes")
    return ([d for k, d in enumerate(a) if k not in a_axes]
            + [d for k, d in enumerate(b) if k not in b_axes])


def taken_along(avals, params):
    """``take_along_axis``: the arguments broadcast, but the indices' size along
    ``axis``."""
    x, indices, axis = avals[0][0], avals[1][0], params["axis"] % len(avals[0][0])
    out = broadcast([(tuple(x[:axis]) + (1,) + tuple(x[axis + 1:]), None),
                     (tuple(indices[:axis]) + (1,) + tuple(indices[axis + 1:]), None)], {})
    out[axis] = indices[axis]
    return out


def second_shape(avals, params):
    """The second argument's shape (``searchsorted``'s positions, one per value)."""
    return avals[1][0]


def matrix_stack(avals, params):
    """One number per square matrix of a stack (``det``): the last two axes go."""
    return square_matrices(avals, params)[:-2]


def swapped_matrix(avals, params):
    """``pinv``: each matrix's shape transposed."""
    shape = avals[0][0]
    return [*shape[:-2], shape[-1], shape[-2]]


def solved(avals, params):
    """``solve(a, b)``: a vector ``b`` gives one per matrix of ``a``'s stack; matrices
    broadcast their stacks."""
    a, b = avals[0][0], avals[1][0]
    _agree(a[-1], b[0] if len(b) == 1 else b[-2], "solve's sizes")
    if len(b) == 1:
        return a[:-1]
    return [*broadcast([(a[:-2], None), (b[:-2], None)], {}), *b[-2:]]


def indexed(avals, params):
    """``x[key]`` for a key of integers, slices, ``None``, ``Ellipsis`` and index arrays
    (numpy's advanced indexing: the index arrays' broadcast shape in place of the axes
    they index when they are adjacent, else first); ``None``, so specialised, for a
    reversed partial slice."""
    shape, key = list(avals[0][0]), params["key"]
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    if Ellipsis in key:
        at = key.index(Ellipsis)
        key = key[:at] + (slice(None),) * (len(shape) - used) + key[at + 1:]
    key = tuple(key) + (slice(None),) * (len(shape) - sum(1 for k in key if k is not None))
    advanced = any(_is_index_array(k) for k in key)
    parts, axis = [], 0  # (kind, size) for basic entries; ("advanced", shape) for the others
    for k in key:
        if k is None:
            parts.append(("basic", 1))
            continue
        if _is_index_array(k) or (advanced and isinstance(k, int)):
            parts.append(("advanced", avals[1 + k.position][0] if _is_index_array(k) else ()))
        elif isinstance(k, slice):
            length = _slice_length(k, shape[axis])
            if length is None:
                return None
            parts.append(("basic", length))
        axis += 1
    return _indexed_shape(parts)


def _is_index_array(part):
    return hasattr(part, "position")  # (an ``ir.primitives.shape.IndexArg``)


def _indexed_shape(parts):
    """The result's shape from the key's parts: index arrays broadcast together, in place
    where they stand together, else first."""
    where = [k for k, (kind, _) in enumerate(parts) if kind == "advanced"]
    if not where:
        return [size for _, size in parts]
    together = broadcast([(tuple(parts[k][1]), None) for k in where], {})
    basic = [size for kind, size in parts if kind == "basic"]
    if where == list(range(where[0], where[-1] + 1)):
        before = [size for kind, size in parts[:where[0]] if kind == "basic"]
        return before + list(together) + basic[len(before):]
    return list(together) + basic


# --- shared pieces -------------------------------------------------------------------------


def _broadcast_size(sizes):
    """One axis's size broadcast from ``sizes``: 1 where every one is 1; else the sizes
    other than 1, which must agree (a question where they differ as expressions)."""
    kept = [d for d in sizes if not (type(d) is int and d == 1)]
    if not kept:
        return 1
    first = next((d for d in kept if isinstance(d, int)), kept[0])
    for d in kept:
        _agree(first, d, "broadcast sizes")
    return first


def _slice_length(part, size):
    """How many elements ``part`` (a slice) selects of an axis of ``size``."""
    step = 1 if part.step is None else part.step
    if step < 0:
        if part.start is None and part.stop is None:
            return quotient(size + (-step - 1), -step)
        return _reversed_slice_length(part, size, -step)
    start = _bound(part.start, size, 0)
    stop = _bound(part.stop, size, size)
    length = stop - start if decide(stop, ">=", start, "a slice's length") else 0
    return length if step == 1 else quotient(length + step - 1, step)


def _reversed_slice_length(part, size, stride):
    """How many elements a slice of negative step ``-stride`` selects: from ``start``
    (default the last) down to just above ``stop`` (default below the first), each
    bound clipped to ``[-1, size - 1]`` as numpy clips it."""
    first = size - 1 if part.start is None else _reversed_bound(part.start, size)
    past = -1 if part.stop is None else _reversed_bound(part.stop, size)
    if not decide(first, ">", past, "a slice's length"):
        return 0
    return quotient(first - past + stride - 1, stride)


def _reversed_bound(value, size):
    if decide(value, ">=", 0, "a slice bound's sign"):
        return value if decide(size - 1, ">=", value, "a slice bound") else size - 1
    return size + value if decide(size + value, ">=", -1, "a slice bound") else -1


def _bound(value, size, default):
    """A slice bound as an index in ``[0, size]``, as numpy clips it."""
    if value is None:
        return default
    if decide(value, ">=", 0, "a slice bound's sign"):
        return value if decide(size, ">=", value, "a slice bound") else size
    return size + value if decide(size + value, ">=", 0, "a slice bound") else 0


def _agree(a, b, what):
    """Require sizes ``a`` and ``b`` to be equal (a guard where that is a question)."""
    if not decide(a, "==", b, what):
        raise ValueError(f"{what} {a} and {b} differ")


def _symbolic(value):
    return holds_sizes(value, Size)


def _symbols_of(avals, params):
    found = set()

    def visit(value):
        if isinstance(value, Size):
            found.update(value.symbols)
        elif isinstance(value, (tuple, list)):
            for v in value:
                visit(v)
        elif isinstance(value, slice):
            visit((value.start, value.stop, value.step))
    visit([a[0] for a in avals if isinstance(a, tuple)])
    visit(list(params.values()))
    return found


def _at(params, context):
    """``params`` with each size at its traced value."""
    return {k: map_sizes(v, Size, context.value) for k, v in params.items()}

