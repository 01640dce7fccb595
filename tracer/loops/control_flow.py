"""Loops that stay loops and branches chosen at run time: ``scan`` and ``fori_loop``
with JAX's semantics, ``while_loop`` and ``cond`` with TensorFlow's signatures.

A Python loop over tensors is unrolled into the recording, as in TensorFlow's
eager mode, and a Python ``if`` follows the branch taken.  These record the
loop or branch once instead: each body is traced once (``tracer.loops.tracing``)
and the loop or branch is one node, differentiated as a loop or a branch
(``ir.primitives.loops``, ``while_loop``, ``branches``).  Python side effects in
a body run once, while it is traced.  Outside any tape they run on plain values.
"""

import numpy as np

from ir.loops.adjoint import reverse_step
from ir.loops.body import Body, split_like
from ir.loops.checkpoints import checkpointed_scan
from ir.primitives import branches, while_loop as while_primitive
from ir.primitives.loops import scan as scan_primitive, scan_types
from ir.primitives.results import results_of
from ir.structure import flatten, leaf_paths, pack_as
from tracer.core import (Tensor, concrete_shape, push_forward, read, record, tracked_by_a_tape,
                         value_of, wrap)
from tracer.sizes.declared import Dim
from tracer.errors import ControlFlowError
from tracer.loops.tracing import trace_sized_body
from tracer.sites import described_site, user_site
from tracer.state import symbolic, thread_state
from tracer.sizes.tracing import concrete_params, note_sized, sized_loops


def scan(f, init, xs=None, length=None, reverse=False, checkpoint=None):
    """Loop ``f(carry, x) -> (carry, y)`` over the leading axis of ``xs``.

    Returns ``(final_carry, ys)``, ``ys`` stacked along a new leading axis.
    ``carry``, ``x`` and ``y`` may be any nesting of tuples, lists and dicts of
    tensors, arrays and scalars; the carry keeps its structure, shapes and
    dtypes from step to step.  ``xs=None`` scans ``length`` steps with ``x``
    ``None``.  ``reverse=True`` scans from the last slice to the first (``ys``
    keep the order of ``xs``).

    ``checkpoint`` says what the loop keeps for its gradient: ``None`` every
    value the reverse step reads, ``"recompute"`` only each step's carry (the
    reverse step runs the step again), an integer ``k`` only every ``k``-th
    carry (the reverse loop runs one segment of ``k`` steps again at a time, so
    memory grows as ``T / k + k`` steps).
    """
    if not (checkpoint is None or checkpoint == "recompute"
            or (isinstance(checkpoint, (int, np.integer)) and checkpoint > 0)):
        raise ValueError(f"scan's checkpoint is None, 'recompute' or a positive number of "
                         f"steps, not {checkpoint!r}")
    carry_leaves = [read(leaf) for leaf in flatten(init)]
    x_leaves = [] if xs is None else [read(leaf) for leaf in flatten(xs)]
    length = _length(x_leaves, length)

    def step(placeholders):
        carry_placeholders, x_placeholders = split_like(placeholders, carry_leaves)
        carry = pack_as(init, carry_placeholders)
        x = None if xs is None else pack_as(xs, x_placeholders)
        returned = f(carry, x)
        if not (isinstance(returned, (tuple, list)) and len(returned) == 2):
            raise ControlFlowError(
                f"a scan body returns (carry, y), got {type(returned).__name__}"
                f"{described_site(user_site())}")
        carry = _checked_carry(init, returned[0], carry_placeholders)
        return [*carry, *flatten(returned[1])], returned[1]

    slices = [_first_slice(x, length) for x in x_leaves]
    shapes = _step_shapes(carry_leaves, x_leaves)
    body, sized, invariants, y_structure = trace_sized_body(
        step, [value_of(c) for c in carry_leaves], slices, shapes=shapes)
    args = [*carry_leaves, *x_leaves, *invariants]
    with sized_loops([(body, sized)]):
        if tracked_by_a_tape(args):
            results = checkpointed_scan(args, body, length, bool(reverse), checkpoint)
        else:
            loop = scan_primitive(*args, body=body, length=length, reverse=bool(reverse),
                                  keep=(), recompute=False)
            results = results_of(loop, scan_types(body, length, ()))
    finals, ys, _ = body.split_results(results)
    return pack_as(init, finals), pack_as(y_structure, ys)


