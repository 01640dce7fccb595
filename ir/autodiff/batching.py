"""Batched values: every primitive applied to many values at once, along a leading axis.

A ``Batched`` value stands for ``size`` values of one shape, held as one
value with a leading batch axis.  Applying a primitive to batched values
applies it to each, as one operation: elementwise primitives by aligning the
batch axis in front, primitives with axis-like params by shifting them,
products by placing the batch where numpy's stacking rules keep it.  Each
primitive's rule is part of its definition (``Primitive(batch=...)``); this
module holds what those rules share.  A primitive without a rule, neither
elementwise, is applied to each value in turn and the results stacked, which
is always right, only slower (``tests/ir/test_batching.py`` names the few that
are left so, and why).

Derivative rules are written with primitives, so a VJP rule given a batched
cotangent computes a batch of VJPs: one backward walk over a batch of seeds
gives a whole Jacobian (``tape.jacobian``).  The underlying values may be of
any kind (arrays, the tracer's tensors, graph symbols), so batched rules
evaluate eagerly, record on outer tapes, or build vectorised graphs.
"""

from ir.sizes.traced import product

from ir.operators import ArrayOperators
from ir.primitive import BATCHED_PRIORITY, register_value_kind, shape_of

# The primitives this module applies are defined above it (their batching rules build on
# it), so ``ir.primitive_references`` sets these once they are defined.
broadcast_to = embed_diagonal = getitem = reshape = stack = transpose = None


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
    rule = prim.batch
    if rule is None:
        rule = aligned if prim.elementwise else one_at_a_time
    return rule(prim, args, params, size)


register_value_kind(Batched, apply_batched, priority=BATCHED_PRIORITY)


def one_hot(one, shape):
    """A batch of one-hot values of ``shape``, one per element, from a scalar ``one`` of
    the kind wanted (array, tensor, graph symbol): the identity matrix, reshaped."""
    shape = tuple(shape)
    size = product(shape)
    ones = broadcast_to(one, shape=(size,))
    identity = embed_diagonal(ones, shape=(size, size), offset=0, axis1=0, axis2=1)
    return Batched(reshape(identity, shape=(size,) + shape), size)


def batch_last(value):
    """A batch's array with the batch axis moved last: column ``k`` of a Jacobian is the
    batch's value ``k``."""
    rank = len(tuple(shape_of(value.value)))
    return transpose(value.value, axes=tuple(range(1, rank)) + (0,))


def unbatched(value, size):
    """``value`` as an array of ``size`` values: batched ones as they are, others repeated."""
    if isinstance(value, Batched):
        return value.value
    shape = tuple(shape_of(value))
    return broadcast_to(value, shape=(size,) + shape)


def inner_rank(value):
    """The rank of each value of a batch, or of an unbatched value."""
    return len(value.shape) if isinstance(value, Batched) else len(shape_of(value))


def padded(value, rank):
    """A batched value's array with unit axes after the batch axis up to inner ``rank``."""
    shape = tuple(shape_of(value.value))
    missing = rank - (len(shape) - 1)
    if missing <= 0:
        return value.value
    return reshape(value.value, shape=shape[:1] + (1,) * missing + shape[1:])


def stack_padded(value, array, batch_rank, stack_rank):
    """A batched operand of a stacked product gets unit stack axes after its batch axis,
    so the batch axis lines up with the other operand's stack axes."""
    if not isinstance(value, Batched) or batch_rank == stack_rank:
        return array
    shape = tuple(shape_of(array))
    return reshape(array, shape=shape[:1] + (1,) * (stack_rank - batch_rank)
                            + shape[1:])


# --- rules many primitives share -------------------------------------------------

def aligned(prim, args, params, size):
    """Elementwise: unbatched arguments broadcast against the values' trailing axes, as
    they would against each value; batched ones get unit axes so their batch axis stays
    in front."""
    rank = max(inner_rank(a) for a in args)
    values = [padded(a, rank) if isinstance(a, Batched) else a for a in args]
    return Batched(prim(*values, **params), size)


def one_at_a_time(prim, args, params, size):
    """Any primitive: applied to each value, the results stacked."""
    results = []
    for k in range(size):
        values = [getitem(a.value, key=(k,)) if isinstance(a, Batched) else a
                  for a in args]
        results.append(prim(*values, **params))
    return Batched(stack(*results, axis=0), size)


def first_batched_only(rule):
    """A rule for primitives whose later arguments are never batched (positions,
    shapes); a batched later argument falls back to one value at a time."""
    def checked(prim, args, params, size):
        if any(isinstance(a, Batched) for a in args[1:]) or not isinstance(args[0], Batched):
            return one_at_a_time(prim, args, params, size)
        return rule(prim, args, params, size)
    return checked


def shifted(axis, rank):
    """An ``axis`` param (an int, a tuple, or ``None`` for all) of a value of ``rank``,
    for the batch's array: past the batch axis."""
    if axis is None:
        return tuple(range(1, rank + 1))
    if isinstance(axis, tuple):
        return tuple(a % rank + 1 for a in axis) if rank else ()
    return axis % rank + 1 if rank else axis


@first_batched_only
def along_axes(prim, args, params, size):
    """Reductions over an ``axis`` param (int, tuple, or ``None`` for all axes)."""
    x = args[0]
    return Batched(prim(x.value, *args[1:], **dict(params, axis=shifted(params["axis"],
                                                                       x.ndim))), size)


@first_batched_only
def along_axis(prim, args, params, size):
    """Primitives with one integer ``axis`` (scans, sorts)."""
    x = args[0]
    return Batched(prim(x.value, *args[1:], **dict(params, axis=params["axis"] % x.ndim + 1)),
                   size)


def along_axes_named(name):
    """Primitives with a tuple of axes (or ``None``) in param ``name``."""
    @first_batched_only
    def rule(prim, args, params, size):
        x = args[0]
        axes = params[name]
        moved = None if axes is None else tuple(a % x.ndim + 1 for a in axes)
        return Batched(prim(x.value, **dict(params, **{name: moved})), size)
    return rule


@first_batched_only
def on_stacks(prim, args, params, size):
    """Primitives that work on stacks of matrices (the last axes) as numpy's linalg
    does, so a batch is one more stack axis."""
    return Batched(prim(args[0].value, **params), size)
