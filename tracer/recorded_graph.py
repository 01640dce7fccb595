"""Turn a tape's compact records into an ``ir.Graph`` when someone asks for it."""

import numpy as np

import ir
from ir.names import LEAF_FALLBACKS, Namer, identifier
from ir.primitives import sizes
from ir.symbolic import PYTHON_SCALARS
from tracer.core import Tensor
from tracer.sites import site_location
from tracer.state import symbolic
from tracer.sizes.recorded import trace_of


def build_graph(recording, symbolic=True):
    """The ``ir.Graph`` of a recording: leaves (watched tensors, variable versions,
    captured constants) and one op node per record, in recording order.

    With ``symbolic``, shapes hold the recording's symbolic sizes, if it has any
    (a loop body's graph is concrete: its loop node's shape rule, or a guard,
    answers for sizes).  Every array leaf gets a unique name (its tensor's or variable's, else
    ``x``, ``v`` or ``data``): the name of the parameter it becomes in
    generated code.  Also returns the node id of each recorded tensor, by serial.
    """
    graph = ir.Graph()
    namer = Namer()
    node_of = {}
    trace = _symbolic_trace(recording) if symbolic else None
    shapes = trace.shapes if trace else {}
    # A watched intermediate (the output of a recorded op) is that op's node,
    # not a second, unconnected input.
    produced = {record.out_id for record in recording.records}
    for serial, tensor in recording.watched.items():
        if serial not in produced:
            node_of[serial] = _leaf(graph, namer, "input", tensor._value, tensor.name,
                                    shapes.get(serial)).id
    first_version = {}
    for serial, (variable, value) in recording.variable_values.items():
        node = _leaf(graph, namer, "variable", value._value, variable.name, shapes.get(serial))
        node.meta["variable"] = first_version.setdefault(variable._serial, node.name)
        node_of[serial] = node.id
    for record in recording.records:
        inputs = []
        for arg in record.args:
            if arg.__class__ is Tensor:
                node_id = node_of.get(arg._serial)
                if node_id is None:
                    node_id = _captured(graph, namer, arg, trace, record).id
                    node_of[arg._serial] = node_id
            else:
                # A Python scalar stays one: numpy types it weakly (float32 * 2 is float32).
                value = arg if isinstance(arg, PYTHON_SCALARS) else np.asarray(arg)
                node_id = _leaf(graph, namer, "constant", value, None).id
            inputs.append(node_id)
        out = record.out
        params = trace.params.get(record.out_id, record.params) if trace else record.params
        node = graph.add_node("op", record.prim, inputs, params,
                              shapes.get(record.out_id, out.shape), out.dtype, name=out.name,
                              source=site_location(record.site))
        node_of[out._serial] = node.id
    if trace is not None:
        graph.sizes = dict(trace.guarding.hints)
        graph.guards = list(trace.guarding.guards)
    return graph, node_of


def _symbolic_trace(recording):
    """The recording's ``SymbolicTrace``, its shapes inferred, if it has symbolic sizes."""
    if not symbolic.declared and recording.symbolic is None:
        return None
    trace = trace_of(recording)
    for serial, tensor in recording.watched.items():
        if getattr(tensor, "_dims", None) is not None:
            trace.declare(tensor, tensor._dims)
    for serial, (_, value) in recording.variable_values.items():
        if getattr(value, "_dims", None) is not None:
            trace.declare(value, value._dims)
    trace.update(recording.records)
    return trace if trace.guarding.hints or trace.guarding.guards else None


def _captured(graph, namer, tensor, trace, record):
    """The leaf of a tensor captured from outside the recording: a constant, or the symbolic
    size it stands for (``loss / x.shape[0]``)."""
    size = trace.sizes.get(tensor._serial) if trace else None
    if size is None:
        return _leaf(graph, namer, "constant", tensor._value, tensor.name,
                     trace.shape_of(tensor._serial) if trace else None)
    dtype = tensor._value.dtype
    return graph.add_node("op", sizes.size, (), {"size": size, "dtype": dtype}, (), dtype,
                          source=site_location(record.site))


def _leaf(graph, namer, kind, value, name, shape=None):
    meta = None
    if not isinstance(value, PYTHON_SCALARS):
        meta = None if name else {"default_name": True}
        name = namer.claim(identifier(name, LEAF_FALLBACKS[kind]))
    return graph.add_node(kind, kind, (), {}, np.shape(value) if shape is None else shape,
                          np.result_type(value), name=name, value=value, meta=meta)

