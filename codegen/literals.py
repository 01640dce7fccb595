"""Constants written into generated source so that numpy reads them back exactly.

A Python scalar stays a Python literal (numpy types it weakly, as in the
recorded computation); a numpy array or scalar keeps its dtype, spelled out
only where numpy would not infer it.  Arrays of one repeated value are
written as ``np.full`` where that is shorter.
"""

import ast
import math

import numpy as np


def literal_source(value):
    """Source text for a constant ``value``."""
    if isinstance(value, (bool, int, float, complex)) or value is None:
        return _scalar(value)
    array = np.asarray(value)
    if array.size == 0:
        return f"np.zeros({array.shape!r}{_dtype(array, 0.0)})"
    if array.ndim == 0:
        return f"np.{array.dtype.name}({_number(array.item())})"
    sample = array.flat[0].item() if array.size else 0.0
    listed = f"np.array({_nested(array.tolist())}{_dtype(array, sample)})"
    if array.size and bool(np.all(array == array.flat[0])):
        full = f"np.full({array.shape!r}, {_scalar(sample)}{_dtype(array, sample)})"
        return full if len(full) < len(listed) else listed
    return listed


def literal_ast(value):
    """``literal_source`` as an expression AST."""
    return ast.parse(literal_source(value), mode="eval").body


def _dtype(array, sample):
    inferred = np.result_type(np.asarray(sample).dtype) if array.size else np.dtype(float)
    return "" if inferred == array.dtype else f", dtype=np.{array.dtype.name}"


def _nested(items):
    if isinstance(items, list):
        return "[" + ", ".join(_nested(item) for item in items) + "]"
    return _number(items)


def _scalar(x):
    """A scalar on its own: a long float that is ``1 / n`` is written so."""
    text = _number(x)
    reciprocal = _reciprocal(x)
    return reciprocal if reciprocal is not None and len(reciprocal) < len(text) else text


def _number(x):
    if isinstance(x, float) and not math.isfinite(x):
        if math.isnan(x):
            return "np.nan"
        return "np.inf" if x > 0 else "-np.inf"
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
