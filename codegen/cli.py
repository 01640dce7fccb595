"""The ``tapegen`` command: gradient modules and graphs from the command line.

    tapegen grad model.py:loss --arg x=32,8 --arg y=32,4 [--wrt x,W] [-o OUT.py] [--value]
    tapegen show model.py:loss --arg x=32,8 --arg y=32,4
                 [--format text|dot|json|svg|png] [--adjoint] [-o OUT]
    tapegen demo [-o DIR]

``grad`` imports the user's file, calls the function on random tensors of
the given shapes while a tape records, and writes the gradient module of
what was recorded; ``show`` traces the same way and writes the recorded
graph, or its optimised adjoint, for a person or another tool to read (or
as a picture, drawn by ``ir.render``); ``demo`` (``codegen.demo``) shows the whole path on a built-in model.
Tracing a function means running it on tensors, which is why this is the
one part of codegen that imports ``tracer``.

A mistake on the command line or in the traced code ends in one line on
stderr, never a traceback: exit status 2 when the command line cannot be
followed, 1 when following it fails.
"""

import argparse
import importlib.util
import inspect
import os
import re
import sys
import traceback

import numpy as np

import codegen
import ir
from ir.render import RenderError, image, svg_text
from ir.structure import flatten
import tracer
from codegen import demo

USAGE = 2
FAILURE = 1
DTYPES = ("float64", "float32")

GRAD_EPILOG = """\
example:
  tapegen grad model.py:loss --arg x=32,8 --arg y=32,4 --wrt W,b --value

The function is called once, on seeded random inputs, with tensors named
after the --arg names; variables it reads count as inputs too.  A function
returning an array is differentiated as the sum of its entries.
"""

SHOW_EPILOG = """\
examples:
  tapegen show model.py:loss --arg x=32,8 --arg y=32,4
  tapegen show model.py:loss --arg x=32,8 --arg y=32,4 --adjoint --format dot -o loss.dot
  tapegen show model.py:loss --arg x=32,8 --arg y=32,4 --format png -o loss.png

The function is called once, on seeded random inputs, as tapegen grad calls
it.  The text format is the graph's listing (one line per node, with the
line of model.py that made it) followed by its summary.  Pictures (svg, png)
are drawn by Graphviz's dot program when it is installed, else by matplotlib
(pip install 'tapegen[viz]').
"""


class CommandError(Exception):
    """A reason to stop, told to the user as one line; ``status`` is the exit status."""

    def __init__(self, message, status=FAILURE):
        super().__init__(message)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors fit on one line: the usage is one ``--help`` away."""

    def error(self, message):
        self.exit(USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def main(argv=None):
    """Run the ``tapegen`` command with ``argv`` (default: the process's); its exit status."""
    args = _parser().parse_args(argv)
    try:
        args.run(args)
    except CommandError as error:
        print(f"{args.prog}: error: {error}", file=sys.stderr)
        return error.status
    return 0


def _parser():
    parser = _Parser(prog="tapegen", description="Generate standalone numpy code for the "
                     "gradients of numpy functions recorded on a GradientTape.")
    commands = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND",
                                     required=True)
    grad = commands.add_parser(
        "grad", help="write the gradient module of a function in a Python file",
        description="Trace FUNCTION from FILE.py on random inputs of the given shapes\n"
                    "and write a module computing its gradient with numpy alone.",
        epilog=GRAD_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_trace_arguments(grad, "differentiate")
    grad.add_argument("--wrt", type=_names, metavar="NAME,...",
                      help="the inputs or variables to differentiate with respect to, in the "
                           "order the gradients are returned (default: all of them)")
    grad.add_argument("-o", "--output", metavar="OUT.py",
                      help="where to write the module (default: FUNCTION_grad.py in the "
                           "current directory)")
    grad.add_argument("--value", action="store_true",
                      help="make the generated function return (value, gradients)")
    grad.set_defaults(run=_grad, prog=grad.prog)
    _add_show(commands)
    demo = commands.add_parser(
        "demo", help="record a built-in model, print its graph, write and check its gradient "
                     "module",
        description="Record a small model (a tanh layer and a mean squared error) on a "
                    "GradientTape, print its graph, write its generated gradient module "
                    "loss_grad.py, and check that module against eager gradients and "
                    "central finite differences.")
    demo.add_argument("-o", "--output", metavar="DIR", default=".",
                      help="the directory to write loss_grad.py into (default: the current "
                           "directory)")
    demo.set_defaults(run=_demo, prog=demo.prog)
    return parser


def _add_show(commands):
    """``tapegen show`` takes the trace arguments ``grad`` takes, then how and where to
    write the graph."""
    show = commands.add_parser(
        "show", help="print the graph a function in a Python file records, or its adjoint",
        description="Trace FUNCTION from FILE.py on random inputs of the given shapes\n"
                    "and write the graph the tape recorded (or, with --adjoint, the\n"
                    "optimised graph of its gradient) as text, Graphviz DOT, JSON or a\n"
                    "picture.",
        epilog=SHOW_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_trace_arguments(show, "trace")
    show.add_argument("--format", choices=FORMATS, default="text",
                      help="text (the listing and a summary, the default), dot (Graphviz), "
                           "json (what ir.Graph.from_json reads), or a picture: svg, or png "
                           "(with -o)")
    show.add_argument("--adjoint", action="store_true",
                      help="show the optimised adjoint graph: the gradient of the result "
                           "with respect to every input and variable")
    show.add_argument("-o", "--output", metavar="OUT",
                      help="where to write the graph (default: standard output)")
    show.set_defaults(run=_show, prog=show.prog)


def _add_trace_arguments(parser, verb):
    """The function to trace and its inputs' shapes: what every tracing command takes."""
    parser.add_argument("function", type=_function_reference, metavar="FILE.py:FUNCTION",
                        help=f"the Python file and the function in it to {verb}")
    parser.add_argument("--arg", action="append", default=[], type=_input_spec,
                        metavar="NAME=SHAPE[:DTYPE]",
                        help="one per parameter: its shape (3,4 or 3x4; nothing or () for a "
                             "scalar) and dtype (float64, the default, or float32)")


# --- reading the command line ----------------------------------------------------

def _function_reference(text):
    path, _, name = text.rpartition(":")
    if not path or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"expected FILE.py:FUNCTION, got {text!r}")
    return path, name


def _input_spec(text):
    name, equals, rest = text.partition("=")
    if not equals or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"expected NAME=SHAPE[:DTYPE], got {text!r}")
    shape_text, _, dtype = rest.partition(":")
    dtype = dtype or DTYPES[0]
    if dtype not in DTYPES:
        raise argparse.ArgumentTypeError(
            f"unknown dtype {dtype!r} in {text!r}: use {' or '.join(DTYPES)}")
    return name, _shape(shape_text, text), dtype


