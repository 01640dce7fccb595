"""Turn a tape's compact records into an ``ir.Graph`` when someone asks for it."""

import numpy as np

import ir
from ir.names import LEAF_FALLBACKS, Namer, identifier
from ir.symbolic import PYTHON_SCALARS
from tracer.core import Tensor
from tracer.sites import site_location


def build_graph(recording):
    """The ``ir.Graph`` of a recording: leaves (watched tensors, variable versions,
    captured constants) and one op node per record, in recording order.

    Every array leaf gets a unique name (its tensor's or variable's, else
    ``x``, ``v`` or ``data``): the name of the parameter it becomes in
    generated code.  Also returns the node id of each recorded tensor, by serial.
    """
    graph = ir.Graph()
    namer = Namer()
    node_of = {}
    # A watched intermediate (the output of a recorded op) is that op's node,
    # not a second, unconnected input.
    produced = {record.out_id for record in recording.records}
    for serial, tensor in recording.watched.items():
        if serial not in produced:
            node_of[serial] = _leaf(graph, namer, "input", tensor._value, tensor.name).id
    first_version = {}
    for serial, (variable, value) in recording.variable_values.items():
        node = _leaf(graph, namer, "variable", value._value, variable.name)
        node.meta["variable"] = first_version.setdefault(variable._serial, node.name)
        node_of[serial] = node.id
    for record in recording.records:
        inputs = []
        for arg in record.args:
            if arg.__class__ is Tensor:
                node_id = node_of.get(arg._serial)
                if node_id is None:
                    node_id = _leaf(graph, namer, "constant", arg._value, arg.name).id
                    node_of[arg._serial] = node_id
            else:
                # A Python scalar stays one: numpy types it weakly (float32 * 2 is float32).
                value = arg if isinstance(arg, PYTHON_SCALARS) else np.asarray(arg)
                node_id = _leaf(graph, namer, "constant", value, None).id
            inputs.append(node_id)
        out = record.out
        node = graph.add_node("op", record.prim.name, inputs, record.params, out.shape,
                              out.dtype, name=out.name, source=site_location(record.site))
        node_of[out._serial] = node.id
    return graph, node_of


def _leaf(graph, namer, kind, value, name):
    meta = None
    if not isinstance(value, PYTHON_SCALARS):
        meta = None if name else {"default_name": True}
        name = namer.claim(identifier(name, LEAF_FALLBACKS[kind]))
    return graph.add_node(kind, kind, (), {}, np.shape(value), np.result_type(value), name=name,
                          value=value, meta=meta)

