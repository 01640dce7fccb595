"""Expressions of generated code: a primitive's spelling filled with its arguments.

Each distinct expression is built as a Python AST and written out with astor
once; the names of the values it reads are filled into its text afterwards,
so the statements of a loop's steps, which repeat a few expressions, cost one
astor call each (``codegen.emit`` lays them out).
"""

import ast
import copy
import functools
import itertools
from dataclasses import dataclass

import astor

from codegen.targets.base import primitive_of
from ir.optimize.simplify import python_number


NAMED = None
"""An argument read by its name."""

NAMEPLACEHOLDER = "\x00{}\x00"
"""Where the k-th name an expression reads goes in its text: astor writes a name as it
is, and escapes that character anywhere else."""



def with_names(text, name_of):
    """An expression's ``text`` with its k-th placeholder replaced by ``name_of(k)``."""
    parts = text.split("\x00")
    parts[1::2] = [name_of(int(k)) for k in parts[1::2]]
    return "".join(parts)


@dataclass(frozen=True)
class Expression:
    """What a value's code computes: its primitive's spelling, a template with ``{k}``
    slots, and the arguments, each ``NAMED``, a constant's source or a folded-in
    ``Expression``.  Expressions that are equal are written alike, whatever
    values they read."""

    template: str
    args: tuple

    def tree(self, placeholders=None):
        """The expression as a Python AST, its k-th named argument a name placeholder."""
        if placeholders is None:
            placeholders = itertools.count()
        args = [ast.Name(NAMEPLACEHOLDER.format(next(placeholders))) if arg is NAMED
                else ast.parse(arg, mode="eval").body if isinstance(arg, str)
                else arg.tree(placeholders) for arg in self.args]
        return fill(self.template, args)


def expression_text(tree):
    """One line of source for an expression (astor would wrap long ones).

    astor marks the nodes it prints with their precedence, which would put
    parentheses around an expression printed once inside another and then on
    its own: it prints a copy, as an expression statement (a bare expression
    would get parentheses too).  A string alone would print as a docstring, so it
    is written as Python writes it.
    """
    if isinstance(tree, ast.Constant) and isinstance(tree.value, (str, bytes)):
        return repr(tree.value)
    statement = ast.Expr(value=copy.deepcopy(tree))
    return astor.to_source(statement, pretty_source="".join).strip()


def call_lines(name, text, width):
    """The statement ``name = text`` as lines (each to be indented by four): one, or where
    it does not fit in ``width`` and ``text`` is a call, its arguments on a line below
    it, or one a line, where every line then fits."""
    line = f"{name} = {text}"
    if len(line) + 4 <= width:
        return [line]
    call = ast.parse(text, mode="eval").body
    if not isinstance(call, ast.Call):
        return [line]
    args = [ast.get_source_segment(text, arg) for arg in call.args]
    args += [f"{'**' if k.arg is None else k.arg + '='}{ast.get_source_segment(text, k.value)}"
             for k in call.keywords]
    head = f"{name} = {ast.get_source_segment(text, call.func)}("
    for lines in ([head, "    " + ", ".join(args) + ")"],
                  [head] + [f"    {arg}," for arg in args] + [")"]):
        if args and all(len(part) + 4 <= width for part in lines):
            return lines
    return [line]


def free_names(tree):
    """The names expression ``tree`` reads that are not its values' (which name
    placeholders stand for): the namespace, helpers, modules, sizes."""
    return {node.id for node in ast.walk(tree)
            if isinstance(node, ast.Name) and not node.id.startswith("\x00")}


def weak_literals(graph, node):
    """Constant 0-d values among an elementwise node's arguments (0-d arrays, numpy
    scalars) that can be written as plain Python numbers, by position.

    A Python number is typed weakly, so ``2.0 * h`` reads better than
    ``np.float64(2.0) * h``, and costs nothing to build at each call; an argument is
    written so only where numpy computes the same with it (``ir.optimize.simplify.python_number``:
    the node and its other operands have the constant's dtype), one argument at most,
    and another stays a computed value, so the expression never becomes Python
    arithmetic on plain numbers.
    """
    prim = primitive_of(node)
    args = [graph[i] for i in node.inputs]
    if not prim.elementwise or all(a.kind == "constant" for a in args):
        return {}
    for position, arg in enumerate(args):
        if arg.kind == "constant" and arg.dtype.kind in "biuf":
            number = python_number(graph, node.inputs, position, node.dtype)
            if number is not None:  # (one at most: the others were taken as typed strongly)
                return {position: number}
    return {}


@functools.lru_cache(maxsize=None)
def template_tree(template):
    """The expression tree of ``template``, its ``{k}`` slots the names ``__slot_k__``."""
    parts = template.split("{")
    named = [parts[0]]
    for part in parts[1:]:
        number, brace, rest = part.partition("}")
        named.append(f"__slot_{number}__{rest}" if brace and number.isdigit() else "{" + part)
    return ast.parse("".join(named), mode="eval").body


def _slot_number(name):
    """``k`` for the name ``__slot_k__``, else ``None``."""
    number = name[len("__slot_"):-len("__")] if name.startswith("__slot_") else ""
    return int(number) if number.isdigit() and name.endswith("__") else None


class FillSlots(ast.NodeTransformer):
    """Argument expressions into a template's slots: an argument used again is copied, so
    that each place it is written in has a node of its own (astor marks a node with the
    precedence of where it is printed)."""

    def __init__(self, args):
        self.args = args
        self.used = set()

    def visit_Name(self, node):
        k = _slot_number(node.id)
        if k is None:
            return node
        if k in self.used:
            return copy.deepcopy(self.args[k])
        self.used.add(k)
        return self.args[k]


def fill(template, args):
    """The expression ``template`` (text, or a tree with ``__slot_k__`` names) with
    argument expressions in its ``{k}`` slots."""
    tree = template_tree(template) if isinstance(template, str) else template
    return FillSlots(args).visit(copy.deepcopy(tree))
