"""Loops that stay loops: ``scan``, one node whose params hold its body.

``scan(*carries, *xs, *invariants, body, length, reverse, keep, recompute)`` runs
``body`` (``ir.loops.body.Body``) ``length`` times: each step maps the carries,
one slice of each ``xs`` along its leading axis (from the last when
``reverse``) and the invariants to new carries and the step's outputs.  Its
results (``ir.primitives.results``) are the final carries, the outputs stacked
along a new leading axis, then the per-step values of the body nodes ``keep``,
stacked the same way: what the reverse loop of its gradient reads.

Its gradient is a reverse scan of the body's reverse step
(``ir.loops.adjoint``).  A scan recorded with the values that step reads kept
gives them to it; otherwise the rule runs the loop again, keeping them.  With
``recompute`` the reverse step runs each forward step again from its carry,
so only the carries need keeping.
"""

import numpy as np

from ir.loops.adjoint import reverse_step
from ir.optimize.passes import optimize_to_run
from ir.primitive import AS_WRITTEN, Primitive, dtype_of, shape_of
from ir.several_results import Origin, SeveralResults
from ir.symbolic import GraphBuilder, Symbol
from ir.autodiff.batching import Batched, unbatched
from ir.evaluate import evaluate
from ir.loops.body import Body, split_like
from ir.graph import Graph
from ir.loops.batching import batched_loop_body
from ir.loops.tangents import tangent_step
from ir.loops.twins import twin_of
from ir.primitives.results import RESULTS, Parts, pack, packed, results_of
from ir.primitives.elementwise import zeros_like
from ir.primitives.shape import transpose
from ir.sizes.shape_rules import has_sizes
from ir.sizes.traced import TracedSize, holds_sizes, same_size
from ir.sizes.guards import decide


def scan_types(body, length, keep):
    """``(shape, dtype)`` of each result of a scan."""
    def along(types):
        return [((length, *shape), dtype) for shape, dtype in types]
    return body.carry_types + along(body.y_types) + along(body.types(keep))


def _scan(*args, body, length, reverse, keep, recompute):
    if body.xs:  # the xs' own length: a while loop's steps, scanned back, vary by run
        length = len(body.split_inputs(args).xs[0])
    carries, stacks = body.scan(args, length, reverse, keep)
    finals = [np.asarray(c, dtype) for c, (_, dtype) in zip(carries, body.carry_types)]
    return pack(finals + stacks)


def _scan_vjp(g, out, *args, wanted, body, length, reverse, keep, recompute):
    """The cotangents of the carries' initial values, the ``xs`` and the invariants (those
    at the positions ``wanted``; ``None`` for the others)."""
    carries, ys, kept = body.result_positions(keep)
    # The kept values are outputs too, with cotangents at higher orders only.
    kept_seeded = any(g.get(k) is not None for k in kept)
    extended = body.with_outputs(keep) if kept_seeded else body
    return reverse_loop([g.get(k) for k in carries],
                        [g.get(k) for k in ([*ys, *kept] if kept_seeded else ys)],
                        lambda wanted: (_kept_values(out, args, body, length, reverse, keep,
                                                     wanted), length),
                        args, extended, reverse, recompute, wanted)


def reverse_loop(carry_cotangents, output_cotangents, kept_values, args, body, reverse,
                 recompute=False, wanted=None):
    """The cotangents of a loop's inputs (initial carries, ``xs``, invariants) given those
    of its final carries and stacked outputs (``None`` where there is none): a reverse
    scan of the body's reverse step.  ``kept_values(ids)`` gives the per-step values of
    the body nodes ``ids``, stacked, and the number of steps.  With ``recompute`` the
    reverse step runs each forward step again from its carries.  Only the inputs at the
    positions ``wanted`` (every one, if ``None``) get a cotangent."""
    step = reverse_step(body, [k for k, g in enumerate(output_cotangents) if g is not None],
                        recompute, wanted)
    stacks, length = kept_values(step.keep)
    if len(stacks) > len(step.keep):  # scanned only for their number of steps
        step_body = _with_unread_xs(step.body, [(tuple(shape_of(v))[1:], dtype_of(v))
                                                for v in stacks[len(step.keep):]])
    else:
        step_body = step.body
    carry_types, invariant_types = body.carry_types, body.types(body.invariants)
    carry_args, xs_given, invariants_given = body.split_inputs(args)
    cotangents = [or_zeros(carry_cotangents[k], *carry_types[k], like=carry_args[k])
                  for k in step.carries]
    sums = [or_zeros(None, *invariant_types[k], like=invariants_given[k])
            for k in step.invariants]
    seeds = [output_cotangents[k] for k in step.outputs]
    xs = [xs_given[k] for k in step.xs_read]
    invariants = [invariants_given[k] for k in step.invariants_read]
    extra = stacks[len(step.keep):]
    results = _reverse_scan([*cotangents, *sums, *seeds, *stacks[:len(step.keep)], *xs, *extra,
                             *invariants], step_body, length, not reverse)
    found = [None] * len(args)
    carry_positions, x_positions, invariant_positions = body.positions
    to_carries, to_invariants, to_xs, _ = split_like(results, step.carries, step.invariants,
                                                     step.xs)
    for positions, within, values in ((carry_positions, step.carries, to_carries),
                                      (invariant_positions, step.invariants, to_invariants),
                                      (x_positions, step.xs, to_xs)):
        for k, value in zip(within, values):
            found[positions[k]] = value
    return found


