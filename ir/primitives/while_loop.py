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

from ir.primitive import AS_WRITTEN, Primitive, shape_of
from ir.primitives.loops import reverse_loop
from ir.primitives.results import RESULTS, pack, results_of


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


def _while_vjp(g, out, *args, test, body, maximum, keep, trips):
    """The cotangents of the initial carries and the body's invariants: a reverse scan
    over the steps taken, of the values the forward run stacked."""
    count = body.carries
    loop_args = [*args[:count], *args[len(test.inputs):]]
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
        return stacks[:-1], shape_of(stacks[-1])[0]

    found = reverse_loop([g.get(k) for k in range(count)],
                         [g.get(count + 1 + k) for k in range(len(keep))],
                         kept_values, loop_args, extended, False)
    return [*found[:count], *[None] * (len(test.inputs) - count), *found[count:]]


while_loop = Primitive("while_loop", _while, abstract=lambda avals, params: ((), RESULTS),
                       complex_rules=AS_WRITTEN, value_name="loop")
while_loop.defvjp_joint(_while_vjp)
