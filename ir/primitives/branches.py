"""``cond``: one of two branches, chosen when the graph runs.

``cond(pred, *inputs, true, false)`` runs the body ``true`` on the inputs
where the boolean scalar ``pred`` holds, else ``false``.  A branch is a body
(``ir.loops.body.Body``) without carries or ``xs``: its inputs are the values
the two branches close over, each branch using its own.  Both branches give
results of the same shapes and dtypes, the results of the node.

Its gradient is a ``cond`` of the two branches' adjoints, each of which runs
its branch again before differentiating it (so nothing is kept per branch);
an input the taken branch does not use gets zeros, as in TensorFlow.
"""

import numpy as np

from ir.autodiff.adjoint import adjoint
from ir.loops.adjoint import new_seeds
from ir.autodiff.batching import Batched, unbatched
from ir.loops.batching import batched_branches
from ir.loops.body import Body, split_like
from ir.loops.tangents import tangent_step
from ir.primitive import AS_WRITTEN, Primitive, is_trainable
from ir.several_results import Origin, SeveralResults
from ir.primitives.results import RESULTS, Parts, pack, packed, results_of
from ir.symbolic import GraphBuilder
from ir.sizes.traced import same_size


def _cond(pred, *args, true, false):
    outputs, _ = (true if bool(pred) else false).run(list(args))
    return pack([np.asarray(v, dtype) for v, (_, dtype) in zip(outputs, true.y_types)])


def _cond_vjp(g, out, pred, *args, wanted, true, false):
    seeded = tuple(k for k in range(len(true.y_types)) if g.get(k) is not None)
    branches = [b.derived(("adjoint", seeded), lambda b: _branch_adjoint(b, seeded))
                for b in (true, false)]
    back = cond(pred, *args, *[g.get(k) for k in seeded], true=branches[0], false=branches[1])
    found = [None] * (1 + len(args))
    for k, value in zip(_trainable_inputs(true), results_of(back, branches[0].y_types)):
        found[1 + k] = value
    return found


def _trainable_inputs(branch):
    return [k for k, i in enumerate(branch.inputs) if is_trainable(branch.graph[i].dtype)]


def _branch_adjoint(branch, seeded):
    """A branch of the gradient's ``cond``: from the inputs and the seeds to the
    cotangents of the differentiable inputs (zeros where the branch does not use one)."""
    graph = branch.graph
    trainable = _trainable_inputs(branch)
    full = adjoint(graph, [graph.outputs[k] for k in seeded],
                   [branch.inputs[k] for k in trainable], seed_inputs=True)
    seeds = new_seeds(full, len(graph))
    builder = GraphBuilder(full)
    gradients = [builder.symbol(o) if o is not None else builder.zeros(graph[branch.inputs[k]].shape, graph[branch.inputs[k]].dtype)
                 for o, k in zip(full.outputs, trainable)]
    result = builder.graph
    result.outputs = [builder.as_symbol(v).id for v in gradients]
    return Body(result, [*branch.inputs, *seeds], carries=0, xs=0)


def _cond_origins(params):
    true, false = params["true"], params["false"]
    return [Origin(f"result {k}", (("true", t), ("false", f)))
            for k, (t, f) in enumerate(zip(true.graph.outputs, false.graph.outputs))]


def _cond_shape(avals, params):
    """A cond holds for every size its branches were traced at: each operand's shape is
    both branches' input's (``None``, so specialised, where one differs)."""
    for branch in (params["true"], params["false"]):
        for aval, (wanted, _) in zip(avals[1:], branch.types(branch.inputs)):
            shape = tuple(aval[0]) if isinstance(aval, tuple) else ()
            if len(shape) != len(wanted) or not all(map(same_size, shape, wanted)):
                return None
    return ()


def _cond_jvp(args, params, out, tangents):
    """The tangents of a branch's results: a ``cond`` of the branches' tangent steps."""
    pred, operands = args[0], args[1:]
    which = [k for k, t in enumerate(tangents[1:]) if t is not None]
    steps = [tangent_step(params[name], [], which) for name in ("true", "false")]
    node = cond(pred, *operands, *[tangents[1 + k] for k in which],
                true=steps[0].body, false=steps[1].body)
    results = results_of(node, steps[0].body.y_types)
    _, tangents_of_results = split_like(results, params["true"].ys)
    return Parts(dict(zip(steps[0].outputs, tangents_of_results)))


def _batch_cond(prim, args, params, size):
    """A ``cond`` of the batched branches; a batch of predicates is not supported."""
    pred, operands = args[0], args[1:]
    if isinstance(pred, Batched):
        raise NotImplementedError("cond whose predicate differs across a batch (tapegen "
                                  "batches cotangents and tangents, never predicates)")
    flags = [isinstance(a, Batched) for a in operands]
    (true, false), outputs = batched_branches(params["true"], params["false"], flags, size)
    node = cond(pred, *[unbatched(a, size) if f else a for a, f in zip(operands, flags)],
                true=true, false=false)
    results = results_of(node, true.y_types)
    return Batched(packed(*[r if f else unbatched(r, size) for r, f in zip(results, outputs)]),
                   size)


cond = Primitive("cond", _cond, abstract=lambda avals, params: ((), RESULTS),
                 shape_rule=_cond_shape,
                 complex_rules=AS_WRITTEN, value_name="branch", results=SeveralResults(
                     types=lambda graph, node: node.params["true"].y_types,
                     bodies=("true", "false"), origins=_cond_origins,
                     arguments=lambda params: {name: [1 + k for k in range(len(params[name].inputs))]
                                               for name in ("true", "false")},
                     decided_by=lambda params, positions, reached, reach: 0 in positions),
                 joint_vjp=_cond_vjp, jvp=_cond_jvp, batch=_batch_cond)
