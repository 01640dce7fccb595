"""Batched values: every primitive applied to many values at once, along a leading axis.

A ``Batched`` value stands for ``size`` values of one shape, held as one
value with a leading batch axis.  Applying a primitive to batched values
applies it to each, as one operation: elementwise primitives by aligning the
batch axis in front, primitives with axis-like params by shifting them,
products by placing the batch where numpy's stacking rules keep it.  A
primitive without such a rule is applied to each value in turn and the
results stacked, which is always right, only slower.

Derivative rules are written with primitives, so a VJP rule given a batched
cotangent computes a batch of VJPs: one backward walk over a batch of seeds
gives a whole Jacobian (``tape.jacobian``).  The underlying values may be of
any kind (arrays, the tracer's tensors, graph symbols), so batched rules
evaluate eagerly, record on outer tapes, or build vectorised graphs.
"""

import string

import numpy as np

from ir.operators import ArrayOperators
from ir.primitive import PRIMITIVES, register_value_kind, shape_of


class Batched(ArrayOperators):
    """``size`` values of shape ``shape``, held as ``value`` of shape ``(size,) + shape``."""

    __slots__ = ("value", "size")
    __array_ufunc__ = None  # numpy arrays defer to the reflected operators

    def __init__(self, value, size):
        self.value = value
        self.size = size

    @property
    def shape(self):
        return tuple(shape_of(self.value))[1:]

    @property
    def dtype(self):
        return self.value.dtype

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"<Batched {self.size} x {self.dtype}{list(self.shape)}>"


def apply_batched(prim, args, params):
    """``prim`` applied to each value of the batched arguments (the others shared)."""
    size = next(a.size for a in args if isinstance(a, Batched))
    rule = BATCH_RULES.get(prim.name)
    if rule is None:
        rule = _elementwise if prim.elementwise else _each
    return rule(prim, args, params, size)


register_value_kind(Batched, apply_batched, priority=1000)


def one_hot(one, shape):
    """A batch of one-hot values of ``shape``, one per element, from a scalar ``one`` of
    the kind wanted (array, tensor, graph symbol): the identity matrix, reshaped."""
    shape = tuple(shape)
    size = int(np.prod(shape, dtype=np.int64))
    ones = _prim("broadcast_to")(one, shape=(size,))
    identity = _prim("embed_diagonal")(ones, shape=(size, size), offset=0, axis1=0, axis2=1)
    return Batched(_prim("reshape")(identity, shape=(size,) + shape), size)


def batch_last(value):
    """A batch's array with the batch axis moved last: column ``k`` of a Jacobian is the
    batch's value ``k``."""
    rank = len(tuple(shape_of(value.value)))
    return _prim("transpose")(value.value, axes=tuple(range(1, rank)) + (0,))


def unbatched(value, size):
    """``value`` as an array of ``size`` values: batched ones as they are, others repeated."""
    if isinstance(value, Batched):
        return value.value
    shape = tuple(shape_of(value))
    return _prim("broadcast_to")(value, shape=(size,) + shape)


def _prim(name):
    return PRIMITIVES[name]


def _rank(value):
    return len(value.shape) if isinstance(value, Batched) else len(shape_of(value))


def _padded(value, rank):
    """A batched value's array with unit axes after the batch axis up to inner ``rank``."""
    shape = tuple(shape_of(value.value))
    missing = rank - (len(shape) - 1)
    if missing <= 0:
        return value.value
    return _prim("reshape")(value.value, shape=shape[:1] + (1,) * missing + shape[1:])


# --- generic rules ------------------------------------------------------------------

def _elementwise(prim, args, params, size):
    """Unbatched arguments broadcast against the values' trailing axes, as they would
    against each value; batched ones get unit axes so their batch axis stays in front."""
    rank = max(_rank(a) for a in args)
    values = [_padded(a, rank) if isinstance(a, Batched) else a for a in args]
    return Batched(prim(*values, **params), size)


def _each(prim, args, params, size):
    """Any primitive: applied to each value, the results stacked."""
    results = []
    for k in range(size):
        values = [_prim("getitem")(a.value, key=(k,)) if isinstance(a, Batched) else a
                  for a in args]
        results.append(prim(*values, **params))
    return Batched(_prim("stack")(*results, axis=0), size)


