"""Pictures of graphs as SVG or PNG: drawn by Graphviz's ``dot`` when it is installed,
else by matplotlib.

Both engines draw what ``ir.pictures.views.picture`` says a picture shows (the DOT
view's labels, roles, outputs, argument positions, clusters, collapsed chains
and the bodies of loops and branches), so a picture means the same whichever
engine made it; the matplotlib engine numbers a body's nodes as a cluster.  ``dot`` lays
graphs out best; the matplotlib engine needs nothing outside Python (``pip
install 'tapegen[viz]'``), lays the graph out with ``ir.pictures.layout`` and draws
it on a ``matplotlib.figure.Figure`` of its own, leaving pyplot alone.
Neither is needed to import ``ir``: each is looked for only when a picture
is asked for.

In the matplotlib SVG every drawn thing is a group with an id, for tools
and tests to find: ``node:NAME`` (a box), ``label:NAME`` (its text),
``edge:TAIL->HEAD`` (an arrow; ``#2``, ``#3``... appended for repeats, as in
``x * x``), ``arg:TAIL->HEAD`` (an argument position), ``tag:NAME`` (a
node's cluster number) and ``cluster:N`` (the key line of cluster ``N``).
"""

import importlib.util
import io
import os
import shutil
import subprocess
import textwrap
from collections import Counter

from ir.pictures.layout import layered_layout
from ir.pictures.views import FILL_COLOURS, OUTPUT_COLOUR, flattened, picture

FORMATS = ("svg", "png")
ENGINES = ("dot", "matplotlib")

DOT_TIMEOUT = 60
"""Seconds Graphviz may take before a picture is given up."""

INSTALL_HINT = ("install Graphviz, which provides the dot program (apt-get install graphviz, "
                "brew install graphviz, ...), or matplotlib: pip install 'tapegen[viz]'")


class RenderError(RuntimeError):
    """No picture could be made; the message says why and what to do about it."""


def render(graph, path, *, format=None, engine=None, **options):
    """Write a picture of ``graph`` to ``path``, an SVG or PNG file.

    ``format`` (``"svg"`` or ``"png"``) defaults to the suffix of ``path``.
    ``engine`` is ``"dot"`` (Graphviz) or ``"matplotlib"``; by default ``dot`` when
    the program is on ``PATH``, else matplotlib.  ``options`` are those of
    ``Graph.to_dot`` (``cluster_by_line``, ``shapes``, ``collapse_chains``).
    """
    data = image(graph, format=_format(path, format), engine=engine, **options)
    with open(path, "wb") as file:
        file.write(data)


def svg_text(graph, *, engine=None, **options):
    """The picture of ``graph`` as SVG text (what a notebook shows); see ``render``."""
    return image(graph, format="svg", engine=engine, **options).decode("utf-8")


NOTEBOOK_DOT_NODES = 300
"""Above this many nodes a notebook's picture is drawn with matplotlib when it is
installed: Graphviz can take minutes on a large graph with no chains to collapse,
and a notebook would wait for it."""


def notebook_svg(graph):
    """The SVG a notebook shows (``Graph._repr_svg_``): as ``svg_text``, but a large
    graph is drawn with matplotlib when it can be, rather than risk a long wait."""
    engine = None
    if len(graph) > NOTEBOOK_DOT_NODES and importlib.util.find_spec("matplotlib") is not None:
        engine = "matplotlib"
    return svg_text(graph, engine=engine)


def notebook_picture(graph):
    """``notebook_svg``, or ``None`` (the text form instead) when neither Graphviz nor
    matplotlib is installed."""
    try:
        return notebook_svg(graph)
    except RenderError:
        return None


