"""Why a gradient is None: ``tape.explain(target, source)``.

A gradient is None when no chain of differentiable records leads from the
source to the target.  To say where that chain broke, the records are walked
twice: forward from the source following every tensor argument (whether the
tape tracked it or not, so the walk goes on past the point where
differentiability was lost) and backward from the target.  A record on both
walks whose output no gradient reaches is the break.  When the walks do not
meet, the value may have left the trace: each conversion of a tracked tensor
to plain values (``np.asarray``, ``float``, ``.item()``, ``.numpy()``, ...)
is noted on the recordings with its line.  A loop or branch is one record whose
bodies decide which of its results its arguments reach: the walks follow them
(``tracer.diagnostics.explain_loops``), so a path cut inside a body is named there.  A
target that does depend on the source may still miss a path through a number
computed from a converted value (``tracer.diagnostics.explain_numbers``).
"""

import bisect
import dataclasses
import math

import numpy as np

import ir
from ir.loops.structure import body_params
from ir.primitive import is_trainable
from ir.primitives.branches import cond
from tracer.core import Tensor, value_of
from tracer.diagnostics.escapes import ASSIGNMENT, SCALAR_CONVERSIONS
from tracer.diagnostics.explain_loops import integer_result, loop_cut, reached_serials
from tracer.diagnostics.explain_numbers import number_after_conversion
from tracer.sites import site_location, warn_at_user_line
from tracer.variable import Variable


_SCALAR_CONVERSIONS = SCALAR_CONVERSIONS | {"int(t)"}
"""Conversions that return one Python number."""

_WHERE = {"connected": "The target is computed at", "unconnected": "The target is computed at",
          "converted_number": "The value left the trace at"}
"""What an explanation's location is, for reasons where it is not where the path broke."""


@dataclasses.dataclass(frozen=True)
class Explanation:
    """Whether ``target`` depends differentiably on ``source``, and if not, why.

    ``reason`` is a short code ("connected", "not_watched", "not_recorded",
    "unconnected", "no_gradient_op", "integer_path", "escaped",
    "custom_gradient_none", "target_is_constant", "cut_in_loop": a loop's body passes
    no gradient on, so the loop gives zeros or None; "converted_number": connected, but
    a number that may come from a converted value entered later, so the gradient may
    miss that path); ``location`` is the user's line where the path broke (for
    "converted_number", the conversion), when one is known; ``detail`` says what
    happened there and what to do instead; ``conversion`` names the conversion an
    escaped value went through.
    """

    connected: bool
    reason: str
    location: ir.SourceLocation | None
    detail: str
    conversion: str | None = None
    """For reasons "escaped" and "converted_number": how the value left the trace
    (``float(t)``, ``v.assign(t)``)."""

    def __str__(self):
        if self.location is None:
            return self.detail
        text = self.location.text
        statement = f" (`{text}`)" if text else ""
        where = _WHERE.get(self.reason, "The path breaks at")
        return f"{self.detail} {where} {self.location}{statement}."


