"""Turn a tape's compact records into an ``ir.Graph`` when someone asks for it."""

import numpy as np

import ir
from ir.symbolic import PYTHON_SCALARS
from tracer.core import Tensor, site_location


def build_graph(recording):
    """The ``ir.Graph`` of a recording: leaves (watched tensors, variable versions,
    captured constants) and one op node per record, in recording order.

    Also returns the node id of each recorded tensor, by serial.
    """
    graph = ir.Graph()
    node_of = {}
    # A watched intermediate (the output of a recorded op) is that op's node,
    # not a second, unconnected input.
    produced = {record.out_id for record in recording.records}
    for serial, tensor in recording.watched.items():
        if serial not in produced:
            node_of[serial] = _leaf(graph, "input", tensor._value, tensor.name).id
    for serial, (variable, value) in recording.variable_values.items():
        node_of[serial] = _leaf(graph, "variable", value._value, variable.name).id
    for record in recording.records:
        inputs = []
        for arg in record.args:
            if arg.__class__ is Tensor:
                node_id = node_of.get(arg._serial)
                if node_id is None:
                    node_id = _leaf(graph, "constant", arg._value, arg.name).id
                    node_of[arg._serial] = node_id
            else:
                # A Python scalar stays one: numpy types it weakly (float32 * 2 is float32).
                value = arg if isinstance(arg, PYTHON_SCALARS) else np.asarray(arg)
                node_id = _leaf(graph, "constant", value, None).id
            inputs.append(node_id)
        out = record.out
        node = graph.add_node("op", record.prim.name, inputs, record.params, out.shape,
                              out.dtype, name=out.name, source=site_location(record.site))
        node_of[out._serial] = node.id
    return graph, node_of


def _leaf(graph, kind, value, name):
    return graph.add_node(kind, kind, (), {}, np.shape(value), np.result_type(value), name=name,
                          value=value)