def image(graph, *, format="svg", engine=None, **options):
    """The picture of ``graph`` as the bytes of an SVG or PNG file; see ``render``."""
    if format not in FORMATS:
        raise ValueError(f"cannot draw a graph as {format!r}: choose one of "
                         f"{', '.join(FORMATS)}")
    engine = default_engine() if engine is None else engine
    if engine == "dot":
        return _dot_image(graph, format, options)
    if engine == "matplotlib":
        return _matplotlib_image(graph, format, options)
    raise ValueError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}, or "
                     "leave it out to use dot when it is installed")


def default_engine():
    """``"dot"`` when Graphviz is on ``PATH``, else ``"matplotlib"`` when it is installed."""
    if shutil.which("dot"):
        return "dot"
    if importlib.util.find_spec("matplotlib") is not None:
        return "matplotlib"
    raise RenderError(f"cannot draw graphs here: {INSTALL_HINT}")


def _format(path, format):
    """The image format: ``format`` when given, else the suffix of ``path``."""
    if format is not None:
        return format
    suffix = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    if suffix not in FORMATS:
        raise ValueError(f"cannot tell the image format from {os.fspath(path)!r}: use a path "
                         "ending in .svg or .png, or pass format='svg' or format='png'")
    return suffix


# --- Graphviz -----------------------------------------------------------------------