def _with_unread_xs(body, types):
    """``body`` scanning, after its own ``xs``, slices of ``types`` it does not read."""
    def make(body):
        graph = body.graph.copy()
        unread = [graph.add_node("input", "input", (), {}, shape, dtype, name="steps").id
                  for shape, dtype in types]
        return Body.of(graph, body.carries, [*body.xs, *unread], body.invariants)
    return body.derived(("unread xs", tuple(types)), make)


def _reverse_scan(args, body, length, reverse):
    """The results of the reverse loop on ``args``.  Building a graph, it is a scan node
    (the optimiser works on it with the rest), as it is where a tracer records its symbolic
    twin too (``ir.loops.twins``); run on values, it runs the scan's optimised graph, as
    generated code would (outer products gathered after the loop, and so on)."""
    if twin_of(body) is not None or any(isinstance(a, (Batched, Symbol)) for a in args):
        back = scan(*args, body=body, length=length, reverse=reverse, keep=(), recompute=False)
        return results_of(back, scan_types(body, length, ()))
    types = tuple((tuple(shape_of(a)), np.dtype(dtype_of(a))) for a in args)
    graph, inputs = body.derived(("reverse loop", length, reverse, types),
                                 lambda b: _optimised_scan(b, length, reverse, types))
    return evaluate(graph, dict(zip(inputs, args)))


def _optimised_scan(body, length, reverse, types):
    """A graph of one scan of ``body`` over inputs of ``types``, optimised, and the ids of
    its inputs (kept, though the optimiser might find one unread)."""
    builder = GraphBuilder(Graph())
    inputs = [builder.input(shape, dtype, f"argument_{k}") for k, (shape, dtype) in enumerate(types)]
    loop = scan(*inputs, body=body, length=length, reverse=reverse, keep=(), recompute=False)
    results = results_of(loop, scan_types(body, length, ()))
    graph = builder.graph
    graph.outputs = [r.id for r in results] + [i.id for i in inputs]
    graph = optimize_to_run(graph)
    ids = graph.outputs[len(results):]
    graph.outputs = graph.outputs[:len(results)]
    return graph, ids


def _kept_values(out, args, body, length, reverse, keep, wanted):
    """The stacked per-step values of the body nodes ``wanted``: read from the scan's own
    results when it kept them, else from the loop run again, keeping them."""
    if all(i in keep for i in wanted):
        source, kept = out, keep
    else:
        source = scan(*args, body=body, length=length, reverse=reverse, keep=tuple(wanted),
                      recompute=False)
        kept = tuple(wanted)
    results = results_of(source, scan_types(body, length, kept))
    stacked = body.split_results(results).kept
    return [stacked[kept.index(i)] for i in wanted]


def or_zeros(value, shape, dtype, like):
    """``value``, or zeros of ``shape`` and ``dtype`` where there is none.  ``like`` is the
    loop's argument of that type (an initial carry, an invariant): zeros of a symbolic
    shape are a node of its graph, and zeros of a tracer's tensor whose shape holds
    symbolic sizes are made like it, so that the graph recording them holds at every
    size."""
    if value is not None:
        return value
    if has_sizes([(tuple(shape), dtype)], {}):
        return like.builder.zeros(shape, dtype)
    if (not isinstance(like, np.ndarray) and np.dtype(dtype_of(like)) == dtype
            and holds_sizes(tuple(getattr(like, "shape", ())), TracedSize)):
        return zeros_like(like)
    return np.zeros(shape, dtype)


