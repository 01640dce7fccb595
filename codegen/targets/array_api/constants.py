"""The arrays an array-API module closes over, written without numpy: a module-level
Python list (or nothing, for an array of one repeated value), made into an array of
the namespace, in its dtype and on the arguments' device, where the function reads it.

The numpy target writes them as numpy expressions (``codegen.literals``); they are read
back here with numpy, which the generator has and the generated module does not need.
"""

import ast
import math
import re

import numpy as np

from codegen.targets.array_api.syntax import DEVICE


def constants_in_the_namespace(head):
    """``(head, spellings)``: the module's head lines with each constant array a Python
    value, and for each constant's name the expression that makes it in the namespace."""
    tree = ast.parse("\n".join(head))
    spellings, replaced = {}, {}
    for statement in tree.body:
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and statement.targets[0].id.startswith("_")
                and statement.targets[0].id[1:2].isupper()):
            continue
        name = statement.targets[0].id
        value = np.asarray(eval(compile(ast.Expression(statement.value), "<constant>", "eval"),
                                {"np": np}))
        spelling, kept = _spelled(name, value)
        spellings[name] = ast.parse(spelling, mode="eval").body
        replaced[statement.lineno - 1] = (statement.end_lineno, kept)
    out, k = [], 0
    while k < len(head):
        if k in replaced:
            end, kept = replaced[k]
            out.extend([kept] if kept else [])
            k = end
            continue
        if not re.match(r"^_[A-Z][A-Z_0-9]*\.flags\.writeable = False$", head[k]):
            out.append(head[k])
        k += 1
    return _headed(out), spellings


def _headed(lines):
    """The comment over the constants, said of the lists (and gone with them)."""
    k = next((k for k, line in enumerate(lines) if line.startswith(_NUMPY_HEADING)), None)
    if k is None:
        return lines
    if k + 1 < len(lines) and re.match(r"^_[A-Z]", lines[k + 1]):
        return lines[:k] + [_HEADING] + lines[k + 1:]
    return lines[:k] + lines[k + 1:]


_NUMPY_HEADING = "# Arrays written into the code:"
_HEADING = ("# Arrays written into the code, as lists: made in the arguments' namespace where "
            "read.")


def _spelled(name, value):
    """How the function makes constant ``value``, and the module line that keeps it."""
    dtype = f"dtype=xp.{value.dtype.name}, device={DEVICE}"
    if value.ndim == 0:
        return f"xp.asarray({_literal(value.item())}, {dtype})", None
    if value.size and bool(np.all(value == value.flat[0])):
        return f"xp.full({value.shape!r}, {_literal(value.flat[0].item())}, {dtype})", None
    return f"xp.asarray({name}, {dtype})", f"{name} = {_literal(value.tolist())}"


def _literal(value):
    """Python source for a number or a nested list of them (``math.inf`` for infinity)."""
    if isinstance(value, list):
        return f"[{', '.join(_literal(v) for v in value)}]"
    if isinstance(value, complex):
        return f"complex({_literal(value.real)}, {_literal(value.imag)})"
    if isinstance(value, float) and not math.isfinite(value):
        return "math.nan" if math.isnan(value) else ("math.inf" if value > 0 else "-math.inf")
    return repr(value)
