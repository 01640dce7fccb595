"""The array-API target: a module written against the array API standard, so that one
file runs on numpy, CuPy, PyTorch, JAX and Dask arrays alike (``translation`` says how).

Each node is spelled from the graph: by the spelling its primitive states for the
standard (``Primitive.array_api``), or else by its numpy spelling, each call of
which is spelled in the namespace (``np.f`` as ``xp.f``, by the rules of
``translation``).  What the arguments of a node are (Python numbers, integer
counters, booleans) is read off the graph, and a refusal names the user's line the
node computes.  Constants are written by the target (``constants``), loops and
branches by ``loops``, long stacks a value at a time as the emitter asks
(``stacks``), and the module is put together from its parts (``parts``).
"""

import functools

from codegen.targets.array_api import constants
from codegen.targets.array_api.translation import Names, in_the_standard
from codegen.targets.array_api.inputs import ARRAY_API_DOOR
from codegen.targets.array_api.loops import ARRAY_API_BLOCKS, line_of
from codegen.targets.array_api.parts import module_text
from codegen.targets.array_api.syntax import DEVICE
from codegen.targets.array_api.stacks import stack_in_place
from codegen.emit import CodegenError
from codegen.expressions import template_tree, weak_literals
from codegen.targets.base import primitive_of
from codegen.targets.numpy import NUMPY, NumpyTarget
from ir.primitive import Unspellable


class ArrayApiTarget(NumpyTarget):
    """Modules that take their namespace from their arguments."""

    name = "array_api"
    door = ARRAY_API_DOOR
    blocks = ARRAY_API_BLOCKS
    laid_out_as = NUMPY
    copied = "xp.asarray({0}, copy=True)"
    as_array = f"xp.asarray({{0}}, device={DEVICE})"

    def template(self, primitive, params, shapes):
        stated = primitive.array_api_spelling(params, shapes)
        return stated if stated is not None else primitive.spelling(params, shapes)

    def spelling(self, node, graph):
        """The node's template in the standard's terms, as an expression tree."""
        return _standard_tree(super().spelling(node, graph), *_argument_kinds(node, graph))

    def stack_in_place(self, name, values, first):
        return stack_in_place(name, values, first)

    def writes_into(self, node):
        """Never: the standard's functions take no ``out``."""
        return False

    def refusal(self, node, graph, refusal):
        location = line_of(node, graph)
        where = f", computing {location}" if location else ""
        return f"cannot generate code for {refusal.what}{where}: {refusal.why}"

    def literal(self, value):
        return constants.literal(value)

    def array_read(self, name, value):
        return constants.array_read(name, value)

    def module(self, name, docstring, parameters, layout, result, guards, written=()):
        """The module, with the standard's helpers for numpy's of the same name; a helper
        written for numpy alone is refused."""
        try:
            return module_text(name, docstring, parameters, layout, result, guards, self.door)
        except Unspellable as refusal:
            raise CodegenError(f"cannot generate code for {refusal.what}: {refusal.why}") from None


@functools.lru_cache(maxsize=None)
def _standard_tree(template, numbers, counters, booleans):
    """The expression tree of a numpy ``template`` in the standard's terms, its slots
    ``numbers`` Python numbers, ``counters`` integer counters (0-d arrays) and
    ``booleans`` booleans; one tree per template and kinds, which the emitter then
    writes once."""
    names = Names(numbers=set(numbers), counters=set(counters),
                  booleans=set(booleans))
    return in_the_standard(template_tree(template), names)


def _argument_kinds(node, graph):
    """The slots of ``node``'s template that hold Python numbers (literals, sizes and
    arithmetic of those), those that hold computed 0-d integer arrays (a loop's
    counters), and those that hold booleans."""
    weak = weak_literals(graph, node)
    kinds = {"numbers": [], "counters": [], "booleans": []}
    for position, i in enumerate(node.inputs):
        argument, slot = graph[i], f"__slot_{position}__"
        if position in weak or _is_number(graph, argument):
            kinds["numbers"].append(slot)
        elif (argument.kind != "constant" and tuple(argument.shape) == ()
              and argument.dtype.kind in "iu"):
            kinds["counters"].append(slot)
        elif argument.dtype.kind == "b":
            kinds["booleans"].append(slot)
    return tuple(frozenset(found) for found in kinds.values())


def _is_number(graph, node):
    """Whether generated code computes ``node`` as a Python number: a size, a constant
    written as a Python literal, or elementwise arithmetic of those."""
    if node.kind == "constant":
        return isinstance(node.value, (bool, int, float, complex))
    if node.kind != "op":
        return False
    if node.op == "size":
        return True
    return (primitive_of(node).elementwise and bool(node.inputs)
            and all(_is_number(graph, graph[i]) for i in node.inputs))


ARRAY_API = ArrayApiTarget()
