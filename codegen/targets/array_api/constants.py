"""The arrays an array-API module closes over, written without numpy: a module-level
Python list (or nothing, for an array of one repeated value), made into an array of
the namespace, in its dtype and on the arguments' device, where the function reads it.

The numpy target writes them as numpy expressions (``codegen.literals.ModuleArrays``);
this writes the same arrays, by their values, as the standard can read them.
"""

import ast
import math

import numpy as np

from codegen.targets.array_api.syntax import DEVICE


class ListedArrays:
    """The constant arrays of a function (``ModuleArrays.items()``) as an array-API
    module writes them: its ``text()`` the lists, its ``spellings`` the expression that
    makes each array in the namespace, by name."""

    def __init__(self, arrays):
        self.spellings, self._lines = {}, []
        for name, value in arrays:
            spelling, kept = _spelled(name, np.asarray(value))
            self.spellings[name] = ast.parse(spelling, mode="eval").body
            self._lines += [kept] if kept else []

    def text(self):
        """The module-level lists (``""`` for none)."""
        return "\n".join([_HEADING] + self._lines) if self._lines else ""


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
