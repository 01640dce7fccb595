"""An optimisation pass: scatters into zeros summed are fewer scatters, of sums or stacks.

Every read of a slice of a value scatters that read's cotangent into zeros
of the value's shape, so ``f(x[:-1]) + g(x[:-1])`` gets two arrays of zeros
and a sum of full size where one scatter of the slices' sum does, and a
loop over a tensor's rows one scatter per row where one stack of the rows'
cotangents does:

- ``scatter(a, k, S) + scatter(b, k, S) -> scatter(a + b, k, S)``;
- ``scatter(a, i, S) + scatter(b, i + 1, S) -> scatter(stack([a, b]), i:i + 2, S)``
  for whole rows at consecutive indices, and the stack alone when the rows
  fill ``S``.

Only for ``scatter_add`` with a basic key (ints and slices: each element is
written at most once) read by the sum alone, of one dtype throughout, so the
result is the same array: elements outside the keys are zeros either way,
and those inside the same terms summed (in another order only where other
terms of the sum came between the scatters; a row's negative zero stays
one, where adding the other scatters' zeros made it positive).
"""

from ir.canonical import canonical
from ir.primitives.shape import scatter_add, stack
from ir.optimize.sums import add_chain, concrete, new_op, regroup_sums


def merge_scatters(graph):
    """Sum the values of scatters into zeros at the same key in one sum, scattered once;
    else stack those of whole rows at consecutive indices, scattered once."""
    return regroup_sums(graph, "merge_scatters", _merged,
                        lambda graph, root, terms: sum(
                            graph[t].primitive is scatter_add for t in terms) >= 2)


def _merged(rewrite, root, terms, counts):
    """The new id of ``root``'s sum with its scatters merged, else ``None``."""
    parts = _same_places(rewrite, root, terms, counts) or _rows(rewrite, root, terms, counts)
    return None if parts is None else add_chain(rewrite, parts, like=root)


def _same_places(rewrite, root, terms, counts):
    """The new ids of the sum's parts with scatters at one key merged, else ``None``."""
    graph = rewrite.old
    groups = {}
    for position, term in enumerate(terms):
        key = _scatter_key(graph, graph[term], root, counts) or ("term", position)
        groups.setdefault(key, []).append(term)
    if all(len(members) < 2 for members in groups.values()):
        return None
    parts = []
    for members in groups.values():
        if len(members) == 1:
            parts.append(rewrite.ids[members[0]])
            continue
        first = graph[members[0]]
        values = add_chain(rewrite, [rewrite.ids[graph[m].inputs[0]] for m in members],
                           like=first)
        parts.append(new_op(rewrite, scatter_add, (values,), first.params, first))
    return parts


def _scatter_key(graph, node, root, counts):
    """What a scatter merges by (its key and shape), for a scatter only this sum reads,
    with no index arrays, whose values have the sum's dtype; else ``None``."""
    if (node.primitive is not scatter_add or len(node.inputs) != 1 or counts.get(node.id) != 1
            or node.dtype != root.dtype or graph[node.inputs[0]].dtype != root.dtype):
        return None
    return "scatter", canonical(node.params)


def _rows(rewrite, root, terms, counts):
    """The new ids of the sum's parts with each run of scatters of whole rows at
    consecutive indices one scatter of their stack, else ``None``."""
    graph = rewrite.old
    rows = {}
    for term in terms:
        index = _row_index(graph, graph[term], root, counts)
        if index is not None:
            rows.setdefault(index, []).append(term)
    runs = _runs(sorted(rows)) if all(len(v) == 1 for v in rows.values()) else []
    if not runs:
        return None
    replaced = {}  # old term -> the new id standing for its run (its first term) or None
    for run in runs:
        members = [rows[i][0] for i in run]
        first = graph[members[0]]
        stacked = new_op(rewrite, stack, [rewrite.ids[graph[m].inputs[0]] for m in members],
                         {"axis": 0}, first)
        if len(run) < root.shape[0]:
            key = (slice(run[0], run[-1] + 1),)
            stacked = new_op(rewrite, scatter_add, (stacked,),
                             {"key": key, "shape": root.shape}, first)
        replaced.update(dict.fromkeys(members))
        replaced[min(members, key=terms.index)] = stacked
    parts = []
    for term in terms:
        if term not in replaced:
            parts.append(rewrite.ids[term])
        elif replaced[term] is not None:
            parts.append(replaced[term])
    return parts


def _row_index(graph, node, root, counts):
    """The row a scatter of one whole row of ``root``'s shape writes (from 0), for a
    scatter only this sum reads whose values have the sum's dtype; else ``None``."""
    if (_scatter_key(graph, node, root, counts) is None or node.shape != root.shape
            or not root.shape or not concrete(root.shape)):
        return None
    key = node.params["key"]
    value = graph[node.inputs[0]]
    if len(key) != 1 or type(key[0]) is not int or value.shape != root.shape[1:]:
        return None
    return key[0] % root.shape[0]


def _runs(indices):
    """The runs of at least two consecutive numbers in the sorted ``indices``."""
    runs, current = [], []
    for i in indices:
        if current and i != current[-1] + 1:
            runs.append(current)
            current = []
        current.append(i)
    runs.append(current)
    return [run for run in runs if len(run) >= 2]
