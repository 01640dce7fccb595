"""Constants written into generated source so that numpy reads them back exactly.

A Python scalar stays a Python literal (numpy types it weakly, as in the
recorded computation); a numpy array or scalar keeps its dtype, spelled out
only where numpy would not infer it.  Arrays of one repeated value are
written as ``np.full`` where that is shorter.  The arrays a function reads
are made once, at module level, under names of their own (``ModuleArrays``).
"""

import math

import numpy as np

from ir.names import Namer, identifier


def literal_source(value):
    """Source text for a constant ``value``."""
    if isinstance(value, (bool, int, float, complex)) or value is None:
        return scalar_source(value)
    array = np.asarray(value)
    if array.size == 0:
        return f"np.zeros({array.shape!r}{_dtype(array, 0.0)})"
    if array.ndim == 0:
        return f"np.{array.dtype.name}({number_source(array.item())})"
    sample = array.flat[0].item() if array.size else 0.0
    listed = f"np.array({nested_source(array.tolist())}{_dtype(array, sample)})"
    if array.size and bool(np.all(array == array.flat[0])):
        full = f"np.full({array.shape!r}, {scalar_source(sample)}{_dtype(array, sample)})"
        return full if len(full) < len(listed) else listed
    return listed


def _dtype(array, sample):
    inferred = np.result_type(np.asarray(sample).dtype) if array.size else np.dtype(float)
    return "" if inferred == array.dtype else f", dtype=np.{array.dtype.name}"


def nested_source(items, namespace="np"):
    """A nested list of numbers as a list display."""
    if isinstance(items, list):
        return "[" + ", ".join(nested_source(item, namespace) for item in items) + "]"
    return number_source(items, namespace)


def scalar_source(x, namespace="np"):
    """A scalar on its own: a long float that is ``1 / n`` is written so (infinity and nan
    as ``namespace`` names them)."""
    text = number_source(x, namespace)
    reciprocal = _reciprocal(x)
    return reciprocal if reciprocal is not None and len(reciprocal) < len(text) else text


def number_source(x, namespace="np"):
    """A number as a literal; infinity and nan as ``namespace`` names them (``np.inf``)."""
    if isinstance(x, float) and not math.isfinite(x):
        if math.isnan(x):
            return f"{namespace}.nan"
        return f"{namespace}.inf" if x > 0 else f"-{namespace}.inf"
    return repr(x)


RECIPROCAL_LIMIT = 2 ** 24
"""Largest ``n`` written as ``1 / n``."""


def _reciprocal(x):
    """``1 / n`` for a float that is exactly the reciprocal of an integer, else ``None``.

    Folded factors such as a mean's ``2 / 8192`` read better as ``1 / 4096``
    than as ``0.000244140625``; Python's division rounds once, so the text
    gives back the same float.
    """
    if not isinstance(x, float) or not 1 / RECIPROCAL_LIMIT <= abs(x) < 1:
        return None
    n = round(1 / x)
    if abs(n) > RECIPROCAL_LIMIT or 1 / n != x:
        return None
    return f"1 / {n}" if n > 0 else f"-1 / {-n}"


class ModuleArrays:
    """The constant arrays a generated function reads, each made once when its module
    loads, under a name of its own, and read-only: written into an expression, an
    array would be built again at every call (in a loop, at every step).

    A name is the array's name in the graph's listing, in capitals after an
    underscore (``data_3`` is ``_DATA_3``, an unnamed array ``_CONSTANT``).  It
    starts with an underscore and no digit, which the name of a parameter or a
    value of the function never does (``ir.names.identifier`` drops leading
    underscores and puts one back only before a digit), so none of them can
    hide an array's.  Arrays written alike share a name; they are made in the
    order they were first read.
    """

    def __init__(self, taken=()):
        self._namer = Namer(set(taken))
        self._names = {}  # each array's source -> its name
        self._values = {}  # each name -> its array

    def name(self, value, name=None):
        """The name array ``value`` (called ``name`` in the graph) is read by."""
        source = literal_source(value)
        if source not in self._names:
            base = identifier(str(name or "").upper(), "CONSTANT")
            self._names[source] = self._namer.claim(f"_{base}")
            self._values[self._names[source]] = value
        return self._names[source]

    def items(self):
        """``(name, array)`` of each array, in the order they are made."""
        return list(self._values.items())

    def text(self):
        """The module-level statements that make the arrays (``""`` for none)."""
        if not self._names:
            return ""
        lines = ["# Arrays written into the code: made once, read-only, shared by every call."]
        for source, name in self._names.items():
            lines += [f"{name} = {source}", f"{name}.flags.writeable = False"]
        return "\n".join(lines)
