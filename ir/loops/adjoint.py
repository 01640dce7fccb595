"""The adjoint of a loop body: one reverse step, and the per-step values it reads.

Differentiating a scan runs a reverse scan whose body is the adjoint of the
forward body (JAX's ``scan`` transpose; TensorFlow's ``while`` gradient).  The
adjoint graph of the body holds the forward nodes and, after them, the nodes
that compute the cotangents.  Those read some forward values: per-step ones
(the carries a step starts from, the values its rules read) are stacked by the
forward loop and scanned by the reverse one, slices of ``xs`` are scanned
again, loop invariants and constants are used as they are.

A reverse step's carries are the cotangents of the forward carries and a sum
per differentiable invariant; its scanned inputs are the cotangents of the
forward step's outputs, the stacked values and the ``xs`` it reads; its
outputs are the cotangents of the previous carries, the sums, and the
cotangents of the step's ``xs``.
"""

from ir.autodiff.adjoint import adjoint
from ir.graph import NODE_REFERENCES, Graph
from ir.loops.body import Body, split_like
from ir.loops.reach import reached_over_steps
from ir.optimize.passes import optimize_body
from ir.primitive import is_trainable
from ir.primitives.elementwise import add
from ir.primitives.results import result
from ir.symbolic import GraphBuilder


class ReverseStep:
    """A body's reverse step and how its inputs and outputs map onto the forward loop's.

    ``carries``, ``xs``, ``invariants``, ``outputs``: positions (within the forward
    carries, xs, invariants and outputs) of the differentiable ones; ``keep``:
    forward node ids whose per-step values the reverse step reads (the forward
    loop stacks them); ``xs_read``, ``invariants_read``: positions of the
    forward ``xs`` and invariants it reads.
    """

    def __init__(self, body, seeded, recompute=False, wanted=None):
        graph = body.graph
        wanted = set(range(len(body.inputs)) if wanted is None else wanted)
        _, wanted_x, wanted_invariants = body.split_positions(wanted)
        carried = _carried_cotangents(body, wanted)
        trainable = [k for k, i in enumerate(body.carries)
                     if k in carried and is_trainable(graph[i].dtype)]
        self.carries = trainable
        self.xs = [k for k, i in enumerate(body.xs)
                   if k in wanted_x and is_trainable(graph[i].dtype)]
        self.invariants = [k for k, i in enumerate(body.invariants)
                           if k in wanted_invariants and is_trainable(graph[i].dtype)]
        self.outputs = [k for k in seeded if is_trainable(graph[body.ys[k]].dtype)]
        targets = [body.new_carries[k] for k in trainable] + [body.ys[k] for k in self.outputs]
        sources = ([body.carries[k] for k in trainable] + [body.xs[k] for k in self.xs]
                   + [body.invariants[k] for k in self.invariants])
        full = adjoint(graph, targets, sources, seed_inputs=True)
        self._split(body, full, targets, recompute)

    def _split(self, body, full, targets, recompute):
        """The reverse step as its own graph: the adjoint nodes, reading the forward
        values they need through new inputs."""
        forward = len(body.graph)
        seeds = new_seeds(full, forward)
        assert len(seeds) == len(targets)
        alias = _forward_projections(full, forward)
        reads = _forward_reads(full, forward, alias)
        # What does not change from step to step is computed again in the reverse step
        # (once, before its loop, after hoisting), not stacked per step.
        steady = {i for i in reads if full[i].kind == "op"} - _step_dependent(body, forward)
        recomputed = _upstream_ops(full, reads if recompute else steady, forward)
        reads = (reads - recomputed) | {i for j in recomputed for i in full[j].inputs
                                       if i not in recomputed}
        self.keep = tuple(i for i in sorted(reads) if full[i].kind == "op"
                          or (full[i].kind == "input" and i in body.carries))
        self.xs_read = [body.xs.index(i) for i in sorted(reads) if i in body.xs]
        self.invariants_read = [body.invariants.index(i) for i in sorted(reads)
                                if i in body.invariants]
        graph = Graph()
        new = {}
        carry_seeds, output_seeds = split_like(seeds, self.carries)
        for i, k in zip(carry_seeds, self.carries):
            new[i] = _input_like(graph, full[i], _cotangent_name(body.graph[body.inputs[k]]))
        sums = [_input_like(graph, node, _cotangent_name(node))
                for node in (body.graph[body.invariants[k]] for k in self.invariants)]
        for i in output_seeds:
            new[i] = _input_like(graph, full[i], "d_y")
        read_xs = [body.xs[k] for k in self.xs_read]
        read_invariants = [body.invariants[k] for k in self.invariants_read]
        for i in [*self.keep, *read_xs, *read_invariants]:
            new[i] = _input_like(graph, full[i])
        carries = [*(new[i] for i in carry_seeds), *sums]
        scanned = [new[i] for i in [*output_seeds, *self.keep, *read_xs]]
        invariants = [new[i] for i in read_invariants]
        for node in full:
            if node.id in alias:
                if alias[node.id] in new:  # (a result nothing reads is left out)
                    new[node.id] = new[alias[node.id]]
            elif node.id >= forward and node.id not in new:
                new[node.id] = _copy(graph, node, new, full)
            elif node.id in recomputed or (node.id < forward and node.kind == "constant"
                                           and node.id in reads):
                new[node.id] = _copy(graph, node, new)
        graph = self._add_outputs(body, full, graph, new, sums)
        self.body = optimize_body(Body.of(graph, carries, scanned, invariants))[0]

    def _add_outputs(self, body, full, graph, new, sums):
        """The step's graph with its outputs: the previous carries' cotangents, the sums,
        then the cotangents of the ``xs``; zeros where no gradient reaches."""
        builder = GraphBuilder(graph)
        gradients = [None if g is None else builder.symbol(new[g]) for g in full.outputs]
        carry_gradients, x_gradients, invariant_gradients = split_like(gradients, self.carries,
                                                                       self.xs)
        carry_ids = [body.carries[k] for k in self.carries]
        outputs = [builder.zeros(full[i].shape, full[i].dtype) if g is None else g
                   for g, i in zip(carry_gradients, carry_ids)]
        for total, gradient in zip(sums, invariant_gradients):
            total = builder.symbol(total)
            if gradient is not None:
                total = add(total, gradient)
                builder.graph[total.id].meta.update(adjoint_of=None, adjoint_role="total")
            outputs.append(total)
        x_ids = [body.xs[k] for k in self.xs]
        outputs += [builder.zeros(full[i].shape, full[i].dtype) if g is None else g
                    for g, i in zip(x_gradients, x_ids)]
        builder.graph.outputs = [builder.as_symbol(o).id for o in outputs]
        return builder.graph


