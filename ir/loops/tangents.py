"""The tangent of a loop body: one step of the loop and of its directional derivative.

Forward mode through a loop is a loop of Jacobian-vector products (JAX's
``scan`` JVP): the tangent step carries each differentiable carry's tangent
beside the carry, scans the tangents of ``xs`` beside them, and reads the
tangents of invariants, giving the tangents of its outputs beside them.
"""

from ir.autodiff.forward import tangents
from ir.loops.body import Body, split_like
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
        self.carries = [k for k, i in enumerate(body.carries) if is_trainable(graph[i].dtype)]
        self.outputs = [k for k, i in enumerate(body.ys) if is_trainable(graph[i].dtype)]
        carry_ids = [body.carries[k] for k in self.carries]
        sources = (carry_ids + [body.xs[k] for k in xs]
                   + [body.invariants[k] for k in invariants])
        full = tangents(graph, sources)
        inputs = [n.id for n in full if n.id >= len(graph) and n.kind == "input"
                  and "tangent_of" in n.meta]
        builder = GraphBuilder(full)
        found = [None if t is None else builder.symbol(t) for t in full.outputs]
        found_carries, found_ys, _ = body.split_results(found)
        carry_tangents = [found_carries[k] for k in self.carries]
        y_tangents = [found_ys[k] for k in self.outputs]
        outputs = [*body.new_carries, *_filled(builder, carry_tangents, carry_ids),
                   *body.ys, *_filled(builder, y_tangents, [body.ys[k] for k in self.outputs])]
        result = builder.graph
        result.outputs = outputs
        carry_inputs, x_inputs, invariant_inputs = split_like(inputs, carry_ids, xs)
        self.body = Body.of(result, [*body.carries, *carry_inputs], [*body.xs, *x_inputs],
                            [*body.invariants, *invariant_inputs])


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
