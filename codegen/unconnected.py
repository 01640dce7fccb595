"""What a generated module returns for a source the target does not reach, as
``tape.gradient`` and ``tape.jacobian`` choose by ``unconnected_gradients``: ``None``
(the default), or zeros of the shape and dtype the tape gives.

The zeros are a node of the graph (a zero broadcast to the shape), so the
emitter writes their shape as it writes any other: a symbolic size as the code
that binds it from the parameters (``n_batch``).  A source that is no
parameter of the module has its traced shape; where that holds a symbolic size
no parameter carries, no code could compute it, and generation refuses.
"""

import numpy as np

from codegen.sizes import symbols_of
from ir.primitives.elementwise import zeros_like
from ir.symbolic import GraphBuilder

CHOICES = ("none", "zero")
"""The values of ``tracer.UnconnectedGradients``, which the generators take as they are."""


def unconnected_choice(value):
    """``"none"`` or ``"zero"``, from a ``tracer.UnconnectedGradients`` member or its
    value; a ValueError naming the choices for anything else."""
    choice = getattr(value, "value", value)
    if not isinstance(choice, str) or choice not in CHOICES:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}; use "
                         "UnconnectedGradients.NONE or UnconnectedGradients.ZERO (or 'none', "
                         "'zero')")
    return choice


def with_zeros(graph, request, parameters, leading):
    """``graph`` with zeros for each source's output that is ``None``, of shape
    ``leading(source_shape) + source_shape`` and the source's dtype."""
    count = len(request.groups)
    missing = [k for k, output in enumerate(graph.outputs[:count]) if output is None]
    if not missing:
        return graph
    bound = set(symbols_of([array for p in parameters for array in p.arrays]))
    builder = GraphBuilder(graph)
    outputs = list(graph.outputs)
    for k in missing:
        shape, dtype = source_type(request, k)
        shape = tuple(leading(shape)) + tuple(shape)
        unbound = sorted({s for size in shape for s in getattr(size, "symbols", ())} - bound)
        if unbound:
            raise ValueError(
                f"cannot write zeros of shape ({', '.join(map(str, shape))}) for source "
                f"{k + 1}, which the target does not reach: no parameter of the module "
                f"carries the symbolic size{'s' if len(unbound) > 1 else ''} "
                f"{', '.join(unbound)}. Leave unconnected_gradients at 'none' (the module "
                "returns None for it), or drop the source from the request.")
        outputs[k] = _zeros(builder, shape, dtype).id
    builder.graph.outputs = outputs
    return builder.graph


def _zeros(builder, shape, dtype):
    """Zeros the caller may write to, as the tape's are: a constant, written as
    ``np.full``, or where a size is symbolic, ``np.zeros_like`` of a broadcast zero."""
    if any(getattr(size, "symbols", ()) for size in shape):
        return zeros_like(builder.zeros(shape, dtype))
    return builder.constant(np.zeros(shape, dtype))


def source_type(request, k):
    """The shape and dtype of the request's source ``k``: its node's, or where the
    recording holds no node for it, the tape's."""
    group = request.groups[k]
    if group:
        node = request.graph[group[0]]
        return node.shape, node.dtype
    return request.source_types[k]
