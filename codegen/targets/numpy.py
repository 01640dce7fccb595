"""The numpy target, the default: a module that imports numpy (and what a primitive's
helpers import, such as ``scipy.special``) and spells each primitive as its numpy
spelling says (``Primitive.spelling``).

A function that returns new values of state (``codegen.function_module``) can
write those computed by a ufunc into arrays its caller passes, by name, as
``out``: ``np.subtract(W, d_W, out=out.get('W'))``.  A training step called in a
loop then reuses the memory of the state it replaced instead of faulting in
fresh pages for every update.
"""

import numpy as np

from codegen.module_text import module_text
from codegen.targets.base import Target


class NumpyTarget(Target):
    """Modules of plain numpy."""

    name = "numpy"

    def template(self, primitive, params, shapes):
        return primitive.spelling(params, shapes)

    def spelling(self, node, graph):
        into = node.meta.get("write_into")
        if into is None:
            return super().spelling(node, graph)
        slots = "".join(f"{{{k}}}, " for k in range(len(node.inputs)))
        spare = node.meta.get("write_into_operand")
        default = "" if spare is None else f", {{{spare}}}"
        return f"np.{node.primitive.impl.__name__}({slots}out=out.get({into!r}{default}))"

    def writes_into(self, node):
        """A ufunc's value (a new array, unless given one): the call takes ``out=``."""
        impl = node.primitive.impl
        return isinstance(impl, np.ufunc) and impl.nout == 1 and not node.params

    def module(self, name, docstring, parameters, layout, result, guards, written=()):
        return module_text(name, docstring, parameters, layout, result, guards,
                           door=self.door, written=written)


NUMPY = NumpyTarget()
