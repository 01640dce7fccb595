"""A layered layout of a directed acyclic graph, in pure Python: nodes to coordinates.

The matplotlib engine of ``ir.pictures.render`` draws graphs with it where Graphviz
is not installed, so it follows the same recipe as Graphviz's ``dot``
(Sugiyama's), simplified: every edge points down, from one layer to a lower
one; a node sits one layer below its deepest argument (longest path), and a
leaf sits just above its first user, so that a constant used late does not
hang from the top; an edge spanning several layers bends through a point on
each layer between, so that it can go round the nodes there; a few
barycenter sweeps order each layer to reduce crossings; and each node then
moves as close to the mean of its neighbours as the spacing allows.

Nothing here knows what a node means or draws anything: ``layered_layout``
takes node sizes and gives centres and edge routes, which makes it testable
on its own.
"""

import graphlib
from collections import defaultdict
from dataclasses import dataclass

GAP = (0.3, 0.45)
"""Space between neighbouring nodes of a layer, and between layers (in the unit of
the sizes, inches for ``ir.pictures.render``)."""

BEND_WIDTH = 0.1
"""Width kept free for an edge passing through a layer."""

SWEEPS = 4
"""Barycenter sweeps (each down, then up) when ordering layers, and placement rounds."""


@dataclass(frozen=True)
class Layout:
    """Where everything goes: ``positions`` maps each node to its centre ``(x, y)``,
    ``routes`` gives, for each edge in order, the points it passes through from
    its tail's centre to its head's centre; ``x`` grows to the right and ``y``
    upwards, inside ``0 <= x <= width`` and ``0 <= y <= height`` (first layer at
    the top)."""

    positions: dict
    routes: tuple
    width: float
    height: float


class _Bend:
    """The point where edge ``edge`` crosses a layer it does not end on."""

    __slots__ = ("edge", "layer")

    def __init__(self, edge, layer):
        self.edge = edge
        self.layer = layer


def layered_layout(nodes, edges, sizes, *, gap=GAP, sweeps=SWEEPS):
    """Lay out the DAG of ``nodes`` (hashables) and ``edges`` (``(tail, head)`` pairs,
    repeats allowed) given each node's ``(width, height)`` in ``sizes``.

    Deterministic: the same input gives the same layout.  Nodes of a layer start in
    the order ``edges`` first uses them, then in the order ``nodes`` lists them.  A
    cycle raises ``ValueError``.
    """
    layer_of = _layers(nodes, edges)
    paths = [_edge_path(index, tail, head, layer_of) for index, (tail, head) in enumerate(edges)]
    layers = _initial_layers(nodes, paths, layer_of)
    links = [pair for path in paths for pair in zip(path, path[1:])]
    above, below = _neighbours(links)
    layers = _ordered(layers, above, below, sweeps)
    widths = {v: sizes[v][0] if v in sizes else BEND_WIDTH for layer in layers for v in layer}
    xs = _placed(layers, above, below, widths, gap[0], sweeps)
    ys, height = _layer_heights(layers, sizes, gap[1])
    left = min((xs[v] - widths[v] / 2 for v in xs), default=0.0)
    right = max((xs[v] + widths[v] / 2 for v in xs), default=0.0)
    point = {v: (xs[v] - left, ys[i]) for i, layer in enumerate(layers) for v in layer}
    positions = {v: point[v] for v in nodes}
    routes = tuple(tuple(point[v] for v in path) for path in paths)
    return Layout(positions, routes, right - left, height)


# --- layers -----------------------------------------------------------------------

def _layers(nodes, edges):
    """Each node's layer: one below its deepest argument; a leaf just above its first user."""
    arguments = defaultdict(list)
    users = defaultdict(list)
    for tail, head in edges:
        arguments[head].append(tail)
        users[tail].append(head)
    sorter = graphlib.TopologicalSorter({v: arguments[v] for v in nodes})
    try:
        order = list(sorter.static_order())
    except graphlib.CycleError as error:
        raise ValueError(f"a layered layout needs an acyclic graph; this one has the cycle "
                         f"{error.args[1]}") from None
    layer = {}
    for v in order:
        layer[v] = max((layer[u] + 1 for u in arguments[v]), default=0)
    for v in nodes:
        if not arguments[v] and users[v]:
            layer[v] = min(layer[u] for u in users[v]) - 1
    return layer


def _edge_path(index, tail, head, layer_of):
    """The edge as a path of one step per layer: its tail, a bend on each layer between,
    its head."""
    bends = [_Bend(index, k) for k in range(layer_of[tail] + 1, layer_of[head])]
    return [tail, *bends, head]


def _initial_layers(nodes, paths, layer_of):
    """Nodes by layer in the order of their first use as an argument (so that a user's
    arguments start left to right when edges list them in order), unused ones last in
    the order given; each layer's bends after its nodes.  Sweeps keep ties in this order."""
    first_use = {}
    for index, path in enumerate(paths):
        first_use.setdefault(path[0], index)
    layers = defaultdict(list)
    for v in sorted(nodes, key=lambda v: first_use.get(v, len(paths))):
        layers[layer_of[v]].append(v)
    for path in paths:
        for bend in path[1:-1]:
            layers[bend.layer].append(bend)
    return [layers[k] for k in sorted(layers)]


