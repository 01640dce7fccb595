"""Batching a loop: a loop of the batched body (JAX's batching rule for ``scan``).

Applying a loop to batched values (a batch of cotangents, for a whole
Jacobian at once) runs the body on batches: ``batched_body`` applies the
body's primitives to batched stand-ins of its inputs, which builds the batched
body as a graph.  A carry that starts unbatched but becomes batched in a step
(it reads a batched input) is batched from the start.
"""

from ir.autodiff.batching import Batched, unbatched
from ir.graph import Graph
from ir.loops.body import Body
from ir.symbolic import GraphBuilder, is_weak_constant


def batched_body(body, batched, size, force=()):
    """``body`` on inputs of which those flagged ``batched`` hold ``size`` values each,
    as ``(Body, flags)``: the batched body, over arrays with a leading batch axis where
    batched, and which of its outputs are batched.  A batched carry stays batched, and
    so do the outputs at the positions ``force``."""
    builder = GraphBuilder(Graph())
    values, inputs = {}, []
    for node_id, flag in zip(body.inputs, batched):
        node = body.graph[node_id]
        symbol = builder.input(((size,) if flag else ()) + node.shape, node.dtype, node.name)
        inputs.append(symbol.id)
        values[node_id] = Batched(symbol, size) if flag else symbol
    for node in body.graph:
        if node.id in values:
            continue
        if node.kind == "constant":
            values[node.id] = node.value if is_weak_constant(node) else builder.constant(node.value)
        else:
            values[node.id] = node.primitive(*[values[i] for i in node.inputs],
                                             **node.params)
    outputs = [values[o] for o in body.graph.outputs]
    for k in [k for k in body.positions.carries if batched[k]] + list(force):
        if not isinstance(outputs[k], Batched):
            outputs[k] = Batched(unbatched(outputs[k], size), size)
    flags = [isinstance(v, Batched) for v in outputs]
    graph = builder.graph
    graph.outputs = [builder.as_symbol(v.value if isinstance(v, Batched) else v).id
                     for v in outputs]
    return Body.of(graph, *body.split_inputs(inputs)), flags


def batched_loop_body(body, batched, size):
    """``batched_body`` with the carries batched as the loop needs: any carry a step
    makes batched is batched from the start.  Returns the body, the input flags and the
    output flags."""
    batched = list(batched)
    while True:
        key = ("batched", tuple(batched), size, ())
        result, flags = body.derived(key, lambda b: batched_body(b, batched, size))
        grown = [k for k in body.positions.carries if flags[k] and not batched[k]]
        if not grown:
            return result, batched, flags
        for k in grown:
            batched[k] = True


def batched_branches(true, false, batched, size):
    """Both branches of a ``cond`` batched alike: an output batched in one branch is
    batched in the other too.  Returns the two bodies and the output flags."""
    flags = [a or b for a, b in zip(batched_body(true, batched, size)[1],
                                    batched_body(false, batched, size)[1])]
    force = tuple(k for k, flag in enumerate(flags) if flag)
    bodies = [b.derived(("batched", tuple(batched), size, force),
                        lambda b: batched_body(b, batched, size, force))[0]
              for b in (true, false)]
    return bodies, flags