def explain(recording, target, source, source_ids):
    """Explain the gradient of ``target`` with respect to ``source`` on ``recording``.

    ``source_ids`` are the serials whose gradients make up the source's (a
    variable has one per version read).
    """
    tracked_ids = [i for i in source_ids if i in recording.tracked]
    if not tracked_ids:
        return _not_watched(recording, source)
    reached = _reached_from(recording.records, set(tracked_ids))
    if not isinstance(target, (Tensor, Variable)):
        constants = [(target, target, math.inf), (target, np.asarray(target), math.inf)]
        return _escaped_or(recording, reached, constants, Explanation(
            False, "target_is_constant", None,
            f"The target is a {type(target).__name__}, not a tensor, so no tape recorded how "
            "it was computed and its gradient is None. Compute it from tensors with numpy "
            "functions inside the tape."))
    target_id = (target._value if isinstance(target, Variable) else target)._serial
    producers = {r.out_id: r for r in recording.records}
    on_path = _differentiable_ancestors(target_id, producers)
    if not on_path.isdisjoint(tracked_ids):
        return (_refused_by_custom_gradient(recording, target_id, tracked_ids, producers)
                or _cut_in_loop(recording, target_id, tracked_ids, producers)
                or _number_from_conversion(recording, tracked_ids, on_path)
                or _connected(producers.get(target_id)))
    if target_id in reached:
        return _broken_path(recording.records, reached, target_id, producers)
    if target_id not in producers:
        constants = [(target, value_of(target), target_id)]
        return _escaped_or(recording, reached, constants, Explanation(
            False, "not_recorded", None,
            "The target was not recorded by this tape: it was computed outside the tape's "
            "`with` block, inside `tape.stop_recording()`, or only from values the tape does "
            "not track, so it is a constant and its gradient is None. Compute it from the "
            "source inside the `with` block."))
    constants = _constant_ancestors(recording, target_id, producers)
    return _escaped_or(recording, reached, constants, Explanation(
        False, "unconnected", site_location(producers[target_id].site),
        "The target is recorded but not computed from the source, so the gradient is None "
        "(pass unconnected_gradients=UnconnectedGradients.ZERO for zeros)."))


def warn_of_escapes(recording, targets, sources, grads, given, by="tape.gradient"):
    """Warn for each source that gets no gradient (``given`` is what it gets instead:
    "None" or "zeros") because a value computed from it was converted to plain values
    (``float(t)``, ``math.exp(t)``, ``t.item()``, ...): a silent None would look like a
    target that does not depend on the source; and for each source that gets one that
    may miss a path through a number computed from such a value.  ``v.assign(t)`` is a
    documented cut, as in TensorFlow: no warning.  ``by`` names what gives the
    gradients (``tape.gradient``, or a generated module).  Returns the conversions
    warned of, as ``(location, conversion)``."""
    warned = set()
    if all(escape.how == ASSIGNMENT for escape in recording.escapes):
        return warned
    suspects = [t for t in targets if _numbers_on_path(recording, t)]
    for source, grad in zip(sources, grads):
        for target in targets if grad is None else suspects:
            explanation = explain(recording, target, source, recording.ids_of(source))
            if explanation.reason not in _CUT_BY_CONVERSION or (
                    explanation.conversion == ASSIGNMENT):
                continue
            what = (f"gives {given} for" if grad is None
                    else "may miss part of the gradient for")
            warn_at_user_line(f"{by} {what} {_described(source)}. {explanation}")
            warned.add((explanation.location, explanation.conversion))
            break
    return warned


_CUT_BY_CONVERSION = {"escaped", "converted_number"}
"""Reasons that mean a conversion to plain values cut (or may have cut) a path."""


def _numbers_on_path(recording, target):
    """Whether a number noted after a conversion entered an op on the target's gradient
    path: one pass, before explaining the target for each source that has a gradient."""
    if not isinstance(target, (Tensor, Variable)) or not any(
            escape.numbers for escape in recording.escapes):
        return False
    serial = (target._value if isinstance(target, Variable) else target)._serial
    on_path = _differentiable_ancestors(serial, {r.out_id: r for r in recording.records})
    return any(record.out_id in on_path for escape in recording.escapes
               for _, record in escape.numbers)


def _described(source):
    kind = "variable" if isinstance(source, Variable) else "tensor"
    if source.name:
        return f"the {kind} {source.name!r}"
    return f"a {kind} of shape {source.shape}"


