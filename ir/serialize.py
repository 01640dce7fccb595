"""Graphs as JSON: a versioned document that round-trips every node field exactly.

A document is an object ``{"format": "tapegen.graph", "version": 1,
"nodes": [...], "outputs": [...]}``; each node an object with exactly the
fields of ``ir.graph.Node`` (``shape`` a list of ints, ``dtype`` a name,
``source`` an object ``{"file", "line", "function"}`` or ``null``).

Values (params, meta, leaf values) map JSON's own types where they are
unambiguous: ``null``, booleans, strings, lists, integers, finite floats
(JSON keeps ``1`` and ``1.0`` apart).  Everything else is an object tagged by
its ``"$"`` key: ``tuple``, ``slice``, ``ellipsis``, ``index_arg``,
``dtype``, ``scalar_type``, ``float`` (inf and nan), ``complex``,
``scalar`` (a numpy scalar), ``array`` (dtype, shape and base64 of the
little-endian bytes), ``omitted`` (an array larger than the writer's limit,
kept by dtype and shape only: it loads as ``None``, so evaluating the loaded
graph needs that leaf supplied) and ``source`` (a ``SourceLocation``).

Loading trusts nothing: it parses with ``json`` only (nothing is evaluated
or unpickled), bounds the document size, nesting depth, integers, strings,
ranks and element counts, allows only numeric and bool dtypes and known
primitives, checks every field's type and every node reference, and reports
any problem as ``GraphFormatError``.  It checks structure, not meaning: it
never runs a primitive, so a well-formed document whose params a primitive
rejects loads, and fails when evaluated.
"""

import base64
import binascii
import json
import math

import numpy as np

from ir.graph import NODE_REFERENCES, Graph, SourceLocation, graph_method
from ir.json_format import (DTYPES, FORMAT, KINDS, MAX_CONSTANT_ELEMENTS, MAX_DEPTH,
                            MAX_DOCUMENT_SIZE, MAX_INT, NODE_FIELDS, VERSION, GraphFormatError,
                            as_ascii, as_dtype, as_int, as_list, as_optional_string, as_shape,
                            as_string, check_keys)
from ir.loop_structure import SEVERAL_RESULTS
from ir.primitive import PRIMITIVES
from ir.primitives.shape import IndexArg


# --- writing ---------------------------------------------------------------------


@graph_method
def to_json(graph, *, max_constant_elements=MAX_CONSTANT_ELEMENTS):
    """``graph`` as a JSON document (a string).

    Leaf values with more than ``max_constant_elements`` elements are kept by
    shape and dtype only.  Raises ``GraphFormatError`` for what the format
    cannot hold: nodes of ``python_only`` primitives (``custom_gradient``), values of other types, dtypes
    outside ``DTYPES``.
    """
    nodes = []
    for position, node in enumerate(graph):
        if node.id != position:
            raise GraphFormatError(f"node ids must count up from 0 (node {node.id} "
                                   f"at position {position})")
        nodes.append(_write_node(node, max_constant_elements))
    document = {"format": FORMAT, "version": VERSION, "nodes": nodes,
                "outputs": list(graph.outputs)}
    return json.dumps(document, allow_nan=False, separators=(",", ":"))


def _write_node(node, max_constant_elements):
    reason = PRIMITIVES[node.op].python_only if node.kind == "op" else None
    if reason is not None:
        raise GraphFormatError(f"node {node.id} ({node.op}) cannot be written as JSON: {reason}")
    where = f"node {node.id}"
    value = node.value
    if isinstance(value, np.ndarray) and value.size > max_constant_elements:
        value = _write_omitted(value, where)
    else:
        value = _write(value, where, 0)
    return {"id": node.id, "kind": node.kind, "op": node.op, "inputs": list(node.inputs),
            "params": _write_mapping(node.params, f"{where} params"),
            "shape": list(node.shape), "dtype": _dtype_name(node.dtype, where),
            "name": as_optional_string(node.name, f"{where} name"),
            "source": _write_source(node.source, f"{where} source"),
            "value": value, "meta": _write_mapping(node.meta, f"{where} meta")}


def _write_mapping(mapping, where):
    for key in mapping:
        if not isinstance(key, str):
            raise GraphFormatError(f"{where}: key {key!r} is not a string")
    return {key: _write(value, f"{where}[{key!r}]", 0) for key, value in mapping.items()}


