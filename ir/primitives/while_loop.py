"""``while_loop``: a loop whose values decide how many steps it runs.

``while_loop(*carries, *test_invariants, *invariants, test, body, maximum,
keep, trips)`` runs ``body`` while ``test`` holds: a body without carries whose
inputs are the carries' values then its own invariants, and whose one output
is a boolean.  It runs at most ``maximum`` times (``None``:
no bound).  Its results are the final carries, the number of steps taken,
and the per-step values of the body nodes ``keep``, stacked.  ``trips`` is
the number of steps the recorded run took: the stacked values' leading size
in the graph.

Reverse mode needs no bound on the steps, as in TensorFlow and unlike JAX:
the forward run stacks what the reverse step reads, and the gradient is a
reverse scan over as many steps as were taken.
"""

import numpy as np

from ir.autodiff.batching import Batched, unbatched
from ir.loops.batching import batched_body, batched_loop_body
from ir.loops.body import Body
from ir.loops.tangents import tangent_step
from ir.primitive import AS_WRITTEN, Primitive, shape_of
from ir.several_results import Origin, SeveralResults
from ir.primitives.loops import or_zeros, reverse_loop, swap_leading
from ir.primitives.results import RESULTS, Parts, pack, packed, results_of
from ir.sizes.traced import same_size


def while_types(body, keep, trips):
    """``(shape, dtype)`` of each result of a while loop."""
    steps = [((), np.dtype(np.int64))]
    return body.carry_types + steps + [((trips, *shape), dtype)
                                       for shape, dtype in body.types(keep)]


def _while(*args, test, body, maximum, keep, trips):
    count = body.carries
    carries = list(args[:count])
    test_invariants = list(args[count:len(test.inputs)])
    invariants = list(args[len(test.inputs):])
    kept = [[] for _ in keep]
    steps = 0
    while (maximum is None or steps < maximum) and bool(test.run(carries + test_invariants)[0][0]):
        carries, values = body.run(carries + invariants, keep)
        for stack, value in zip(kept, values):
            stack.append(value)
        steps += 1
    stacks = [np.stack(stack) if stack else np.empty((0, *shape), dtype)
              for stack, (shape, dtype) in zip(kept, body.types(keep))]
    finals = [np.asarray(c, dtype) for c, (_, dtype) in zip(carries, body.carry_types)]
    return pack(finals + [np.asarray(steps, np.int64)] + stacks)


def _while_vjp(g, out, *args, wanted, test, body, maximum, keep, trips):
    """The cotangents of the initial carries and the body's invariants (those ``wanted``):
    a reverse scan over the steps taken, of the values the forward run stacked."""
    count, first = body.carries, len(test.inputs)
    loop_args = [*args[:count], *args[first:]]
    extended = body.with_outputs(keep)  # the kept values are outputs too, at higher order

    def kept_values(wanted):
        # The first carry's per-step values are wanted too: their leading size is the
        # number of steps the reverse loop runs.
        ids = (*wanted, body.inputs[0])
        if all(i in keep for i in ids):
            source, kept = out, keep
        else:
            kept = tuple(dict.fromkeys(ids))
            source = while_loop(*args, test=test, body=body, maximum=maximum, keep=kept,
                                trips=trips)
        results = results_of(source, while_types(body, kept, trips))
        stacks = [results[count + 1 + kept.index(i)] for i in ids]
        # Scanned too, so that the reverse loop runs as many steps as this run took,
        # whatever reads it (generated code counts the steps of what it scans).
        return stacks, shape_of(stacks[-1])[0]

    found = reverse_loop([g.get(k) for k in range(count)],
                         [g.get(count + 1 + k) for k in range(len(keep))],
                         kept_values, loop_args, extended, False,
                         wanted={p if p < count else p - first + count for p in wanted
                                 if p < count or p >= first})
    return [*found[:count], *[None] * (first - count), *found[count:]]


def _while_origins(params):
    body, keep = params["body"], params["keep"]
    outputs = body.graph.outputs
    return ([Origin(f"final carry {k}", (("body", i),))
             for k, i in enumerate(outputs[:body.carries])]
            + [Origin("number of steps taken", ())]
            + [Origin("per-step value kept for the gradient", (("body", i),)) for i in keep])


def _while_arguments(params):
    test, body = params["test"], params["body"]
    first = len(test.inputs)
    return {"test": list(range(first)),
            "body": [*range(body.carries), *range(first, first + body.invariants)]}


def _decides_steps(params, positions, reached, reach):
    """Whether the arguments at ``positions`` reach the test: directly, or through a
    carry the body computes from them."""
    test, body = params["test"], params["body"]
    count = body.carries
    inputs = {i for k, i in enumerate(test.inputs)
              if k in positions or (k < count and body.inputs[k] in reached["body"])}
    return test.graph.outputs[0] in reach(test.graph, inputs, differentiable=False)