def _not_watched(recording, source):
    """Why the tape holds no trainable version of ``source``."""
    if not is_trainable(source.dtype):
        why = (f"has dtype {source.dtype}, and only floating-point and complex values carry "
               "gradients; create it with a float dtype")
    elif isinstance(source, Variable) and not source.trainable:
        why = ("is a Variable with trainable=False, which tapes do not watch on their own; "
               "call tape.watch(v) or make it trainable")
    elif isinstance(source, Variable) and not recording.watch_accessed_variables:
        why = ("is a Variable, and this tape was created with watch_accessed_variables=False; "
               "call tape.watch(v) inside the tape")
    elif isinstance(source, Variable):
        why = ("is a Variable that was not read while the tape was recording; read it inside "
               "the `with` block (not under stop_recording)")
    else:
        why = "is not watched by this tape; call tape.watch(x) before computing with it"
    return Explanation(False, "not_watched", None, f"The gradient is None: the source {why}.")


def _connected(record):
    """The explanation for a target a differentiable path leads to."""
    return Explanation(
        True, "connected", None if record is None else site_location(record.site),
        "The target depends differentiably on the source, so its gradient is not None. If it "
        "is zero, that is the derivative at these values (a relu or clip at its flat part, a "
        "max that picks another element), not a broken path.")


def _number_from_conversion(recording, source_ids, on_path):
    """A number that entered the target's path after a value computed from the source was
    converted, and may come from it (``tracer.diagnostics.explain_numbers`` keeps the rule)."""
    found = number_after_conversion(recording, source_ids, on_path)
    if found is None:
        return None
    escape, number, record = found
    return Explanation(True, "converted_number", site_location(escape.site), (
        f"The target depends differentiably on the source, but a value computed from it "
        f"left the trace through {escape.how}, and the number {number!r}, passed to "
        f"`{record.prim.name}` at {_place(site_location(record.site))} after that, may have "
        "been computed from it: no gradient flows through such a number, so the gradient "
        "would miss that path. Keep the computation in tensors (np.sqrt(t), not "
        "math.sqrt(float(t))); if the number does not come from the converted value, "
        "convert tracer.stop_gradient(t) instead, to say so."), escape.how)


def _refused_by_custom_gradient(recording, target_id, source_ids, producers):
    """A ``custom_gradient`` on the path whose gradient function returned None, when that
    leaves the source with no gradient (the structure alone cannot tell: the user's
    function decides at run time)."""
    on_path = _differentiable_ancestors(target_id, producers)
    reached = _reached_from(recording.records, set(source_ids))
    customs = [r for r in recording.records if r.prim.joint_vjp is not None
               and not body_params(r.prim) and r.out_id in on_path and r.out_id in reached]
    if not customs:
        return None
    target = producers[target_id].out
    seeds = {target_id: np.ones(np.shape(target._value), target.dtype)}
    if ir.backward(recording.records[:], seeds, set(source_ids), _plain_values):
        return None
    return Explanation(False, "custom_gradient_none", site_location(customs[0].site), (
        "The gradient is None: the path from the source to the target goes through a "
        "function decorated with tracer.custom_gradient whose gradient function returned "
        "None for the argument on that path. Return a gradient for it (zeros if it has no "
        "effect)."))


def _cut_in_loop(recording, target_id, source_ids, producers):
    """A loop on the path whose bodies pass no gradient to the results the target needs:
    the records show a path through it, its bodies do not."""
    cut = loop_cut(recording.records, source_ids, target_id,
                   _differentiable_ancestors(target_id, producers))
    if cut is None:
        return None
    location = site_location(cut.record.site)
    steps = []
    for param, node, roles in cut.trail:
        location = node.source or location
        inside = f"inside its {_BODY_WORDS.get(param, param)}"
        if roles:
            steps.append(f"{inside}, the {_LOOP_WORDS.get(node.primitive, 'loop')} "
                         f"`{node.op}` at {_place(node.source)} passes none to its "
                         f"{' and '.join(roles)}")
        else:
            steps.append(f"{inside}, `{node.op}` passes none on"
                         f"{_no_gradient_reason(node)}")
    return Explanation(False, "cut_in_loop", location, (
        f"No gradient flows from the source to the target through {_loop(cut.record)}, "
        f"which gives the target its {' and '.join(cut.roles)}{''.join(': ' + s for s in steps)}. "
        "The loop's gradient for the values the source reaches is zeros (or None where it "
        "gives none). Keep the path inside the body differentiable, or loop over values "
        "computed before the cut."))


