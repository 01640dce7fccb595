"""What a caller asks a gradient module for, checked and resolved to node ids.

The public functions take a tape or an ``ir.Graph``, targets and sources in
the user's terms, and a function name; this turns them into one ``Request``
(the graph, target ids, source groups, and how to shape the answer) so the
rest of code generation never looks at what the user passed.
"""

import dataclasses
import keyword

import ir
from ir.names import RESERVED
from ir.structure import flatten, pack_as


@dataclasses.dataclass
class Request:
    """The recorded graph, the node ids to differentiate, and how to shape the answer."""

    graph: object
    targets: list
    groups: list
    pack: object
    single: bool
    warn: object
    """``warn(gradients)``, with one entry per source (``None`` where the module gives
    none) and ``given`` ("None" or "zeros", what such a source gets): warns as
    ``tape.gradient`` does where a conversion to plain values cut a path, and of the
    Python decisions the module repeats; returns the docstring's lines on those."""
    source_types: list = dataclasses.field(default_factory=list)
    """Per source, its ``(shape, dtype)`` on the tape (a symbolic size as its ``ir.sizes.dims``
    expression): zeros for a source the recording holds no node of take them."""


def check_function_name(name):
    """Refuse a function name the module cannot define, or that its own names take."""
    if not (isinstance(name, str) and name.isidentifier()) or keyword.iskeyword(name):
        raise ValueError(f"the function name {name!r} is not a Python identifier")
    if name in RESERVED or name.startswith("_"):
        raise ValueError(f"the function name {name!r} is taken by the generated module: "
                         "choose a name that does not start with an underscore and is not "
                         f"one of {', '.join(sorted(RESERVED))}")


def read_request(tape, target, sources, caller="gradient_source"):
    """The ``Request`` for ``target`` and ``sources`` of a tape or of an ``ir.Graph``, made
    for ``caller`` (the public function's name, which errors and warnings give).

    A target the tape did not record (``np.zeros_like(x)``) is a constant, whose
    gradient is None as in ``tape.gradient``.  A graph holds no conversions to warn of.
    """
    single = not isinstance(target, (list, tuple, dict))
    if isinstance(tape, ir.Graph):
        resolve = _resolver(tape)
        return Request(tape, [resolve(t) for t in flatten(target)],
                       [(resolve(s),) for s in flatten(sources)],
                       lambda leaves: pack_as(sources, leaves), single, lambda gradients, given: [])
    graph_of = getattr(tape, "graph_of", None)
    if graph_of is None:
        raise TypeError(f"{caller} needs a tracer.GradientTape or an ir.Graph, "
                        f"got {type(tape).__name__}")
    graph, targets, groups, pack = graph_of(target, sources, constant_targets=True)

    def warn(gradients, given):
        return tape.warn_of_conversions(target, sources, gradients,
                                        f"the module {caller} writes", given)
    types = [(tuple(getattr(d, "size", d) for d in s.shape), s.dtype) for s in flatten(sources)]
    return Request(graph, targets, groups, pack, single, warn, types)


def one_target(request, what):
    """``request``, if it has one target: ``what`` (a function's name) needs one."""
    if len(request.targets) != 1:
        raise ValueError(f"{what} differentiates one target; call it once per target")
    return request


def _resolver(graph):
    """Node ids of ``graph`` from ids or from the names its text listing shows."""
    by_name = {}
    for node_id, text in graph.names().items():
        by_name.setdefault(text, node_id)
    for node in graph:
        if node.name:
            by_name.setdefault(node.name, node.id)

    def resolve(ref):
        if isinstance(ref, int) and ref in graph.nodes:
            return ref
        if isinstance(ref, str) and ref in by_name:
            return by_name[ref]
        raise ValueError(f"the graph has no node {ref!r}: name nodes by id or by the names "
                         "its text listing shows (print(graph))")
    return resolve