def _shape(text, spec):
    """``3,4``, ``3x4`` or ``(3, 4)`` as a tuple; nothing, or ``()``, is a scalar's shape."""
    inner = text.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    parts = [part.strip() for part in re.split(r"[,x]", inner)]
    if parts[-1] == "":
        parts.pop()
    if not all(part.isdigit() for part in parts):
        raise argparse.ArgumentTypeError(
            f"bad shape {text!r} in {spec!r}: write dimensions like 3,4 or 3x4 "
            "(nothing, or (), for a scalar)")
    return tuple(int(part) for part in parts)


def _names(text):
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected names separated by commas, got {text!r}")
    return names


# --- tapegen grad -------------------------------------------------------------------

def _grad(args):
    path, name = args.function
    tensors, tape, result = _traced(args)
    sources = _sources(tape, tensors, args.wrt)
    wrt = sources[0] if len(sources) == 1 else tuple(sources)
    try:
        source = codegen.gradient_source(tape, result, wrt, name=f"{name}_grad",
                                         with_value=args.value)
    except (ValueError, tracer.UnsupportedOperation) as error:  # CodegenError is a ValueError
        raise CommandError(_one_line(error)) from None
    module = codegen.load(_write(args.output, name, source, path))
    _report(name, tensors, result, sources, module, args.value)
    _compare_with_eager(module, name, tape, result, wrt, _named(tape, tensors), args.value)


def _report(name, tensors, result, sources, module, with_value):
    """Say what was traced and written, and what the generated function returns."""
    print(f"traced {name}({', '.join(_typed(n, t) for n, t in tensors.items())})"
          f" -> {_type_text(result)}")
    if result.shape:
        print(f"note: {name}() returns an array; the module differentiates the sum of its "
              "entries")
    gradients = ", ".join(f"d_{_label(s)}" for s in sources)
    gradients = gradients if len(sources) == 1 else f"({gradients})"
    returns = f"(value, {gradients})" if with_value else gradients
    generated = getattr(module, f"{name}_grad")
    print(f"wrote {_shown(module.__file__)}: {generated.__name__}"
          f"{inspect.signature(generated)} -> {returns}")


def _traced(args):
    """Load the function ``args`` name and trace it on seeded random inputs of the
    ``--arg`` shapes: ``(tensors by name, tape, result)``."""
    path, name = args.function
    function = _load_function(path, name)
    inputs = _unique_inputs(args.arg)
    _check_parameters(function, name, inputs)
    tensors = _random_tensors(inputs)
    return (tensors, *_trace(function, name, path, tensors))


