"""Modules of whole functions: a traced graph with state in and out, as one function.

Graph mode (``tracer.function``) traces a user's function, tapes and optimizer
updates included, into one ``ir.Graph``.  Its leaves are the variables the
function read or assigned and its arguments; its outputs are what the function
returned and the new value of each variable it assigned.  This writes that
graph as a module whose function takes the variables (by their names) and the
arguments, and returns ``results, {variable: new value}``: a step a person can
read, ship and call in a loop (``state.update(new)``).  Results that are not
arrays (Python numbers, strings, ``None``) are written as literals.  Where the
target can, a new value is written into an array the caller passes for it
(``out``, by name): a loop that passes back the arrays it no longer needs updates
its state without making new ones.
"""

import ast
import dataclasses
from collections import Counter

from codegen.docstring import function_docstring
from codegen.emit import lay_out
from codegen.parameters import prepare
from codegen.request import check_function_name
from codegen.returns import Leaf
from codegen.sizes import code_name
from codegen.targets.registry import target_named
from ir.names import RESERVED, Namer
from ir.optimize.rewrite import Rewrite
from ir.primitives.control import stop_gradient
from ir.loops.passes import unpack_results
from ir.optimize.passes import effects, optimize_to_run, without_custom_rules
from ir.sizes.guards import current as current_guarding, guarding
from ir.sizes.questions import spelled_as
from ir.structure import flatten, pack_as

INLINE_CONSTANT_SIZE = 16
"""Captured arrays up to this many elements are written inline (see ``codegen.module``)."""


@dataclasses.dataclass(frozen=True)
class PythonValue:
    """A result that is not an array (a number, a string, ``None``): written as a literal."""

    value: object


@dataclasses.dataclass(frozen=True)
class FunctionModule:
    """A written module: its text, its function's name, the function's parameters in
    order, as ``(name, node id)`` pairs of the graph given, the keys of the new values
    it returns (in the order of the state given), and the guards on symbolic sizes it
    checks on entry (``ir.sizes.guards.Guard``)."""

    source: str
    name: str
    parameters: tuple
    new_values: tuple
    guards: tuple = ()
    written: tuple = ()
    """The keys of the new values the function writes into the arrays of its ``out``."""


def function_source(graph, results, state, *, name="function", target="numpy",
                    origin=None, optimize=True):
    """The source of a module whose function ``name`` computes ``graph``'s ``results``
    and the new values of its ``state``; see ``function_module``."""
    return function_module(graph, results, state, name=name, target=target, origin=origin,
                           optimize=optimize).source


def function_module(graph, results, state, *, name="function", target="numpy", origin=None,
                    optimize=True):
    """The ``FunctionModule`` of ``graph`` as the function ``name``.

    ``results`` is any nesting of lists, tuples and dicts of node ids and
    ``PythonValue``s: what the function returns first.  ``state`` lists
    ``(leaf id, new value id)`` for each variable: its leaf is a parameter
    (whether or not the computation reads it) and, where ``new value id`` is
    not ``None``, the returned dict holds the new value under the parameter's
    name.  Every other leaf the results need is a parameter too, in graph
    order after the state's.  ``origin`` says in the docstring what was traced.
    """
    check_function_name(name)
    target = target_named(target)
    graph, ids = _without_stops(graph)
    results = pack_as(results, [r if isinstance(r, PythonValue) else ids[r]
                                for r in flatten(results)])
    state = [(ids[leaf], None if new is None else ids[new]) for leaf, new in state]
    given = {new: old for old, new in ids.items()}
    with guarding({}):
        current_guarding().hints.update(graph.sizes)
        leaves = [r for r in flatten(results) if not isinstance(r, PythonValue)]
        assigned = [(leaf, new) for leaf, new in state if new is not None]
        forward, parameters, by_name = _parameters(graph, leaves, state)
        forward.outputs = leaves + [new for _, new in assigned]
        working = without_custom_rules(forward)
        working = optimize_to_run(working) if optimize else unpack_results(working)
        written = _written_into(working, working.outputs[len(leaves):],
                                [forward[leaf] for leaf, _ in assigned], target)
        with spelled_as(code_name):
            layout = lay_out(working, [a.body for p in parameters for a in p.arrays]
                             + [code_name(s) for s in graph.sizes], target)
        values = iter(Leaf(layout.expression(o, working), working[o])
                      for o in working.outputs)
        returned = pack_as(results, [_python_leaf(r) if isinstance(r, PythonValue)
                                     else next(values) for r in flatten(results)])
        new_values = {forward[leaf].meta["parameter"]: next(values) for leaf, _ in assigned}
        result = (returned, new_values) if state else returned
        text = function_docstring(name, origin, parameters, result, bool(state), written)
        guards = list(graph.guards)
        guards += [g for g in current_guarding().guards if g not in guards]
        source = target.module(name, text, parameters, layout, result, guards, written)
    return FunctionModule(source, name, tuple((p.name, given[by_name[p.name]])
                                              for p in parameters),
                          tuple(new_values), tuple(guards), written)


