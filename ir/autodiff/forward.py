"""Forward mode: each primitive's Jacobian-vector product, and the tangent pass.

A primitive's JVP follows from what it already declares, so every primitive
has one, user-defined gradients included:

- elementwise primitives have a diagonal Jacobian, so the VJP rule applied
  to the tangent (broadcast to the result) is the JVP;
- primitives linear in their inputs (``linearity`` ``LINEAR``: sums,
  reshapes, indexing) are their own JVP, applied to the tangents; those
  linear in each input separately (``MULTILINEAR``: products) take the
  tangent in that input's place;
- any other VJP rule is linear in its cotangent, so differentiating the rule
  itself with respect to that cotangent, seeded with the tangent, gives the
  JVP (the transpose of the transpose; TensorFlow computes most JVPs so).
  How a rule is differentiated depends on the kind of values: graph nodes
  here, tapes in the tracer.

Complex values follow TensorFlow's convention (see ``ir.backward``).
"""

import numpy as np

from ir.autodiff.adjoint import GraphEntry, backward, graph_values
from ir.autodiff.batching import Batched, batch_last, one_hot
from ir.primitive import (AS_WRITTEN, LINEAR, MULTILINEAR, is_complex,
                          is_trainable)
from ir.primitives.broadcast import broadcast_to
from ir.primitives.results import Parts
from ir.primitives.elementwise import add, conj, real
from ir.primitives.shape import cast, reshape
from ir.symbolic import GraphBuilder


def jvp(prim, args, params, out, tangents, transpose, zeros_like):
    """The tangent of ``out = prim(*args, **params)`` from one tangent (or None) per
    argument, or None when no tangent flows.

    ``transpose(linear_map, cotangent_like, tangent)`` differentiates the linear
    function ``linear_map`` at a value shaped like ``cotangent_like`` and returns
    its VJP of ``tangent``; ``zeros_like(value, dtype)`` makes zeros of a value's
    shape.  Both depend on the kind of values (graph nodes, tensors).
    """
    if prim.no_gradient is not None or not is_trainable(out.dtype):
        return None
    if prim.jvp is not None:
        return prim.jvp(args, params, out, tangents)
    if prim.linearity is LINEAR:
        total = _linear(prim, args, params, out, tangents, zeros_like)
    else:
        total = None
        for position, tangent in enumerate(tangents):
            if tangent is None:
                continue
            part = _input_jvp(prim, position, args, params, out, tangent, transpose)
            if part is not None:
                total = part if total is None else add(total, part)
    if total is not None and is_complex(total) and not is_complex(out):
        total = real(total)
    if total is not None and total.dtype != out.dtype:
        total = cast(total, dtype=out.dtype)
    return total


def _linear(prim, args, params, out, tangents, zeros_like):
    inputs = []
    for position, (arg, tangent) in enumerate(zip(args, tangents)):
        if prim.vjp_rule(position) is None:
            inputs.append(arg)
        else:
            inputs.append(zeros_like(arg, out.dtype) if tangent is None else tangent)
    return prim(*inputs, **params)


def _input_jvp(prim, position, args, params, out, tangent, transpose):
    rule = prim.vjp_rule(position)
    if rule is None:
        return None
    if prim.linearity is MULTILINEAR:
        args = list(args)
        args[position] = tangent
        return prim(*args, **params)
    complex_values = is_complex(out) or any(is_complex(a) for a in args)
    if prim.elementwise and not (complex_values and prim.complex_rules is AS_WRITTEN):
        return _elementwise(rule, position, args, params, out, tangent)

    def linear_map(cotangent):
        return rule(cotangent, out, *args, **params)

    if not complex_values or prim.complex_rules is AS_WRITTEN:
        return transpose(linear_map, out, tangent)
    # A holomorphic rule as written is J^T; differentiating it in TensorFlow's
    # convention gives conj(J) t, so J t is conj(conj(J) conj(t)).
    return conj(transpose(linear_map, out, conj(tangent)))


def _elementwise(rule, position, args, params, out, tangent):
    """A diagonal Jacobian: the rule applied to the tangent broadcast to the result.

    The input itself is broadcast too, so the rule's reduction to the input's
    shape (for broadcasting) is the identity.
    """
    shape = out.shape
    if tangent.shape != shape:
        tangent = broadcast_to(tangent, shape=shape)
    arg = args[position]
    if getattr(arg, "shape", ()) != shape:
        args = list(args)
        args[position] = broadcast_to(arg, shape=shape)
    return rule(tangent, out, *args, **params)


