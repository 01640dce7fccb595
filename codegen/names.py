"""Readable, deterministic names for the values of a generated function.

Parameters take their tensors' and variables' names; a forward value takes
the name the user's statement that computed it gives it (``h = np.tanh(z)``
names ``h``; a ``return`` line names the function's result, see
``codegen.statements``), an adjoint value that is a whole cotangent is
``d_<name>``, and anything else is named after its operation.  Names are
handed out in graph order, so the same graph always gives the same names,
and a value's gradient or tangent takes its name as the code spells it
(``d_h_2`` for ``h_2``).

Names travel with the nodes as ``meta["parameter"]`` (a parameter, or one
array of the ``seed`` list) and ``meta["value_name"]`` (a value worth a
statement of its own): set before the optimisation passes, which copy
``meta``, they outlive the nodes they were derived from.  A tangent is
``<name>_dot``, and a returned Jacobian or Hessian is named after its source.
"""

from codegen.statements import statement_targets
from codegen.targets.base import primitive_of
from ir.names import identifier


def forward_names(graph, in_body=False):
    """Names for the forward op nodes that deserve one, by node id.

    Each run of a user's statement that names its values (``codegen.statements``)
    gives those names to the ops of the run that no other op of the run reads, in
    order (``z = x @ W + b`` names its ``add``, not its ``matmul``); with one name
    and several such ops, to the last.  Earlier ops are parts of its expression
    and get none, nor do the arguments of a call whose function records more
    on lines of its own.  A statement run again in a loop names each run's value
    (``h``, ``h_1``...).  A loop's or branch's body (``in_body``) names its values
    alike, except after the function it is (``codegen.statements``); of a reverse
    step's nodes, only the forward ones it computes again.
    """
    statements = {}
    following = {}
    previous = None
    for node in graph:
        if node.kind == "op" and node.source is not None and "adjoint_of" not in node.meta:
            statements.setdefault(node.source.statement, []).append(node)
            following[previous] = node
            previous = node.id
    names = {}
    for place, nodes in statements.items():
        targets = statement_targets(place, in_body)
        if targets is None:
            continue
        for run in _runs(nodes, targets.carried):
            values = _unread(run)
            if len(values) != len(targets.names):
                values = run[-1:] if len(targets.names) == 1 else []
            if targets.calls and values and _argument(values[-1], following.get(values[-1].id)):
                continue
            for name, node in zip(targets.names, values):
                names[node.id] = identifier(name, "value")
    return names


def _argument(value, after):
    """Whether the op recorded right ``after`` a statement's last ``value`` was recorded
    in another function: the statement went on into the function it calls, so
    ``value`` was one of its arguments."""
    return after is not None and (after.source.file, after.source.function) != (
        value.source.file, value.source.function)


def _unread(nodes):
    read = {i for node in nodes for i in node.inputs}
    return [node for node in nodes if node.id not in read]


def _runs(nodes, carried):
    """The ops one statement recorded, ``nodes``, cut into the runs of the statement.

    A statement in a loop records the same ops each time it runs, so the runs are
    the shortest repeat of the ops in which each op reads, of other runs, only
    the value an earlier run left (its last op), and a run's last op, the
    statement's outermost operation, reads one only at a ``carried`` position.
    (A nested ``h = np.tanh(np.tanh(h))`` is one run: its outer ``tanh`` reads
    the inner one, not ``h``.)
    """
    ops = [node.op for node in nodes]
    position = {node.id: k for k, node in enumerate(nodes)}
    for length in range(1, len(nodes)):
        if (len(nodes) % length == 0 and ops[length:] == ops[:-length]
                and _apart(nodes, length, position, carried)):
            return [nodes[k:k + length] for k in range(0, len(nodes), length)]
    return [nodes]


def _apart(nodes, length, position, carried):
    """Whether runs of ``length`` ops read each other only as ``_runs`` allows."""
    for k, node in enumerate(nodes):
        last = k % length == length - 1
        for argument, i in enumerate(node.inputs):
            j = position.get(i)
            if j is None or j // length == k // length:
                continue
            if j % length != length - 1 or (last and argument not in carried):
                return False
    return True


def op_name(node):
    """A short name for the value an op node computes, as its primitive says (``mul``,
    ``total``; ``unique`` for a call of ``np.unique``)."""
    return primitive_of(node).name_for_value(node.params)


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
        name = None if of is None else value_name(gradient[of])
        if name is not None:
            node.meta["value_name"] = f"d_{name}"


def name_tangent_values(graph):
    """Call the tangent of a named value ``<name>_dot``, as forward-mode papers write it."""
    for node in graph:
        of = node.meta.get("tangent_of")
        if of is None or node.kind == "input":
            continue
        name = value_name(graph[of])
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


def value_name(node):
    """The name a node's value was given (``value_name`` or ``parameter``), or ``None``."""
    return node.meta.get("value_name") or node.meta.get("parameter")