# --- order within layers ----------------------------------------------------------

def _neighbours(links):
    """Each node's neighbours in the layer above, and in the layer below."""
    above, below = defaultdict(list), defaultdict(list)
    for tail, head in links:
        below[tail].append(head)
        above[head].append(tail)
    return above, below


def _ordered(layers, above, below, sweeps):
    """The layers reordered by barycenter sweeps; the order with fewest crossings wins."""
    best = [list(layer) for layer in layers]
    fewest = _crossings(best, below)
    current = best
    for _ in range(sweeps):
        current = _sweep(current, above, range(1, len(current)), -1)
        current = _sweep(current, below, range(len(current) - 2, -1, -1), +1)
        count = _crossings(current, below)
        if count < fewest:
            best, fewest = current, count
    return best


def _sweep(layers, neighbours, indices, step):
    """Sort each layer in ``indices`` by the mean position of its neighbours in the layer
    ``step`` away; a node without such neighbours keeps its place."""
    layers = [list(layer) for layer in layers]
    for i in indices:
        position = {v: k for k, v in enumerate(layers[i + step])}
        keys = {}
        for k, v in enumerate(layers[i]):
            near = [position[u] for u in neighbours[v] if u in position]
            keys[v] = sum(near) / len(near) if near else k
        layers[i].sort(key=keys.__getitem__)
    return layers


def _crossings(layers, below):
    """How many pairs of links between neighbouring layers cross."""
    total = 0
    for upper, lower in zip(layers, layers[1:]):
        position = {v: k for k, v in enumerate(lower)}
        ends = sorted((k, position[u]) for k, v in enumerate(upper)
                      for u in below[v] if u in position)
        total += _inversions([end for _, end in ends], len(lower))
    return total


def _inversions(values, size):
    """Pairs ``i < j`` with ``values[i] > values[j]`` (values in ``range(size)``), counted
    with a Fenwick tree: two links cross when their ends are in opposite orders."""
    tree = [0] * (size + 1)
    count = 0
    for seen, value in enumerate(values):
        at_most = 0
        k = value + 1
        while k > 0:
            at_most += tree[k]
            k -= k & -k
        count += seen - at_most
        k = value + 1
        while k <= size:
            tree[k] += 1
            k += k & -k
    return count


# --- coordinates ------------------------------------------------------------------

def _placed(layers, above, below, widths, gap, rounds):
    """Horizontal centres: each layer packed, then pulled towards its neighbours' mean
    position, alternately from above and from below, keeping order and spacing."""
    xs = {}
    for layer in layers:
        xs.update(zip(layer, _fitted([0.0] * len(layer), [widths[v] for v in layer], gap)))
    passes = [(above, range(1, len(layers))), (below, range(len(layers) - 2, -1, -1))]
    for _ in range(rounds):
        for neighbours, indices in passes:
            for i in indices:
                layer = layers[i]
                wanted = [_mean([xs[u] for u in neighbours[v]], xs[v]) for v in layer]
                xs.update(zip(layer, _fitted(wanted, [widths[v] for v in layer], gap)))
    return xs


def _mean(values, default):
    return sum(values) / len(values) if values else default


def _fitted(wanted, widths, gap):
    """Centres in order, ``gap`` apart at least, closest to ``wanted`` in least squares.

    With ``offset`` the packed positions, centre ``k`` is ``offset[k] + z[k]`` for a
    non-decreasing ``z``: the best ``z`` is the isotonic regression of
    ``wanted - offset`` (pool adjacent violators).
    """
    offsets = [0.0]
    for left, right in zip(widths, widths[1:]):
        offsets.append(offsets[-1] + (left + right) / 2 + gap)
    shifts = _isotonic([w - o for w, o in zip(wanted, offsets)])
    return [o + z for o, z in zip(offsets, shifts)]


def _isotonic(values):
    """The non-decreasing sequence closest to ``values`` in least squares: runs that
    decrease are pooled into their mean until none is left."""
    blocks = []
    for value in values:
        blocks.append((value, 1))
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            (mean2, count2), (mean1, count1) = blocks.pop(), blocks.pop()
            count = count1 + count2
            blocks.append(((mean1 * count1 + mean2 * count2) / count, count))
    return [mean for mean, count in blocks for _ in range(count)]


def _layer_heights(layers, sizes, gap):
    """Each layer's centre height, first layer at the top, and the total height."""
    tall = [max((sizes[v][1] for v in layer if v in sizes), default=0.0) for layer in layers]
    height = sum(tall) + gap * max(len(layers) - 1, 0)
    ys, top = [], height
    for size in tall:
        ys.append(top - size / 2)
        top -= size + gap
    return ys, height