def _only_first(rule):
    """A rule for primitives whose later arguments are never batched (positions,
    shapes); a batched later argument falls back to one value at a time."""
    def checked(prim, args, params, size):
        if any(isinstance(a, Batched) for a in args[1:]) or not isinstance(args[0], Batched):
            return _each(prim, args, params, size)
        return rule(prim, args, params, size)
    return checked


def _shifted(axis, rank):
    if axis is None:
        return tuple(range(1, rank + 1))
    if isinstance(axis, tuple):
        return tuple(a % rank + 1 for a in axis) if rank else ()
    return axis % rank + 1 if rank else axis


@_only_first
def _reduction(prim, args, params, size):
    x = args[0]
    return Batched(prim(x.value, *args[1:], **dict(params, axis=_shifted(params["axis"],
                                                                        x.ndim))), size)


@_only_first
def _positional_reduction(prim, args, params, size):
    """``argmax``-like: ``axis=None`` means the flattened value."""
    x, axis = args[0], params["axis"]
    if axis is not None:
        return Batched(prim(x.value, **dict(params, axis=axis % x.ndim + 1)), size)
    if params.get("keepdims"):
        return _each(prim, args, params, size)
    flat = _prim("reshape")(x.value, shape=(size, int(np.prod(x.shape, dtype=np.int64))))
    return Batched(prim(flat, **dict(params, axis=1)), size)


@_only_first
def _axis(prim, args, params, size):
    """Primitives with one integer ``axis`` (scans, sorts)."""
    x = args[0]
    return Batched(prim(x.value, *args[1:], **dict(params, axis=params["axis"] % x.ndim + 1)),
                   size)


def _axes_param(name):
    @_only_first
    def rule(prim, args, params, size):
        x = args[0]
        axes = params[name]
        shifted = None if axes is None else tuple(a % x.ndim + 1 for a in axes)
        return Batched(prim(x.value, **dict(params, **{name: shifted})), size)
    return rule


@_only_first
def _stacked(prim, args, params, size):
    """Primitives that work on stacks of matrices (the last axes) as numpy's linalg does."""
    return Batched(prim(args[0].value, **params), size)


# --- shapes ---------------------------------------------------------------------------

@_only_first
def _reshape(prim, args, params, size):
    return Batched(prim(args[0].value, shape=(size,) + tuple(params["shape"])), size)


@_only_first
def _transpose(prim, args, params, size):
    axes = (0,) + tuple(a + 1 for a in params["axes"])
    return Batched(prim(args[0].value, axes=axes), size)


@_only_first
def _broadcast_to(prim, args, params, size):
    shape = tuple(params["shape"])
    return Batched(prim(_padded(args[0], len(shape)), shape=(size,) + shape), size)


@_only_first
def _sum_to(prim, args, params, size):
    x, shape = args[0], tuple(params["shape"])
    extra = x.ndim - len(shape)
    summed = prim(x.value, shape=(size,) + (1,) * extra + shape)
    return Batched(_prim("reshape")(summed, shape=(size,) + shape), size)


def _joined(prim, args, params, size):
    values = [unbatched(a, size) for a in args]
    return Batched(prim(*values, axis=params["axis"] + 1), size)


@_only_first
def _pad(prim, args, params, size):
    fill = params["constant_values"]
    if isinstance(fill, tuple) and fill and isinstance(fill[0], tuple):  # a pair per axis
        fill = ((0, 0),) + fill
    return Batched(prim(args[0].value, pad_width=((0, 0),) + tuple(params["pad_width"]),
                        constant_values=fill), size)


def _index_places(key):
    """Positions in ``key`` of advanced indices (index arrays, and integers beside
    them), and whether numpy keeps their result axes in place (they are adjacent)
    rather than moving them to the front."""
    from ir.primitives.shape import IndexArg
    if not any(isinstance(part, IndexArg) for part in key):
        return [], True
    places = [k for k, part in enumerate(key)
              if isinstance(part, (IndexArg, int)) and not isinstance(part, bool)]
    return places, places == list(range(places[0], places[-1] + 1))


def _index_rank(args, key):
    from ir.primitives.shape import IndexArg
    shapes = [shape_of(args[1 + part.position]) for part in key if isinstance(part, IndexArg)]
    return len(np.broadcast_shapes(*shapes)) if shapes else 0


