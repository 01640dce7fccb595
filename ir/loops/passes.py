"""Passes over loops: ``hoist_invariants`` moves what a body computes the same at every
step before the loop, ``unpack_results`` reads a packed result straight from what was
packed (both among ``optimize``'s passes); ``drop_unread_results`` removes
the stacked outputs and kept values no node reads, so the body no longer computes them
and the loop no longer stacks them.  Generated code runs that one last; the graphs a
gradient is taken of keep every result (what differentiates a loop reads them).
"""

from ir.graph import NODE_REFERENCES, Node
from ir.loops.body import Body, split_like
from ir.optimize.rewrite import Rewrite
from ir.primitives.elementwise import add, multiply
from ir.primitives.linalg import matmul
from ir.primitives.results import packed, result
from ir.primitives.shape import reshape, transpose

# Defined in ``ir.primitives.loops``, which builds on the passes: set by
# ``ir.primitive_references``.
scan = None


def drop_unread_results(graph):
    """``graph`` with each scan's stacked outputs, kept values and final carries that no
    node reads left out of it, with whatever its body computes only for them: a carry
    goes when nothing read depends on it at any step, and so do the ``xs`` and
    invariants the body no longer reads.  The ``result`` nodes of the others are
    renumbered to match."""
    used = {i for node in graph for i in node.inputs} | {o for o in graph.outputs
                                                        if o is not None}
    read = {}
    for node in graph:
        if node.primitive is result and node.id in used:
            read.setdefault(node.inputs[0], set()).add(node.params["index"])
    rewrite = Rewrite(graph)
    renumbered = {}
    for node in graph:
        if node.primitive is scan:
            arguments, params, renumbered[node.id] = _scan_reading(node, read.get(node.id, set()))
            inputs = rewrite.inputs(node)
            rewrite.keep(node, inputs=tuple(inputs[k] for k in arguments), params=params)
            rewrite.changes += len(inputs) > len(arguments)
        elif node.primitive is result and node.inputs[0] in renumbered:
            index = renumbered[node.inputs[0]].get(node.params["index"])
            if index is not None:
                rewrite.keep(node, params=dict(node.params, index=index))
            else:
                rewrite.changes += 1
        else:
            rewrite.keep(node)
    return rewrite.finish("drop_unread_results")


def has_scans(graph):
    """Whether ``graph`` holds a scan, which ``drop_unread_results`` may trim."""
    return any(node.primitive is scan for node in graph)


def _scan_reading(node, read):
    """For scan ``node`` giving only its results at the indices ``read``: the positions of
    the arguments it still takes, its params, and each kept result index's new one."""
    body, keep = node.params["body"], node.params["keep"]
    final_positions, y_positions, kept_positions = body.result_positions(keep)
    kept_ys = [k for k, p in enumerate(y_positions) if p in read]
    kept_keep = [k for k, p in enumerate(kept_positions) if p in read]
    carries, live = _carries_read(body, {k for k in final_positions if k in read},
                                  [*(body.ys[k] for k in kept_ys), *(keep[k] for k in kept_keep)])
    _, x_positions, invariant_positions = body.positions
    # The first ``xs`` stays even unread: generated code counts the steps by it.
    xs = [k for k in x_positions if k == x_positions[0] or body.inputs[k] in live]
    invariants = [k for k in invariant_positions if body.inputs[k] in live]
    arguments = [*carries, *xs, *invariants]
    new = [*carries, *(y_positions[k] for k in kept_ys), *(kept_positions[k] for k in kept_keep)]
    trimmed = body.graph.copy()
    trimmed.outputs = [*(body.new_carries[k] for k in carries), *(body.ys[k] for k in kept_ys)]
    groups = [[body.inputs[k] for k in group] for group in (carries, xs, invariants)]
    return (arguments,
            dict(node.params, body=Body.of(trimmed, *groups),
                 keep=tuple(keep[k] for k in kept_keep)),
            {old: k for k, old in enumerate(new)})


def _carries_read(body, carries, read):
    """The carries (``carries`` among them) that the body values ``read`` depend on at
    any step, in order, and the body nodes those values and carries depend on."""
    while True:
        live = body.graph.upstream([*read, *(body.new_carries[k] for k in carries)])
        more = {k for k, i in enumerate(body.carries) if i in live} - carries
        if not more:
            return sorted(carries), live
        carries = carries | more


def hoist_invariants(graph):
    """Compute once, before its loop, what a loop's body computes from values that are the
    same at every step (its invariants and constants): the body reads the result as one
    more invariant.  A transposed weight matrix, or a rule's ``-k``, is then made once."""
    rewrite = Rewrite(graph)
    for node in graph:
        facts = node.primitive.results if node.kind == "op" else None
        if not (facts and facts.feeds_back and _hoisted(rewrite, node, facts)):
            rewrite.keep(node)
    return rewrite.finish("hoist_invariants")


