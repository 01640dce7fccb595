"""What a generated module repeats of the recording: the Python decisions and numbers
taken from values the sources reach.

``if np.sum(x) > 0:`` records the branch taken and nothing of the test, and
``best = int(np.argmax(x))`` records ``x[0]`` if that was the answer.  Eager
gradients are right at the recorded point (TensorFlow does the same), but a
module generated from the recording takes that branch, that index, that
number at every call, and is wrong wherever they come out otherwise.  So
generating one warns, at the user's line that asked for it, of each
conversion (``tracer.diagnostics.escapes.note_decision``) that

- converted a value computed from a source (through any argument: a
  comparison, an ``argmax``; not through ``tracer.stop_gradient``, which
  says the conversion is meant);
- before the target was recorded (after it, it is a log line: it cannot have
  steered the target);
- on the tape itself (not under ``tape.stop_recording()``);

unless the warning for a path the same conversion cut has named it already.
The module's docstring lists them too.  Eager gradients do not warn.
"""

from ir.primitives.control import stop_gradient
from tracer.diagnostics.explain import warn_of_escapes
from tracer.diagnostics.explain_loops import reached_serials
from tracer.sites import site_location, warn_at_user_line

_KINDS = {"bool(t)": "branch", "int(t)": "integer", "an index or size": "integer"}
"""What a conversion decides, where it is not a number or an array."""

_ADVICE = {
    "branch": "Write the choice with tensors: np.where(condition, a, b), or tracer.cond for "
              "branches that compute differently, and tracer.while_loop for a loop whose "
              "test reads a value",
    "integer": "Index with the tensor itself (x[np.argmax(x)], np.take_along_axis), and "
               "repeat a value-dependent number of times with tracer.fori_loop, "
               "tracer.scan or tracer.while_loop",
    "value": "Keep the computation in tensors (np.sqrt(t), not math.sqrt(float(t)); t itself, "
             "not t.item(), t.tolist() or np.asarray(t))",
}


def warn_for_module(recording, targets, sources, gradients, by, given="None"):
    """Warn as ``tape.gradient`` does where a conversion cut a path
    (``tracer.diagnostics.explain.warn_of_escapes``; ``given``: what a source without a gradient
    gets), and of each decision the module that ``by`` names repeats; returns the
    docstring's line on those (none if there are none)."""
    warned = warn_of_escapes(recording, targets, sources, gradients, given, by)
    decisions = repeated_decisions(recording, targets, sources)
    for decision in decisions:
        location = site_location(decision.site)
        if (location, decision.how) not in warned:
            warn_at_user_line(_warning(decision, location, by))
    if not decisions:
        return []
    taken = ", ".join(_taken(d) for d in decisions)
    return [f"Specialised to the recording: {taken}. The module repeats at every call what "
            f"{'each' if len(decisions) > 1 else 'it'} gave, so it is right only where that "
            "comes out the same."]


def repeated_decisions(recording, targets, sources):
    """The conversions the rule above names, the first at each line and kind, in order."""
    decisions = recording.decisions
    if not decisions:
        return []
    last = max(_serial(t) for t in targets)
    source_ids = {i for source in sources for i in recording.ids_of(source)}
    reached = reached_serials(recording.records, source_ids, _arguments, False)[0]
    found = {}
    for decision in decisions:
        if decision.position < last and decision.serial in reached:
            found.setdefault((decision.site, decision.how), decision)
    return list(found.values())


def _serial(target):
    """A target's serial (a variable's: its value's), which only what came later exceeds."""
    return getattr(target._value, "_serial", target._serial)


def _arguments(record):
    """The serials of a record's tensor arguments; none through ``stop_gradient``."""
    if record.prim is stop_gradient:
        return []
    return [getattr(arg, "_serial", None) for arg in record.args]


def _warning(decision, location, by):
    kind = _KINDS.get(decision.how, "value")
    what = "the branch" if kind == "branch" else f"the {kind}"
    gave = "" if decision.value is None else f", which gave {decision.value!r}"
    return (f"{by} repeats at every call {what} the recording took at {location} (in "
            f"{location.function}): {decision.how} of a value computed from the sources"
            f"{gave}. The module is right only where that comes out the same. "
            f"{_ADVICE[kind]}; or, if that is meant, convert tracer.stop_gradient(t) "
            "instead, to say so.")


def _taken(decision):
    """``model.py:12 bool(t) (True)``."""
    gave = "" if decision.value is None else f" ({decision.value!r})"
    return f"{site_location(decision.site)} {decision.how}{gave}"
