"""A graph's symbolic sizes in JSON: the sizes traced and the guards taken
(``ir.sizes.dims``, ``ir.sizes.guards``).

Both are optional fields of a document, written only for a graph that has
them: ``"sizes": {"batch": 32}`` and ``"guards": [{"left": ..., "relation":
">", "right": ..., "holds": true, "where": ...}]``, each side a size as data
(``Size.to_data``) or an integer, ``where`` a source object, a string or
``null``.  Reading checks every field and builds sizes through their
arithmetic; nothing is evaluated.
"""

from ir.sizes.dims import Size, symbol
from ir.graph import SourceLocation
from ir.sizes.guards import RELATIONS, Guard
from ir.json.format import GraphFormatError, as_int, as_list, as_string, check_keys
from ir.json.values import read, read_source, write, write_source

GUARD_FIELDS = ("left", "relation", "right", "holds", "where")


def write_sizes(graph, document):
    """Add ``graph``'s sizes and guards to ``document``, where it has any."""
    if graph.sizes:
        document["sizes"] = {as_string(name, "sizes"): as_int(size, f"sizes[{name!r}]")
                             for name, size in graph.sizes.items()}
    if graph.guards:
        document["guards"] = [_write_guard(g, f"guard {k}") for k, g in enumerate(graph.guards)]
    return document


def read_sizes(graph, document):
    """Give ``graph`` the sizes and guards ``document`` holds, checked."""
    sizes = document.get("sizes", {})
    if not isinstance(sizes, dict):
        raise GraphFormatError("sizes: expected an object")
    for name, size in sizes.items():
        _check_name(name, "sizes")
        if as_int(size, f"sizes[{name!r}]") < 1:
            raise GraphFormatError(f"sizes[{name!r}]: a size is at least 1")
    graph.sizes = dict(sizes)
    graph.guards = [_read_guard(g, f"guard {k}", graph.sizes)
                    for k, g in enumerate(as_list(document.get("guards", []), "guards"))]
    return graph


def _write_guard(guard, where):
    return {"left": write(guard.left, f"{where} left", 0), "relation": guard.relation,
            "right": write(guard.right, f"{where} right", 0), "holds": bool(guard.holds),
            "where": write_source(guard.where, f"{where} where")
            if isinstance(guard.where, SourceLocation) else guard.where}


def _read_guard(data, where, sizes):
    check_keys(data, GUARD_FIELDS, where)
    left, right = (_read_side(data[k], f"{where} {k}", sizes) for k in ("left", "right"))
    relation = as_string(data["relation"], f"{where} relation")
    if relation not in RELATIONS:
        raise GraphFormatError(f"{where} relation: expected one of {sorted(RELATIONS)}")
    if not isinstance(data["holds"], bool):
        raise GraphFormatError(f"{where} holds: expected true or false")
    place = data["where"]
    place = (read_source(place, f"{where} where") if isinstance(place, dict)
             else None if place is None else as_string(place, f"{where} where"))
    return Guard(left, relation, right, data["holds"], place)


def _read_side(data, where, sizes):
    value = read(data, where, 0)
    if isinstance(value, Size):
        unknown = sorted(value.symbols - set(sizes))
        if unknown:
            raise GraphFormatError(f"{where}: size {unknown[0]} is not among the sizes")
        return value
    if type(value) is not int:
        raise GraphFormatError(f"{where}: expected a size or an integer")
    return value


def _check_name(name, where):
    try:
        symbol(name)
    except ValueError as error:
        raise GraphFormatError(f"{where}: {error}") from None