def _hoisted(rewrite, node, facts):
    """Hoist what ``node``'s body computes from its invariants alone; whether any was."""
    body = node.params["body"]
    graph = body.graph
    arguments = facts.arguments(node.params)["body"]
    outer = {i: rewrite.ids[node.inputs[arguments[k]]]
             for k, i in zip(body.positions.invariants, body.invariants)}
    steady = set(outer)
    hoisted = []
    for inner in graph:
        if inner.kind == "op" and _movable(inner) and all(
                i in steady or graph[i].kind == "constant" for i in inner.inputs):
            steady.add(inner.id)
            hoisted.append(inner)
    used = _used_outside(body, hoisted)
    if not used:
        return False
    for inner in hoisted:
        for i in inner.inputs:
            if i not in outer:  # a constant
                outer[i] = rewrite.new.add_node("constant", "constant", (), {}, graph[i].shape,
                                                graph[i].dtype, value=graph[i].value).id
        meta = {k: v for k, v in inner.meta.items() if k not in NODE_REFERENCES}
        outer[inner.id] = rewrite.new.add_node(
            "op", inner.primitive, [outer[i] for i in inner.inputs], inner.params, inner.shape,
            inner.dtype, name=inner.name, source=inner.source, meta=meta).id
    trimmed = graph.copy()
    for node_id in used:
        old = trimmed[node_id]
        trimmed.nodes[node_id] = Node(node_id, "input", "input", (), {}, old.shape, old.dtype,
                                      name=old.name)
    new_body = Body.of(trimmed, body.carries, body.xs, [*body.invariants, *used])
    rewrite.keep(node, inputs=(*rewrite.inputs(node), *(outer[i] for i in used)),
                 params=dict(node.params, body=new_body))
    rewrite.changes += len(used)
    return True


def _movable(node):
    """Whether an op can run outside its loop: a plain computation (no loop of its own,
    no user's Python function)."""
    prim = node.primitive
    return not prim.results and prim is not result and prim.python_only is None


def _used_outside(body, hoisted):
    """The hoisted nodes that the rest of the body, its outputs or its kept values read."""
    inside = {n.id for n in hoisted}
    readers = [n for n in body.graph if n.kind == "op" and n.id not in inside]
    used = {i for n in readers for i in n.inputs if i in inside}
    used |= {i for i in body.graph.outputs if i in inside}
    return sorted(used)


def unpack_results(graph):
    """A result of a ``packed`` node is the array packed there (batching rules pack a
    loop's results so), so the node goes once nothing else reads it; a loop's result
    read through several nodes is read through the first (generated code gives each
    result of a loop one name)."""
    rewrite = Rewrite(graph)
    first = {}  # (loop, index) -> the new id of its first result node
    for node in graph:
        source = graph[node.inputs[0]] if node.primitive is result else None
        if source is not None and source.primitive is packed:
            rewrite.replace(node, rewrite.ids[source.inputs[node.params["index"]]])
        elif source is not None and (source.id, node.params["index"]) in first:
            rewrite.replace(node, first[source.id, node.params["index"]])
        else:
            rewrite.keep(node)
            if source is not None:
                first[source.id, node.params["index"]] = rewrite.ids[node.id]
    return rewrite.finish("unpack_results")


def gather_outer_products(graph):
    """A scan carry that only adds up outer products of per-step vectors, ``acc + a b^T``
    (a weight's gradient in a reverse loop), becomes one product after the loop of the
    stacked vectors, ``acc + A^T B``: one matrix product instead of one outer product
    and one sum a step, as hand-written backpropagation through time gathers them."""
    rewrite = Rewrite(graph)
    gathered = {}  # scan id -> {old result index: new index, or ("sum", new node id)}
    for node in graph:
        if node.primitive is scan and _outer_product_carries(node):
            gathered[node.id] = _gather(rewrite, node, _outer_product_carries(node))
        elif node.primitive is result and node.inputs[0] in gathered:
            target = gathered[node.inputs[0]][node.params["index"]]
            if isinstance(target, tuple):
                rewrite.replace(node, target[1])
            else:
                rewrite.keep(node, params=dict(node.params, index=target))
        else:
            rewrite.keep(node)
    return rewrite.finish("gather_outer_products")


def _outer_product_carries(node):
    """``(carry position, a, b)`` for each carry of scan ``node`` whose new value is the
    old plus ``reshape(a, (n, 1)) * b`` of per-step vectors, and which nothing else reads."""
    body, keep = node.params["body"], node.params["keep"]
    graph = body.graph
    uses = {}
    for inner in graph:
        for i in inner.inputs:
            uses[i] = uses.get(i, 0) + 1
    for i in [*graph.outputs, *keep]:
        uses[i] = uses.get(i, 0) + 1
    found = []
    for k, old in enumerate(body.carries):
        new = graph[body.new_carries[k]]
        if (new.primitive is not add or uses.get(old) != 1 or uses.get(new.id) != 1
                or old not in new.inputs):
            continue
        product = graph[next(i for i in new.inputs if i != old)] if len(set(new.inputs)) == 2 else None
        vectors = _outer_factors(graph, product, new.shape) if product is not None else None
        if vectors is not None and uses.get(product.id) == 1:
            found.append((k, *vectors))
    return found


