"""What a generated function returns: one expression per value, in the structure the
caller asked for.

The function's ``return`` statement and its docstring's ``Returns:`` line
both write this structure, each leaf in its own way.
"""

import ast
import dataclasses

from codegen.emit import expression_text


@dataclasses.dataclass(frozen=True)
class Leaf:
    """One returned value: its expression, and its node (``None`` for no gradient)."""

    expression: ast.AST
    node: object

    def code(self):
        return expression_text(self.expression)


def structure_text(structure, leaf_text):
    """Nested dicts, lists and tuples of leaves as Python source, each leaf written by
    ``leaf_text``."""
    if isinstance(structure, dict):
        items = ", ".join(f"{k!r}: {structure_text(v, leaf_text)}" for k, v in structure.items())
        return "{" + items + "}"
    if isinstance(structure, list):
        return "[" + ", ".join(structure_text(v, leaf_text) for v in structure) + "]"
    if isinstance(structure, tuple):
        items = [structure_text(v, leaf_text) for v in structure]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return leaf_text(structure)


def return_text(result):
    """The return statement; a top-level tuple of two or more needs no parentheses."""
    if isinstance(result, tuple) and len(result) > 1:
        return "return " + ", ".join(structure_text(r, Leaf.code) for r in result)
    return "return " + structure_text(result, Leaf.code)
