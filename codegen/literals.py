"""Constants written into generated source so that numpy reads them back exactly.

A Python scalar stays a Python literal (numpy types it weakly, as in the
recorded computation); a numpy array or scalar keeps its dtype, spelled out
only where numpy would not infer it.  Arrays of one repeated value are
written as ``np.full``.
"""

import ast
import math

import numpy as np


def literal_source(value):
    """Source text for a constant ``value``."""
    if isinstance(value, (bool, int, float, complex)) or value is None:
        return _scalar(value)
    array = np.asarray(value)
    if array.ndim == 0:
        return f"np.{array.dtype.name}({_scalar(array.item())})"
    if array.size and bool(np.all(array == array.flat[0])):
        first = array.flat[0].item()
        return f"np.full({array.shape!r}, {_scalar(first)}{_dtype(array, first)})"
    items = array.tolist()
    return f"np.array({_nested(items)}{_dtype(array, array.flat[0].item() if array.size else 0.0)})"


def literal_ast(value):
    """``literal_source`` as an expression AST."""
    return ast.parse(literal_source(value), mode="eval").body


def _dtype(array, sample):
    inferred = np.result_type(np.asarray(sample).dtype) if array.size else np.dtype(float)
    return "" if inferred == array.dtype else f", dtype=np.{array.dtype.name}"


def _nested(items):
    if isinstance(items, list):
        return "[" + ", ".join(_nested(item) for item in items) + "]"
    return _scalar(items)


def _scalar(x):
    if isinstance(x, float) and not math.isfinite(x):
        if math.isnan(x):
            return "np.nan"
        return "np.inf" if x > 0 else "-np.inf"
    return repr(x)
