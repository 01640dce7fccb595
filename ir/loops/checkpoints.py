"""Checkpointed scans: what the forward loop keeps for the reverse one, traded for time.

``checkpoint=None`` keeps every value the reverse step reads, for every step.
``"recompute"`` keeps only each step's carries; the reverse step runs the
forward step again from them.  An integer ``k`` splits the loop into segments
of ``k`` steps: an outer scan over the segments keeps only the carries at
their starts and, in reverse, runs one segment again (keeping what its reverse
steps read), then goes back through it.  Memory then grows as ``T / k + k``
steps' worth, not ``T``.
"""

from ir.graph import Graph
from ir.loops.adjoint import reverse_step
from ir.loops.body import Body
from ir.primitive import shape_of
from ir.primitives.loops import scan, scan_types
from ir.primitives.results import results_of
from ir.primitives.shape import concatenate, getitem, reshape
from ir.symbolic import GraphBuilder


def checkpointed_scan(args, body, length, reverse, checkpoint):
    """The results of a scan of ``body`` over ``args`` (final carries, then ``ys``) kept
    as ``checkpoint`` says, and whether it keeps anything at all."""
    if checkpoint is None or checkpoint == "recompute":
        recompute = checkpoint == "recompute"
        keep = reverse_step(body, range(len(body.y_types)), recompute).keep
        loop = scan(*args, body=body, length=length, reverse=reverse, keep=keep,
                    recompute=recompute)
        carries, ys, _ = body.split_results(results_of(loop, scan_types(body, length, keep)))
        return [*carries, *ys]
    return _segmented(args, body, length, reverse, int(checkpoint))


def _segmented(args, body, length, reverse, every):
    """A scan in segments of ``every`` steps; the steps left over run first, as a scan
    of their own."""
    segments, rest = divmod(length, every)
    carries, xs, invariants = body.split_inputs(args)
    head_steps = slice(length - rest, length) if reverse else slice(0, rest)
    tail_steps = slice(0, length - rest) if reverse else slice(rest, length)
    head_ys = []
    if rest:
        head = checkpointed_scan([*carries, *[getitem(x, key=(head_steps,)) for x in xs],
                                  *invariants], body, rest, reverse, None)
        carries, head_ys, _ = body.split_results(head)
    if not segments:
        return [*carries, *head_ys]
    outer = segment_body(body, every, reverse)
    split = [reshape(getitem(x, key=(tail_steps,)),
                     shape=(segments, every, *shape_of(x)[1:])) for x in xs]
    tail = checkpointed_scan([*carries, *split, *invariants], outer, segments, reverse,
                             "recompute")
    tail_carries, tail_ys, _ = outer.split_results(tail)
    tail_ys = [reshape(y, shape=(segments * every, *shape_of(y)[2:])) for y in tail_ys]
    if rest:
        pairs = zip(tail_ys, head_ys) if reverse else zip(head_ys, tail_ys)
        tail_ys = [concatenate(first, second, axis=0) for first, second in pairs]
    return [*tail_carries, *tail_ys]


def segment_body(body, every, reverse):
    """A body that runs ``every`` steps of ``body`` as a scan, which keeps what its own
    reverse steps read: one segment of a checkpointed scan."""
    def make(body):
        builder = GraphBuilder(Graph())
        inputs = []
        for k, node_id in enumerate(body.inputs):
            node = body.graph[node_id]
            scanned = k in body.positions.xs
            shape = (every, *node.shape) if scanned else node.shape
            inputs.append(builder.input(shape, node.dtype, node.name))
        results = checkpointed_scan(inputs, body, every, reverse, None)
        graph = builder.graph
        graph.outputs = [builder.as_symbol(r).id for r in results]
        return Body.of(graph, *body.split_inputs([i.id for i in inputs]))
    return body.derived(("segments", every, reverse), make)