def _scan_origins(params):
    body, keep = params["body"], params["keep"]
    return ([Origin(f"final carry {k}", (("body", i),)) for k, i in enumerate(body.new_carries)]
            + [Origin(f"stacked output {k}", (("body", i),)) for k, i in enumerate(body.ys)]
            + [Origin("per-step value kept for the gradient", (("body", i),)) for i in keep])


def _scan_shape(avals, params):
    """A scan holds for every size its body's inputs were traced at: each argument's
    shape is its body input's (an ``x`` without its leading axis, which is the number of
    steps).  A body traced at concrete shapes, given an argument of a symbolic shape,
    fixes its sizes (``None``: no rule here)."""
    body, length = params["body"], params["length"]
    for k, (aval, (wanted, _)) in enumerate(zip(avals, body.types(body.inputs))):
        shape = tuple(aval[0]) if isinstance(aval, tuple) else ()
        is_x = k in body.positions.xs
        if is_x and not decide(shape[0], "==", length, "a scan's xs and its length"):
            return None
        if not all(map(same_size, shape[1:] if is_x else shape, wanted)):
            return None
    return ()


def _scan_jvp(args, params, out, tangents):
    """The tangents of a scan's results: a scan of the body's tangent step."""
    body, length, reverse, keep = (params[k] for k in ("body", "length", "reverse", "keep"))
    extended = body.with_outputs(keep)
    carry_tangents, x_tangents, invariant_tangents = body.split_inputs(tangents)
    xs = [k for k, t in enumerate(x_tangents) if t is not None]
    invariants = [k for k, t in enumerate(invariant_tangents) if t is not None]
    step = tangent_step(extended, xs, invariants)
    carry_types = body.carry_types
    carry_args, x_args, invariant_args = body.split_inputs(args)
    loop = scan(*carry_args,
                *[or_zeros(carry_tangents[k], *carry_types[k], like=carry_args[k])
                  for k in step.carries],
                *x_args, *[x_tangents[k] for k in xs],
                *invariant_args, *[invariant_tangents[k] for k in invariants],
                body=step.body, length=length, reverse=reverse, keep=(), recompute=False)
    results = results_of(loop, scan_types(step.body, length, ()))
    finals, stacked, _ = step.body.split_results(results)
    _, tangents_of_finals = split_like(finals, body.carries)
    _, y_tangents = split_like(stacked, extended.ys)
    final_positions, y_positions, _ = extended.result_positions()
    parts = {final_positions[k]: t for k, t in zip(step.carries, tangents_of_finals)}
    parts.update({y_positions[k]: t for k, t in zip(step.outputs, y_tangents)})
    return Parts(parts)


def _batch_scan(prim, args, params, size):
    """A scan of the batched body; results carry the batch axis first (``ys`` batch-major)."""
    body, length, reverse, keep = (params[k] for k in ("body", "length", "reverse", "keep"))
    batched, inputs, outputs = batched_loop_body(
        body.with_outputs(keep), [isinstance(a, Batched) for a in args], size)
    values = []
    for k, (arg, flag) in enumerate(zip(args, inputs)):
        value = unbatched(arg, size) if flag else arg
        if flag and k in body.positions.xs:
            value = swap_leading(value)  # scanned along the steps, batch second
        values.append(value)
    loop = scan(*values, body=batched, length=length, reverse=reverse, keep=(),
                recompute=False)
    results = results_of(loop, scan_types(batched, length, ()))
    stacked = batched.result_positions().ys
    arrays = [swap_leading(r) if k in stacked and outputs[k] else r
              for k, r in enumerate(results)]
    return Batched(packed(*[a if flag else unbatched(a, size)
                            for a, flag in zip(arrays, outputs)]), size)


def swap_leading(value):
    """``value`` with its first two axes swapped: steps first or batch first."""
    rank = len(shape_of(value))
    return transpose(value, axes=(1, 0, *range(2, rank)))


scan = Primitive("scan", _scan, abstract=lambda avals, params: ((), RESULTS),
                 shape_rule=_scan_shape,
                 complex_rules=AS_WRITTEN, value_name="loop", results=SeveralResults(
                     types=lambda graph, node: scan_types(node.params["body"],
                                                          node.params["length"],
                                                          node.params["keep"]),
                     bodies=("body",), node_lists={"keep": "body"}, origins=_scan_origins,
                     arguments=lambda params: {"body": list(range(len(params["body"].inputs)))},
                     feeds_back=("body",), ran_no_steps=lambda params: params["length"] == 0),
                 joint_vjp=_scan_vjp, jvp=_scan_jvp, batch=_batch_scan)