def _written_into(graph, new_values, leaves, target):
    """Mark each new value (node id in ``graph``) of a variable (its parameter's node
    in ``leaves``) that ``target`` writes into the caller's array for that variable:
    an op of the variable's static shape (not a scalar) and dtype, once.  Their names.

    Where the caller passes no array, the value is written into an operand that is
    read there for the last time (``write_into_operand``), if one is an array the
    function made of that shape and dtype: a step then allocates no more than one
    written by hand updating its state in place."""
    written = []
    readers = Counter(i for node in graph for i in node.inputs)
    outputs = set(graph.outputs)
    for new, leaf in zip(new_values, leaves):
        node = graph[new]
        if (node.kind == "op" and "write_into" not in node.meta and node.shape
                and node.shape == leaf.shape and all(type(d) is int for d in node.shape)
                and node.dtype == leaf.dtype and target.writes_into(node)):
            node.meta["write_into"] = leaf.meta["parameter"]
            written.append(leaf.meta["parameter"])
            spare = [k for k, i in enumerate(node.inputs)
                     if readers[i] == 1 and i not in outputs and graph[i].kind == "op"
                     and graph[i].shape == node.shape and graph[i].dtype == node.dtype
                     and target.writes_into(graph[i])]
            if spare:
                node.meta["write_into_operand"] = spare[-1]
    return tuple(written)


def _parameters(graph, leaves, state):
    """The graph prepared for code, its parameters (the state's leaves first, in order)
    and each parameter's node by name.  A variable's new value is named after it
    (``W_1`` for ``W``)."""
    namer = Namer(RESERVED | {"out"} | {code_name(s) for s in graph.sizes})
    needed = leaves + [leaf for leaf, _ in state] + [new for _, new in state if new is not None]
    forward, parameters = prepare(graph, list(dict.fromkeys(needed + effects(graph))), namer,
                                  INLINE_CONSTANT_SIZE)
    order = {leaf: k for k, (leaf, _) in enumerate(state)}
    by_name = {node.meta.get("parameter"): node.id for node in forward
               if node.kind != "op" and "parameter" in node.meta}
    parameters.sort(key=lambda p: order.get(by_name[p.name], len(order)))
    for leaf, new in state:
        if new is not None and forward[new].kind == "op":
            forward[new].meta["value_name"] = forward[leaf].meta["parameter"]
    return forward, parameters, by_name


def _without_stops(graph):
    """``graph`` without its ``stop_gradient`` nodes, each read as its input: the module
    computes values, and nothing differentiates it.  Also the new id of each node."""
    rewrite = Rewrite(graph)
    for node in graph:
        if node.kind == "op" and node.primitive is stop_gradient:
            rewrite.replace(node, rewrite.inputs(node)[0])
        else:
            rewrite.keep(node)
    new = rewrite.finish("without_stop_gradients")
    new.sizes, new.guards = graph.sizes, graph.guards
    return new, rewrite.ids


def _python_leaf(value):
    return Leaf(ast.Constant(value.value), None)
