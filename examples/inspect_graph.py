"""Look at what a gradient tape recorded.

The tape records a small model, one tanh layer and a mean squared error
loss, as a graph.  This example prints the graph's listing (one line per
node, with the line of this file that made it), asks networkx a few
questions of ``tape.graph.nx``, prints the gradients, and checks them against
central finite differences.

Run it with:

    python examples/inspect_graph.py
"""

import networkx as nx
import numpy as np

import tracer


def loss_fn(W, b, x, y):
    h = np.tanh(x @ W + b)
    return np.mean((h - y) ** 2)


def finite_difference(f, array, eps=1e-6):
    """Central differences of the scalar f(array) with respect to each entry of ``array``."""
    grad = np.zeros_like(array)
    for i in np.ndindex(array.shape):
        step = np.zeros_like(array)
        step[i] = eps
        grad[i] = (f(array + step) - f(array - step)) / (2 * eps)
    return grad


def describe_leaf(node, names):
    """A leaf's name and kind; scalar constants are shown inline in the listing, so by value."""
    if node.kind == "constant" and np.ndim(node.value) == 0:
        return f"{node.value} (constant)"
    return f"{names[node.id]} ({node.kind})"


def main():
    rng = np.random.default_rng(0)
    x = tracer.constant(rng.standard_normal((4, 3)), name="x")
    y = tracer.constant(rng.uniform(-0.5, 0.5, (4, 2)), name="y")
    W = tracer.Variable(rng.standard_normal((3, 2)), name="W")
    b = tracer.Variable(np.zeros(2), name="b")

    with tracer.GradientTape() as tape:
        loss = loss_fn(W, b, x, y)

    # Ask for the graph before calling gradient(): a non-persistent tape
    # releases what it recorded once it has answered.
    graph = tape.graph
    print("Recorded graph:")
    print(graph)
    print()

    g = graph.nx  # a networkx.MultiDiGraph; edges run from argument to user
    names = graph.names()  # the display names used in the listing above
    (loss_node,) = [n for n in g if g.out_degree(n) == 0]
    leaves = [n for n in nx.ancestors(g, loss_node) if g.in_degree(n) == 0]
    print(f"nodes: {g.number_of_nodes()} ({sum(1 for n in graph if n.kind == 'op')} ops), "
          f"edges: {g.number_of_edges()}")
    print(f"topological generations: {len(list(nx.topological_generations(g)))}")
    print(f"the loss is {names[loss_node]}; it depends on the leaves "
          + ", ".join(describe_leaf(graph[n], names) for n in sorted(leaves)))
    print("longest path: " + " -> ".join(names[n] for n in nx.dag_longest_path(g)))
    print()

    dW, db = tape.gradient(loss, [W, b])
    print(f"loss = {float(loss):.6f}")
    print("dloss/dW =\n" + str(dW))
    print("dloss/db =\n" + str(db))

    W0, b0, x0, y0 = W.numpy(), b.numpy(), x.numpy(), y.numpy()
    fd_W = finite_difference(lambda w: loss_fn(w, b0, x0, y0), W0)
    fd_b = finite_difference(lambda v: loss_fn(W0, v, x0, y0), b0)
    error = max(np.max(np.abs(dW.numpy() - fd_W)), np.max(np.abs(db.numpy() - fd_b)))
    print(f"finite-difference max error: {error:.3e}")


if __name__ == "__main__":
    main()