_LOOP_WORDS = {cond: "branch"}
"""What a node with bodies is called in explanations, where it is not a loop."""

_BODY_WORDS = {"true": "true branch", "false": "false branch"}
"""What a body is called in explanations, where its param's name is not enough."""


def _loop(record):
    """``the loop `scan` at model.py:12``."""
    where = _place(site_location(record.site))
    return f"the {_LOOP_WORDS.get(record.prim, 'loop')} `{record.prim.name}` at {where}"


def _place(location):
    return "an unknown line" if location is None else str(location)


def _no_gradient_reason(node):
    """Why a body's op passes no gradient: its primitive's reason, or its dtype."""
    reason = node.primitive.no_gradient
    if reason is not None:
        return f" (it {reason})"
    if not is_trainable(node.dtype):
        return f" (its result has dtype {node.dtype})"
    return ""


def _plain_values(record):
    return [a._value if isinstance(a, Tensor) else a for a in record.args], record.out._value


def _differentiable_ancestors(target_id, producers):
    """The serials a gradient of ``target_id`` reaches through derivative rules."""
    seen = {target_id}
    pending = [target_id]
    while pending:
        record = producers.get(pending.pop())
        if record is None:
            continue
        for position, i in enumerate(record.in_ids):
            if i is not None and i not in seen and _passes_gradient(record, position):
                seen.add(i)
                pending.append(i)
    return seen


def _passes_gradient(record, position):
    return record.prim.vjp_rule(position) is not None


def _reached_from(records, ids):
    """Serials computed from ``ids`` through any argument, tracked or not, and through a
    loop only to the results its bodies compute from them (records are in execution
    order, so one pass suffices)."""
    return reached_serials(records, ids, lambda r: [_serial(a) for a in r.args], False)[0]


def _serial(arg):
    return arg._serial if isinstance(arg, Tensor) else None


def _broken_path(records, reached, target_id, producers):
    """The first record on a source-to-target path that passes no gradient on."""
    on_path = _all_ancestors(target_id, producers)
    for record in records:
        if record.out_id not in on_path or record.out_id not in reached:
            continue
        location = site_location(record.site)
        name = record.prim.name
        if record.prim.no_gradient is not None:
            return Explanation(False, "no_gradient_op", location, (
                f"The gradient is None: every path from the source to the target goes through "
                f"`{name}`, which passes no gradient: it {record.prim.no_gradient}. "
                "Use a differentiable expression there, or differentiate a value computed "
                "before it."))
        if not is_trainable(record.out.dtype):
            from_loop = integer_result(record, producers)
            if from_loop is not None:
                return _integer_loop_result(record, *from_loop)
            return Explanation(False, "integer_path", location, (
                f"The gradient is None: the path from the source to the target goes through "
                f"`{name}`, whose result has dtype {record.out.dtype}; only floating-point and "
                "complex values carry gradients. Keep the value floating-point (astype(float), "
                "np.where instead of multiplying by a mask)."))
        if not any(_passes_gradient(record, k) for k, a in enumerate(record.args)
                   if record.in_ids[k] is not None and _serial(a) in reached):
            return Explanation(False, "no_gradient_op", location, (
                f"The gradient is None: the source reaches the target only through an "
                f"argument of `{name}` that passes no gradient (such as an index)."))
    raise AssertionError("a reached, unconnected target has a break on its path")


def _integer_loop_result(record, loop, role, node):
    """The explanation for a path through the result ``record`` of integer dtype of the
    loop or branch ``loop``: named by its ``role`` to the loop, located at the body
    ``node`` computing it when there is one, else at the loop."""
    computed = "" if node is None else f", which its body computes with `{node.op}`"
    location = getattr(node, "source", None) or site_location(loop.site)
    return Explanation(False, "integer_path", location, (
        f"The gradient is None: the path from the source to the target goes through the "
        f"{role} of {_loop(loop)}{computed}, of dtype {record.out.dtype}; only "
        "floating-point and complex values carry gradients. Keep the value floating-point "
        "(astype(float), np.where instead of multiplying by a mask)."))