def _dot_image(graph, format, options):
    """Run Graphviz's ``dot`` on the graph's DOT text; its output."""
    program = shutil.which("dot")
    if program is None:
        raise RenderError("engine='dot' needs the Graphviz dot program on PATH: install "
                          "Graphviz (apt-get install graphviz, brew install graphviz, ...) "
                          "or use engine='matplotlib'")
    source = graph.to_dot(**options).encode("utf-8")
    try:
        result = subprocess.run([program, f"-T{format}"], input=source, capture_output=True,
                                timeout=DOT_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise RenderError(f"Graphviz dot took more than {DOT_TIMEOUT} s on a graph of "
                          f"{len(graph)} nodes: pass collapse_chains=True, draw a smaller "
                          "graph, or use engine='matplotlib'") from None
    except OSError as error:
        raise RenderError(f"cannot run Graphviz dot ({program}): {error.strerror}") from None
    if result.returncode != 0:
        message = " ".join(result.stderr.decode("utf-8", "replace").split()) or "no message"
        raise RenderError(f"Graphviz dot failed with exit status {result.returncode}: "
                          f"{message}")
    return result.stdout


# --- matplotlib ---------------------------------------------------------------------

FONT_SIZE = 8.0
"""Label size in points; argument positions and cluster tags are a little smaller."""

CHAR_WIDTH = 0.62
"""Width of an average label character, in ems, to size boxes without a renderer."""

LINE_HEIGHT = 1.3
"""Height of a label line, in ems."""

PAD = 0.08
"""Inches between a label and its box's border."""

WRAP = 44
"""Characters per label line before a long label (a chain's ops) wraps at its arrows."""

MARGIN = 0.25
"""Inches of white round the drawing."""

MAX_FIGURE_INCHES = 80.0
"""Largest figure side: a bigger layout is drawn smaller, text and all."""

PARALLEL_SPACING = 0.14
"""Inches between edges joining the same two nodes."""

PNG_DPI = 100
"""Pixels per inch of PNG images: 8-point labels stay readable at 100% zoom."""

_RC = {"svg.fonttype": "none", "svg.hashsalt": "tapegen", "font.family": "DejaVu Sans"}
"""Settings for one drawing: SVG text stays text, ids are stable, widths match ``CHAR_WIDTH``."""

_BOXES = {"source": "round,pad=0,rounding_size={r}", "constant": "square,pad=0",
          "op": "round,pad=0,rounding_size={pill}", "adjoint": "round,pad=0,rounding_size={pill}",
          "return": "square,pad=0"}
"""Box style by role, as Graphviz draws them: rounded boxes for sources, square ones for
constants and a body's return, pills (ellipses that fit long labels) for ops."""


def _matplotlib_image(graph, format, options):
    """Lay the picture out with ``ir.pictures.layout`` and draw it on a figure of its own."""
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise RenderError("engine='matplotlib' needs matplotlib: pip install 'tapegen[viz]' "
                          "(or install Graphviz and use engine='dot')") from None
    drawn = flattened(picture(graph, **options))
    labels = {node.name: _wrapped(node.label) for node in drawn.nodes}
    sizes = {name: _text_size(text, FONT_SIZE, PAD) for name, text in labels.items()}
    layout = layered_layout([n.name for n in drawn.nodes],
                            [(e.tail, e.head) for e in drawn.edges], sizes)
    key = _cluster_key(drawn.clusters)
    left, right, bottom, top = _extent(layout, key)
    width, height = right - left, top - bottom
    scale = min(1.0, MAX_FIGURE_INCHES / width, MAX_FIGURE_INCHES / height)
    with matplotlib.rc_context(_RC):
        figure = Figure(figsize=(width * scale, height * scale))
        axes = figure.add_axes((0, 0, 1, 1))
        axes.set_axis_off()
        axes.set_xlim(left, right)
        axes.set_ylim(bottom, top)
        _draw_nodes(axes, drawn, labels, sizes, layout, scale)
        _draw_edges(axes, drawn, sizes, layout, scale)
        _draw_clusters(axes, drawn, sizes, layout, key, scale)
        return _saved(figure, format)


def _saved(figure, format):
    """The figure's file bytes, without a date or version that would differ between runs."""
    buffer = io.BytesIO()
    metadata = {"Date": None} if format == "svg" else {"Software": None}
    figure.savefig(buffer, format=format, dpi=PNG_DPI, metadata=metadata)
    return buffer.getvalue()


def _extent(layout, key):
    """The drawing's box in inches: the layout, the key under it, and a margin round both."""
    key_width, key_height = _text_size(key, FONT_SIZE, PAD) if key else (0.0, 0.0)
    right = max(layout.width, key_width) + MARGIN
    return -MARGIN, right, -key_height - MARGIN, layout.height + MARGIN


def _wrapped(label):
    """``label`` with lines longer than ``WRAP`` broken at spaces (a collapsed chain's
    label is one long line), so that boxes stay narrow."""
    lines = []
    for line in label.split("\n"):
        lines.extend(textwrap.wrap(line, WRAP, break_long_words=False,
                                   break_on_hyphens=False) or [""])
    return "\n".join(lines)


def _text_size(text, points, pad):
    """Inches taken by ``text`` at ``points``, plus ``pad`` on every side."""
    lines = text.split("\n")
    em = points / 72
    return (max(len(line) for line in lines) * CHAR_WIDTH * em + 2 * pad,
            len(lines) * LINE_HEIGHT * em + 2 * pad)


def _draw_nodes(axes, drawn, labels, sizes, layout, scale):
    """A box per node, styled by role as the DOT view styles it, with its label."""
    from matplotlib.patches import FancyBboxPatch

    for node in drawn.nodes:
        (x, y), (w, h) = layout.positions[node.name], sizes[node.name]
        style = _BOXES[node.role].format(r=PAD, pill=h / 2)
        box = FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle=style,
                             facecolor=FILL_COLOURS[node.role],
                             edgecolor=OUTPUT_COLOUR if node.output else "#333333",
                             linewidth=(2.5 if node.output else 0.9) * scale,
                             linestyle="--" if node.role == "adjoint" else "-",
                             gid=f"node:{node.name}", zorder=2)
        axes.add_artist(box)
        axes.text(x, y, labels[node.name], ha="center", va="center", multialignment="center",
                  fontsize=FONT_SIZE * scale, gid=f"label:{node.name}", zorder=3,
                  parse_math=False)


