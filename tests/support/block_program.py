"""A documentation's Python block as a program that checks the values it shows.

A value is shown in a comment that starts with ``->``, as the Python literal
of the value (a tensor as its values' nested list); a ``;`` ends the literal,
and the rest of the comment is prose.  The comment shows the value of the
expression or assignment on its line, or, on a line of its own, of the
statement just above:

    dy = t1.gradient(y, x)      # -> 27
    grads["x"]                  # -> [0.7269, 0.6397, 0.]; a tensor
    len(list(nx.topological_generations(g)))
    # -> 6

The program calls ``__shown__(line, value)`` right after each such
statement, with the line of the comment.  Its lines are those of the
markdown file, so a traceback (and a tape's record of where it was) names
the markdown's line.
"""

import ast
import dataclasses
import io
import re
import tokenize

SHOWN = re.compile(r"^#\s*->\s*(.*?)\s*$")
CHECK = "__shown__"


class BlockError(ValueError):
    """A ``# ->`` comment that shows the value of no statement."""


@dataclasses.dataclass
class Shown:
    """A value a block shows: the comment's line, the literal, and the comment itself."""

    line: int
    literal: str
    comment: str


def shown_values(source, first_line=1):
    """``{line: Shown}`` for each ``# ->`` comment of ``source`` whose first line is
    ``first_line``, with whether it follows code on its line."""
    found, trailing = {}, set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        match = SHOWN.match(token.string) if token.type == tokenize.COMMENT else None
        if match:
            line = token.start[0] + first_line - 1
            found[line] = Shown(line, match.group(1).split(";")[0].strip(), token.string)
            if token.line[:token.start[1]].strip():
                trailing.add(line)
    return found, trailing


def program(source, filename, first_line):
    """The code object of ``source`` (lines counted from ``first_line``), calling
    ``__shown__`` after each statement whose value a comment shows, and the values shown."""
    tree = ast.parse(source, filename)
    ast.increment_lineno(tree, first_line - 1)
    shown, trailing = shown_values(source, first_line)
    lines = source.splitlines()
    statements = _attach(tree, shown, trailing, lambda n: lines[n - first_line], filename)
    tree = _Instrument(statements).visit(tree)
    ast.fix_missing_locations(tree)
    return compile(tree, filename, "exec"), shown


def _simple_statements(tree):
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.stmt) and not hasattr(node, "body")]


def _attach(tree, shown, trailing, line_text, filename):
    """``{id(statement): line of its comment}``: the statement each comment shows."""
    statements, attached = _simple_statements(tree), {}
    for line in shown:
        if line in trailing:
            candidates = [s for s in statements if s.end_lineno == line]
        else:
            candidates = [s for s in statements if s.end_lineno < line and all(
                not text.strip() or text.lstrip().startswith("#")
                for text in map(line_text, range(s.end_lineno + 1, line)))]
        statement = max(candidates, key=lambda s: (s.end_lineno, s.lineno), default=None)
        if not isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)):
            raise BlockError(f"{filename}:{line}: a `# ->` comment shows the value of an "
                             "expression or an assignment, on its line or just above it")
        attached[id(statement)] = line
    return attached


class _Instrument(ast.NodeTransformer):
    """Calls ``__shown__`` with each shown statement's value."""

    def __init__(self, statements):
        self.statements = statements

    def visit_Expr(self, node):
        line = self.statements.get(id(node))
        if line is None:
            return node
        node.value = _check_call(line, node.value)
        return node

    def _after(self, node, target):
        line = self.statements.get(id(node))
        if line is None:
            return node
        value = ast.parse(ast.unparse(target), mode="eval").body
        for part in ast.walk(value):
            ast.copy_location(part, node)
        return [node, ast.copy_location(ast.Expr(_check_call(line, value)), node)]

    def visit_Assign(self, node):
        return self._after(node, node.targets[0])

    def visit_AnnAssign(self, node):
        return self._after(node, node.target)

    def visit_AugAssign(self, node):
        return self._after(node, node.target)


def _check_call(line, value):
    call = ast.Call(ast.Name(CHECK, ast.Load()), [ast.Constant(line), value], [])
    return ast.copy_location(call, value)
