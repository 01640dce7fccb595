"""The parameters of a generated function: which leaves of the recording a caller passes,
what they are called, and the forward graph prepared around them.

Every leaf the targets depend on is a parameter (watched tensors, each
version of a variable the tape read, arrays captured from outside), except
small or uniform unnamed captured arrays, which are written into the code.
Deciding that once, before any pass runs, is what keeps a parameter's
recorded value from being folded into the code.
"""

import dataclasses

import numpy as np

import ir
from codegen.emit import CodegenError, unspellable
from codegen.names import forward_names
from codegen.sizes import is_symbolic
from codegen.targets.numpy import NUMPY
from ir.names import LEAF_FALLBACKS, identifier
from ir.primitives.results import packed


@dataclasses.dataclass(frozen=True)
class Array:
    """One array a caller passes: its label in ``INPUTS``, its name in the body."""

    label: str
    body: str
    shape: tuple
    dtype: np.dtype


@dataclasses.dataclass(frozen=True)
class Parameter:
    """One parameter of the generated function: an array, or (``seed``) a list of them."""

    name: str
    arrays: tuple
    is_list: bool = False
    note: str = None


def prepare(graph, targets, namer, inline_size):
    """A copy of ``graph`` whose nodes carry their names in ``meta``, and its parameters
    (named by ``namer``).

    Captured arrays that become parameters turn into inputs, so no pass folds
    their recorded values into the code; unnamed ones of up to ``inline_size``
    elements stay constants.
    """
    ancestors = graph.upstream(targets)
    _refuse_unspellable(graph, ancestors)
    values = forward_names(graph)
    users = _first_users(graph)
    parameters = []
    prepared = ir.Graph()
    for node in graph:
        meta = dict(node.meta)
        changes = {}
        if node.id in ancestors and _is_parameter(node, inline_size):
            parameter = _leaf_parameter(node, namer, users.get(node.id))
            meta["parameter"] = parameter.name
            parameters.append(parameter)
            if node.kind == "constant":
                changes = {"kind": "input", "op": "input"}
        elif node.id in ancestors and node.kind == "constant" and not _uniform(node.value):
            user = users.get(node.id)
            meta["inlined_data"] = str(user.source) if user and user.source else ""
        elif node.id in values:
            meta["value_name"] = values[node.id]
        prepared.nodes[node.id] = dataclasses.replace(node, meta=meta, **changes)
    prepared.outputs = list(graph.outputs)
    return prepared, parameters


def seed_parameter(gradient, single, namer):
    """Name the seed inputs ``ir.adjoint`` added (one per target, in order) as ``seed``:
    one array for a single target, else a list whose arrays the body unpacks."""
    seeds = [node for node in gradient if "seed_of" in node.meta]
    arrays = []
    for k, node in enumerate(seeds):
        label, body = ("seed", "seed") if single else (f"seed[{k}]", namer.claim(f"seed_{k}"))
        node.meta["parameter"] = body
        arrays.append(Array(label, body, node.shape, node.dtype))
    return Parameter("seed", tuple(arrays), is_list=not single)


def _refuse_unspellable(graph, ancestors):
    """Stop before any work on an op the targets need that generated code cannot spell (a
    ``packed`` node of a batched loop's results is never written: ``unpack_results``
    reads each result straight from what was packed)."""
    for node in graph:
        if node.id in ancestors and node.kind == "op" and node.primitive is not packed:
            reason = unspellable(node, graph, NUMPY)
            if reason is not None:
                raise CodegenError(reason)


def _leaf_parameter(node, namer, user):
    """The parameter a leaf becomes, named after it (or after its kind)."""
    name = namer.claim(identifier(node.name, LEAF_FALLBACKS[node.kind]))
    return Parameter(name, (Array(name, name, node.shape, node.dtype),),
                     note=_captured_note(name, node, user))


def _first_users(graph):
    users = {}
    for node in graph:
        for i in node.inputs:
            users.setdefault(i, node)
    return users


def _captured_note(name, node, user):
    """Where an unnamed captured array came from: the caller must pass it again."""
    if node.kind != "constant" or _named_by_user(node):
        return None
    where = f" at {user.source}" if user is not None and user.source is not None else ""
    return (f"{name}: an array the tape captured{where}; name it (tracer.constant(..., "
            "name=...)) to name this parameter.")


def _is_parameter(node, inline_size):
    if node.kind != "constant":
        return node.kind != "op"
    if _named_by_user(node) or is_symbolic(node.shape):
        return True
    return np.size(node.value) > inline_size and not _uniform(node.value)


def _uniform(value):
    """True for a scalar or an array of one repeated value (seeds of ones, zeros): the
    structure of a computation more often than its data."""
    array = np.asarray(value)
    return array.ndim == 0 or array.size == 0 or bool(np.all(array == array.flat[0]))


def _named_by_user(node):
    return bool(node.name) and not node.meta.get("default_name")
