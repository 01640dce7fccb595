"""What a node with several results is made of, read from its params without running it.

Listings and pictures show such a node (a loop, a branch, ``packed``) by the
types of its results; the JSON reader allows the object dtype only on nodes of
``SEVERAL_RESULTS`` and bodies only in the ``BODY_PARAMS`` of loops and
branches; and ``tape.explain`` follows a gradient into a loop's bodies
(``reach``), which needs to know which argument each body input receives
(``body_arguments``) and which body value each result comes from
(``result_origins``).  Each entry restates its primitive's docstring
(``ir.primitives.loops``, ``while_loop``, ``branches``, ``results``).
"""

from dataclasses import dataclass

from ir.graph import bodies_of, graph_method
from ir.primitive import PRIMITIVES, is_trainable
from ir.primitives.loops import scan_types
from ir.primitives.while_loop import while_types


@dataclass(frozen=True)
class Origin:
    """Where one result of a loop or branch comes from: ``role`` in words, and the body
    nodes that give it, as ``(body param, node id)`` pairs (none for a count of steps)."""

    role: str
    nodes: tuple


def _scan_origins(params):
    body, keep = params["body"], params["keep"]
    outputs, count = body.graph.outputs, body.carries
    return ([Origin(f"final carry {k}", (("body", outputs[k]),)) for k in range(count)]
            + [Origin(f"stacked output {k}", (("body", i),))
               for k, i in enumerate(outputs[count:])]
            + [Origin("per-step value kept for the gradient", (("body", i),)) for i in keep])


def _while_origins(params):
    body, keep = params["body"], params["keep"]
    outputs = body.graph.outputs
    return ([Origin(f"final carry {k}", (("body", i),))
             for k, i in enumerate(outputs[:body.carries])]
            + [Origin("number of steps taken", ())]
            + [Origin("per-step value kept for the gradient", (("body", i),)) for i in keep])


def _cond_origins(params):
    true, false = params["true"], params["false"]
    return [Origin(f"result {k}", (("true", t), ("false", f)))
            for k, (t, f) in enumerate(zip(true.graph.outputs, false.graph.outputs))]


def _while_arguments(params):
    test, body = params["test"], params["body"]
    first = len(test.inputs)
    return {"test": list(range(first)),
            "body": [*range(body.carries), *range(first, first + body.invariants)]}


_RESULT_TYPES = {
    "scan": lambda graph, node: scan_types(node.params["body"], node.params["length"],
                                           node.params["keep"]),
    "while_loop": lambda graph, node: while_types(node.params["body"], node.params["keep"],
                                                  node.params["trips"]),
    "cond": lambda graph, node: node.params["true"].y_types,
    "packed": lambda graph, node: [(graph[i].shape, graph[i].dtype) for i in node.inputs],
}

SEVERAL_RESULTS = frozenset(_RESULT_TYPES)
"""The primitives whose nodes have several results: the only ones of object dtype."""

BODY_PARAMS = {"scan": ("body",), "while_loop": ("test", "body"), "cond": ("true", "false")}
"""The params holding the bodies of each loop and branch primitive."""

BODY_NODE_LISTS = {"scan": {"keep": "body"}, "while_loop": {"keep": "body"}}
"""Params that list nodes of a body (``keep``: the per-step values kept for the
gradient), with the body param whose nodes they name."""

_ORIGINS = {"scan": _scan_origins, "while_loop": _while_origins, "cond": _cond_origins}

_ARGUMENTS = {
    "scan": lambda params: {"body": list(range(len(params["body"].inputs)))},
    "while_loop": _while_arguments,
    "cond": lambda params: {name: [1 + k for k in range(len(params[name].inputs))]
                            for name in ("true", "false")},
}
"""For each body of a loop or branch, the argument position each body input receives."""

_FEEDS_BACK = {"scan": ("body",), "while_loop": ("body",), "cond": ()}
"""The bodies whose new carries are the next step's carries."""

_NO_STEPS = {"scan": lambda params: params["length"] == 0,
             "while_loop": lambda params: params["trips"] == 0,
             "cond": lambda params: False}