def fori_loop(lower, upper, body, init):
    """``body(i, carry) -> carry`` for ``i`` from ``lower`` to ``upper - 1``; the final carry.

    ``i`` is an integer value recorded like any other, so it can index arrays.
    """
    lower, upper = (v if isinstance(v, Dim) else int(v) for v in (lower, upper))

    def step(carry, _):
        i, value = carry
        return (i + 1, body(i, value)), None

    (_, final), _ = scan(step, (np.asarray(lower), init), length=max(upper - lower, 0))
    return final


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` holds, at most
    ``maximum_iterations`` times; the final ``loop_vars``.

    ``loop_vars`` is a tuple or list (``cond`` and ``body`` take its items as
    arguments) or one value, of any nesting of tensors, arrays and scalars, which
    keep their structure, shapes and dtypes.  Reverse mode needs no
    ``maximum_iterations``: the forward run keeps what the gradient reads.
    """
    unpacked = isinstance(loop_vars, (tuple, list))
    leaves = [read(leaf) for leaf in flatten(loop_vars)]

    def call(function, placeholders):
        values = pack_as(loop_vars, placeholders)
        return function(*values) if unpacked else function(values)

    def test_step(placeholders):
        return [_checked_pred(call(cond, placeholders), "while_loop's cond")], None

    def body_step(placeholders):
        return _checked_carry(loop_vars, call(body, placeholders), placeholders), None

    values = [value_of(leaf) for leaf in leaves]
    shapes = _step_shapes(leaves, [])
    test, sized_test, test_invariants, _ = trace_sized_body(test_step, [], values, shapes=shapes)
    loop, sized_loop, invariants, _ = trace_sized_body(body_step, values, [], shapes=shapes)
    test = Body.interned(test.graph, test.inputs, carries=0, xs=0)
    if sized_test is not None:
        sized_test = Body.interned(sized_test.graph, sized_test.inputs, carries=0, xs=0)
    args = [*leaves, *test_invariants, *invariants]
    params = {"test": test, "body": loop,
              "maximum": None if maximum_iterations is None else int(maximum_iterations)}
    sized = [(test, sized_test), (loop, sized_loop)] if sized_test and sized_loop else []
    with sized_loops(sized):
        if tracked_by_a_tape(args):
            keep = tuple(dict.fromkeys((*reverse_step(loop, ()).keep, loop.inputs[0])))
            node, trips = _recorded_while(args, dict(params, keep=keep))
        else:
            keep, trips = (), 0
            node = while_primitive.while_loop(*args, **params, keep=keep, trips=trips)
    results = results_of(node, while_primitive.while_types(loop, keep, trips))
    return pack_as(loop_vars, while_primitive.while_results(loop, results)[0])


def _recorded_while(args, params):
    """A while loop's node on a tape, and its number of steps.  The node's params include
    that number (the kept values' leading size), which only running the loop tells, so the
    loop runs once, and is recorded with the value it computed."""
    args = [read(a) for a in args]
    value = while_primitive.while_loop.impl(*[value_of(a) for a in args], **params, trips=0)
    trips = int(while_primitive.while_results(params["body"], value[()])[1])
    params = dict(params, trips=trips)
    node = wrap(value)
    record(while_primitive.while_loop, args, params, node)
    _, sized = concrete_params(params)
    if sized is not None:
        note_sized(thread_state.stack, node, sized)
    push_forward(while_primitive.while_loop, args, params, node)
    return node, trips


def cond(pred, true_fn, false_fn):
    """``true_fn()`` where ``pred`` holds, else ``false_fn()``, chosen when it runs.

    ``pred`` is a boolean scalar: a plain one picks its branch at once, as in
    TensorFlow's eager mode; a tensor records both branches, traced once each,
    which must return the same structure of values of the same shapes and dtypes.
    """
    if not isinstance(pred, Tensor):
        return true_fn() if bool(_checked_pred(pred, "cond's pred")) else false_fn()
    _checked_pred(pred, "cond's pred")
    shapes = [] if symbolic.declared else None
    traced = [trace_sized_body(lambda _, fn=fn: _branch_result(fn), [], [], shapes=shapes)
              for fn in (true_fn, false_fn)]
    bodies, operands = _aligned_branches([(b, i, r) for b, _, i, r in traced])
    _check_branches(traced[0][3], traced[1][3], *bodies)
    sized = [None, None]
    if all(s is not None for _, s, _, _ in traced):
        sized, _ = _aligned_branches([(s, i, r) for _, s, i, r in traced], symbolic=True)
    with sized_loops(zip(bodies, sized)):
        node = branches.cond(pred, *operands, true=bodies[0], false=bodies[1])
    return pack_as(traced[0][3], results_of(node, bodies[0].y_types))


def _branch_result(function):
    result = function()
    return flatten(result), result


def _aligned_branches(traced, symbolic=False):
    """Both branches' bodies over one list of inputs (what either closes over), and it;
    with ``symbolic``, an input a branch does not read has the operand's symbolic shape."""
    operands, position = [], {}
    for _, invariants, _ in traced:
        for value in invariants:
            if id(value) not in position:
                position[id(value)] = len(operands)
                operands.append(value)
    bodies = []
    for body, invariants, _ in traced:
        graph = body.graph.copy()  # (a traced body is shared: it is never changed)
        mine = {position[id(v)]: i for v, i in zip(invariants, body.inputs)}
        inputs = []
        for k, value in enumerate(operands):
            if k not in mine:
                plain = value_of(value)
                shape = tuple(getattr(d, "size", d) for d in value.shape) if symbolic else (
                    np.shape(plain))
                mine[k] = graph.add_node("input", "input", (), {}, shape,
                                         np.result_type(plain)).id
            inputs.append(mine[k])
        bodies.append(Body.interned(graph, inputs, carries=0, xs=0))
    return bodies, operands


def _check_branches(true_result, false_result, true_body, false_body):
    """Refuse branches whose results differ in structure, shape or dtype."""
    structures = [pack_as(r, [None] * len(flatten(r))) for r in (true_result, false_result)]
    if structures[0] != structures[1]:
        raise ControlFlowError(
            f"cond's branches return different structures: {_describe(structures[0])} and "
            f"{_describe(structures[1])}{described_site(user_site())}")
    for path, (t_shape, t_dtype), (f_shape, f_dtype) in zip(
            leaf_paths(true_result), true_body.y_types, false_body.y_types):
        if (t_shape, t_dtype) != (f_shape, f_dtype):
            raise ControlFlowError(
                f"cond's branches return result{path} as {t_dtype}{list(t_shape)} and "
                f"{f_dtype}{list(f_shape)}{described_site(user_site())}: both must give the "
                "same shape and dtype (cast or broadcast one of them)")


def _checked_pred(pred, what):
    """``pred``, refused unless it is a boolean scalar."""
    value = value_of(pred)
    shape, dtype = np.shape(value), np.result_type(value)
    if shape != () or dtype != np.bool_:
        raise ControlFlowError(f"{what} must be a boolean scalar, got {dtype}{list(shape)}"
                               f"{described_site(user_site())}")
    return pred


def _length(x_leaves, length):
    """The number of steps: the ``xs``' common leading size, or ``length``."""
    sizes = {np.shape(value_of(x))[0] if np.ndim(value_of(x)) else None for x in x_leaves}
    if None in sizes:
        raise ControlFlowError("every leaf of scan's xs is an array with a leading axis to "
                               f"scan over; one is a scalar{described_site(user_site())}")
    if len(sizes) > 1:
        raise ControlFlowError(f"the leaves of scan's xs have different leading sizes "
                               f"{sorted(sizes)}{described_site(user_site())}")
    if length is None:
        if not sizes:
            raise ControlFlowError("scan needs xs or length to know how many steps to run")
        leading = getattr(x_leaves[0], "shape", None)  # (a symbolic size stays one)
        return leading[0] if leading else sizes.pop()
    if sizes and sizes != {length.value if isinstance(length, Dim) else int(length)}:
        raise ControlFlowError(f"scan's length={length} differs from the leading size "
                               f"{sizes.pop()} of its xs{described_site(user_site())}")
    return length if isinstance(length, Dim) else int(length)


def _step_shapes(carries, xs):
    """The symbolic shape of each step's carry and ``x`` slice, where one has a symbolic
    size (``None`` elsewhere); ``None`` when none does."""
    def sizes(value, drop):
        shape = getattr(value, "shape", ())[drop:]
        return tuple(getattr(d, "size", d) for d in shape) if any(
            isinstance(d, Dim) for d in shape) else None
    shapes = [sizes(c, 0) for c in carries] + [sizes(x, 1) for x in xs]
    return shapes if symbolic.declared else None


def _first_slice(x, length):
    value = np.asarray(value_of(x))
    return value[0] if length else np.zeros(value.shape[1:], value.dtype)


def _checked_carry(init, carry, placeholders):
    """The leaves of a body's new carry, refused where they differ from the old ones in
    structure, shape or dtype; a Python number takes its old value's dtype."""
    expected = pack_as(init, [None] * len(placeholders))
    leaves = flatten(carry)
    got = pack_as(carry, [None] * len(leaves))
    if got != expected:
        raise ControlFlowError(
            f"a loop body must return its carry in the structure it was given: expected "
            f"{_describe(expected)}, got {_describe(got)}{described_site(user_site())}")
    checked = []
    for path, old, new in zip(leaf_paths(init), placeholders, leaves):
        if isinstance(new, (int, float, complex, bool)):
            new = np.asarray(new, old.dtype)
        shape, dtype = np.shape(value_of(new)), np.result_type(value_of(new))
        if shape != concrete_shape(old) or dtype != old.dtype:
            raise ControlFlowError(
                f"the loop carry{path} changes from {old.dtype}{list(concrete_shape(old))} to "
                f"{dtype}{list(shape)} in one step{described_site(user_site())}: a carry "
                "keeps its shape and dtype (cast it, or broadcast it, to the initial value's)")
        checked.append(new)
    return checked


def _describe(structure):
    return repr(structure).replace("None", "*")
