"""``tapegen show``: the graph a traced function recorded, or its optimised adjoint,
written for a person (a listing, a picture) or for another tool (DOT, JSON).
"""

import sys

import ir
import tracer
from tracer.cli.errors import USAGE, CommandError, one_line
from tracer.cli.output import shown, write_output
from tracer.cli.user_function import sources, trace_function
from ir.pictures.render import RenderError, image, svg_text


def _listing(graph):
    return f"{graph.to_text()}\n\n{graph.summary()}\n"


def _dot(graph):
    return graph.to_dot()


def _json(graph):
    return graph.to_json() + "\n"


def _svg(graph):
    return svg_text(graph)


def _png(graph):
    return image(graph, format="png")


FORMATS = {"text": _listing, "dot": _dot, "json": _json, "svg": _svg, "png": _png}
"""How ``tapegen show`` writes a graph, by ``--format``: text, or an image's bytes."""

BINARY_FORMATS = ("png",)
"""Formats that are not text, which go to a file only."""


def run(args):
    """Trace ``args.function`` and write the graph in ``args.format``."""
    path, name = args.function
    if args.format in BINARY_FORMATS and args.output is None:
        raise CommandError(f"--format {args.format} makes an image, not text: give -o "
                           f"OUT.{args.format} to write it to a file", USAGE)
    trace = trace_function(args.function, args.arg, args.trace_sizes)
    graph = _shown_graph(trace, args.adjoint)
    try:
        text = FORMATS[args.format](graph)
    except (ir.GraphFormatError, RenderError) as error:
        raise CommandError(one_line(error)) from None
    if args.output is None:
        sys.stdout.write(text)
        return
    written = write_output(args.output, text, path)
    kind = "adjoint" if args.adjoint else "recorded"
    print(f"wrote {shown(written)}: the {kind} graph of {name}() ({len(graph)} nodes)")


def _shown_graph(trace, adjoint):
    """The recorded graph with the result as its output, or with ``adjoint`` the optimised
    graph of the result's gradient with respect to every input and variable."""
    wrt = sources(trace, None) if adjoint else []
    try:
        graph, targets, groups, _ = trace.tape.graph_of(trace.result, wrt)
    except ValueError as error:
        raise CommandError(one_line(error)) from None
    if not adjoint:
        graph.outputs = list(targets)
        return graph
    try:
        return ir.optimize(ir.adjoint(graph, targets, groups))
    except (ValueError, tracer.UnsupportedOperation) as error:
        raise CommandError(one_line(error)) from None
