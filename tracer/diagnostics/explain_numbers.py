"""Numbers that may have been computed from a converted value: a path a gradient misses
without being None.

``n = math.sqrt(float(np.sum(x ** 2)))`` then ``y = np.sum(x) / n``: the
target depends on ``x`` through ``np.sum(x)``, so its gradient is not None,
but not through ``n``, a Python number no tape can follow.  A number carries
no history, so the rule is circumstantial, and this is where it is kept.  The
gradient of a target with respect to a source may miss a path when

- a value the source's gradient reaches was converted to plain values
  (``float(t)``, the math module, ``t.item()``, ``t.tolist()``, ``t.numpy()``,
  ``np.asarray(t)``; not ``v.assign(t)``, a cut TensorFlow users expect);
- after that conversion, a number entered an op the target's gradient goes
  through, passed by the user's code and not written in it as a literal
  (``tracer.diagnostics.escapes.note_numbers``): a target computed before the conversion,
  the logging idiom ``print(float(loss))``, is never suspect;
- and the converted value is not a log line: either the number entered on the
  line of the conversion (``x * math.exp(x)``), or the converted value is the
  source itself, or the target does not use the converted value as a tensor
  (a target that uses ``loss`` after ``print(float(loss))`` logged it).
"""

from tracer.diagnostics.escapes import ASSIGNMENT
from tracer.diagnostics.explain_loops import reached_serials


def number_after_conversion(recording, source_ids, on_path):
    """``(escape, number, record)`` by the rule above: the first conversion of a value
    computed from the sources ``source_ids``, and a number passed afterwards to
    ``record``, an op whose result is in ``on_path`` (the serials the target's gradient
    reaches); or ``None``."""
    escapes = recording.escapes
    following = _numbers_on_path(escapes, on_path)
    candidates = [k for k, escape in enumerate(escapes)
                  if escape.how != ASSIGNMENT and following[k]]
    if not candidates:
        return None
    reached = reached_serials(recording.records, set(source_ids), lambda r: r.in_ids, True)[0]
    for k in candidates:
        escape = escapes[k]
        serial = escape.tensor._serial
        if serial not in reached:
            continue
        logged = serial in on_path and serial not in source_ids
        for number, record in following[k]:
            if not logged or record.site == escape.site:
                return escape, number, record
    return None


def _numbers_on_path(escapes, on_path):
    """For each conversion, the numbers that entered an op on ``on_path`` after it, in
    order (each is noted on the latest conversion before it)."""
    following, later = [], []
    for escape in reversed(escapes):
        later = [(n, r) for n, r in escape.numbers if r.out_id in on_path] + later
        following.append(later)
    return following[::-1]
