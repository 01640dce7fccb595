"""The adjoint graph's order: each input's cotangent is added to its total as soon as
its rule gives it, before the next input's rule runs.

The numbers do not depend on it, but listings, JSON and optimised graphs do, and
users diff them: the order is part of what ``ir.adjoint`` returns.
"""

import numpy as np

import ir
import tracer


def test_a_cotangent_is_added_before_the_next_rule_runs():
    x = tracer.Variable(np.arange(1.0, 4.0), name="x")
    with tracer.GradientTape(persistent=True) as tape:
        y = np.sum(x * np.exp(x) + x)
    graph, targets, sources, _ = tape.graph_of(y, x)
    adjoint = ir.adjoint(graph, targets, sources)
    ops = [node.op for node in adjoint if node.kind == "op"]
    # sum's rule; then multiply's rule for x, added to add's cotangent of x at once,
    # before multiply's rule for exp(x) runs; then exp's rule, added last.
    assert ops[-7:] == ["reshape", "broadcast_to", "multiply", "add", "multiply", "multiply",
                        "add"]
