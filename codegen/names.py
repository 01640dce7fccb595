"""Readable, deterministic names for the values of a generated function.

Parameters take their tensors' and variables' names; a forward value takes
the assignment target of the user's line that computed it (``h = np.tanh(z)``
names ``h``), an adjoint value that is a whole cotangent is ``d_<name>``, and
anything else is named after its operation.  Names are handed out in graph
order, so the same graph always gives the same names.
"""

import ast
import functools
import keyword

RESERVED = frozenset({"np", "INPUTS", "_check_inputs", "seed"})

_OP_NAMES = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "div",
             "negative": "neg", "getitem": "item", "scatter_add": "scattered",
             "broadcast_to": "spread", "sum_to": "summed", "power": "pow"}


def identifier(text, fallback):
    """``text`` made into a Python identifier (``fallback`` if nothing usable is left)."""
    cleaned = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in str(text or ""))
    cleaned = cleaned.strip("_") or fallback
    if cleaned[0].isdigit():
        cleaned = f"_{cleaned}"
    if keyword.iskeyword(cleaned):
        cleaned = f"{cleaned}_"
    return cleaned


class Namer:
    """Hands out unique names; asking twice for the same base gives ``base``, ``base_1``..."""

    def __init__(self, taken=RESERVED):
        self._taken = set(taken)

    def claim(self, base):
        name = base
        count = 0
        while name in self._taken:
            count += 1
            name = f"{base}_{count}"
        self._taken.add(name)
        return name


@functools.lru_cache(maxsize=None)
def assignment_target(line_text):
    """The single name a source line assigns to (``z = x @ W + b`` gives ``z``), or None."""
    try:
        tree = ast.parse(line_text.strip())
    except SyntaxError:
        return None
    if len(tree.body) != 1:
        return None
    statement = tree.body[0]
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
        target = statement.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def op_name(op):
    """A short name for a value computed by ``op``."""
    return _OP_NAMES.get(op, op)