def _getitem(prim, args, params, size):
    x = args[0]
    if not isinstance(x, Batched) or any(isinstance(a, Batched) for a in args[1:]):
        return _each(prim, args, params, size)
    key = params["key"]
    result = prim(x.value, *args[1:], key=(slice(None),) + tuple(key))
    places, in_place = _index_places(key)
    if in_place:
        return Batched(result, size)
    # numpy moved the index arrays' axes in front of the batch axis.
    rank = _index_rank(args, key)
    axes = (rank,) + tuple(range(rank)) + tuple(range(rank + 1, len(shape_of(result))))
    return Batched(_prim("transpose")(result, axes=axes), size)


def _scatter_add(prim, args, params, size):
    g = args[0]
    if not isinstance(g, Batched) or any(isinstance(a, Batched) for a in args[1:]):
        return _each(prim, args, params, size)
    key = params["key"]
    values = g.value
    places, in_place = _index_places(key)
    if not in_place:
        rank = _index_rank(args, key)
        order = tuple(range(1, rank + 1)) + (0,) + tuple(range(rank + 1,
                                                               len(shape_of(values))))
        values = _prim("transpose")(values, axes=order)
    return Batched(prim(values, *args[1:], key=(slice(None),) + tuple(key),
                        shape=(size,) + tuple(params["shape"])), size)


def _take_along_axis(prim, args, params, size):
    x, indices = args
    if not isinstance(x, Batched) or isinstance(indices, Batched):
        return _each(prim, args, params, size)
    shape = tuple(shape_of(indices))
    indices = _prim("reshape")(indices, shape=(1,) + shape)
    return Batched(prim(x.value, indices, axis=params["axis"] % x.ndim + 1), size)


def _scatter_add_along_axis(prim, args, params, size):
    values, indices = args
    if not isinstance(values, Batched) or isinstance(indices, Batched):
        return _each(prim, args, params, size)
    shape = tuple(shape_of(indices))
    indices = _prim("broadcast_to")(_prim("reshape")(indices, shape=(1,) + shape),
                                    shape=(size,) + shape)
    return Batched(prim(values.value, indices, axis=params["axis"] % values.ndim + 1,
                        shape=(size,) + tuple(params["shape"])), size)


@_only_first
def _diagonal(prim, args, params, size):
    x = args[0]
    return Batched(prim(x.value, offset=params["offset"], axis1=params["axis1"] % x.ndim + 1,
                        axis2=params["axis2"] % x.ndim + 1), size)


@_only_first
def _embed_diagonal(prim, args, params, size):
    rank = len(params["shape"])
    return Batched(prim(args[0].value, shape=(size,) + tuple(params["shape"]),
                        offset=params["offset"], axis1=params["axis1"] % rank + 1,
                        axis2=params["axis2"] % rank + 1), size)


@_only_first
def _last_two_axes(prim, args, params, size):
    """``triu``/``tril``: numpy applies them to the last two axes of a stack."""
    if args[0].ndim < 2:
        return _each(prim, args, params, size)
    return Batched(prim(args[0].value, **params), size)


@_only_first
def _fft(prim, args, params, size):
    return Batched(prim(args[0].value, **dict(params, axes=tuple(a + 1 for a in params["axes"]))),
                   size)


# --- products -------------------------------------------------------------------------

def _matmul(prim, args, params, size):
    """Both operands as stacks of matrices with the batch axis first; vectors become
    one-row or one-column matrices, squeezed out again afterwards."""
    x, y = args
    rank_x, rank_y = _rank(x), _rank(y)
    if rank_x == 1 and rank_y == 2 and not isinstance(y, Batched):
        return Batched(prim(x.value, y), size)  # a batch of row vectors is a matrix
    if rank_x == 2 and rank_y == 1 and not isinstance(x, Batched):
        return Batched(prim(y.value, _prim("transpose")(x, axes=(1, 0))), size)
    x_value = _as_matrix(x, row=True)
    y_value = _as_matrix(y, row=False)
    batch_rank = max(rank_x, 2) - 2, max(rank_y, 2) - 2
    stack_rank = max(batch_rank)
    x_value = _stack_padded(x, x_value, batch_rank[0], stack_rank)
    y_value = _stack_padded(y, y_value, batch_rank[1], stack_rank)
    result = prim(x_value, y_value)
    shape = tuple(shape_of(result))
    if rank_x == 1:
        shape = shape[:-2] + shape[-1:]
    if rank_y == 1:
        shape = shape[:-1]
    if shape != tuple(shape_of(result)):
        result = _prim("reshape")(result, shape=shape)
    return Batched(result, size)


