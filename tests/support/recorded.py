"""Recordings the IR tests start from: a graph taped once, with its target and inputs."""

import tracer


def recorded_graph(loss, arrays):
    """The tape's graph of ``loss`` on watched tensors of ``arrays``: the graph, the id of
    its last op (the target) and the ids of its inputs."""
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        loss(*tensors)
    graph = tape.graph
    target = [n.id for n in graph if n.kind == "op"][-1]
    return graph, target, [n.id for n in graph if n.kind == "input"]
