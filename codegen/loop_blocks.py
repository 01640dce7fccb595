"""Loops and branches in generated code: each loop or branch node becomes a block.

A ``scan`` becomes a ``for`` loop, a ``while_loop`` a ``while`` loop and a
``cond`` an ``if``/``else``; each body is laid out as straight-line code the
way a whole function is (``codegen.emit.lay_out``), with the user's lines as
comments and values deleted after their last use.  The final carries are the
loop's own variables; stacked outputs go into arrays made before the loop
(``np.empty``) and written a step at a time, or for a while loop, whose number
of steps is known only at the end, into lists stacked after it.  Results
nothing reads are neither stacked nor kept.
"""

import dataclasses
import re
from dataclasses import dataclass

import numpy as np

INDENT = "    "


@dataclass
class Scope:
    """What a block needs from the function it is written into.

    ``source(i)`` is the source of the outer value ``i`` (a name or a literal),
    ``results`` the names of the loop's results that are read, by index, and
    ``claim(base)`` hands out a fresh name.  ``taken`` holds every name in use, so
    a body's own names stay clear of them; ``lay_out`` lays out a body, and
    ``text`` writes an expression tree as source.  ``written_array(i)`` says
    whether the outer value ``i`` is an array written out in the code (a constant).
    """

    source: object
    results: dict
    claim: object
    taken: set
    lay_out: object
    text: object
    written_array: object


def result_name(graph, node):
    """What generated code calls result ``node`` of a loop or branch: a final carry by its
    carry's name, stacked outputs ``ys``, kept values ``kept``, a count ``steps``."""
    loop = graph[node.inputs[0]]
    index = node.params["index"]
    body = loop.params.get("body")
    if body is None:
        return "branch" if loop.op == "cond" else "result"
    if index < body.carries:
        return body.graph[body.inputs[index]].name or "carry"
    if loop.op == "while_loop":
        return "steps" if index == body.carries else "kept"
    return "ys" if index < len(body.graph.outputs) else "kept"


def loop_block(node, scope):
    """``(lines, helpers)`` of the block computing loop or branch ``node``."""
    return _WRITERS[node.op](node, scope)


def _scan(node, scope):
    body, length, reverse = node.params["body"], node.params["length"], node.params["reverse"]
    count_c, count_x = body.carries, body.xs
    carries = [scope.results.get(k) or scope.claim(_base(body.graph[body.inputs[k]].name))
               for k in range(count_c)]
    step = scope.claim("step")
    x_names = [scope.claim(body.graph[i].name or "x") for i in body.inputs[count_c:count_c + count_x]]
    keep = node.params["keep"]
    outputs = [*body.graph.outputs[count_c:], *keep]
    stacks = {k: scope.results[count_c + k] for k in range(len(outputs))
              if count_c + k in scope.results}
    names = [*carries, *x_names]
    lines, sources = _named_arrays(node.inputs[count_c:], scope, ["xs"] * count_x)
    xs, invariants = sources[:count_x], sources[count_x:]
    laid, helpers = _body(body, names, invariants, scope, [*body.graph.outputs[:count_c], *outputs])
    steps = f"len({xs[0]})" if xs else str(length)
    lines += _assign(carries, [scope.source(i) for i in node.inputs[:count_c]])
    for k, name in stacks.items():
        shape, dtype = body.graph[outputs[k]].shape, body.graph[outputs[k]].dtype
        lines.append(f"{name} = np.empty({_shape_text((steps, *shape))}, {_dtype_text(dtype)})")
    order = f"range({steps} - 1, -1, -1)" if reverse else f"range({steps})"
    read = body.graph.upstream([*body.graph.outputs, *keep])
    inner = [f"{x} = {source}[{step}]" for x, source, i
             in zip(x_names, xs, body.inputs[count_c:count_c + count_x]) if i in read]
    inner += laid.lines
    inner += [f"{name}[{step}] = {laid.output(outputs[k])}" for k, name in stacks.items()]
    inner += _assign(carries, [laid.output(i) for i in body.graph.outputs[:count_c]])
    return lines + [f"for {step} in {order}:"] + _indented(inner or ["pass"]), helpers