def _all_ancestors(target_id, producers):
    """Serials the target was computed from through any argument, tracked or not."""
    seen = {target_id}
    pending = [target_id]
    while pending:
        record = producers.get(pending.pop())
        if record is None:
            continue
        for arg in record.args:
            i = _serial(arg)
            if i is not None and i not in seen:
                seen.add(i)
                pending.append(i)
    return seen


def _constant_ancestors(recording, target_id, producers):
    """The constants the target was computed from, each as ``(argument, value, serial)``:
    ndarray and Python number arguments, tensors the tape does not track, and the
    variables whose values it read (an assigned value is a constant to the tape); the
    serial is that of the result of the record that used it, which came after it."""
    on_path = _all_ancestors(target_id, producers)
    constants = [(variable, variable, serial) for serial, (variable, _) in
                 recording.variable_values.items() if serial in on_path]
    for record in recording.records:
        if record.out_id not in on_path:
            continue
        for arg, i in zip(record.args, record.in_ids):
            if isinstance(arg, (np.ndarray, np.generic, float, complex)):
                constants.append((arg, arg, record.out_id))
            elif isinstance(arg, Tensor) and i is None:
                constants.append((arg, arg._value, record.out_id))
    return constants


def _escaped_or(recording, reached, constants, otherwise):
    """An escape of a value computed from the source: certain when one of ``constants``
    (what the target was computed from) is the converted value itself, else the probable
    cause when a plain value that could have been computed from it entered the target
    after it; if neither, ``otherwise``."""
    escapes = [e for e in recording.escapes if e.tensor._serial in reached]
    for escape in escapes:
        if any(_is_converted_value(value, escape) for _, value, _ in constants):
            return _escaped(escape, "")
    numbers = sorted(e.position for e in escapes if e.how in _SCALAR_CONVERSIONS)
    for escape in escapes:
        for argument, value, serial in constants:
            if serial > escape.position and _could_come_from(
                    argument, value, escape, bisect.bisect(numbers, serial)):
                return _escaped(escape, " probably")
    return otherwise


def _could_come_from(argument, value, escape, numbers):
    """Whether Python code could have computed a constant from the converted value: from
    arrays and lists anything, from ``numbers`` numbers (``float(t)`` before it) at most
    as many elements."""
    if isinstance(argument, Variable) or isinstance(escape.value, Variable):
        return False
    return escape.how not in _SCALAR_CONVERSIONS or np.size(value) <= numbers


def _is_converted_value(constant, escape):
    if isinstance(escape.value, Variable):
        return constant is escape.value
    if isinstance(escape.value, np.ndarray):
        return isinstance(constant, np.ndarray) and np.shares_memory(constant, escape.value)
    return isinstance(constant, (float, complex)) and constant == escape.value


def _escaped(escape, certainty):
    location = site_location(escape.site)
    if isinstance(escape.value, Variable):
        return Explanation(False, "escaped", location, (
            f"No gradient flows back to the source: a value computed from it{certainty} was "
            "stored with v.assign(t), which is not differentiable: the variable's new value is a "
            "constant to the tape. Use the tensor itself in the computation instead of "
            "reading it back from the variable."), escape.how)
    return Explanation(False, "escaped", location, (
        f"No gradient flows back to the source: a value computed from it{certainty} left the "
        f"trace through {escape.how}, which returns plain numpy or Python values; what was "
        "computed from them is a constant to the tape. Keep it a tensor: use t itself instead "
        "of float(t), t.item() or t.numpy(), numpy's functions (np.sqrt(t)) instead of the "
        "math module's, np.stack or np.concatenate instead of np.array([...]), X @ t instead "
        "of X.dot(t)."), escape.how)
