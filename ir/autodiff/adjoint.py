"""Reverse-mode differentiation: one walk, and the IR-to-IR adjoint pass built on it.

``backward`` walks op entries in reverse, calls each primitive's VJP rule
and accumulates cotangents.  It does not care what the values are: with
symbols it builds the adjoint graph (``adjoint``), with the tracer's tensors
it evaluates the adjoint as it goes (eager ``tape.gradient``, recorded by any
outer tape), with plain arrays it just computes.
"""

import numpy as np

from ir.autodiff.batching import Batched, one_hot
from ir.primitive import HOLOMORPHIC, REAL_LINEAR, REAL_ONLY, is_complex, is_trainable
from ir.primitives.broadcast import broadcast_to
from ir.primitives.elementwise import add, conj, real
from ir.primitives.shape import cast, reshape
from ir.symbolic import GraphBuilder


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
    path, live = _path(entries, sources)
    cotangents = Cotangents(seeds, live, sources)
    reached, take, add_to_inputs = cotangents.values, cotangents.take, cotangents.add_to_inputs
    for entry in reversed(path):
        if entry.out_id not in reached:
            continue
        args, out = values(entry)
        g, conjugated = take(entry, out)
        if g is None:
            continue
        if visit is not None:
            visit(entry, None if conjugated else g)
        found = entry.prim.input_cotangents(g, out, args, entry.params, entry.in_ids, live)
        add_to_inputs(entry, found, args, conjugated)
    return cotangents.of(sources)


def _path(entries, sources):
    """The entries a gradient flows through (an input is a source or on the path), and
    the ids that carry one: the sources and what those entries compute (entries
    without a gradient carry none further)."""
    live = set(sources)
    live.discard(None)  # an input id of None never carries a gradient
    path = []
    for entry in entries:
        for i in entry.in_ids:
            if i in live:
                path.append(entry)
                if entry.prim.no_gradient is None:
                    live.add(entry.out_id)
                break
    return path, live


class Cotangents:
    """The cotangent of each value the walk has reached, each held as it is or conjugated.

    A complex cotangent stays in the form the last rule gave it until a rule
    or a source needs the other: conjugating costs an op per value.  Each
    method does one step of the walk for a whole entry, since ``tape.gradient``
    runs the walk on every eager gradient.
    """

    __slots__ = ("values", "conjugated", "sources")

    def __init__(self, seeds, live, sources):
        self.values = {i: g for i, g in seeds.items() if i in live}
        self.conjugated = set()  # ids whose cotangent is held conjugated
        self.sources = sources

    def take(self, entry, out):
        """The cotangent of ``entry``'s result ``out`` (given up, unless it is a source) in
        the form the rules of ``entry.prim`` take, and whether that form is conjugated.
        A real result's cotangent is its own conjugate (and a holomorphic function with
        real values is constant): only complex results choose."""
        i = entry.out_id
        g = self.values.get(i) if i in self.sources else self.values.pop(i)
        if g is None:
            return None, False
        held = i in self.conjugated
        conjugated = is_complex(out) and _rules_see_conjugate(entry.prim, held)
        if held != conjugated:
            g = conj(g)
        return g, conjugated

    def add_to_inputs(self, entry, found, args, conjugated):
        """Add each ``(position, cotangent)`` a rule ``found`` (``conjugated``: it gave the
        conjugate) to the cotangent of that input of ``entry``; ``None`` adds nothing.  A
        cotangent reaching a real input keeps its real part."""
        values = self.values
        for position, cotangent in found:
            if cotangent is None:
                continue
            held = conjugated
            if not is_complex(cotangent):
                held = False
            elif not is_complex(args[position]):
                cotangent, held = real(cotangent), False
            i = entry.in_ids[position]
            previous = values.get(i)
            if previous is None:
                values[i] = cotangent
                if held:
                    self.conjugated.add(i)
            elif held or i in self.conjugated:
                values[i] = self._add_held(previous, cotangent, i, held)
            else:
                # ``+`` applies ``add`` as ``add(...)`` would, minus the primitive call on arrays.
                values[i] = previous + cotangent

    def _add_held(self, previous, cotangent, i, conjugated):
        """``previous + cotangent`` in the form ``i``'s cotangent is held in; a real
        ``previous`` takes the new one's form."""
        if i in self.conjugated:
            return add(previous, cotangent if conjugated else conj(cotangent))
        if is_complex(previous):
            return add(previous, conj(cotangent))
        self.conjugated.add(i)
        return add(previous, cotangent)

    def of(self, sources):
        """The cotangent of each reached source, as it is (TensorFlow's convention)."""
        values = self.values
        return {i: conj(values[i]) if i in self.conjugated else values[i]
                for i in sources if i in values}


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


class GraphEntry:
    """An op node seen as a ``backward`` entry."""

    __slots__ = ("prim", "params", "in_ids", "out_id")

    def __init__(self, node, graph):
        self.prim = node.primitive
        self.params = node.params
        self.in_ids = tuple(i if is_trainable(graph[i].dtype) else None for i in node.inputs)
        self.out_id = node.id


def graph_values(builder):
    """``values`` for ``backward`` over ``builder``'s graph: each entry's symbols."""
    graph = builder.graph

    def values(entry):
        node = graph[entry.out_id]
        return tuple(builder.operand(i) for i in node.inputs), builder.symbol(node.id)
    return values


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
    values, one per element (``ir.autodiff.batching``), so the graph computes each
    source's whole Jacobian, of shape ``target.shape + source.shape``, in one
    vectorised walk.

    Adjoint nodes carry ``meta["adjoint_of"]``, the forward node whose rule
    made them; a node that is the whole cotangent of a forward node also
    carries ``meta["cotangent_of"]``, that node.
    """
    builder = GraphBuilder(graph)
    out = builder.graph
    entries = [GraphEntry(node, out) for node in out if node.kind == "op"]
    seed_values = _seeds(builder, targets, seeds, seed_inputs, jacobian)

    def visit(entry, cotangent):
        builder.adjoint_of = entry.out_id
        builder.mark_cotangent(cotangent, entry.out_id)

    groups = [s if isinstance(s, tuple) else (s,) for s in sources]
    wanted = [i for group in groups for i in group if is_trainable(out[i].dtype)]
    cotangents = backward(entries, seed_values, wanted, graph_values(builder), visit=visit)
    builder.adjoint_of = None
    out.outputs = [_gradient(builder, cotangents, group, targets) for group in groups]
    return out


def _seeds(builder, targets, seeds, seed_inputs, jacobian):
    """The cotangent each target starts with (see ``adjoint``), by target id."""
    out = builder.graph
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
        if previous is None:
            seed_values[target] = value
        else:  # (a value given twice, a loop body's new carry and output: its line's)
            builder.adjoint_of = target
            seed_values[target] = add(previous, value)
            builder.adjoint_of = None
    return seed_values


def _gradient(builder, cotangents, group, targets):
    """The id of the node holding the gradient of the sources in ``group`` (summed, in
    the source's dtype; a batch of them as one Jacobian), or ``None``."""
    out = builder.graph
    parts = [cotangents[i] for i in group if i in cotangents]
    if not parts:
        return None
    total = parts[0]
    for part in parts[1:]:
        total = add(total, part)
    if isinstance(total, Batched):
        total = reshape(total.value, shape=out[targets[0]].shape + out[group[0]].shape)
    symbol = builder.as_symbol(total)
    if symbol.dtype != out[group[0]].dtype:
        symbol = cast(symbol, dtype=out[group[0]].dtype)
    builder.mark_cotangent(symbol, group[0])
    return symbol.id