def _write_source(source, where):
    if source is None:
        return None
    return {"file": as_string(source.file, where), "line": as_int(source.line, where),
            "function": as_string(source.function, where)}


def _write_omitted(array, where):
    return {"$": "omitted", "dtype": _dtype_name(array.dtype, where), "shape": list(array.shape)}


def _write(value, where, depth):
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
        return _bounded_int(value, where)
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$": "float", "value": repr(value)}
    if isinstance(value, complex):
        return {"$": "complex", "real": _write(value.real, where, depth + 1),
                "imag": _write(value.imag, where, depth + 1)}
    if isinstance(value, list):
        return [_write(item, where, depth + 1) for item in value]
    if isinstance(value, tuple):
        return {"$": "tuple", "items": [_write(item, where, depth + 1) for item in value]}
    if isinstance(value, slice):
        return {"$": "slice", **{part: _write(getattr(value, part), where, depth + 1)
                                 for part in ("start", "stop", "step")}}
    if value is Ellipsis:
        return {"$": "ellipsis"}
    if isinstance(value, IndexArg):
        return {"$": "index_arg", "position": value.position}
    if isinstance(value, np.dtype):
        return {"$": "dtype", "name": _dtype_name(value, where)}
    if isinstance(value, type) and issubclass(value, np.generic):
        return {"$": "scalar_type", "name": _dtype_name(np.dtype(value), where)}
    if isinstance(value, np.ndarray):
        return {"$": "array", **_write_bytes(value, where)}
    if isinstance(value, SourceLocation):
        return {"$": "source", **_write_source(value, where)}
    raise GraphFormatError(f"{where}: a {type(value).__name__} cannot be written as JSON")


def _write_bytes(array, where):
    dtype = _dtype_name(array.dtype, where)
    data = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return {"dtype": dtype, "shape": list(array.shape),
            "data": base64.b64encode(data).decode("ascii")}


def _dtype_name(dtype, where):
    if dtype.name not in DTYPES or dtype != np.dtype(dtype.name):
        raise GraphFormatError(f"{where}: dtype {dtype} cannot be written as JSON")
    return dtype.name


# --- reading ---------------------------------------------------------------------


@graph_method
def from_json(text, *, max_size=MAX_DOCUMENT_SIZE):
    """The graph a ``to_json`` document describes.

    ``text`` is a ``str`` (or UTF-8 ``bytes``) of at most ``max_size``
    characters.  Raises ``GraphFormatError`` for anything that is not a valid
    document; never evaluates or imports anything the document names.
    """
    document = _parse(text, max_size)
    check_keys(document, ("format", "version", "nodes", "outputs"), "document")
    if document["format"] != FORMAT:
        raise GraphFormatError(f"not a tapegen graph document (format {document['format']!r})")
    if type(document["version"]) is not int or document["version"] != VERSION:
        raise GraphFormatError(f"unsupported graph format version {document['version']!r} "
                               f"(this tapegen reads version {VERSION})")
    nodes = as_list(document["nodes"], "nodes")
    graph = Graph()
    for position, data in enumerate(nodes):
        _read_node(graph, data, position, len(nodes))
    graph.outputs = [_read_output(o, len(graph)) for o in as_list(document["outputs"], "outputs")]
    return graph


def _parse(text, max_size):
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
    return _bounded_int(int(digits), "integer")


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


def _bounded_int(value, where):
    if not -MAX_INT < value < MAX_INT:
        raise GraphFormatError(f"{where}: integer out of range")
    return value


def _read_node(graph, data, position, count):
    where = f"node {position}"
    check_keys(data, NODE_FIELDS, where)
    if as_int(data["id"], f"{where} id") != position:
        raise GraphFormatError(f"{where}: ids must count up from 0 (found {data['id']})")
    kind = data["kind"]
    if kind not in KINDS:
        raise GraphFormatError(f"{where}: unknown kind {kind!r}")
    op = as_string(data["op"], f"{where} op")
    inputs = [_node_ref(i, position, f"{where} inputs") for i in as_list(data["inputs"], where)]
    if kind == "op":
        _check_primitive(op, where)
    elif op != kind or inputs:
        raise GraphFormatError(f"{where}: a {kind} node has op {kind!r} and no inputs")
    value = _read_value(data["value"], where)
    if kind == "op" and value is not None:
        raise GraphFormatError(f"{where}: an op node has no value")
    graph.add_node(kind, op, inputs, _read_mapping(data["params"], f"{where} params"),
                   as_shape(data["shape"], f"{where} shape"), as_dtype(data["dtype"], where),
                   name=as_optional_string(data["name"], f"{where} name"),
                   source=_read_source(data["source"], f"{where} source"), value=value,
                   meta=_read_meta(data["meta"], where, count))


