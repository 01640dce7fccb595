"""Calls of numpy functions tapegen has no primitive for, on values that need no gradient.

Integer and boolean values computed from recorded ones (masks, positions,
counts) carry no gradient, but what is computed from them still depends on
the inputs: a graph, and the code generated from it, must compute it again
rather than keep the value seen while tracing.  ``numpy_call`` records one
such call of any numpy function by its public name (``np.unique``,
``np.linalg.matrix_rank``), with its arguments as a template in which
``IndexArg(k)`` stands for the op's k-th input, and which of its results the
op is when the function returns several.  An argument that source cannot
write (a Python function) is kept as it is (``Opaque``): the graph computes
with it, and code generation refuses it with a message that says so.
"""

import functools
import math

import numpy as np

from ir.primitive import Primitive, Unspellable, spell_value
from ir.primitives.shape import IndexArg


@functools.lru_cache(maxsize=None)
def numpy_function(name):
    """What a public name such as ``np.linalg.norm`` or ``np.maximum.accumulate``
    names, or ``None``."""
    parts = name.split(".")
    if parts[0] != "np":
        return None
    found = np
    for part in parts[1:]:
        found = getattr(found, part, None)
        if found is None:
            return None
    return found


class Opaque:
    """An argument that source code cannot write (a Python function, an object): the
    call computes with it, but code cannot be generated for it."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Opaque) and other.value is self.value

    def __hash__(self):
        return id(self.value)

    def canonical_key(self):
        """Equal only to itself, whatever its repr (``ir.canonical``)."""
        return "opaque", id(self.value)

    def __repr__(self):  # no address: listings stay the same from run to run
        return f"Opaque({type(self.value).__name__} {getattr(self.value, '__qualname__', '')})"


def opaque_arguments(params):
    """The arguments of a ``numpy_call`` that source code cannot write."""
    found = []

    def visit(template):
        if isinstance(template, Opaque):
            found.append(template.value)
        elif isinstance(template, (tuple, list)):
            for t in template:
                visit(t)
    visit((params["arguments"], params["keywords"]))
    return found


def fill(template, inputs):
    """``template`` with each ``IndexArg(k)`` replaced by ``inputs[k]``."""
    if isinstance(template, IndexArg):
        return inputs[template.position]
    if isinstance(template, Opaque):
        return template.value
    if isinstance(template, (tuple, list)):
        return type(template)(fill(t, inputs) for t in template)
    return template


def _call(*inputs, function, arguments, keywords, result):
    values = numpy_function(function)(*fill(arguments, inputs), **dict(fill(keywords, inputs)))
    return np.asarray(values if result is None else values[result])


def _spell(template):
    if isinstance(template, IndexArg):
        return f"{{{template.position}}}"
    if isinstance(template, tuple):
        items = [_spell(t) for t in template]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    if isinstance(template, list):
        return f"[{', '.join(_spell(t) for t in template)}]"
    if isinstance(template, slice):
        return f"slice({template.start!r}, {template.stop!r}, {template.step!r})"
    if template is Ellipsis:
        return "..."
    if isinstance(template, float) and not math.isfinite(template):
        return f"float({str(template)!r})"
    return spell_value(template)


def _spell_call(params, shapes):
    opaque = opaque_arguments(params)
    if opaque:
        kinds = ", ".join(sorted({type(value).__name__ for value in opaque}))
        raise Unspellable(params["function"], (
            f"it computes on values from the inputs with an argument source code cannot write "
            f"({kinds}), so generated code could only keep the traced result. Compute it with "
            "numpy operations on the values instead, or outside the recorded computation."))
    arguments = [_spell(a) for a in params["arguments"]]
    arguments += [f"{name}={_spell(value)}" for name, value in params["keywords"]]
    call = f"{params['function']}({', '.join(arguments)})"
    return call if params["result"] is None else f"{call}[{params['result']}]"


_spell_call.defaults = {"keywords": (), "result": None}


numpy_call = Primitive("numpy_call", _call, source=_spell_call,
                       value_name=lambda params: params["function"].rpartition(".")[2],
                       no_gradient="a numpy function without a derivative rule, applied to "
                                   "values that carry no gradient")
