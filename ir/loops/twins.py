"""Loop bodies traced at the traced sizes and with symbolic sizes, and what is derived of
them.

A tracer runs a loop body at concrete shapes and, where sizes are symbolic,
records its graph with them: two bodies, a pair of twins.  While pairs are
active (``sized_twins``), whatever is derived of a concrete body
(``Body.derived``: its reverse step, the body with more outputs, a segment of a
checkpointed loop) is derived of its twin too, and the bodies found at the same
places in the two are paired in turn.  So a loop recorded from a derived body,
as a gradient records its reverse loop, keeps symbolic sizes in its graph.
"""

import contextlib
import threading

from ir.sizes.guards import guarding

_state = threading.local()


def twin_of(body):
    """The symbolic twin of ``body`` among the active pairs, or ``None`` (always, while a
    twin is being derived: a twin has none of its own)."""
    pairs = getattr(_state, "pairs", None)
    if not pairs or getattr(_state, "deriving", False):
        return None
    pair = pairs.get(id(body))
    return None if pair is None else pair[1]


@contextlib.contextmanager
def sized_twins(pairs, sizes=None):
    """Within, ``twin_of`` knows each ``(concrete body, symbolic body)`` of ``pairs`` (a
    symbolic body that is ``None`` or the concrete one pairs nothing) and what is derived
    of them.  ``sizes``, a ``Guarding``, answers the questions deriving of a twin asks
    (it holds the traced sizes, and keeps the guards taken)."""
    previous = getattr(_state, "pairs", None), getattr(_state, "sizes", None)
    _state.pairs = dict(previous[0] or {})
    _state.sizes = sizes if sizes is not None else previous[1]
    for body, sized in pairs:
        if sized is not None and sized is not body:
            _state.pairs[id(body)] = (body, sized)
    try:
        yield
    finally:
        _state.pairs, _state.sizes = previous


def derived_twin(twin, key, make):
    """``twin.derived(key, make)``, its questions about sizes answered by the active
    ``sizes``."""
    _state.deriving = True
    try:
        with guarding(_state.sizes) if _state.sizes is not None else contextlib.nullcontext():
            return twin.derived(key, make)
    finally:
        _state.deriving = False


def note_twin(body, sized):
    """Pair ``body`` with ``sized`` while the pairs active now are (in ``sized_twins``)."""
    pairs = getattr(_state, "pairs", None)
    if pairs is not None and body is not sized:
        pairs[id(body)] = (body, sized)