def _load_function(path, name):
    """Import the user's file as a module (its ``__main__`` block does not run) and find
    the function; the file's directory goes on ``sys.path`` as ``python FILE`` would put it."""
    if not os.path.isfile(path):
        raise CommandError(f"no such file: {path}", USAGE)
    location = os.path.abspath(path)
    spec = importlib.util.spec_from_file_location(
        os.path.splitext(os.path.basename(path))[0], location)
    if spec is None:
        raise CommandError(f"{path} is not a Python file", USAGE)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(location))
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as error:
        raise CommandError(f"importing {path} failed: {_describe(error, path)}") from None
    function = getattr(module, name, None)
    if not callable(function):
        defined = sorted(n for n, v in vars(module).items()
                         if inspect.isfunction(v) and v.__module__ == module.__name__)
        raise CommandError(f"{path} defines no function {name!r} (it defines: "
                           f"{', '.join(defined) or 'none'})", USAGE)
    return function


def _unique_inputs(specs):
    inputs = {}
    for name, shape, dtype in specs:
        if name in inputs:
            raise CommandError(f"--arg {name} is given twice", USAGE)
        inputs[name] = (shape, dtype)
    return inputs


def _check_parameters(function, name, inputs):
    """Every parameter without a default needs an --arg, and every --arg a parameter."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError) as error:
        raise CommandError(f"cannot read the parameters of {name}: {_one_line(error)}",
                           USAGE) from None
    plain = [p for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    missing = [p.name for p in plain if p.default is p.empty and p.name not in inputs]
    if missing:
        raise CommandError(f"{name}() needs --arg for {', '.join(missing)}", USAGE)
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters)
    unknown = [n for n in inputs if n not in {p.name for p in plain}]
    if unknown and not takes_any:
        raise CommandError(f"{name}() has no parameter {', '.join(unknown)}", USAGE)


def _random_tensors(inputs):
    """Seeded standard-normal tensors, named after their parameters: the same every run."""
    rng = np.random.default_rng(0)
    try:
        return {name: tracer.constant(rng.standard_normal(shape), dtype=dtype, name=name)
                for name, (shape, dtype) in inputs.items()}
    except MemoryError:
        shapes = ", ".join(f"{n}={list(s)}" for n, (s, _) in inputs.items())
        raise CommandError(f"not enough memory for random inputs of shapes {shapes}",
                           USAGE) from None


def _trace(function, name, path, tensors):
    """Call ``function`` on ``tensors`` under a persistent tape that watches them all."""
    positional_only = [p for p in inspect.signature(function).parameters.values()
                       if p.kind is p.POSITIONAL_ONLY]
    args = [tensors.get(p.name, p.default) for p in positional_only]
    kwargs = {n: t for n, t in tensors.items() if n not in {p.name for p in positional_only}}
    with tracer.GradientTape(persistent=True) as tape:
        for tensor in tensors.values():
            tape.watch(tensor)
        try:
            result = function(*args, **kwargs)
        except (Exception, SystemExit) as error:
            raise CommandError(f"{name}() raised {_describe(error, path)}") from None
    if not isinstance(result, tracer.Tensor):
        raise CommandError(f"{name}() returned a {type(result).__name__}, not a tensor: "
                           "tapegen traces a function that computes one array from its "
                           "arguments with numpy")
    return tape, result


def _sources(tape, tensors, wrt):
    """What to differentiate with respect to: the --wrt names, or every input and variable."""
    if wrt is None:
        return list(tensors.values()) + list(tape.watched_variables())
    known = _named(tape, tensors)
    unknown = [n for n in wrt if n not in known]
    if unknown:
        raise CommandError(f"unknown --wrt name {', '.join(unknown)}: choose from "
                           f"{', '.join(known)}", USAGE)
    return [known[n] for n in wrt]


def _named(tape, tensors):
    """The traced inputs, then the named variables the function read, by name."""
    named = dict(tensors)
    for variable in tape.watched_variables():
        if variable.name:
            named.setdefault(variable.name, variable)
    return named


def _write(output, name, source, traced_file):
    path = output or f"{name}_grad.py"
    if os.path.isdir(path):
        path = os.path.join(path, f"{name}_grad.py")
    return _write_file(path, source, traced_file)


def _write_file(path, text, traced_file):
    """Write ``text`` (or an image's bytes) to ``path``; never over the user's traced
    file, which a mistyped ``-o`` would otherwise destroy."""
    if os.path.exists(path) and os.path.samefile(path, traced_file):
        raise CommandError(f"-o {path} is the traced file itself; write the output "
                           "somewhere else", USAGE)
    try:
        return _save(path, text)
    except OSError as error:
        raise CommandError(f"cannot write {path}: {error.strerror}") from None


def _save(path, content):
    """Text through ``codegen.write``; an image's bytes as they are."""
    if isinstance(content, str):
        return codegen.write(path, content)
    with open(path, "wb") as handle:
        handle.write(content)
    return path


def _compare_with_eager(module, name, tape, result, wrt, known, with_value):
    """Run the written module on the traced inputs and compare it with ``tape.gradient``.

    A module that takes arrays the function captured (rather than received)
    cannot be called from here; it is then left unchecked, and the user told.
    """
    expected = flatten(tape.gradient(result, wrt))
    for source, gradient in zip(flatten(wrt), expected):
        if gradient is None:
            print(f"note: {_label(source)} does not reach the result of {name}(): its "
                  "gradient is None")
    needs = [n for n, _, _ in module.INPUTS]
    captured = [n for n in needs if n not in known]
    if captured:
        print(f"not checked against eager gradients: the module also takes "
              f"{', '.join(captured)}, which {name}() did not receive")
        return
    output = getattr(module, f"{name}_grad")(*(known[n].numpy() for n in needs))
    pairs = [(p, e.numpy()) for p, e in zip(flatten(output[1] if with_value else output),
                                            expected) if e is not None]
    difference = max((_difference(p, e) for p, e in pairs), default=0.0)
    scale = max((float(np.max(np.abs(e), initial=0.0)) for _, e in pairs), default=0.0)
    print(f"checked against eager gradients at the traced inputs: max difference "
          f"{difference:.1e}")
    if not difference <= 1000 * np.finfo(result.dtype).eps * max(1.0, scale):
        raise CommandError(f"the generated module disagrees with the eager gradients by "
                           f"{difference:.1e}; please report this")


def _difference(produced, expected):
    """The largest entrywise difference; NaN and infinity agree with themselves only."""
    same = (produced == expected) | (np.isnan(produced) & np.isnan(expected))
    return float(np.max(np.where(same, 0.0, np.abs(produced - expected)), initial=0.0))


# --- tapegen show -------------------------------------------------------------------

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


def _show(args):
    path, name = args.function
    if args.format in BINARY_FORMATS and args.output is None:
        raise CommandError(f"--format {args.format} makes an image, not text: give -o "
                           f"OUT.{args.format} to write it to a file", USAGE)
    tensors, tape, result = _traced(args)
    graph = _shown_graph(tape, tensors, result, args.adjoint)
    try:
        text = FORMATS[args.format](graph)
    except (ir.GraphFormatError, RenderError) as error:
        raise CommandError(_one_line(error)) from None
    if args.output is None:
        sys.stdout.write(text)
        return
    written = _write_file(args.output, text, path)
    kind = "adjoint" if args.adjoint else "recorded"
    print(f"wrote {_shown(written)}: the {kind} graph of {name}() ({len(graph)} nodes)")


def _shown_graph(tape, tensors, result, adjoint):
    """The recorded graph with the result as its output, or with ``adjoint`` the optimised
    graph of the result's gradient with respect to every input and variable."""
    sources = _sources(tape, tensors, None) if adjoint else []
    try:
        graph, targets, groups, _ = tape.graph_of(result, sources)
    except ValueError as error:
        raise CommandError(_one_line(error)) from None
    if not adjoint:
        graph.outputs = list(targets)
        return graph
    try:
        return ir.optimize(ir.adjoint(graph, targets, groups))
    except (ValueError, tracer.UnsupportedOperation) as error:
        raise CommandError(_one_line(error)) from None


# --- tapegen demo -------------------------------------------------------------------

def _demo(args):
    try:
        path = demo.run(args.output)
    except OSError as error:
        raise CommandError(f"cannot write into {args.output}: {error.strerror}") from None
    except demo.CheckFailed as error:
        raise CommandError(str(error)) from None
    print(f"\nThe gradient module is {_shown(path)}: it needs only numpy; "
          f"codegen.load({_shown(path)!r}) imports it.")


# --- telling the user ----------------------------------------------------------------

def _describe(error, path):
    """``Type: message at FILE:LINE``, on one line, at the deepest frame in the user's file."""
    message = _one_line(error)
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if os.path.abspath(frame.filename) == os.path.abspath(path)]
    place = f"{os.path.basename(path)}:{frames[-1].lineno}" if frames else None
    where = f" at {place}" if place and place not in message else ""
    kind = type(error).__name__
    return f"{kind}: {message}{where}" if message else f"{kind}{where}"


def _one_line(error):
    return " ".join(str(error).split())


def _label(tensor):
    return tensor.name or "unnamed"


def _typed(name, tensor):
    return f"{name}: {_type_text(tensor)}"


def _type_text(tensor):
    return f"{tensor.dtype.name}[{', '.join(str(d) for d in tensor.shape)}]"


def _shown(path):
    """``path`` relative to the current directory when it is below it, else absolute."""
    relative = os.path.relpath(path)
    return os.path.abspath(path) if relative.startswith(os.pardir) else relative
