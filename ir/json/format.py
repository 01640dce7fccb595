"""The JSON format of graphs: its limits, and checks of one field each.

``ir.json.serialize`` writes and reads documents; what a document may hold, and
how each field is checked on reading, is kept here.
"""

import numpy as np

from ir.sizes.data import size_from_data

FORMAT = "tapegen.graph"
VERSION = 1

MAX_DOCUMENT_SIZE = 64 * 2**20
"""Default bound on a document's length in characters."""
MAX_CONSTANT_ELEMENTS = 2**16
"""Default bound on the elements of a leaf value written in full."""
MAX_DEPTH = 32
"""Deepest nesting of a value (params, meta, leaf values)."""
MAX_RANK = 32
MAX_ELEMENTS = 2**40
"""Most elements a declared shape may have: shapes are checked, never allocated."""
MAX_INT = 2**63
"""Integers must lie in ``(-MAX_INT, MAX_INT)``; longer numbers are refused before parsing."""
MAX_STRING = 4096
"""Longest string other than array data (names, files, params, meta)."""
MAX_BODY_DEPTH = 16
"""Deepest nesting of loop bodies: a body's loop node inside a body counts one more."""
MAX_NODES = 2**20
"""Default bound on the nodes of a document, its bodies' included."""

DTYPES = frozenset(["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float16", "float32", "float64", "complex64", "complex128"])
"""The dtypes a document may name: numeric and bool, never strings, and object
(``RESULTS_DTYPE``) only on a node with several results."""
RESULTS_DTYPE = "object"
"""The dtype of a node with several results (a loop's, a branch's): its value is a
tuple of arrays, read by ``result`` nodes, so no value of it is ever written."""

KINDS = ("input", "variable", "constant", "op")
NODE_FIELDS = ("id", "kind", "op", "inputs", "params", "shape", "dtype", "name", "source",
               "value", "meta")


class GraphFormatError(ValueError):
    """A graph cannot be written as, or read from, the JSON format."""


# --- field checks ------------------------------------------------------------------


def check_keys(data, keys, where):
    """``data`` is an object with exactly the fields ``keys``."""
    if not isinstance(data, dict):
        raise GraphFormatError(f"{where}: expected an object")
    missing = [key for key in keys if key not in data]
    if missing:
        raise GraphFormatError(f"{where}: missing fields {missing}")
    unknown = sorted(key for key in data if key not in keys)
    if unknown:
        raise GraphFormatError(f"{where}: unknown fields {unknown[:5]}")


def as_list(data, where):
    """``data``, a list."""
    if not isinstance(data, list):
        raise GraphFormatError(f"{where}: expected a list")
    return data


def as_int(data, where):
    """``data``, an integer (not a bool)."""
    if type(data) is not int:
        raise GraphFormatError(f"{where}: expected an integer, not {type(data).__name__}")
    return data


def as_string(data, where):
    """``data``, a string of at most ``MAX_STRING`` characters."""
    if not isinstance(data, str):
        raise GraphFormatError(f"{where}: expected a string, not {type(data).__name__}")
    if len(data) > MAX_STRING:
        raise GraphFormatError(f"{where}: string longer than {MAX_STRING} characters")
    return data


def as_optional_string(data, where):
    """``data``, ``None`` or a string (see ``as_string``)."""
    return None if data is None else as_string(data, where)


def as_ascii(data, where):
    """``data``, an ASCII string (array data in base64)."""
    if not isinstance(data, str) or not data.isascii():
        raise GraphFormatError(f"{where}: array data is a base64 string")
    return data


def as_dtype(data, where):
    """The numpy dtype ``data`` names, one of ``DTYPES``."""
    if not isinstance(data, str) or data not in DTYPES:
        raise GraphFormatError(f"{where}: dtype {data!r} is not one of {sorted(DTYPES)}")
    return np.dtype(data)


def as_node_shape(data, where):
    """A node's shape: ``as_shape``'s, whose dimensions may also be symbolic sizes
    (``ir.sizes.dims``), written as data and read through their arithmetic."""
    dims = as_list(data, where)
    if len(dims) > MAX_RANK:
        raise GraphFormatError(f"{where}: rank above {MAX_RANK}")
    try:
        read = tuple(dim if type(dim) is int else size_from_data(dim, where) for dim in dims)
    except ValueError as error:
        raise GraphFormatError(str(error)) from None
    as_shape([dim for dim in read if type(dim) is int], where)
    return read


def as_shape(data, where):
    """A shape: at most ``MAX_RANK`` non-negative ints, ``MAX_ELEMENTS`` elements in all."""
    dims = as_list(data, where)
    if len(dims) > MAX_RANK:
        raise GraphFormatError(f"{where}: rank above {MAX_RANK}")
    size = 1
    for dim in dims:
        if type(dim) is not int or not 0 <= dim <= MAX_ELEMENTS:
            raise GraphFormatError(f"{where}: dimensions are integers from 0 to {MAX_ELEMENTS}")
        size = min(size * dim, MAX_ELEMENTS + 1)
    if size > MAX_ELEMENTS:
        raise GraphFormatError(f"{where}: more than {MAX_ELEMENTS} elements")
    return tuple(dims)