def _draw_edges(axes, drawn, sizes, layout, scale):
    """Arrows along the layout's routes, cut at the boxes' borders; argument positions
    written near the head, where the reader looks for them."""
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path

    ids = _edge_ids(drawn.edges)
    shifts = _parallel_shifts(drawn.edges)
    for edge, route, gid, shift in zip(drawn.edges, layout.routes, ids, shifts):
        route = [(x + shift, y) for x, y in route]
        points = list(route)
        points[0] = _border(route[0], route[1], sizes[edge.tail])
        points[-1] = _border(route[-1], route[-2], sizes[edge.head])
        axes.add_artist(FancyArrowPatch(path=Path(points), arrowstyle="-|>",
                                       mutation_scale=9 * scale, shrinkA=0, shrinkB=0,
                                       linewidth=0.8 * scale, color="#444444",
                                       gid=f"edge:{gid}", zorder=1))
        if edge.label is not None:
            (x0, y0), (x1, y1) = points[-2], points[-1]
            axes.text(x0 + 0.7 * (x1 - x0), y0 + 0.7 * (y1 - y0), edge.label, ha="center",
                      va="center", fontsize=(FONT_SIZE - 1) * scale, color="#444444",
                      bbox={"boxstyle": "round,pad=0.1", "facecolor": "white",
                            "edgecolor": "none"},
                      gid=f"arg:{gid}", zorder=4, parse_math=False)


def _edge_ids(edges):
    """``TAIL->HEAD`` for each edge, ``#2``, ``#3``... appended to repeats, so ids are unique."""
    seen = Counter()
    ids = []
    for edge in edges:
        base = f"{edge.tail}->{edge.head}"
        seen[base] += 1
        ids.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return ids


def _parallel_shifts(edges):
    """Horizontal shift of each edge, so that the edges joining the same two nodes
    (``x * x``) are drawn side by side rather than on top of each other."""
    counts = Counter((e.tail, e.head) for e in edges)
    seen = Counter()
    shifts = []
    for edge in edges:
        pair = (edge.tail, edge.head)
        shifts.append((seen[pair] - (counts[pair] - 1) / 2) * PARALLEL_SPACING)
        seen[pair] += 1
    return shifts


def _border(centre, toward, size):
    """Where the segment from a box's ``centre`` toward a point leaves the box."""
    (x, y), (tx, ty), (w, h) = centre, toward, size
    dx, dy = tx - x, ty - y
    if dx == dy == 0:
        return centre
    t = min(w / 2 / abs(dx) if dx else float("inf"), h / 2 / abs(dy) if dy else float("inf"))
    return (x + t * dx, y + t * dy)


def _cluster_key(clusters):
    """One line per cluster, ``N  file.py:LINE  statement``, for the key under the drawing."""
    return "\n".join(f"{number}  {cluster.label}"
                     for number, cluster in enumerate(clusters, start=1))


def _draw_clusters(axes, drawn, sizes, layout, key, scale):
    """Clusters as numbers: each member's box carries its statement's number at its top
    left corner, and the key under the drawing says which statement a number is.

    Boxes round a layered layout's clusters would overlap, as the layout does not keep
    a statement's nodes together; numbers say the same and never collide.
    """
    for number, cluster in enumerate(drawn.clusters, start=1):
        for name in cluster.members:
            (x, y), (w, h) = layout.positions[name], sizes[name]
            axes.text(x - w / 2, y + h / 2, str(number), ha="center", va="center",
                      fontsize=(FONT_SIZE - 1) * scale, color="#555555",
                      bbox={"boxstyle": "circle,pad=0.15", "facecolor": "white",
                            "edgecolor": "#888888", "linewidth": 0.6 * scale},
                      gid=f"tag:{name}", zorder=4, parse_math=False)
    for number, line in enumerate(key.split("\n") if key else (), start=1):
        y = -PAD - (number - 0.5) * LINE_HEIGHT * FONT_SIZE / 72
        axes.text(0.0, y, line, ha="left", va="center", fontsize=FONT_SIZE * scale,
                  color="#333333", gid=f"cluster:{number}", parse_math=False)