def _carried_cotangents(body, wanted):
    """The carries whose cotangents a reverse loop giving those of the inputs at positions
    ``wanted`` must carry: the wanted ones, and each carry computed (at this step or an
    earlier one) from a wanted input.  The cotangent of any other reaches nothing wanted."""
    reached = reached_over_steps(body, {body.inputs[k] for k in wanted})
    return {k for k, i in enumerate(body.new_carries) if k in wanted or i in reached}


def reverse_step(body, seeded, recompute=False, wanted=None):
    """The reverse step of ``body`` given cotangents of the outputs at ``seeded``
    positions, giving those of the inputs at the positions ``wanted`` (every one, if
    ``None``); made once per body and positions.  With ``recompute`` it runs the
    forward step again from the step's carries instead of reading what the forward
    loop kept of it: only the carries are kept."""
    wanted = None if wanted is None else tuple(sorted(wanted))
    key = ("reverse", tuple(seeded), recompute, wanted)
    return body.derived(key, lambda b: ReverseStep(b, seeded, recompute, wanted))


def _step_dependent(body, forward):
    """The forward nodes computed from a carry or an ``xs`` slice: those that can change
    from step to step."""
    found = {*body.carries, *body.xs}
    for node in body.graph:
        if node.id < forward and any(i in found for i in node.inputs):
            found.add(node.id)
    return found


def _upstream_ops(full, reads, forward):
    """The forward op nodes among ``reads`` and every forward op they are computed from.
    A node with several results comes with every result node, as it always does."""
    results = {}
    for node in full:
        if node.primitive is result and node.id < forward:
            results.setdefault(node.inputs[0], []).append(node.id)
    found, pending = set(), [i for i in reads if full[i].kind == "op"]
    while pending:
        node_id = pending.pop()
        if node_id not in found:
            found.add(node_id)
            pending.extend(i for i in full[node_id].inputs if full[i].kind == "op")
            pending.extend(results.get(node_id, ()))
    return found


def new_seeds(full, forward):
    """The seed inputs ``adjoint`` added to a graph of ``forward`` nodes, one per target in
    order (the graph's own inputs may be seeds of an earlier adjoint)."""
    return [n.id for n in full if n.id >= forward and n.kind == "input" and "seed_of" in n.meta]


def _forward_projections(full, forward):
    """``{adjoint node: forward node}`` for each result that a rule reads of a forward node
    with several results (an inner loop's kept values): the forward body reads the same
    result, and it is that per-step value the reverse step needs, not the whole node."""
    forward_results = {(n.inputs[0], n.params["index"]): n.id for n in full
                       if n.id < forward and n.primitive is result}
    alias = {}
    for node in full:
        if node.id >= forward and node.primitive is result and node.inputs[0] < forward:
            alias[node.id] = forward_results[node.inputs[0], node.params["index"]]
    return alias


def _forward_reads(full, forward, alias):
    """Forward node ids that the adjoint nodes (or the gradients) read."""
    reads = set()
    for node in full:
        if node.id >= forward and node.id not in alias:
            reads.update(alias.get(i, i) for i in node.inputs if alias.get(i, i) < forward)
    reads.update(alias.get(o, o) for o in full.outputs if o is not None and alias.get(o, o) < forward)
    return reads


def _input_like(graph, node, name=None):
    """An input standing for ``node``'s value, named ``name``, else as ``node`` is or by
    what computes it (a kept ``tanh`` stays ``tanh``)."""
    if name is None and node.name is None and node.kind == "op":
        name = node.primitive.name_for_value(node.params)
    return graph.add_node("input", "input", (), {}, node.shape, node.dtype,
                          name=name or node.name).id


def _cotangent_name(node):
    """What the reverse step calls the cotangent of a forward value: ``d_`` and its name."""
    return f"d_{node.name or 'value'}"


def _copy(graph, node, new, forward=None):
    """``node`` copied into ``graph``, its inputs renumbered by ``new``; the forward node
    an adjoint node differentiates is not in the reverse step, so its line is kept."""
    meta = {k: v for k, v in node.meta.items() if k not in NODE_REFERENCES}
    of = node.meta.get("adjoint_of")
    if of is not None and forward is not None and forward[of].source is not None:
        meta.update(adjoint_of=None, adjoint_source=forward[of].source)
    return graph.add_node(node.kind, node.primitive or node.op, [new[i] for i in node.inputs],
                          node.params, node.shape, node.dtype, name=node.name,
                          source=node.source, value=node.value, meta=meta).id
