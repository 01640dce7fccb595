"""Loops and branches in generated code: each loop or branch node becomes a block.

A ``scan`` becomes a ``for`` loop, a ``while_loop`` a ``while`` loop and a
``cond`` an ``if``/``else``; each body is laid out as straight-line code the
way a whole function is (``codegen.emit.lay_out``), with the user's lines as
comments, values named as the user's statements name them (``codegen.names``)
and deleted after their last use.  A body's names are its function's too: no
other block, nor the function, reuses them.  The final carries are the
loop's own variables; stacked outputs go into arrays made before the loop
(``np.empty``) and written a step at a time, or for a while loop, whose number
of steps is known only at the end, into lists stacked after it.  Results
nothing reads are neither stacked nor kept.  A constant array a loop reads
is made once with the module (``codegen.literals.ModuleArrays``), not again
at each step.  The target writes the statements around the bodies
(``codegen.targets.blocks``); those named here are numpy's.
"""

import dataclasses
from dataclasses import dataclass

from codegen.names import forward_names
from codegen.targets.blocks import CondParts, WhileParts, indented
from ir.primitives.while_loop import while_arguments, while_result_positions


@dataclass
class Scope:
    """What a block needs from the function it is written into.

    ``source(i)`` is the source of the outer value ``i`` where it is read (a name,
    a scalar's literal, a constant array's name), ``own(i)`` its source where a
    block may hand it back as a result (a constant array made afresh, since
    the function's results are arrays of its own), ``results`` the names of the
    loop's results that are read, by index, and ``claim(base)`` hands out a
    fresh name.  ``taken`` holds every name in use, so a body's own names stay
    clear of them; ``lay_out`` lays out a body, and ``text`` writes an
    expression tree as source.  ``target`` writes the block's statements
    (``codegen.targets.blocks``), and ``graph`` is the graph the block's node is in.
    ``reads`` collects the module's names the block's statements read (the device,
    a library, beside the values), and ``notes`` what one block of the function tells
    a later one (a masked loop's count of steps, for its reverse scans).
    """

    source: object
    own: object
    results: dict
    claim: object
    taken: set
    lay_out: object
    text: object
    target: object
    graph: object
    reads: set
    notes: dict


def result_name(graph, node):
    """What generated code calls result ``node`` of a loop or branch: a final carry by its
    carry's name, stacked outputs ``ys``, kept values ``kept``, a count ``steps``."""
    loop = graph[node.inputs[0]]
    index = node.params["index"]
    body = loop.params.get("body")
    if body is None:
        return "branch" if loop.op == "cond" else "result"
    if index in body.positions.carries:
        return body.graph[body.carries[index]].name or "carry"
    if loop.op == "while_loop":
        _, steps, _ = while_result_positions(body, loop.params["keep"])
        return "steps" if index == steps else "kept"
    return "ys" if index in body.result_positions().ys else "kept"


def loop_block(node, scope):
    """``(lines, helpers)`` of the block computing loop or branch ``node``."""
    return _WRITERS[node.op](node, scope)


def _scan(node, scope):
    body, length, reverse = node.params["body"], node.params["length"], node.params["reverse"]
    blocks = scope.target.blocks
    carries = [scope.results.get(k) or scope.claim(_base(body.graph[i].name))
               for k, i in enumerate(body.carries)]
    step = scope.claim("step")
    x_names = [scope.claim(body.graph[i].name or "x") for i in body.xs]
    carry_ids, x_ids, invariant_ids = body.split_inputs(node.inputs)
    keep = node.params["keep"]
    outputs = [*body.ys, *keep]
    _, y_positions, kept_positions = body.result_positions(keep)
    stacks = {k: scope.results[p] for k, p in enumerate([*y_positions, *kept_positions])
              if p in scope.results}
    names = [*carries, *x_names]
    laid, helpers = _body(body, names, invariant_ids, scope, [*body.new_carries, *outputs])
    steps = blocks.length(scope.source(x_ids[0])) if x_ids else str(length)
    lines = blocks.assign(carries, [scope.own(i) for i in carry_ids])
    for k, name in stacks.items():
        shape, dtype = body.graph[outputs[k]].shape, body.graph[outputs[k]].dtype
        lines.append(f"{name} = {blocks.empty((steps, *shape), dtype)}")
    if stacks:
        scope.reads.update(blocks.stack_reads)
    order = f"range({steps} - 1, -1, -1)" if reverse else f"range({steps})"
    read = body.graph.upstream([*body.graph.outputs, *keep])
    inner = [f"{x} = {blocks.step_read(scope.source(outer), step)}" for x, outer, i
             in zip(x_names, x_ids, body.xs) if i in read]
    inner += laid.lines
    inner += [blocks.step_written(name, step, laid.output(outputs[k], copied=True))
              for k, name in stacks.items()]
    inner += blocks.scan_carries(node, scope, step, list(stacks.values()), carries,
                                 [laid.output(i) for i in body.new_carries])
    return lines + [f"for {step} in {order}:"] + indented(inner or ["pass"]), helpers


