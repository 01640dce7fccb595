"""Values in graph documents: how params, meta and leaf values are written as JSON data
and read back, and how a document's text is parsed (``ir.json.serialize`` writes and reads
the documents themselves).

Values map JSON's own types where they are unambiguous: ``null``, booleans,
strings, lists, integers, finite floats (JSON keeps ``1`` and ``1.0`` apart).
Everything else is an object tagged by its ``"$"`` key: ``tuple``, ``slice``,
``ellipsis``, ``index_arg``, ``dtype``, ``scalar_type``, ``float`` (inf and
nan), ``complex``, ``size`` (a symbolic size, ``ir.sizes.dims``), ``scalar`` (a
numpy scalar), ``array`` (dtype, shape and base64 of the little-endian bytes),
``omitted`` (an array larger than the writer's limit, kept by dtype and shape
only: it loads as ``None``, so evaluating the loaded graph needs that leaf
supplied) and ``source`` (a ``SourceLocation``).  A loop's bodies are params of their own kind, which
``ir.json.serialize`` writes and reads.
"""

import base64
import binascii
import json
import math

import numpy as np

from ir.sizes.dims import Size
from ir.graph import SourceLocation
from ir.json.format import (DTYPES, MAX_DEPTH, MAX_INT, GraphFormatError, as_ascii, as_dtype,
                            as_int, as_list, as_shape, as_string, check_keys)
from ir.primitives.shape import IndexArg
from ir.sizes.data import size_from_data


# --- writing ---------------------------------------------------------------------


def write_mapping(mapping, where):
    for key in mapping:
        if not isinstance(key, str):
            raise GraphFormatError(f"{where}: key {key!r} is not a string")
    return {key: write(value, f"{where}[{key!r}]", 0) for key, value in mapping.items()}


def write_source(source, where):
    if source is None:
        return None
    return {"file": as_string(source.file, where), "line": as_int(source.line, where),
            "function": as_string(source.function, where)}


def write_omitted(array, where):
    return {"$": "omitted", "dtype": dtype_name(array.dtype, where), "shape": list(array.shape)}


def write(value, where, depth):
    """One value as JSON data; the tags are listed in the module docstring."""
    if depth > MAX_DEPTH:
        raise GraphFormatError(f"{where}: value nested deeper than {MAX_DEPTH}")
    if isinstance(value, np.generic):
        return {"$": "scalar", **_write_bytes(np.asarray(value), where)}
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return as_string(value, where)
    if isinstance(value, int):
        return bounded_int(value, where)
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$": "float", "value": repr(value)}
    if isinstance(value, complex):
        return {"$": "complex", "real": write(value.real, where, depth + 1),
                "imag": write(value.imag, where, depth + 1)}
    if isinstance(value, list):
        return [write(item, where, depth + 1) for item in value]
    if isinstance(value, tuple):
        return {"$": "tuple", "items": [write(item, where, depth + 1) for item in value]}
    if isinstance(value, slice):
        return {"$": "slice", **{part: write(getattr(value, part), where, depth + 1)
                                 for part in ("start", "stop", "step")}}
    if value is Ellipsis:
        return {"$": "ellipsis"}
    if isinstance(value, IndexArg):
        return {"$": "index_arg", "position": value.position}
    if isinstance(value, np.dtype):
        return {"$": "dtype", "name": dtype_name(value, where)}
    if isinstance(value, type) and issubclass(value, np.generic):
        return {"$": "scalar_type", "name": dtype_name(np.dtype(value), where)}
    if isinstance(value, np.ndarray):
        return {"$": "array", **_write_bytes(value, where)}
    if isinstance(value, SourceLocation):
        return {"$": "source", **write_source(value, where)}
    if isinstance(value, Size):
        return value.to_data()
    raise GraphFormatError(f"{where}: a {type(value).__name__} cannot be written as JSON")


def _write_bytes(array, where):
    dtype = dtype_name(array.dtype, where)
    data = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return {"dtype": dtype, "shape": list(array.shape),
            "data": base64.b64encode(data).decode("ascii")}


def dtype_name(dtype, where):
    if dtype.name not in DTYPES or dtype != np.dtype(dtype.name):
        raise GraphFormatError(f"{where}: dtype {dtype} cannot be written as JSON")
    return dtype.name


# --- parsing ---------------------------------------------------------------------


