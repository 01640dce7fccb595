"""What a node with several results is made of, read from its params without running it:
each such primitive says so itself (``Primitive.results``), and this module reads it.

Listings and pictures show such a node (a loop, a branch, ``packed``) by the
types of its results; the JSON reader allows the object dtype only on nodes of
``SEVERAL_RESULTS`` and bodies only in the ``BODY_PARAMS`` of loops and
branches; and ``tape.explain`` asks which params hold a node's bodies
(``body_params``).  How far a gradient reaches through the bodies is
``ir.loops.reach``'s.
"""

from ir.primitive import PRIMITIVES

SEVERAL_RESULTS = frozenset(name for name, prim in PRIMITIVES.items()
                            if prim.results and not prim.results.one_value)
"""The primitives whose nodes have several results: the only ones of object dtype."""

BODY_PARAMS = {name: prim.results.bodies for name, prim in PRIMITIVES.items()
               if prim.results and prim.results.bodies}
"""The params holding the bodies of each loop and branch primitive."""

BODY_NODE_LISTS = {name: prim.results.node_lists for name, prim in PRIMITIVES.items()
                   if prim.results and prim.results.node_lists}
"""Params that list nodes of a body (``keep``: the per-step values kept for the
gradient), with the body param whose nodes they name."""


def body_params(prim):
    """The params holding the bodies of ``prim``'s nodes (none unless it is a loop, a
    branch or a custom gradient)."""
    return prim.results.bodies if prim.results else ()