def tangents(graph, sources, *, names=None, jacobian=False):
    """The tangent graph: ``graph``'s nodes, then the nodes computing the directional
    derivative of each of ``graph.outputs`` along new inputs, one per source.

    ``sources`` are node ids, or tuples of ids that share one tangent (the
    versions of one variable); each gets a tangent input node of its shape and
    dtype, named from ``names`` (default ``v``, ``v_1``, ...) with
    ``meta["tangent_of"]`` its (first) source.  The result's ``outputs`` hold
    the outputs' tangents (``None`` where no tangent reaches one).  The nodes
    computing a node's tangent carry ``meta["jvp_of"]``, that node; the one
    holding the whole tangent also ``meta["tangent_of"]``.

    With ``jacobian=True`` the one source gets, instead of an input, a batch
    of one-hot tangents, one per element (``ir.autodiff.batching``): each output is
    then its whole Jacobian, of shape ``output.shape + source.shape``, from
    one vectorised pass.
    """
    builder = GraphBuilder(graph)
    out = builder.graph
    known = _source_tangents(builder, sources, names, jacobian)
    rules = _GraphTangents(builder)
    for node in list(graph):
        if node.kind != "op" or not any(i in known for i in node.inputs):
            continue
        builder.jvp_of = node.id
        args = [builder.operand(i) for i in node.inputs]
        result = jvp(node.primitive, args, node.params, builder.symbol(node.id),
                     [known.get(i) for i in node.inputs], rules.transpose, rules.zeros_like)
        if result is not None:
            known[node.id] = _marked(builder, result, node.id, len(graph))
    outputs = []
    for o in graph.outputs:
        builder.jvp_of = o
        outputs.append(_output(known.get(o), out, o, sources))
    builder.jvp_of = None
    out.outputs = outputs
    return out


def _source_tangents(builder, sources, names, jacobian):
    """The tangent of each source id: a new input per group, or a batch of one-hots."""
    out = builder.graph
    known = {}
    for k, group in enumerate(sources):
        group = group if isinstance(group, tuple) else (group,)
        node = out[group[0]]
        if jacobian:
            tangent = one_hot(builder.constant(np.ones((), node.dtype)), node.shape)
        else:
            name = names[k] if names else ("v" if k == 0 else f"v_{k}")
            tangent = builder.input(node.shape, node.dtype, name, meta={"tangent_of": node.id})
        known.update(dict.fromkeys(group, tangent))
    return known


def _marked(builder, tangent, node_id, forward_count):
    """``tangent`` as a symbol (or batch of them), its node marked as ``node_id``'s tangent
    when the pass made it (not a forward node of the first ``forward_count``)."""
    if isinstance(tangent, Parts):  # a loop's: each result's tangent is marked as its own
        return tangent
    if not isinstance(tangent, Batched):
        tangent = builder.as_symbol(tangent)
    whole = tangent.value if isinstance(tangent, Batched) else tangent
    if whole.id >= forward_count:
        builder.graph[whole.id].meta.setdefault("tangent_of", node_id)
    return tangent


class _GraphTangents:
    """What ``jvp`` needs to differentiate rules on graph nodes."""

    def __init__(self, builder):
        self.builder = builder

    def transpose(self, linear_map, like, tangent):
        """The VJP of ``tangent`` through ``linear_map``, found by running the reverse walk
        over the nodes the map adds to the graph."""
        builder = self.builder
        out = builder.graph
        probe = builder.constant(np.zeros(like.shape, like.dtype))
        first = len(out.nodes)
        image = linear_map(probe)
        if isinstance(image, Batched):
            raise NotImplementedError("a batch inside a transposed rule (nested batching)")
        if image is None or not hasattr(image, "id"):
            return None  # the rule does not depend on the cotangent: no tangent flows
        entries = [GraphEntry(n, out) for n in list(out)[first:] if n.kind == "op"]
        found = backward(entries, {image.id: tangent}, [probe.id], graph_values(builder))
        return found.get(probe.id)

    def zeros_like(self, value, dtype):
        return self.builder.constant(np.zeros(getattr(value, "shape", ()), dtype))


def _output(tangent, graph, node_id, sources):
    """The id of an output's tangent; a batch of them as one Jacobian."""
    if tangent is None:
        return None
    if not isinstance(tangent, Batched):
        return tangent.id
    group = sources[0] if isinstance(sources[0], tuple) else (sources[0],)
    columns = batch_last(tangent)
    return reshape(columns, shape=graph[node_id].shape + graph[group[0]].shape).id

