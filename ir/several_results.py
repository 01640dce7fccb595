"""What a primitive with several results (a loop, a branch) tells everything that reads
its nodes without running them: a fact of the primitive, given where it is defined.

Listings and pictures show such a node by its results' types; JSON allows the
object dtype only on such nodes and bodies only in their body params; the
optimiser works inside the bodies; ``tape.explain`` follows a gradient through
them (``ir.loops.structure``).
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Origin:
    """Where one result of a loop or branch comes from: ``role`` in words, and the body
    nodes that give it, as ``(body param, node id)`` pairs (none for a count of steps)."""

    role: str
    nodes: tuple


def _never(*args):
    return False


@dataclass(frozen=True)
class SeveralResults:
    """The facts of a primitive whose nodes have several results.

    ``types(graph, node)``: ``(shape, dtype)`` of each result.  ``bodies``: the
    params holding bodies; ``node_lists``: params that list a body's nodes, with
    that body's param.  ``origins(params)``: each result's ``Origin``;
    ``arguments(params)``: for each body, the argument each of its inputs
    receives; ``feeds_back``: the bodies whose new carries are the next step's;
    ``ran_no_steps(params)``: whether the final carries are the initial ones;
    ``decided_by(params, positions, reached, reach)``: whether the arguments at
    ``positions`` decide which branch runs or how many steps do.  ``reached(params,
    positions, differentiable)``, for a primitive whose results do not come from its
    bodies' nodes (a custom gradient's value), gives the results its arguments at
    ``positions`` reach.  ``one_value``: its node's value is one array, not several
    results (a custom gradient's, which holds a body all the same).
    """

    types: object
    bodies: tuple = ()
    node_lists: dict = field(default_factory=dict)
    origins: object = None
    arguments: object = None
    feeds_back: tuple = ()
    ran_no_steps: object = _never
    decided_by: object = _never
    reached: object = None
    one_value: bool = False
