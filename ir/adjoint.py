"""Reverse-mode differentiation: one walk, and the IR-to-IR adjoint pass built on it.

``backward`` walks op entries in reverse, calls each primitive's VJP rule
and accumulates cotangents.  It does not care what the values are: with
symbols it builds the adjoint graph (``adjoint``), with the tracer's tensors
it evaluates the adjoint as it goes (eager ``tape.gradient``, recorded by any
outer tape), with plain arrays it just computes.
"""

import numpy as np

from ir.batching import Batched, one_hot
from ir.graph import Graph
from ir.primitive import (HOLOMORPHIC, PRIMITIVES, REAL_LINEAR, REAL_ONLY, is_complex,
                          is_trainable)
from ir.primitives.broadcast import broadcast_to
from ir.primitives.elementwise import add, conj, real
from ir.primitives.shape import cast, reshape


def backward(entries, seeds, sources, values, *, visit=None):
    """Cotangents of ``sources`` given cotangent ``seeds`` of later values.

    ``entries`` are op entries in evaluation order, each with ``prim``,
    ``params``, ``in_ids`` (one id per argument, ``None`` where no gradient
    can flow: constants, integer values) and ``out_id``.  ``seeds`` maps ids to
    cotangents; ``values(entry)`` gives ``(args, out)`` as the rules should see
    them.  ``visit(entry, g)``, if given, is called before an entry's rules run,
    with the entry's (complete) output cotangent, or ``None`` where only its
    conjugate was computed.
    Returns a dict from each reached source id to its cotangent.

    Complex values follow TensorFlow's convention: the cotangent of ``z = x + iy``
    is ``dL/dx + i dL/dy``.  Rules of ``HOLOMORPHIC`` primitives give its
    conjugate (``conj(rule(conj(g)))`` is TensorFlow's), so a cotangent is held
    conjugated between such rules (and through ``REAL_LINEAR`` ones, which take
    either form) and conjugated back only where a rule ``AS_WRITTEN`` or a
    source needs it.  A cotangent reaching a real input keeps its real part.
    Entries with only real values pass through untouched.
    """
    sources = set(sources)
    live = set(sources)
    path = []
    for entry in entries:
        for i in entry.in_ids:
            if i is not None and i in live:
                path.append(entry)
                if entry.prim.no_gradient is None:
                    live.add(entry.out_id)
                break
    cotangents = {i: g for i, g in seeds.items() if i in live}
    conjugated = set()  # ids whose cotangent is held conjugated
    for entry in reversed(path):
        out_id = entry.out_id
        g = cotangents.get(out_id) if out_id in sources else cotangents.pop(out_id, None)
        if g is None:
            continue
        args, out = values(entry)
        prim, params = entry.prim, entry.params
        held_conjugated = out_id in conjugated
        # A real result's cotangent is its own conjugate (and a holomorphic
        # function with real values is constant): only complex results choose.
        sees_conjugate = is_complex(out) and _rules_see_conjugate(prim, held_conjugated)
        if held_conjugated != sees_conjugate:
            g = conj(g)
        if visit is not None:
            visit(entry, None if sees_conjugate else g)
        joint = prim.joint_vjp
        if joint is not None:
            joint_cotangents = joint(g, out, *args, **params)
        rules = prim.vjp_rules(len(entry.in_ids))
        for position, i in enumerate(entry.in_ids):
            if i is None or i not in live:
                continue
            if joint is not None:
                cotangent = joint_cotangents[position]
            else:
                rule = rules[position]
                if rule is None:
                    continue
                cotangent = rule(g, out, *args, **params)
            if cotangent is None:
                continue
            held = sees_conjugate
            if is_complex(cotangent):
                if not is_complex(args[position]):
                    cotangent, held = real(cotangent), False
            else:
                held = False
            previous = cotangents.get(i)
            if previous is None:
                cotangents[i] = cotangent
                if held:
                    conjugated.add(i)
            elif held or i in conjugated:
                cotangents[i] = _add_held(previous, cotangent, i, held, conjugated)
            else:
                # ``+`` applies ``add`` as ``add(...)`` would, minus the primitive call on arrays.
                cotangents[i] = previous + cotangent
    return {i: conj(cotangents[i]) if i in conjugated else cotangents[i]
            for i in sources if i in cotangents}


def _rules_see_conjugate(prim, held_conjugated):
    """Whether the rules of ``prim``, applied to complex values, take and give conjugated
    cotangents; rules that take either form keep the form the cotangent is held in."""
    mode = prim.complex_rules
    if mode == REAL_ONLY:
        raise TypeError(f"{prim.name} has no derivative for complex values; differentiate "
                        "its real and imaginary parts (np.real, np.imag) instead")
    if mode == REAL_LINEAR:
        return held_conjugated
    return mode == HOLOMORPHIC


