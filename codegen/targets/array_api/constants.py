"""Constants in array-API modules, written without numpy: a scalar or an array made in
the namespace, in its dtype and on the arguments' device, where the function reads it;
and the arrays the module keeps as Python lists (or none, for an array of one repeated
value).

The numpy target writes them as numpy expressions (``codegen.literals``); this writes
the same values as the standard can read them.
"""

import math

import numpy as np

from codegen.literals import nested_source, number_source, scalar_source
from codegen.targets.array_api.syntax import DEVICE


def literal(value):
    """Source that makes constant ``value``: a Python number as itself, an array (or a
    numpy scalar) in the namespace, with its dtype, on the arguments' device."""
    if (isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic)
            or value is None):
        return scalar_source(value, "xp")
    array = np.asarray(value)
    typed = f"dtype=xp.{array.dtype.name}, device={DEVICE}"
    if array.ndim == 0:
        return f"xp.asarray({number_source(array.item(), 'xp')}, {typed})"
    if array.size == 0:
        return f"xp.zeros({array.shape!r}, {typed})"
    if bool(np.all(array == array.flat[0])):
        return f"xp.full({array.shape!r}, {scalar_source(array.flat[0].item(), 'xp')}, {typed})"
    return f"xp.asarray({nested_source(array.tolist(), 'xp')}, {typed})"


def array_read(name, value):
    """Source that makes the module's constant array ``value`` where the function reads
    it: from the list ``name`` the module keeps (``ListedArrays``), or whole (zero size,
    one repeated value)."""
    array = np.asarray(value)
    if not _listed(array):
        return literal(array)
    return f"xp.asarray({name}, dtype=xp.{array.dtype.name}, device={DEVICE})"


class ListedArrays:
    """The constant arrays of a function (``ModuleArrays.items()``) as an array-API
    module keeps them: ``text()`` the lists, and ``infinite`` whether one holds
    ``math.inf`` or ``math.nan``."""

    def __init__(self, arrays):
        self._lines, self.infinite = [], False
        for name, value in arrays:
            value = np.asarray(value)
            if _listed(value):
                self._lines.append(f"{name} = {_literal(value.tolist())}")
                self.infinite |= value.dtype.kind in "fc" and not bool(np.isfinite(value).all())

    def text(self):
        """The module-level lists (``""`` for none)."""
        return "\n".join([_HEADING] + self._lines) if self._lines else ""


_HEADING = ("# Arrays written into the code, as lists: made in the arguments' namespace where "
            "read.")


def _listed(array):
    """Whether the module keeps ``array`` as a list: not of zero size nor one value."""
    return array.size > 0 and not bool(np.all(array == array.flat[0]))


def _literal(value):
    """Python source for a number or a nested list of them (``math.inf`` for infinity)."""
    if isinstance(value, list):
        return f"[{', '.join(_literal(v) for v in value)}]"
    if isinstance(value, complex):
        return f"complex({_literal(value.real)}, {_literal(value.imag)})"
    if isinstance(value, float) and not math.isfinite(value):
        return "math.nan" if math.isnan(value) else ("math.inf" if value > 0 else "-math.inf")
    return repr(value)
