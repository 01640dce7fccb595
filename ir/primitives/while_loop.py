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
from ir.loops.body import Body, positions_like, split_like
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


def while_arguments(test, body, values):
    """``values``, one per argument of a while loop, by role: the carries, the test's own
    invariants (its inputs after the carries' values), the body's invariants."""
    carries, rest = split_like(values, body.carries)
    _, test_invariants = split_like(test.inputs, body.carries)
    return (carries, *split_like(rest, test_invariants))


def _argument_positions(test, body):
    """The positions of a while loop's arguments by role (see ``while_arguments``)."""
    _, test_invariants = split_like(test.inputs, body.carries)
    return positions_like(body.carries, test_invariants, body.invariants)


def while_results(body, values):
    """``values``, one per result of a while loop, by role: the final carries, the number
    of steps taken, the kept values' stacks."""
    finals, (steps, *stacks) = split_like(values, body.carries)
    return finals, steps, stacks


def while_result_positions(body, keep):
    """The positions of a while loop's results by role (see ``while_results``)."""
    finals, steps, kept = positions_like(body.carries, ("number of steps",), keep)
    return finals, steps[0], kept


def _while(*args, test, body, maximum, keep, trips):
    carries, test_invariants, invariants = map(list, while_arguments(test, body, args))
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
    carries, test_invariants, invariants = while_arguments(test, body, args)
    carry_positions, _, invariant_positions = _argument_positions(test, body)
    loop_positions = {p: k for k, p in enumerate([*carry_positions, *invariant_positions])}
    extended = body.with_outputs(keep)  # the kept values are outputs too, at higher order

    def kept_values(wanted):
        # The first carry's per-step values are wanted too: their leading size is the
        # number of steps the reverse loop runs.
        ids = (*wanted, body.carries[0])
        if all(i in keep for i in ids):
            source, kept = out, keep
        else:
            kept = tuple(dict.fromkeys(ids))
            source = while_loop(*args, test=test, body=body, maximum=maximum, keep=kept,
                                trips=trips)
        results = results_of(source, while_types(body, kept, trips))
        stacked = while_results(body, results)[2]
        stacks = [stacked[kept.index(i)] for i in ids]
        # Scanned too, so that the reverse loop runs as many steps as this run took,
        # whatever reads it (generated code counts the steps of what it scans).
        return stacks, shape_of(stacks[-1])[0]

    finals, _, stacks = while_result_positions(body, keep)
    found = reverse_loop([g.get(k) for k in finals], [g.get(k) for k in stacks],
                         kept_values, [*carries, *invariants], extended, False,
                         wanted={loop_positions[p] for p in wanted if p in loop_positions})
    found_carries, _, found_invariants = body.split_inputs(found)
    return [*found_carries, *[None] * len(test_invariants), *found_invariants]


def _while_origins(params):
    body, keep = params["body"], params["keep"]
    return ([Origin(f"final carry {k}", (("body", i),))
             for k, i in enumerate(body.new_carries)]
            + [Origin("number of steps taken", ())]
            + [Origin("per-step value kept for the gradient", (("body", i),)) for i in keep])


def _while_arguments(params):
    test, body = params["test"], params["body"]
    carries, test_invariants, invariants = _argument_positions(test, body)
    return {"test": [*carries, *test_invariants], "body": [*carries, *invariants]}


def _decides_steps(params, positions, reached, reach):
    """Whether the arguments at ``positions`` reach the test: directly, or through a
    carry the body computes from them."""
    test, body = params["test"], params["body"]
    carry_values, _ = split_like(test.inputs, body.carries)
    inputs = {i for k, i in enumerate(test.inputs) if k in positions}
    inputs |= {i for i, j in zip(carry_values, body.carries) if j in reached["body"]}
    return test.graph.outputs[0] in reach(test.graph, inputs, differentiable=False)


def _while_shape(avals, params):
    """A while loop holds for every size its test and body were traced at: each
    argument's shape is its test's or body's input's (``None``, so specialised, where
    one differs)."""
    test, body = params["test"], params["body"]
    _, test_invariants = split_like(test.inputs, body.carries)
    wanted = (body.types(body.carries) + test.types(test_invariants)
              + body.types(body.invariants))
    for aval, (shape, _) in zip(avals, wanted):
        given = tuple(aval[0]) if isinstance(aval, tuple) else ()
        if len(given) != len(shape) or not all(map(same_size, given, shape)):
            return None
    return ()


