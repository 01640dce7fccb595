"""The tangent of a loop body: one step of the loop and of its directional derivative.

Forward mode through a loop is a loop of Jacobian-vector products (JAX's
``scan`` JVP): the tangent step carries each differentiable carry's tangent
beside the carry, scans the tangents of ``xs`` beside them, and reads the
tangents of invariants, giving the tangents of its outputs beside them.
"""

from ir.autodiff.forward import tangents
from ir.loops.body import Body
from ir.primitive import is_trainable
from ir.symbolic import GraphBuilder


class TangentStep:
    """``body``'s tangent step, given the positions of the ``xs`` and ``invariants`` that
    have tangents (every differentiable carry has one).

    The step's inputs are the carries and their tangents, the ``xs`` and theirs,
    the invariants and theirs; its outputs the new carries and their tangents,
    then the outputs and the tangents of the differentiable ones (``outputs``:
    their positions).
    """

    def __init__(self, body, xs, invariants):
        graph = body.graph
        count_c, count_x = body.carries, body.xs
        carry_ids = body.inputs[:count_c]
        x_ids = body.inputs[count_c:count_c + count_x]
        invariant_ids = body.inputs[count_c + count_x:]
        self.carries = [k for k, i in enumerate(carry_ids) if is_trainable(graph[i].dtype)]
        self.outputs = [k for k, i in enumerate(graph.outputs[count_c:])
                        if is_trainable(graph[i].dtype)]
        sources = ([carry_ids[k] for k in self.carries] + [x_ids[k] for k in xs]
                   + [invariant_ids[k] for k in invariants])
        full = tangents(graph, sources)
        inputs = [n.id for n in full if n.id >= len(graph) and n.kind == "input"
                  and "tangent_of" in n.meta]
        builder = GraphBuilder(full)
        found = [None if t is None else builder.symbol(t) for t in full.outputs]
        carry_tangents = [found[k] for k in self.carries]
        y_tangents = [found[count_c + k] for k in self.outputs]
        outputs = [*graph.outputs[:count_c],
                   *_filled(builder, carry_tangents, [carry_ids[k] for k in self.carries]),
                   *graph.outputs[count_c:],
                   *_filled(builder, y_tangents, [graph.outputs[count_c + k]
                                                  for k in self.outputs])]
        result = builder.graph
        result.outputs = outputs
        count_tc, count_tx = len(self.carries), len(xs)
        self.body = Body(result, [*carry_ids, *inputs[:count_tc], *x_ids,
                                  *inputs[count_tc:count_tc + count_tx], *invariant_ids,
                                  *inputs[count_tc + count_tx:]],
                         carries=count_c + count_tc, xs=count_x + count_tx)


def tangent_step(body, xs, invariants):
    """``TangentStep`` of ``body``, made once per body and positions."""
    key = ("tangent", tuple(xs), tuple(invariants))
    return body.derived(key, lambda b: TangentStep(b, xs, invariants))


def _filled(builder, found, like_ids):
    """The ids of tangents ``found``, zeros (of the node ``like_ids`` names) where none."""
    ids = []
    for tangent, like in zip(found, like_ids):
        if tangent is None:
            node = builder.graph[like]
            tangent = builder.zeros(node.shape, node.dtype)
        ids.append(builder.as_symbol(tangent).id)
    return ids