"""Whether a loop ran no steps, so that its final carries are its initial ones."""


def _decides_steps(params, positions, reached):
    """Whether a while loop's arguments at ``positions`` reach its test: directly, or
    through a carry its body computes from them."""
    test, body = params["test"], params["body"]
    count = body.carries
    inputs = {i for k, i in enumerate(test.inputs)
              if k in positions or (k < count and body.inputs[k] in reached["body"])}
    return test.graph.outputs[0] in reach(test.graph, inputs, differentiable=False)


_DECIDED_BY = {"scan": lambda params, positions, reached: False,
               "while_loop": _decides_steps,
               "cond": lambda params, positions, reached: 0 in positions}
"""Whether arguments at ``positions`` decide which branch runs or how many steps do:
then every result depends on them, though no gradient flows that way."""


@graph_method
def result_types(graph, node):
    """``(shape, dtype)`` of each result of ``node``, or ``None`` when its primitive is not
    one of ``SEVERAL_RESULTS``."""
    types = _RESULT_TYPES.get(node.op)
    return None if types is None else types(graph, node)


def result_origins(op, params):
    """The ``Origin`` of each result of a loop or branch, in result order."""
    return _ORIGINS[op](params)


def body_arguments(op, params):
    """``{body param: [argument position of each body input]}`` of a loop or branch."""
    return _ARGUMENTS[op](params)


def reached_results(op, params, positions, differentiable=True):
    """The results of a loop or branch to which a gradient flows from its arguments at
    ``positions``, following the chain rule through its bodies and carries (any
    dependency at all, if not ``differentiable``)."""
    reached = reached_in_bodies(op, params, positions, differentiable)
    origins = result_origins(op, params)
    if not differentiable and _DECIDED_BY[op](params, positions, reached):
        return set(range(len(origins)))
    found = {k for k, origin in enumerate(origins)
             if any(i in reached[name] for name, i in origin.nodes)}
    if _NO_STEPS[op](params):  # the final carries are the initial ones
        found |= set(positions) & set(range(params["body"].carries))
    return found


def reached_in_bodies(op, params, positions, differentiable=True):
    """``{body param: ids of the body's nodes}`` a gradient reaches (or, if not
    ``differentiable``, that depend at all on) from the loop's or branch's arguments at
    ``positions``, over any number of steps."""
    return {name: _through_steps(params[name],
                                 {params[name].inputs[k] for k, p in enumerate(arguments)
                                  if p in positions},
                                 name in _FEEDS_BACK[op], differentiable)
            for name, arguments in body_arguments(op, params).items()}


def _through_steps(body, inputs, feeds_back, differentiable):
    """The body nodes reached from ``inputs`` over any number of steps: a new carry
    reached at one step reaches its carry input at the next."""
    while True:
        reached = reach(body.graph, inputs, differentiable)
        fed = {body.inputs[k] for k, i in enumerate(body.graph.outputs[:body.carries])
               if feeds_back and i in reached} - inputs
        if not fed:
            return reached
        inputs = inputs | fed


def reach(graph, sources, differentiable=True):
    """The ids of ``sources`` and of the nodes of ``graph`` a gradient flows to from them
    (through the inputs each primitive differentiates, into trainable values), or, if
    not ``differentiable``, that depend on them at all; into a loop's or branch's bodies
    and out through the results they give."""
    reached = set(sources)
    results = {}  # loop or branch node -> the indices of its results reached
    for node in graph:
        if node.kind != "op" or (differentiable and not is_trainable(node.dtype)):
            continue
        positions = {p for p, i in enumerate(node.inputs) if i in reached}
        if not positions:
            continue
        if bodies_of(node):
            results[node.id] = reached_results(node.op, node.params, positions, differentiable)
            passes = bool(results[node.id])
        elif node.op == "result" and node.inputs[0] in results:
            passes = node.params["index"] in results[node.inputs[0]]
        else:
            passes = not differentiable or any(PRIMITIVES[node.op].vjp_rule(p) is not None
                                               for p in positions)
        if passes:
            reached.add(node.id)
    return reached
