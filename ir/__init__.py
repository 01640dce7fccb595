"""tapegen's intermediate representation: graphs of primitives, their
derivative rules, the adjoint pass and evaluation.

``ir`` imports neither ``tracer`` nor ``codegen`` (nor matplotlib, until a graph is
drawn without Graphviz).
"""

from ir import primitives
from ir.autodiff.adjoint import adjoint, backward
from ir.evaluate import evaluate
from ir.autodiff.forward import tangents
from ir.graph import Graph, Node, SourceLocation
from ir.optimize.passes import optimize
from ir.pictures.render import RenderError
from ir.json.serialize import GraphFormatError
from ir import graph_methods  # noqa: F401 (gives Graph its pictures, summary and JSON)
from ir import primitive_references  # noqa: F401 (gives operators and passes their primitives)
from ir.primitive import PRIMITIVES, Primitive, register_value_kind
from ir.symbolic import Symbol

__all__ = ["Graph", "GraphFormatError", "Node", "PRIMITIVES", "Primitive", "RenderError",
           "SourceLocation", "Symbol", "adjoint", "backward", "evaluate", "optimize",
           "primitives", "register_value_kind", "tangents"]


def __dir__():
    """The public API: what ``dir(ir)`` shows, without the internal submodules."""
    return __all__