def _as_matrix(value, row):
    """The array of ``value`` with a 1-D (inner) value made a ``(1, k)`` or ``(k, 1)`` matrix."""
    array = value.value if isinstance(value, Batched) else value
    if _rank(value) != 1:
        return array
    shape = tuple(shape_of(array))
    new = shape[:-1] + ((1, shape[-1]) if row else (shape[-1], 1))
    return _prim("reshape")(array, shape=new)


def _stack_padded(value, array, batch_rank, stack_rank):
    """A batched operand gets unit stack axes after its batch axis, so the batch axis
    lines up with the other operand's stack axes."""
    if not isinstance(value, Batched) or batch_rank == stack_rank:
        return array
    shape = tuple(shape_of(array))
    return _prim("reshape")(array, shape=shape[:1] + (1,) * (stack_rank - batch_rank)
                            + shape[1:])


def _solve(prim, args, params, size):
    """``solve(a, b)`` with ``b`` made a stack of one-column matrices when it is a vector,
    so numpy cannot mistake a batch of vectors for a matrix."""
    a, b = args
    vector = _rank(b) == 1
    b_value = b.value if isinstance(b, Batched) else b
    if vector:
        b_value = _prim("reshape")(b_value, shape=tuple(shape_of(b_value)) + (1,))
    ranks = _rank(a) - 2, _rank(b) + vector - 2
    a_value = _stack_padded(a, a.value if isinstance(a, Batched) else a, ranks[0], max(ranks))
    b_value = _stack_padded(b, b_value, ranks[1], max(ranks))
    result = prim(a_value, b_value)
    if vector:
        result = _prim("reshape")(result, shape=tuple(shape_of(result))[:-1])
    return Batched(result, size)


def _tensordot(prim, args, params, size):
    a, b = args
    a_axes, b_axes = params["axes"]
    if isinstance(a, Batched) and not isinstance(b, Batched):
        return Batched(prim(a.value, b, axes=(tuple(i + 1 for i in a_axes), b_axes)), size)
    if isinstance(b, Batched) and not isinstance(a, Batched):
        result = prim(a, b.value, axes=(a_axes, tuple(i + 1 for i in b_axes)))
        free = len(shape_of(a)) - len(a_axes)
        rank = len(shape_of(result))
        order = (free,) + tuple(range(free)) + tuple(range(free + 1, rank))
        return Batched(_prim("transpose")(result, axes=order), size)
    return _each(prim, args, params, size)


def _einsum(prim, args, params, size):
    """A letter no operand uses labels the batch axis of each batched operand."""
    inputs, output = params["subscripts"].split("->")
    used = set(params["subscripts"])
    letter = next(c for c in string.ascii_letters if c not in used)
    terms = inputs.split(",")
    terms = [letter + t if isinstance(a, Batched) else t for t, a in zip(terms, args)]
    values = [a.value if isinstance(a, Batched) else a for a in args]
    subscripts = ",".join(terms) + "->" + letter + output
    return Batched(prim(*values, subscripts=subscripts), size)


BATCH_RULES = {
    **dict.fromkeys(["sum", "mean", "max", "min", "prod", "norm"], _reduction),
    **dict.fromkeys(["argmax", "argmin"], _positional_reduction),
    **dict.fromkeys(["cumsum", "cumprod", "sort", "argsort", "partition", "argpartition"],
                    _axis),
    **dict.fromkeys(["fftshift", "ifftshift"], _axes_param("axes")),
    **dict.fromkeys(["fftn", "ifftn", "rfftn", "irfftn"], _fft),
    **dict.fromkeys(["inv", "det", "cholesky", "eigvalsh", "eigh_vectors", "svdvals", "svd_u",
                     "svd_vh", "qr_q", "qr_r", "eig_values", "eig_vectors", "logabsdet",
                     "slogdet_sign", "cofactors", "pinv"], _stacked),
    **dict.fromkeys(["triu", "tril"], _last_two_axes),
    "cast": _elementwise,
    "reshape": _reshape, "transpose": _transpose, "broadcast_to": _broadcast_to,
    "sum_to": _sum_to, "concatenate": _joined, "stack": _joined, "pad": _pad,
    "getitem": _getitem, "scatter_add": _scatter_add, "take_along_axis": _take_along_axis,
    "scatter_add_along_axis": _scatter_add_along_axis, "diagonal": _diagonal,
    "embed_diagonal": _embed_diagonal, "matmul": _matmul, "tensordot": _tensordot,
    "einsum": _einsum, "solve": _solve,
}
"""How each primitive applies to batched values, where it is neither elementwise nor
left to one value at a time."""