def _while_jvp(args, params, out, tangents):
    """The tangents of a while loop's results: a while loop of the body's tangent step,
    tested on the carries alone."""
    test, body, keep = params["test"], params["body"], params["keep"]
    carry_tangents, _, invariant_tangents = while_arguments(test, body, tangents)
    invariants = [k for k, t in enumerate(invariant_tangents) if t is not None]
    step = tangent_step(body.with_outputs(keep), [], invariants)
    graph = step.body.graph.copy()
    graph.outputs = list(step.body.new_carries)
    _, kept_tangents = split_like(step.body.ys, keep)
    _, tangent_carries = split_like(step.body.carries, body.carries)
    carry_types = body.carry_types
    carries, test_invariants, body_invariants = while_arguments(test, body, args)
    node = while_loop(*carries, *[or_zeros(carry_tangents[k], *carry_types[k], like=carries[k])
                                  for k in step.carries],
                      *test_invariants, *body_invariants,
                      *[invariant_tangents[k] for k in invariants],
                      test=_with_unused_inputs(test, body.carries,
                                               step.body.types(tangent_carries)),
                      body=Body.of(graph, step.body.carries, (), step.body.invariants),
                      maximum=params["maximum"], keep=tuple(kept_tangents),
                      trips=params["trips"])
    results = results_of(node, while_types(step.body, kept_tangents, params["trips"]))
    finals, _, stacks = while_results(step.body, results)
    _, final_tangents = split_like(finals, body.carries)
    _, _, kept_positions = while_result_positions(body, keep)
    parts = dict(zip(step.carries, final_tangents))
    parts.update({kept_positions[k]: t for k, t in zip(step.outputs, stacks)})
    return Parts(parts)


def _with_unused_inputs(test, carries, types):
    """``test`` taking inputs of ``types`` it does not read, after the values of the
    ``carries``."""
    key = ("unused inputs", len(carries), tuple(types))

    def make(test):
        graph = test.graph.copy()
        unused = [graph.add_node("input", "input", (), {}, shape, dtype).id
                  for shape, dtype in types]
        carry_values, test_invariants = split_like(test.inputs, carries)
        return Body(graph, [*carry_values, *unused, *test_invariants], carries=0, xs=0)
    return test.derived(key, make)


def _batch_while(prim, args, params, size):
    """A while loop of the batched body, tested on the carries; a batch of conditions
    (steps that would differ across the batch) is not supported."""
    test, body, keep = params["test"], params["body"], params["keep"]
    carry_flags, test_flags, invariant_flags = while_arguments(
        test, body, [isinstance(a, Batched) for a in args])
    extended = body.with_outputs(keep)
    batched, inputs, outputs = batched_loop_body(extended, [*carry_flags, *invariant_flags],
                                                 size)
    batched_carries, _, batched_invariants = batched.split_inputs(inputs)
    tested, tested_flags = batched_body(test, [*batched_carries, *test_flags], size)
    if tested_flags[0]:
        raise NotImplementedError("a while loop whose condition differs across a batch "
                                  "(tapegen batches cotangents and tangents, never conditions)")
    graph = batched.graph.copy()
    graph.outputs = list(batched.new_carries)
    kept = tuple(batched.ys)
    flags = [*batched_carries, *test_flags, *batched_invariants]
    node = while_loop(*[unbatched(a, size) if f else a for a, f in zip(args, flags)],
                      test=tested, body=Body.of(graph, batched.carries, (), batched.invariants),
                      maximum=params["maximum"], keep=kept, trips=params["trips"])
    results = results_of(node, while_types(batched, kept, params["trips"]))
    carry_outputs, kept_outputs, _ = batched.split_results(outputs)
    flags = [*carry_outputs, False, *kept_outputs]
    _, _, stacked = while_result_positions(batched, kept)
    arrays = [swap_leading(r) if k in stacked and flags[k] else r for k, r in enumerate(results)]
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
