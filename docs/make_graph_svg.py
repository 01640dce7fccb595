"""Regenerate docs/graph.svg, the picture in the README, with Graphviz's dot.

The picture is the graph examples/inspect_graph.py records (a tanh layer and
a mean squared error), with each statement's ops in a cluster.  The inputs
are seeded, so the graph is the same every run; the SVG text can still differ
between Graphviz versions.  Run it from anywhere:

    python docs/make_graph_svg.py
"""

import importlib.util
from pathlib import Path

import numpy as np

import tracer

DOCS = Path(__file__).resolve().parent
EXAMPLE = DOCS.parent / "examples" / "inspect_graph.py"
PICTURE = DOCS / "graph.svg"
OPTIONS = {"cluster_by_line": True}
"""How the README's picture is drawn (``Graph.render`` options)."""


def recorded_graph():
    """The graph the example's ``loss_fn`` records, on the example's seeded inputs."""
    spec = importlib.util.spec_from_file_location("inspect_graph", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    rng = np.random.default_rng(0)
    x = tracer.constant(rng.standard_normal((4, 3)), name="x")
    y = tracer.constant(rng.uniform(-0.5, 0.5, (4, 2)), name="y")
    W = tracer.Variable(rng.standard_normal((3, 2)), name="W")
    b = tracer.Variable(np.zeros(2), name="b")
    with tracer.GradientTape() as tape:
        example.loss_fn(W, b, x, y)
    return tape.graph


def main():
    recorded_graph().render(PICTURE, engine="dot", **OPTIONS)
    print(f"wrote {PICTURE.relative_to(DOCS.parent)}")


if __name__ == "__main__":
    main()
