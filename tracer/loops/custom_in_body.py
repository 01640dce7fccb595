"""``custom_gradient`` inside a loop or branch body: its gradient function traced once.

A body is traced once and runs as a graph at every step, so the user's gradient
function cannot be called with each step's values at each backward pass, as it
is on a tape.  It is traced once instead, on a placeholder for the upstream
gradient, as TensorFlow traces it into its graph: its Python runs once, at
tracing, like the rest of the body.  The custom function's value is recorded by
its own ops; an ``ir.primitives.custom_rules.custom_vjp`` node passes it on and
holds the traced gradient function, whose reads of the function's values
become the node's inputs.
"""

from ir.loops.body import Body
from ir.primitives.custom_rules import custom_vjp
from tracer.core import Tensor, value_of
from tracer.errors import ControlFlowError
from tracer.loops.tracing import trace_body
from tracer.sites import described_site, user_site


def custom_gradient_in_body(name, result, gradient):
    """The value of custom function ``name`` traced in a body: ``result`` passed on by a
    ``custom_vjp`` node whose rule is ``gradient`` (the user's gradient function, checked;
    its ``inputs`` are the function's, then the variables it read) traced on a
    placeholder for the upstream gradient."""
    if not isinstance(result, Tensor):
        raise ControlFlowError(
            f"custom_gradient function {name} inside a loop or branch body returned a "
            f"{type(result).__name__}{described_site(user_site())}: inside a body, its value "
            "must be a tensor computed from its inputs")

    def traced(placeholders):
        grads = gradient(placeholders[0])
        given = [k for k, g in enumerate(grads) if g is not None]
        return [grads[k] for k in given], given

    rule, residuals, given = trace_body(traced, [value_of(result)], [],
                                        names=("upstream", "x"))
    rule = Body.interned(rule.graph, rule.inputs, carries=0, xs=0)
    gradients = [None] * len(gradient.inputs)
    for output, k in enumerate(given):
        gradients[k] = output
    return custom_vjp(result, *gradient.inputs, *residuals, rule=rule,
                      gradients=tuple(gradients), function=name)