def _while(node, scope):
    test, body, keep = node.params["test"], node.params["body"], node.params["keep"]
    count = body.carries
    carries = [scope.results.get(k) or scope.claim("carry") for k in range(count)]
    steps = scope.results.get(count) or scope.claim("steps")
    kept = {k: scope.results[count + 1 + k] for k in range(len(keep))
            if count + 1 + k in scope.results}
    first = len(test.inputs)
    lines, invariants = _named_arrays(node.inputs[count:], scope)
    tested, test_helpers = _body(test, carries, invariants[:first - count], scope,
                                 test.graph.outputs)
    laid, helpers = _body(body, carries, invariants[first - count:], scope,
                          [*body.graph.outputs[:count], *keep])
    maximum = node.params["maximum"]
    lines += _assign(carries, [scope.source(i) for i in node.inputs[:count]])
    lines += [f"{name} = []" for name in kept.values()] + [f"{steps} = 0"]
    inner = tested.lines + [f"if not {tested.output(test.graph.outputs[0])}:", INDENT + "break"]
    inner += laid.lines
    inner += [f"{name}.append({laid.output(keep[k])})" for k, name in kept.items()]
    inner += _assign(carries, [laid.output(i) for i in body.graph.outputs[:count]])
    inner.append(f"{steps} += 1")
    head = "while True:" if maximum is None else f"while {steps} < {maximum}:"
    lines += [head] + _indented(inner)
    for k, name in kept.items():
        shape, dtype = body.graph[keep[k]].shape, body.graph[keep[k]].dtype
        empty = f"np.empty({_shape_text((0, *shape))}, {_dtype_text(dtype)})"
        lines.append(f"{name} = np.stack({name}) if {name} else {empty}")
    return lines, {**test_helpers, **helpers}


def _cond(node, scope):
    true, false = node.params["true"], node.params["false"]
    count = len(true.y_types)
    results = [scope.results.get(k) or scope.claim("branch") for k in range(count)]
    pred = scope.source(node.inputs[0])
    lines, helpers = [f"if {pred}:"], {}
    for keyword, branch in ((None, true), ("else:", false)):
        laid, found = _body(branch, [], [scope.source(i) for i in node.inputs[1:]], scope,
                            branch.graph.outputs)
        helpers.update(found)
        inner = laid.lines + _assign(results, [laid.output(i) for i in branch.graph.outputs])
        lines += ([keyword] if keyword else []) + _indented(inner or ["pass"])
    return lines, helpers


_WRITERS = {"scan": _scan, "while_loop": _while, "cond": _cond}
"""How each loop or branch primitive is written."""


class _LaidBody:
    """A body laid out: its lines, and the source of each value it gives."""

    def __init__(self, layout, graph, parameters, text):
        self.lines = layout.lines
        self._layout, self._graph, self._parameters, self._text = layout, graph, parameters, text

    def output(self, node_id):
        if node_id in self._parameters:  # an input passed straight through
            return self._parameters[node_id]
        return self._text(self._layout.expression(node_id, self._graph))


def _named_arrays(node_ids, scope, bases=()):
    """The source of each outer value ``node_ids`` a loop reads, an array written out in
    the code named once before the loop (``bases`` in order, then ``data``), not built
    again at every step nor written out at each use: ``(lines naming them, sources)``."""
    lines, sources = [], []
    for k, node_id in enumerate(node_ids):
        source = scope.source(node_id)
        if scope.written_array(node_id):
            name = scope.claim(bases[k] if k < len(bases) else "data")
            lines.append(f"{name} = {source}")
            source = name
        sources.append(source)
    return lines, sources


def _body(body, names, invariants, scope, outputs):
    """``body`` laid out with its inputs named ``names`` and then ``invariants`` (the
    sources of outer values: names, or constants written into the body), computing
    ``outputs``."""
    graph = body.graph.copy()
    parameters = {}
    for node_id, name in zip(body.inputs, names):
        parameters[node_id] = name
    for node_id, source in zip(body.inputs[len(names):], invariants):
        parameters[node_id] = source
    for node_id, name in parameters.items():
        node = graph[node_id]
        graph.nodes[node_id] = dataclasses.replace(node, meta={**node.meta, "parameter": name})
    graph.outputs = list(outputs)
    layout = scope.lay_out(graph, scope.taken | set(names))
    return _LaidBody(layout, graph, parameters, scope.text), layout.helpers


def _base(name):
    """What a carry no one reads after its loop is called there: its name in the body,
    without the number that kept it apart in the body (``d_carry_1`` is a ``d_carry``)."""
    return re.sub(r"_[0-9]+$", "", name or "carry")


def _assign(names, sources):
    """One statement giving several names their values at once (a step's new carries
    read the old ones)."""
    if not names:
        return []
    return [f"{', '.join(names)} = {', '.join(sources)}"]


def _indented(lines):
    return [INDENT + line if line else line for line in lines]


def _shape_text(shape):
    """A shape as a tuple display; its sizes may be expressions (``len(xs)``)."""
    return f"({', '.join(str(d) for d in shape)}{',' if len(shape) == 1 else ''})"


def _dtype_text(dtype):
    return f"np.{np.dtype(dtype).name}"