def _outer_factors(graph, product, shape):
    """``(a, b)`` when ``product`` is ``reshape(a, (n, 1)) * b`` of shape ``(n, m)``."""
    if product.primitive is not multiply or len(shape) != 2:
        return None
    for column, row in (product.inputs, product.inputs[::-1]):
        reshaped = graph[column]
        if (reshaped.primitive is reshape and reshaped.params["shape"] == (shape[0], 1)
                and graph[reshaped.inputs[0]].shape == (shape[0],)
                and graph[row].shape == (shape[1],)):
            return reshaped.inputs[0], row
    return None


def _gather(rewrite, node, found):
    """Rewrite scan ``node`` with the carries ``found`` gathered; the new index of each of
    its old results, or ``("sum", id)`` of the node computing a gathered carry."""
    body, keep = node.params["body"], node.params["keep"]
    dropped = {k for k, _, _ in found}
    carries = [k for k in body.positions.carries if k not in dropped]
    graph = body.graph.copy()
    graph.outputs = [*(body.new_carries[k] for k in carries), *body.ys,
                     *(i for _, a, b in found for i in (a, b))]
    new_body = Body.of(graph, [body.carries[k] for k in carries], body.xs, body.invariants)
    _, x_args, invariant_args = body.split_inputs(node.inputs)
    arguments = [*(node.inputs[k] for k in carries), *x_args, *invariant_args]
    loop = rewrite.keep(node, inputs=tuple(rewrite.ids[i] for i in arguments),
                        params=dict(node.params, body=new_body))
    old, new = body.result_positions(keep), new_body.result_positions(keep)
    index = {k: j for j, k in enumerate(carries)}
    index.update(zip(old.ys, new.ys))
    index.update(zip(old.kept, new.kept))
    _, gathered = split_like(new.ys, body.ys)
    length = node.params["length"]
    for (k, a, b), indices in zip(found, zip(gathered[::2], gathered[1::2])):
        stacks = [rewrite.new.add_node(
            "op", result, [loop.id], {"index": index, "shape": (length, *graph[v].shape),
                                      "dtype": graph[v].dtype},
            (length, *graph[v].shape), graph[v].dtype, meta=dict(loop.meta)).id
            for index, v in zip(indices, (a, b))]
        shape, dtype = body.graph[body.graph.outputs[k]].shape, body.graph[body.graph.outputs[k]].dtype
        turned = rewrite.new.add_node("op", transpose, [stacks[0]], {"axes": (1, 0)},
                                      (shape[0], length), dtype, meta=dict(loop.meta)).id
        product = rewrite.new.add_node("op", matmul, [turned, stacks[1]], {}, shape, dtype,
                                       meta=dict(loop.meta)).id
        total = rewrite.new.add_node("op", add, [rewrite.ids[node.inputs[k]], product], {},
                                     shape, dtype, meta=dict(loop.meta)).id
        index[k] = ("sum", total)
    return index


def reuse_stacks(graph):
    """A scan's stacked output that is its own scanned input, step for step, is that input
    (no copy of it is stacked again), and one stacked twice is the first stacking."""
    rewrite = Rewrite(graph)
    same = {}  # scan id -> {result index: outer node id, or earlier result index}
    firsts = {}  # (scan id, result index) -> new id of the result node first read
    for node in graph:
        if node.primitive is scan:
            same[node.id] = _restacked(node)
            rewrite.keep(node)
            continue
        target = (same.get(node.inputs[0], {}).get(node.params["index"])
                  if node.primitive is result else None)
        if target is None:
            new = rewrite.keep(node)
            if node.primitive is result:
                firsts[node.inputs[0], node.params["index"]] = new.id
        elif target[0] == "input":
            rewrite.replace(node, rewrite.ids[target[1]])
        elif (node.inputs[0], target[1]) in firsts:
            rewrite.replace(node, firsts[node.inputs[0], target[1]])
        else:
            rewrite.keep(node)
    return rewrite.finish("reuse_stacks")


def _restacked(node):
    """``{result index: ("input", outer id) or ("result", earlier index)}`` of the stacked
    outputs of scan ``node`` that are a scanned input, or an output stacked before."""
    body = node.params["body"]
    scanned = dict(zip(body.xs, body.split_inputs(node.inputs).xs))
    found, first = {}, {}
    for position, i in zip(body.result_positions().ys, body.ys):
        if i in scanned:
            found[position] = ("input", scanned[i])
        elif i in first:
            found[position] = ("result", first[i])
        else:
            first[i] = position
    return found