def parse(text, max_size):
    """JSON data of ``text``; every failure of the parser becomes ``GraphFormatError``."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > max_size:
            raise GraphFormatError(f"document larger than {max_size} bytes")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise GraphFormatError(f"document is not UTF-8: {error}") from None
    if not isinstance(text, str):
        raise GraphFormatError(f"a document is a str, not {type(text).__name__}")
    if len(text) > max_size:
        raise GraphFormatError(f"document larger than {max_size} characters")
    try:
        return json.loads(text, parse_int=_parse_int, parse_float=_parse_float,
                          parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)
    except GraphFormatError:
        raise
    except RecursionError:
        raise GraphFormatError("document nested too deeply") from None
    except ValueError as error:
        raise GraphFormatError(f"document is not valid JSON: {error}") from None


def _parse_int(digits):
    if len(digits) > 20:
        raise GraphFormatError(f"integer of {len(digits)} digits is too large")
    return bounded_int(int(digits), "integer")


def _parse_float(digits):
    if len(digits) > 64:
        raise GraphFormatError(f"number of {len(digits)} characters is too long")
    value = float(digits)
    if not math.isfinite(value):
        raise GraphFormatError(f"number {digits} is out of range")
    return value


def _refuse_constant(name):
    raise GraphFormatError(f"{name} is not JSON (non-finite floats are tagged objects)")


def _unique_keys(pairs):
    result = dict(pairs)
    if len(result) != len(pairs):
        raise GraphFormatError("an object repeats a key")
    return result


def bounded_int(value, where):
    if not -MAX_INT < value < MAX_INT:
        raise GraphFormatError(f"{where}: integer out of range")
    return value


# --- reading ---------------------------------------------------------------------


def read_mapping(data, where):
    if not isinstance(data, dict):
        raise GraphFormatError(f"{where}: expected an object")
    for key in data:
        as_string(key, where)
    return {key: read(value, f"{where}[{key!r}]", 0) for key, value in data.items()}


def read_leaf_value(data, where):
    """A leaf value; an ``omitted`` array loads as ``None``."""
    if isinstance(data, dict) and data.get("$") == "omitted":
        check_keys(data, ("$", "dtype", "shape"), f"{where} value")
        as_dtype(data["dtype"], where)
        as_shape(data["shape"], f"{where} value shape")
        return None
    return read(data, f"{where} value", 0)


def read_source(data, where):
    if data is None:
        return None
    check_keys(data, ("file", "line", "function"), where)
    return SourceLocation(as_string(data["file"], where), as_int(data["line"], where),
                          as_string(data["function"], where))


def read(data, where, depth):
    """The value written by ``write``."""
    if depth > MAX_DEPTH:
        raise GraphFormatError(f"{where}: value nested deeper than {MAX_DEPTH}")
    if data is None or isinstance(data, (bool, int, float)):
        return data
    if isinstance(data, str):
        return as_string(data, where)
    if isinstance(data, list):
        return [read(item, where, depth + 1) for item in data]
    if not isinstance(data, dict):
        raise GraphFormatError(f"{where}: unexpected {type(data).__name__}")
    if data.get("$") == "body":
        raise GraphFormatError(f"{where}: a body is a param of a loop or branch node, never "
                               "part of another value")
    reader = _READERS.get(data.get("$")) if isinstance(data.get("$"), str) else None
    if reader is None:
        raise GraphFormatError(f"{where}: object without a known '$' tag")
    keys, read_tagged = reader
    check_keys(data, ("$",) + keys, where)
    return read_tagged(data, where, depth + 1)


def _read_float(data, where, depth):
    if data["value"] not in ("inf", "-inf", "nan"):
        raise GraphFormatError(f"{where}: tagged floats are inf, -inf or nan")
    return float(data["value"])


def _read_complex(data, where, depth):
    parts = [read(data[part], where, depth) for part in ("real", "imag")]
    if not all(type(part) is float for part in parts):
        raise GraphFormatError(f"{where}: a complex number has float parts")
    return complex(*parts)


def _read_slice(data, where, depth):
    parts = [read(data[part], where, depth) for part in ("start", "stop", "step")]
    if not all(part is None or type(part) is int for part in parts):
        raise GraphFormatError(f"{where}: slice bounds are integers or null")
    return slice(*parts)


def _read_array(data, where, depth):
    dtype = as_dtype(data["dtype"], where)
    shape = as_shape(data["shape"], where)
    encoded = as_ascii(data["data"], where)
    expected = math.prod(shape) * dtype.itemsize
    if len(encoded) != 4 * -(-expected // 3):
        raise GraphFormatError(f"{where}: data does not hold {shape} values of {dtype}")
    try:
        raw = base64.b64decode(encoded, validate=True)
    except binascii.Error as error:
        raise GraphFormatError(f"{where}: bad base64 data: {error}") from None
    if len(raw) != expected:
        raise GraphFormatError(f"{where}: data does not hold {shape} values of {dtype}")
    return np.frombuffer(raw, dtype.newbyteorder("<")).astype(dtype).reshape(shape)


def _read_index_arg(position, where):
    if as_int(position, where) < 0:
        raise GraphFormatError(f"{where}: an index argument's position is not negative")
    return IndexArg(position)


def _read_size(data, where):
    try:
        return size_from_data(data, where)
    except ValueError as error:
        raise GraphFormatError(str(error)) from None


def _read_scalar(data, where, depth):
    array = _read_array(data, where, depth)
    if array.shape != ():
        raise GraphFormatError(f"{where}: a numpy scalar has shape []")
    return array[()]


_READERS = {
    "tuple": (("items",), lambda d, w, depth: tuple(read(item, w, depth)
                                                    for item in as_list(d["items"], w))),
    "slice": (("start", "stop", "step"), _read_slice),
    "ellipsis": ((), lambda d, w, depth: Ellipsis),
    "index_arg": (("position",), lambda d, w, depth: _read_index_arg(d["position"], w)),
    "dtype": (("name",), lambda d, w, depth: as_dtype(d["name"], w)),
    "scalar_type": (("name",), lambda d, w, depth: as_dtype(d["name"], w).type),
    "float": (("value",), _read_float),
    "complex": (("real", "imag"), _read_complex),
    "scalar": (("dtype", "shape", "data"), _read_scalar),
    "array": (("dtype", "shape", "data"), _read_array),
    "size": (("terms",), lambda d, w, depth: _read_size(d, w)),
    "source": (("file", "line", "function"),
               lambda d, w, depth: read_source({k: d[k] for k in d if k != "$"}, w)),
}
"""Each tag's other keys and its reader ``(data, where, depth) -> value``."""
