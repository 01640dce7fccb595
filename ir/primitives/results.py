"""Operations with several results (loops and branches), kept as one node.

A loop computes its final carries and its stacked outputs together, so the
recording holds it as one node whose value is a tuple of arrays, held in a
0-d object array (``RESULTS``) so that tensors, symbols and graph nodes keep
their one-array shape.  Each result is read by a ``result`` node, which knows
its shape and dtype, as a jaxpr equation's out-variables do.

The cotangent (and the tangent) of a node with several results is ``Parts``:
those of the results that have one, which the reverse walk adds like any other.
"""

import numpy as np

from ir.autodiff.batching import Batched, unbatched
from ir.primitive import AS_WRITTEN, Primitive
from ir.several_results import SeveralResults
from ir.sizes.shape_rules import given_shape

RESULTS = np.dtype(object)
"""The dtype of a node with several results; its shape is ``()``."""


def pack(values):
    """Several arrays as the value of one node."""
    packed = np.empty((), RESULTS)
    packed[()] = tuple(values)
    return packed


class Parts:
    """The cotangent of a node with several results: ``{position: cotangent}`` of those
    that have one (a missing one is zero)."""

    __slots__ = ("parts",)
    dtype = RESULTS

    def __init__(self, parts):
        self.parts = parts

    def __add__(self, other):
        total = dict(self.parts)
        for position, part in other.parts.items():
            previous = total.get(position)
            total[position] = part if previous is None else previous + part
        return Parts(total)

    def get(self, position):
        return self.parts.get(position)


def _result_jvp(args, params, out, tangents):
    return None if tangents[0] is None else tangents[0].get(params["index"])


def _batch_result(prim, args, params, size):
    shape = (size, *params["shape"])
    return Batched(result(args[0].value, index=params["index"], shape=shape,
                          dtype=params["dtype"]), size)


result = Primitive(
    "result", lambda results, index, shape, dtype: results[()][index],
    abstract=lambda avals, params: (params["shape"], params["dtype"]),
    reads={0: ()}, complex_rules=AS_WRITTEN, value_name="result", jvp=_result_jvp,
    shape_rule=given_shape, batch=_batch_result,
    vjps=(lambda g, out, results, index, shape, dtype: Parts({index: g}),))


packed = Primitive("packed", lambda *values: pack(values),
                   abstract=lambda avals, params: ((), RESULTS), complex_rules=AS_WRITTEN,
                   value_name="results", results=SeveralResults(
                       types=lambda graph, node: [(graph[i].shape, graph[i].dtype)
                                                  for i in node.inputs]),
                   jvp=lambda args, params, out, tangents: Parts(
                       {k: t for k, t in enumerate(tangents) if t is not None}),
                   batch=lambda prim, args, params, size: Batched(
                       packed(*[unbatched(a, size) for a in args]), size),
                   joint_vjp=lambda g, out, *values, wanted: [
                       g.get(k) for k in range(len(values))])
"""Several arrays as one node with several results: how a rule that must give a loop's
results (batching) gives arrays it computed."""


def results_of(value, types):
    """The results of ``value``, a node with several results of ``types`` (``(shape,
    dtype)`` pairs), each read by a ``result`` node."""
    return [result(value, index=k, shape=tuple(shape), dtype=np.dtype(dtype))
            for k, (shape, dtype) in enumerate(types)]
