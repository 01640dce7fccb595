"""``custom_vjp``: a user's gradient function held as a graph, so a loop body can hold it.

A body is traced once and runs as a graph at every step, so a
``tracer.custom_gradient`` function inside one cannot have its Python gradient
function called at each backward pass, as it is on a tape.  The tracer traces
that function once instead (as TensorFlow traces it into its graph), and the
body records ``custom_vjp(value, *targets, *residuals, rule, gradients,
function)``:

- ``value`` is the custom function's value, computed by its own recorded ops;
  the node passes it on unchanged, and no gradient flows back into it;
- ``rule`` is the traced gradient function, a body from the upstream
  cotangent and the ``residuals`` (every tensor the gradient function read:
  the function's inputs, its intermediate values, closed-over weights) to the
  cotangents it gave;
- ``gradients`` gives, for each of the ``targets`` (the function's inputs, then
  the variables it read), the rule output that is its cotangent, or ``None``.

The node's VJP evaluates the rule on whatever values the walk holds (arrays,
tensors, graph symbols), so a second order differentiates the user's gradient
function, as TensorFlow does.  Generated code, which is only run, drops the
node for the value it passes on (``ir.optimize.passes.without_custom_rules``).
"""

import numpy as np

from ir.autodiff.batching import Batched, unbatched
from ir.evaluate import evaluate
from ir.loops.batching import batched_body
from ir.primitive import Primitive
from ir.several_results import Origin, SeveralResults
from ir.sizes.shape_rules import same_shape


def _type_of(aval):
    return (tuple(aval[0]), aval[1]) if isinstance(aval, tuple) else ((), np.result_type(aval))


def _passed_on(value, *args, rule, gradients, function):
    return value


def _custom_vjp_vjp(g, out, value, *args, wanted, rule, gradients, function):
    """The rule evaluated on the cotangent ``g`` and the residuals: the targets'
    cotangents; none for the value passed on or the residuals themselves."""
    count = len(gradients)
    cotangents = evaluate(rule.graph, dict(zip(rule.inputs, [g, *args[count:]])))
    return [None, *(None if k is None else cotangents[k] for k in gradients),
            *[None] * (len(args) - count)]


def _batch_custom_vjp(prim, args, params, size):
    """The node over every argument batched, its rule batched alike."""
    arrays = [unbatched(a, size) for a in args]
    batched, _ = params["rule"].derived(("batched", size), lambda r: batched_body(
        r, [True] * len(r.inputs), size, force=tuple(range(len(r.graph.outputs)))))
    return Batched(custom_vjp(*arrays, **dict(params, rule=batched)), size)


def _reached(params, positions, differentiable):
    """The value (result 0) is reached from the targets given a gradient, or, as any
    dependency, from the value it passes on."""
    gradients = params["gradients"]
    if not differentiable:
        return {0} if 0 in positions else set()
    return {0} if any(0 < p <= len(gradients) and gradients[p - 1] is not None
                      for p in positions) else set()


def _rule_arguments(params):
    """The argument each rule input receives: none for the upstream cotangent, then the
    residuals, which come after the value and the targets."""
    rule, count = params["rule"], len(params["gradients"])
    return {"rule": [-1, *range(1 + count, count + len(rule.inputs))]}


custom_vjp = Primitive(
    "custom_vjp", _passed_on, source="{0}", batch=_batch_custom_vjp,
    abstract=lambda avals, params: _type_of(avals[0]),
    value_name=lambda params: params["function"].rsplit(".", 1)[-1],
    results=SeveralResults(
        types=lambda graph, node: [(node.shape, node.dtype)], bodies=("rule",),
        origins=lambda params: [Origin("the custom function's value, passed on", ())],
        arguments=_rule_arguments, reached=_reached, one_value=True), shape_rule=same_shape,
    joint_vjp=_custom_vjp_vjp)
