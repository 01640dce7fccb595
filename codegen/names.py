"""Readable, deterministic names for the values of a generated function.

Parameters take their tensors' and variables' names; a forward value takes
the assignment target of the user's line that computed it (``h = np.tanh(z)``
names ``h``), an adjoint value that is a whole cotangent is ``d_<name>``, and
anything else is named after its operation.  Names are handed out in graph
order, so the same graph always gives the same names.

Names travel with the nodes as ``meta["parameter"]`` (a parameter, or one
array of the ``seed`` list) and ``meta["value_name"]`` (a value worth a
statement of its own): set before the optimisation passes, which copy
``meta``, they outlive the nodes they were derived from.  A tangent is
``<name>_dot``, and a returned Jacobian or Hessian is named after its source.
"""

import ast
import functools

from ir.names import identifier
from ir.primitive import PRIMITIVES

@functools.lru_cache(maxsize=None)
def assignment_target(line_text):
    """The single name a source line assigns to (``z = x @ W + b`` gives ``z``), or None."""
    try:
        tree = ast.parse(line_text.strip())
    except SyntaxError:
        return None
    if len(tree.body) != 1:
        return None
    statement = tree.body[0]
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
        target = statement.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def forward_names(graph):
    """Names for the forward op nodes that deserve one, by node id.

    The last op recorded on a user's line that assigns one name takes that
    name: it is the value the name held.  Earlier ops on the line are parts
    of its expression and get none.
    """
    last_on_line = {}
    for node in graph:
        if node.kind == "op" and node.source is not None:
            last_on_line[node.source.statement] = node.id
    names = {}
    for place, node_id in last_on_line.items():
        target = assignment_target(graph[node_id].source.text)
        if target:
            names[node_id] = identifier(target, "value")
    return names


def op_name(node):
    """A short name for the value an op node computes, as its primitive says (``mul``,
    ``total``; ``unique`` for a call of ``np.unique``)."""
    return PRIMITIVES[node.op].name_for_value(node.params)


def name_adjoint_values(gradient, forward_size):
    """Give each whole cotangent the name ``d_<value>``, and mark every node the adjoint
    pass added as adjoint code.  Nodes of no forward line are the seeds (made
    before any rule ran) or the sums that finish each source's gradient."""
    rules_ran = False
    for node in gradient:
        if node.id < forward_size or "parameter" in node.meta:
            continue
        if "adjoint_of" in node.meta:
            rules_ran = True
        else:
            node.meta.update(adjoint_of=None, adjoint_role="total" if rules_ran else "seed")
        of = node.meta.get("cotangent_of")
        name = None if of is None else _value_name(gradient[of])
        if name is not None:
            node.meta["value_name"] = f"d_{name}"


def name_tangent_values(graph):
    """Call the tangent of a named value ``<name>_dot``, as forward-mode papers write it."""
    for node in graph:
        of = node.meta.get("tangent_of")
        if of is None or node.kind == "input":
            continue
        name = _value_name(graph[of])
        if name is not None:
            node.meta["value_name"] = f"{name}_dot"


def name_outputs(graph, forward, groups, base):
    """Name what is returned for each source group ``base`` (``hessian``), or with
    several sources ``base_<source>`` (``jacobian_x``)."""
    several = len(groups) > 1
    for k, (output, group) in enumerate(zip(graph.outputs, groups)):
        node = graph[output] if output is not None else None
        if node is not None and node.kind == "op":
            source = source_name(forward, group, k)
            node.meta["value_name"] = f"{base}_{source}" if several else base


def source_name(graph, group, index):
    """What the user calls the ``index``-th source, whose node ids are ``group``."""
    for node_id in group:
        node = graph[node_id]
        name = node.meta.get("parameter") or node.meta.get("value_name") or node.name
        if name:
            return name
    return f"source {index}"


def _value_name(node):
    return node.meta.get("value_name") or node.meta.get("parameter")
