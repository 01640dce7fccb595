"""Readable, deterministic names for the values of a generated function.

Parameters take their tensors' and variables' names; a forward value takes
the assignment target of the user's line that computed it (``h = np.tanh(z)``
names ``h``), an adjoint value that is a whole cotangent is ``d_<name>``, and
anything else is named after its operation.  Names are handed out in graph
order, so the same graph always gives the same names.

Names travel with the nodes as ``meta["parameter"]`` (a parameter, or one
array of the ``seed`` list) and ``meta["value_name"]`` (a value worth a
statement of its own): set before the optimisation passes, which copy
``meta``, they outlive the nodes they were derived from.
"""

import ast
import functools

from ir.names import identifier

_OP_NAMES = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "div",
             "negative": "neg", "getitem": "item", "scatter_add": "scattered",
             "broadcast_to": "spread", "sum_to": "summed", "sum": "total", "max": "largest",
             "min": "smallest", "round": "rounded"}


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
    """A short name for the value an op node computes: after its operation, or after
    the numpy function it calls (``np.unique`` gives ``unique``)."""
    if node.op == "numpy_call":
        return node.params["function"].rpartition(".")[2]
    return _OP_NAMES.get(node.op, node.op)
