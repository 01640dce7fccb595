"""Tracing a Python function once into a graph, and that graph into a module.

The function runs on placeholders for its array arguments under a
``GraphRecording``.  What it returned and the variables it touched become the
graph's results and state: each variable read or assigned is a leaf (its
value at the call), and each one assigned has a new value.  Tracing leaves
every variable as it found it; the module does the work at each call.
"""

import keyword

import numpy as np

from codegen.function_module import PythonValue, function_module
from ir.names import RESERVED
from ir.structure import flatten, pack_as
from tracer.core import Tensor, wrap
from tracer.graph_mode.recording import GraphRecording
from tracer.graph_mode.signature import TensorSpec, parameter_name, replace_leaves
from tracer.recorded_graph import build_graph
from tracer.sizes.declared import declare
from tracer.state import thread_state
from tracer.variable import Variable

_RESULTS = (bool, int, float, complex, str, bytes, type(None))
"""Python values a traced function may return besides arrays: written as literals."""


class Trace:
    """What tracing gave: the graph, the module's text and parameters, the variables it
    reads and assigns, the structure of the results, and the variables made meanwhile."""

    __slots__ = ("graph", "module", "inputs", "assigned", "structure", "created")

    def __init__(self, graph, module, inputs, assigned, structure, created):
        self.graph = graph
        self.module = module
        self.inputs = inputs
        """Node id to ``("variable", variable)`` or ``("argument", leaf position)``."""
        self.assigned = assigned
        self.structure = structure
        self.created = created


def trace(arguments, leaves, paths, call, dims, name, origin, target="numpy"):
    """Run the function (``call``) once on placeholders and write what it did as a module.

    ``arguments`` are the bound arguments (parameter name to value) and
    ``call(arguments)`` calls the function with them; ``leaves`` are their arrays (or
    ``TensorSpec``s) and ``paths`` name them; ``dims`` gives per leaf the symbolic axes
    to trace (a name per symbolic axis, ``None`` per static one), or ``None`` for a leaf
    traced as it is.  ``target`` is what the module is written for (``"array_api"``
    for ``jit_compile``).
    """
    recording = GraphRecording(name)
    placeholders = [_placeholder(value, parameter_name(path), leaf_dims)
                    for value, path, leaf_dims in zip(leaves, paths, dims)]
    for placeholder in placeholders:
        recording.watch_argument(placeholder)
    stack = thread_state.stack
    stack.append(recording)
    try:
        output = call(replace_leaves(arguments, placeholders))
        finals = {serial: variable._value for serial, (variable, _) in recording.assigned.items()}
    finally:
        stack.remove(recording)
        recording.restore()
    graph, node_of = build_graph(recording)
    variables, state, assigned = _state(recording, graph, node_of, finals)
    inputs = {leaf: ("variable", v) for v, (leaf, _) in zip(variables, state)}
    inputs.update((node_of[p._serial], ("argument", k)) for k, p in enumerate(placeholders)
                  if p._serial in node_of)
    results = [_result(leaf, graph, node_of, name) for leaf in flatten(output)]
    structure = pack_as(output, results)
    module = function_module(graph, structure, state, name=_function_name(name),
                             origin=origin, target=target)
    return Trace(graph, module, inputs, assigned, structure, recording.created)


def _placeholder(value, name, dims):
    if isinstance(value, TensorSpec):
        array = np.zeros(tuple(2 if d is None else d for d in value.shape), value.dtype)
    else:
        array = np.array(value._value if isinstance(value, Tensor) else value)
    tensor = wrap(array, name=name)
    return tensor if dims is None else declare(tensor, dims)


def _state(recording, graph, node_of, finals):
    """The variables the trace read or assigned, trainable ones first, each in the order
    first touched; ``(leaf id, new value id or None)`` for each; and the variables
    assigned, in the order of their new values."""
    variables = dict(recording.variables)
    for variable, _ in recording.assigned.values():
        variables.setdefault(variable._serial, variable)
    ordered = sorted(variables.values(), key=lambda v: not v.trainable)
    taken = {node.name for node in graph}
    state, assigned = [], []
    for variable in ordered:
        before = recording.assigned.get(variable._serial, (None, variable._value))[1]
        leaf = node_of.get(before._serial)
        if leaf is None or graph[leaf].kind != "variable":
            leaf = _variable_leaf(graph, variable, before, taken)
        new = None
        if variable._serial in finals:
            new = _node_of_value(finals[variable._serial], graph, node_of)
            assigned.append(variable)
        state.append((leaf, new))
    return ordered, state, assigned


def _variable_leaf(graph, variable, value, taken):
    """A leaf for a variable the trace assigned without reading it first."""
    base = parameter_name(variable.name or "v")
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    node = graph.add_node("variable", "variable", (), {}, value._value.shape, value.dtype,
                          name=name, value=value._value)
    return node.id


def _node_of_value(tensor, graph, node_of):
    """The node of a value the trace made, or a constant node for one it did not record."""
    node_id = node_of.get(tensor._serial)
    if node_id is None:
        value = tensor._value
        node_id = graph.add_node("constant", "constant", (), {}, value.shape, value.dtype,
                                 value=value).id
        node_of[tensor._serial] = node_id
    return node_id


def _result(leaf, graph, node_of, name):
    if isinstance(leaf, Variable):
        leaf = leaf._value
    if isinstance(leaf, Tensor):
        return _node_of_value(leaf, graph, node_of)
    if isinstance(leaf, (np.ndarray, np.generic)):
        return _node_of_value(wrap(np.asarray(leaf)), graph, node_of)
    if isinstance(leaf, _RESULTS):
        return PythonValue(leaf)
    raise TypeError(f"{name} returned a {type(leaf).__name__}: a tracer.function returns "
                    "tensors, arrays, Python numbers, strings and None, in any nesting of "
                    "lists, tuples and dicts")


def _function_name(name):
    """The generated function's name: the Python function's, where it can be one."""
    usable = name.isidentifier() and not name.startswith("_") and name not in RESERVED
    return name if usable and not keyword.iskeyword(name) else "function"
