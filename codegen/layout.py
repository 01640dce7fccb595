"""A function body laid out (``codegen.emit.lay_out``): what the module around it reads
of it, and how it returns its outputs."""

import ast
from dataclasses import dataclass, field

import numpy as np

from codegen.expressions import fill
from codegen.literals import ModuleArrays


@dataclass
class Layout:
    """A function body laid out for a ``target``: its statement lines, the helpers they
    call, the name of each value that has one, the constant arrays it reads by name,
    and the names of the module its statements read (``free``: the namespace, the
    device, helpers, imported modules...)."""

    lines: list
    target: object
    helpers: dict = field(default_factory=dict)
    names: dict = field(default_factory=dict)
    arrays: ModuleArrays = field(default_factory=ModuleArrays)
    free: set = field(default_factory=set)

    def expression(self, node_id, graph):
        """Source of an output: its name, or a literal for a constant (``None``: no value).

        An output that is a parameter is returned as a copy (``d(x * y)/dy`` is ``x``
        itself, and the caller may scale a gradient in place), a 0-d literal as an
        array, so every output is an array of the function's own (a constant array too,
        made afresh, not the read-only one of the module).
        """
        if node_id is None:
            return ast.Constant(None)
        if node_id in self.names:
            name = ast.Name(self.names[node_id])
            return name if graph[node_id].kind == "op" else fill(self.target.copied, [name])
        value = graph[node_id].value
        literal = ast.parse(self.target.literal(value), mode="eval").body
        return literal if np.ndim(value) else fill(self.target.as_array, [literal])