def _while(node, scope):
    test, body, keep = node.params["test"], node.params["body"], node.params["keep"]
    finals, steps_position, kept_positions = while_result_positions(body, keep)
    carries = [scope.results.get(k) or scope.claim("carry") for k in finals]
    steps = scope.results.get(steps_position) or scope.claim("steps")
    kept = {k: scope.results[p] for k, p in enumerate(kept_positions) if p in scope.results}
    carry_ids, test_ids, invariant_ids = while_arguments(test, body, node.inputs)
    tested, test_helpers = _body(test, carries, test_ids, scope, test.graph.outputs)
    laid, helpers = _body(body, carries, invariant_ids, scope, [*body.new_carries, *keep])
    loop = WhileParts(
        node=node, graph=scope.graph, carries=carries,
        initial=[scope.own(i) for i in carry_ids], steps=steps,
        steps_read=steps_position in scope.results, test=tested.lines,
        tested=tested.output(test.graph.outputs[0]), body=laid.lines,
        new_values=[laid.output(i) for i in body.new_carries],
        kept={name: (laid.output(keep[k], copied=True), body.types([keep[k]])[0])
              for k, name in kept.items()},
        maximum=node.params["maximum"])
    lines, block_helpers = scope.target.blocks.while_loop(loop, scope)
    return lines, {**test_helpers, **helpers, **block_helpers}


def _cond(node, scope):
    true, false = node.params["true"], node.params["false"]
    count = len(true.y_types)
    results = [scope.results.get(k) or scope.claim("branch") for k in range(count)]
    branches, helpers = [], {}
    for branch in (true, false):
        laid, found = _body(branch, [], node.inputs[1:], scope, branch.graph.outputs)
        helpers.update(found)
        branches.append((laid.lines, [laid.output(i) for i in branch.graph.outputs]))
    lines, block_helpers = scope.target.blocks.cond(
        CondParts(node, scope.graph, results, scope.source(node.inputs[0]), branches), scope)
    return lines, {**helpers, **block_helpers}


_WRITERS = {"scan": _scan, "while_loop": _while, "cond": _cond}
"""How each loop or branch primitive is written."""


class _LaidBody:
    """A body laid out: its lines, and the source of each value it gives."""

    def __init__(self, layout, graph, names, outer, scope):
        self.lines = layout.lines
        self._layout, self._graph, self._scope = layout, graph, scope
        self._names, self._outer = names, outer

    def output(self, node_id, copied=False):
        """The source of a value the body gives; ``copied``: where it goes, it is copied
        (into a stack), so an outer value passed straight through is read as it is."""
        if node_id in self._names:  # a carry or a step's slice passed straight through
            return self._names[node_id]
        if node_id in self._outer:  # an outer value passed straight through
            outer = self._outer[node_id]
            return self._scope.source(outer) if copied else self._scope.own(outer)
        return self._scope.text(self._layout.expression(node_id, self._graph))


def _body(body, names, outer, scope, outputs):
    """``body`` laid out with its inputs named ``names`` and then read from the outer
    values ``outer`` (names, or constants: scalars written into the body, arrays
    read by name), computing ``outputs``."""
    graph = body.graph.copy()
    graph.outputs = list(outputs)
    needed = graph.upstream(graph.outputs)
    read = {i for node in graph if node.id in needed and node.kind == "op" for i in node.inputs}
    named = dict(zip(body.inputs, names))
    invariants = dict(zip(body.inputs[len(names):], outer))
    parameters = dict(named)
    for node_id, outer_id in invariants.items():
        # (one the body only hands back is never read by this name: see _LaidBody.output)
        parameters[node_id] = scope.source(outer_id) if node_id in read else scope.own(outer_id)
    marks = {node_id: {"parameter": name} for node_id, name in parameters.items()}
    for node_id, name in forward_names(graph, in_body=True).items():
        marks.setdefault(node_id, {"value_name": name})
    for node_id, mark in marks.items():
        node = graph[node_id]
        graph.nodes[node_id] = dataclasses.replace(node, meta={**node.meta, **mark})
    layout = scope.lay_out(graph, scope.taken | set(names))
    _reserve(scope, [name for i, name in layout.names.items() if graph[i].kind == "op"])
    return _LaidBody(layout, graph, named, invariants, scope), layout.helpers


def _reserve(scope, names):
    """Keep the names of a body's values from every name given after it: a body shares
    its function's namespace, so each name means one value in the whole module.  (The
    body took them clear of ``scope.taken``, so claiming one hands back the name itself.)"""
    for name in names:
        scope.claim(name)


def _base(name):
    """What a carry no one reads after its loop is called there: its name in the body,
    without the number that kept it apart in the body (``d_carry_1`` is a ``d_carry``)."""
    head, underscore, number = (name or "carry").rpartition("_")
    return head if underscore and number.isdigit() else (name or "carry")
