"""The ``tapegen`` command line: its arguments, and which command runs on them.

    tapegen grad model.py:loss --arg x=32,8 --arg y=32,4 [--wrt x,W] [-o OUT.py] [--value]
    tapegen grad model.py:loss --arg x=batch,8 --arg y=batch,4 [--trace-size batch=32]
    tapegen show model.py:loss --arg x=32,8 --arg y=32,4
                 [--format text|dot|json|svg|png] [--adjoint] [-o OUT]
    tapegen demo [-o DIR]

``grad`` (``tracer.cli.grad_command``) imports the user's file, calls the
function on random tensors of the given shapes while a tape records
(``tracer.cli.user_function``), and writes the gradient module of what was
recorded; ``show`` (``tracer.cli.show_command``) traces the same way and writes
the recorded graph, or its optimised adjoint, for a person or another tool
to read (or as a picture, drawn by ``ir.pictures.render``); ``demo``
(``tracer.cli.demo``) shows the whole path on a built-in model.  This module
only reads the command line and dispatches.

A mistake on the command line or in the traced code ends in one line on
stderr, never a traceback: exit status 2 when the command line cannot be
followed, 1 when following it fails.
"""

import argparse
import keyword
import re
import sys

from tracer.cli import demo_command, grad_command, show_command
from tracer.cli.errors import USAGE, CommandError

DTYPES = ("float64", "float32")

GRAD_EPILOG = """\
example:
  tapegen grad model.py:loss --arg x=32,8 --arg y=32,4 --wrt W,b --value

The function is called once, on seeded random inputs, with tensors named
after the --arg names; variables it reads count as inputs too.  A function
returning an array is differentiated as the sum of its entries.

A name in a shape (--arg x=batch,8) declares a symbolic size: the module then
holds for every size of it.  It is traced at a distinct prime from 7 up that
no static size uses (--trace-size batch=32 chooses), and the written module is
checked against eager gradients at two other sizes, 1 and one larger.
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
    _add_grad(commands)
    _add_show(commands)
    _add_demo(commands)
    return parser


def _add_grad(commands):
    """``tapegen grad`` takes the trace arguments, then what to differentiate with respect
    to and where to write the module."""
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
    grad.add_argument("--target", choices=("numpy", "array-api"), default="numpy",
                      help="what the module is written for: numpy (the default), or the "
                           "array API standard, for any library that implements it (needs "
                           "tapegen[array-api] where it runs)")
    grad.set_defaults(run=grad_command.run, prog=grad.prog)


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
    show.add_argument("--format", choices=show_command.FORMATS, default="text",
                      help="text (the listing and a summary, the default), dot (Graphviz), "
                           "json (what ir.Graph.from_json reads), or a picture: svg, or png "
                           "(with -o)")
    show.add_argument("--adjoint", action="store_true",
                      help="show the optimised adjoint graph: the gradient of the result "
                           "with respect to every input and variable")
    show.add_argument("-o", "--output", metavar="OUT",
                      help="where to write the graph (default: standard output)")
    show.set_defaults(run=show_command.run, prog=show.prog)


def _add_demo(commands):
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
    demo.set_defaults(run=demo_command.run, prog=demo.prog)


def _add_trace_arguments(parser, verb):
    """The function to trace and its inputs' shapes: what every tracing command takes."""
    parser.add_argument("function", type=_function_reference, metavar="FILE.py:FUNCTION",
                        help=f"the Python file and the function in it to {verb}")
    parser.add_argument("--arg", action="append", default=[], type=_input_spec,
                        metavar="NAME=SHAPE[:DTYPE]",
                        help="one per parameter: its shape (3,4 or 3x4; nothing or () for a "
                             "scalar; a name such as batch,8 for a symbolic size) and dtype "
                             "(float64, the default, or float32)")
    parser.add_argument("--trace-size", action="append", default=[], type=_size_spec,
                        metavar="NAME=N", dest="trace_sizes",
                        help="the size a symbolic size is traced at (default: a distinct "
                             "prime from 7 up that no static size uses)")


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
    """``3,4``, ``3x4`` or ``(3, 4)`` as a tuple; nothing, or ``()``, is a scalar's shape.
    A name (``batch,8``) is a symbolic size, kept as the name."""
    inner = text.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    parts = [part.strip() for part in inner.split(",")]
    if len(parts) == 1 and re.fullmatch(r"\d+(x\d+)+", parts[0]):
        parts = parts[0].split("x")
    if parts[-1] == "":
        parts.pop()
    if not all(part.isdigit() or (part.isidentifier() and not keyword.iskeyword(part))
               for part in parts):
        raise argparse.ArgumentTypeError(
            f"bad shape {text!r} in {spec!r}: write dimensions like 3,4 or 3x4, a name for "
            "a symbolic size (batch,8), and nothing, or (), for a scalar")
    return tuple(int(part) if part.isdigit() else part for part in parts)


def _size_spec(text):
    name, equals, size = text.partition("=")
    if not equals or not name.isidentifier() or not size.strip().isdigit() or int(size) < 2:
        raise argparse.ArgumentTypeError(
            f"expected NAME=N with N at least 2 (a size to trace at), got {text!r}")
    return name, int(size)


def _names(text):
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected names separated by commas, got {text!r}")
    return names