def _add_held(previous, cotangent, i, held, conjugated):
    """``previous + cotangent`` in the form ``i``'s cotangent is held in (``held``:
    ``cotangent`` is conjugated); a real ``previous`` takes the new one's form."""
    if i in conjugated:
        return add(previous, cotangent if held else conj(cotangent))
    if is_complex(previous):
        return add(previous, conj(cotangent))
    conjugated.add(i)
    return add(previous, cotangent)


class GraphEntry:
    """An op node seen as a ``backward`` entry."""

    __slots__ = ("prim", "params", "in_ids", "out_id")

    def __init__(self, node, graph):
        self.prim = PRIMITIVES[node.op]
        self.params = node.params
        self.in_ids = tuple(i if is_trainable(graph[i].dtype) else None for i in node.inputs)
        self.out_id = node.id


def adjoint(graph, targets, sources, seeds=None, *, seed_inputs=False, jacobian=False):
    """The adjoint graph: ``graph``'s nodes, then the nodes computing d targets / d sources.

    ``targets`` are node ids; they are summed, each seeded with ones, with the
    matching array of ``seeds``, or (``seed_inputs=True``) with a new input
    node named ``seed`` per target, so the graph computes the vector-Jacobian
    product of any upstream gradient (those nodes carry ``meta["seed_of"]``,
    their target).  Each source is a node id, or a tuple
    of ids whose gradients are summed (the versions of one variable).  The
    result's ``outputs`` hold one node id per source, ``None`` where the
    source is not connected; each gradient has its source's dtype.

    With ``jacobian=True`` the one target is seeded with a batch of one-hot
    values, one per element (``ir.batching``), so the graph computes each
    source's whole Jacobian, of shape ``target.shape + source.shape``, in one
    vectorised walk.

    Adjoint nodes carry ``meta["adjoint_of"]``, the forward node whose rule
    made them; a node that is the whole cotangent of a forward node also
    carries ``meta["cotangent_of"]``, that node.
    """
    from ir.symbolic import GraphBuilder

    builder = GraphBuilder(graph)
    out = builder.graph
    entries = [GraphEntry(node, out) for node in out if node.kind == "op"]
    seed_values = {}
    for k, target in enumerate(targets):
        node = out[target]
        if jacobian:
            value = one_hot(builder.constant(np.ones((), node.dtype)), node.shape)
        elif seed_inputs:
            value = builder.input(node.shape, node.dtype, "seed" if k == 0 else f"seed_{k}",
                                  meta={"seed_of": target})
        elif not is_trainable(node.dtype):
            continue
        elif seeds is None:
            # Ones spelled as a broadcast scalar, so they fold into what they meet.
            value = builder.constant(np.ones((), node.dtype))
            if node.shape:
                value = broadcast_to(value, shape=node.shape)
        else:
            value = builder.constant(np.asarray(seeds[k], dtype=node.dtype))
        previous = seed_values.get(target)
        seed_values[target] = value if previous is None else add(previous, value)

    def values(entry):
        node = out[entry.out_id]
        return tuple(builder.operand(i) for i in node.inputs), builder.symbol(node.id)

    def visit(entry, cotangent):
        builder.adjoint_of = entry.out_id
        builder.mark_cotangent(cotangent, entry.out_id)

    groups = [s if isinstance(s, tuple) else (s,) for s in sources]
    wanted = [i for group in groups for i in group if is_trainable(out[i].dtype)]
    cotangents = backward(entries, seed_values, wanted, values, visit=visit)
    builder.adjoint_of = None
    outputs = []
    for group in groups:
        parts = [cotangents[i] for i in group if i in cotangents]
        if not parts:
            outputs.append(None)
            continue
        total = parts[0]
        for part in parts[1:]:
            total = add(total, part)
        if isinstance(total, Batched):
            total = reshape(total.value, shape=out[targets[0]].shape + out[group[0]].shape)
        symbol = builder.as_symbol(total)
        if symbol.dtype != out[group[0]].dtype:
            symbol = cast(symbol, dtype=out[group[0]].dtype)
        builder.mark_cotangent(symbol, group[0])
        outputs.append(symbol.id)
    out.outputs = outputs
    return out


def copy_graph(graph):
    """A new graph with the same nodes (node objects are shared; they are not mutated)."""
    out = Graph()
    out.nodes = dict(graph.nodes)
    out.outputs = list(graph.outputs)
    return out
