"""``ConcreteFunction``: one trace of a ``tracer.Function``, and the module that runs it.

At each call it hands the module the variables' current values and the
arguments' arrays, then writes the new values back into the variables: all of
them after the module returned, so a call that fails (its input check, an error
inside) changes none.  The module writes large new values into memory from the
pool of ``tracer.buffers`` (its ``out``), to which the values they replace return
once nothing holds them: a training step updates its state in the same few
blocks of memory at every call, as a hand-written one updating in place would.
"""

import numpy as np

import codegen
from ir.sizes.dims import Size
from ir.sizes.guards import RELATIONS
from ir.structure import flatten, pack_as
from tracer.buffers import MIN_STATE_BYTES, POOL
from tracer.core import Tensor, wrap


class ConcreteFunction:
    """One trace of a ``tracer.Function``: ``graph`` (the ``ir.Graph`` traced),
    ``source`` (the generated module's text), ``write(path)``, and ``variables``, the
    variables the module takes by parameter name (what a shipped module's caller passes
    first); calling it runs the module on arguments of its signature."""

    def __init__(self, trace, signature_text, caller, shapes, dtypes, device=None):
        """``shapes``: per array leaf, the shape traced, a size's name on each symbolic
        axis; ``dtypes``: per array leaf, its dtype; ``device``: what runs the module
        compiled (``tracer.graph_mode.jit``), or ``None`` to run it as numpy."""
        self.graph = trace.graph
        self.source = trace.module.source
        self.signature_text = signature_text
        self._caller = caller
        module = codegen.load(self.source)
        function = getattr(module, trace.module.name)
        self._device = device
        if device is None:
            module._check_inputs = _checked_by_the_caller
        else:
            function = device.compile(function)
        self._function = function
        self._feeds = [_feed(trace.inputs.get(node_id), trace.graph[node_id], device)
                       for _, node_id in trace.module.parameters]
        self.variables = {name: trace.inputs[node_id][1]
                          for name, node_id in trace.module.parameters
                          if trace.inputs.get(node_id, ("",))[0] == "variable"}
        self._assigned = [(key, v, getattr(v._value, "_dims", None))
                          for key, v in zip(trace.module.new_values, trace.assigned)]
        self._pooled = [] if device is not None else _pooled(trace.module, trace.assigned)
        self._structure = trace.structure
        self._one_result = not isinstance(trace.structure, (dict, list, tuple))
        self._shapes = shapes
        self._dtypes = dtypes
        self._symbolic = any(isinstance(d, str) for shape in shapes for d in shape)
        self._guards = trace.module.guards

    def serves(self, leaves):
        """Whether the module holds for these arrays, which have the dtypes and ranks of its
        signature: each axis traced at a fixed size has it, each size's name has one value,
        and every guard on the sizes holds."""
        if not self._symbolic:
            return True
        return self.accepts(leaves)

    def accepts(self, leaves):
        """Whether the module holds for these arrays (see ``serves``), dtypes included."""
        if len(leaves) != len(self._shapes):
            return False
        sizes = {}
        for leaf, shape, dtype in zip(leaves, self._shapes, self._dtypes):
            value = leaf._value if leaf.__class__ is Tensor else np.asarray(leaf)
            actual = value.shape
            if value.dtype != dtype or len(actual) != len(shape):
                return False
            for size, expected in zip(actual, shape):
                if isinstance(expected, str):
                    if sizes.setdefault(expected, size) != size:
                        return False
                elif size != expected:
                    return False
        return all(RELATIONS[g.relation](_at(g.left, sizes), _at(g.right, sizes)) == g.holds
                   for g in self._guards)

    def write(self, path):
        """Write the module to ``path`` (a ``.py`` file); returns the path."""
        return codegen.write(path, self.source)

    def __call__(self, *args, **kwargs):
        return self._caller(self, args, kwargs)

    def run(self, leaves):
        """Run the module on the array ``leaves`` of the arguments; write the variables back
        and return the results as the function returned them, arrays as tensors."""
        arrays = [feed(leaves) for feed in self._feeds]
        if self._pooled:
            out = self._function(*arrays, out={key: POOL.array(shape, dtype, kept=True)
                                               for key, shape, dtype in self._pooled})
        else:
            out = self._function(*arrays)
        device = self._device
        results, new = out if self.variables else (out, None)
        for key, variable, dims in self._assigned:
            array = new[key]
            if device is not None:
                device.store(variable, array, dims)
                continue
            if dims is None:
                variable._write_back(
                    array if array.__class__ is np.ndarray else np.asarray(array))
            else:
                variable._value = tensor = wrap(np.asarray(array), variable.name)
                tensor._dims = dims
        if device is not None:
            return pack_as(self._structure, [_as_result(device.to_host(value))
                                             for value in flatten(results)])
        if self._one_result:
            return _as_result(results)
        return pack_as(self._structure, [_as_result(value) for value in flatten(results)])

    def __repr__(self):
        return f"<tracer.ConcreteFunction {self.signature_text}>"


def _feed(source, node, device):
    """How the module's parameter for ``node`` gets its value at a call."""
    if source is None:  # a captured array: the value the trace saw
        value = node.value
        return lambda leaves: value
    kind, what = source
    if kind == "variable":
        if device is not None:
            return lambda leaves: device.variable_value(what)
        return lambda leaves: what._current_array()
    return lambda leaves: _array(leaves[what])


def _at(size, sizes):
    return size.evaluate(sizes) if isinstance(size, Size) else size


def _array(value):
    return value._value if value.__class__ is Tensor else np.asarray(value)


def _checked_by_the_caller(*arrays, out=None):
    """The module's input check, which a ``Function`` does before the call: each argument
    found this trace by its shape and dtype (``ConcreteFunction.accepts``), each buffer
    of ``out`` taken from the pool for its new value."""


def _pooled(module, assigned):
    """``(key, shape, dtype)`` of each new value the module writes into its ``out`` that
    is large enough to come from the pool."""
    variables = dict(zip(module.new_values, assigned))
    pooled = []
    for key in module.written:
        value = variables[key]._current_array()
        if value.nbytes >= MIN_STATE_BYTES:
            pooled.append((key, value.shape, value.dtype))
    return pooled


def _as_result(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return wrap(np.asarray(value))
    return value