def _while_shape(avals, params):
    """A while loop holds for every size its test and body were traced at: each
    argument's shape is its test's or body's input's (``None``, so specialised, where
    one differs)."""
    test, body = params["test"], params["body"]
    count = body.carries
    wanted = (body.types(body.inputs[:count]) + test.types(test.inputs[count:])
              + body.types(body.inputs[count:]))
    for aval, (shape, _) in zip(avals, wanted):
        given = tuple(aval[0]) if isinstance(aval, tuple) else ()
        if len(given) != len(shape) or not all(map(same_size, given, shape)):
            return None
    return ()


def _while_jvp(args, params, out, tangents):
    """The tangents of a while loop's results: a while loop of the body's tangent step,
    tested on the carries alone."""
    test, body, keep = params["test"], params["body"], params["keep"]
    count, first = body.carries, len(test.inputs)
    invariants = [k for k in range(body.invariants) if tangents[first + k] is not None]
    step = tangent_step(body.with_outputs(keep), [], invariants)
    count_t = len(step.carries)
    graph = step.body.graph.copy()
    graph.outputs = graph.outputs[:count + count_t]
    kept_tangents = tuple(step.body.graph.outputs[count + count_t + len(keep):])
    carry_types = body.carry_types
    node = while_loop(*args[:count], *[or_zeros(tangents[k], *carry_types[k], like=args)
                                       for k in step.carries],
                      *args[count:], *[tangents[first + k] for k in invariants],
                      test=_with_unused_inputs(test, count, step.body.types(
                          step.body.inputs[count:count + count_t])),
                      body=Body(graph, step.body.inputs, carries=count + count_t, xs=0),
                      maximum=params["maximum"], keep=kept_tangents, trips=params["trips"])
    results = results_of(node, while_types(step.body, kept_tangents, params["trips"]))
    parts = dict(zip(step.carries, results[count:count + count_t]))
    parts.update({count + 1 + k: t for k, t in zip(step.outputs, results[count + count_t + 1:])})
    return Parts(parts)


def _with_unused_inputs(test, position, types):
    """``test`` taking inputs of ``types`` it does not read, from ``position`` on."""
    key = ("unused inputs", position, tuple(types))

    def make(test):
        graph = test.graph.copy()
        unused = [graph.add_node("input", "input", (), {}, shape, dtype).id
                  for shape, dtype in types]
        inputs = [*test.inputs[:position], *unused, *test.inputs[position:]]
        return Body(graph, inputs, carries=0, xs=0)
    return test.derived(key, make)


def _batch_while(prim, args, params, size):
    """A while loop of the batched body, tested on the carries; a batch of conditions
    (steps that would differ across the batch) is not supported."""
    test, body, keep = params["test"], params["body"], params["keep"]
    count, first = body.carries, len(test.inputs)
    flags = [isinstance(a, Batched) for a in args]
    extended = body.with_outputs(keep)
    batched, inputs, outputs = batched_loop_body(extended, flags[:count] + flags[first:], size)
    tested, tested_flags = batched_body(test, inputs[:count] + flags[count:first], size)
    if tested_flags[0]:
        raise NotImplementedError("a while loop whose condition differs across a batch "
                                  "(tapegen batches cotangents and tangents, never conditions)")
    graph = batched.graph.copy()
    graph.outputs = graph.outputs[:count]
    kept = tuple(batched.graph.outputs[count:])
    flags = inputs[:count] + flags[count:first] + inputs[count:]
    node = while_loop(*[unbatched(a, size) if f else a for a, f in zip(args, flags)],
                      test=tested, body=Body(graph, batched.inputs, count, 0),
                      maximum=params["maximum"], keep=kept, trips=params["trips"])
    results = results_of(node, while_types(batched, kept, params["trips"]))
    flags = [*outputs[:count], False, *outputs[count:]]
    arrays = [swap_leading(r) if k > count and flags[k] else r for k, r in enumerate(results)]
    return Batched(packed(*[a if f else unbatched(a, size) for a, f in zip(arrays, flags)]),
                   size)


while_loop = Primitive(
    "while_loop", _while, abstract=lambda avals, params: ((), RESULTS), shape_rule=_while_shape,
    complex_rules=AS_WRITTEN, value_name="loop", results=SeveralResults(
        types=lambda graph, node: while_types(node.params["body"], node.params["keep"],
                                              node.params["trips"]),
        bodies=("test", "body"), node_lists={"keep": "body"}, origins=_while_origins,
        arguments=_while_arguments, feeds_back=("body",),
        ran_no_steps=lambda params: params["trips"] == 0, decided_by=_decides_steps),
    joint_vjp=_while_vjp, jvp=_while_jvp, batch=_batch_while)