def _check_primitive(op, where):
    if op not in PRIMITIVES:
        raise GraphFormatError(f"{where}: unknown primitive {op!r}")
    reason = PRIMITIVES[op].python_only
    if reason is not None:
        raise GraphFormatError(f"{where}: {op} nodes cannot be read from JSON: {reason}")


def _read_output(output, count):
    return None if output is None else _node_ref(output, count, "outputs")


def _node_ref(value, bound, where):
    """A node id below ``bound``: inputs name earlier nodes, outputs any node."""
    node_id = as_int(value, where)
    if not 0 <= node_id < bound:
        raise GraphFormatError(f"{where}: {node_id} is not an earlier node's id")
    return node_id


def _read_meta(data, where, count):
    meta = _read_mapping(data, f"{where} meta")
    for key in NODE_REFERENCES:
        if meta.get(key) is not None:
            _node_ref(meta[key], count, f"{where} meta[{key!r}]")
    return meta


def _read_mapping(data, where):
    if not isinstance(data, dict):
        raise GraphFormatError(f"{where}: expected an object")
    for key in data:
        as_string(key, where)
    return {key: _read(value, f"{where}[{key!r}]", 0) for key, value in data.items()}


def _read_value(data, where):
    """A leaf value; an ``omitted`` array loads as ``None``."""
    if isinstance(data, dict) and data.get("$") == "omitted":
        check_keys(data, ("$", "dtype", "shape"), f"{where} value")
        as_dtype(data["dtype"], where)
        as_shape(data["shape"], f"{where} value shape")
        return None
    return _read(data, f"{where} value", 0)


def _read_source(data, where):
    if data is None:
        return None
    check_keys(data, ("file", "line", "function"), where)
    return SourceLocation(as_string(data["file"], where), as_int(data["line"], where),
                          as_string(data["function"], where))


def _read(data, where, depth):
    """The value written by ``_write``."""
    if depth > MAX_DEPTH:
        raise GraphFormatError(f"{where}: value nested deeper than {MAX_DEPTH}")
    if data is None or isinstance(data, (bool, int, float)):
        return data
    if isinstance(data, str):
        return as_string(data, where)
    if isinstance(data, list):
        return [_read(item, where, depth + 1) for item in data]
    if not isinstance(data, dict):
        raise GraphFormatError(f"{where}: unexpected {type(data).__name__}")
    reader = _READERS.get(data.get("$")) if isinstance(data.get("$"), str) else None
    if reader is None:
        raise GraphFormatError(f"{where}: object without a known '$' tag")
    keys, read = reader
    check_keys(data, ("$",) + keys, where)
    return read(data, where, depth + 1)


def _read_float(data, where, depth):
    if data["value"] not in ("inf", "-inf", "nan"):
        raise GraphFormatError(f"{where}: tagged floats are inf, -inf or nan")
    return float(data["value"])


def _read_complex(data, where, depth):
    parts = [_read(data[part], where, depth) for part in ("real", "imag")]
    if not all(type(part) is float for part in parts):
        raise GraphFormatError(f"{where}: a complex number has float parts")
    return complex(*parts)


def _read_slice(data, where, depth):
    parts = [_read(data[part], where, depth) for part in ("start", "stop", "step")]
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


def _read_scalar(data, where, depth):
    array = _read_array(data, where, depth)
    if array.shape != ():
        raise GraphFormatError(f"{where}: a numpy scalar has shape []")
    return array[()]


_READERS = {
    "tuple": (("items",), lambda d, w, depth: tuple(_read(item, w, depth)
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
    "source": (("file", "line", "function"),
               lambda d, w, depth: _read_source({k: d[k] for k in d if k != "$"}, w)),
}
"""Each tag's other keys and its reader ``(data, where, depth) -> value``."""
