"""The user's function, traced: import their file, find the function, and call it once
on seeded random tensors while a tape records.

Every tracing command of ``tapegen`` starts here.  Tracing means running the
function on tensors, which is why the command line imports ``tracer`` and
the code generator does not.
"""

import importlib.util
import inspect
import os
import sys
import traceback
import typing

import numpy as np

import tracer
from tracer.cli.errors import USAGE, CommandError, one_line


class Trace(typing.NamedTuple):
    """One call of the user's function under a persistent tape that watched its inputs."""

    tensors: dict
    tape: object
    result: object
    sizes: dict  # each symbolic size's name -> the size traced


def trace_function(reference, specs, trace_sizes=(), sizes=None):
    """Load the function ``reference`` (``(path, name)``) names and trace it on seeded
    random inputs of the ``--arg`` ``specs`` (``(name, shape, dtype)`` each).

    A name in a shape is a symbolic size, declared so and traced at the size
    ``symbol_sizes`` chooses (``trace_sizes``, ``(name, size)`` pairs, override
    it); given ``sizes`` (name -> size), the function is traced at those sizes
    with nothing symbolic, as the eager gradients to check a module against.
    """
    path, name = reference
    function = _load_function(path, name)
    inputs = _unique_inputs(specs)
    _check_parameters(function, name, inputs)
    symbolic = sizes is None
    if symbolic:
        sizes = symbol_sizes(inputs, dict(trace_sizes))
    tensors = _random_tensors(inputs, sizes, symbolic)
    return Trace(tensors, *_call_under_tape(function, name, path, tensors),
                 sizes if symbolic else {})


FIRST_TRACE_SIZES = (7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47)
"""The sizes symbolic sizes are traced at by default, each the first of these that no
static size of the inputs and no other symbol uses: primes, so no product or
quotient of sizes meets another by chance."""


def symbol_sizes(inputs, chosen):
    """The size each symbol of the inputs' shapes is traced at: ``chosen`` (from
    ``--trace-size``), else the first free one of ``FIRST_TRACE_SIZES``."""
    names = list(dict.fromkeys(d for shape, _ in inputs.values() for d in shape
                               if isinstance(d, str)))
    unknown = [n for n in chosen if n not in names]
    if unknown:
        raise CommandError(f"--trace-size {', '.join(unknown)}: no --arg shape has a size of "
                           f"that name ({', '.join(names) or 'none are symbolic'})", USAGE)
    used = {d for shape, _ in inputs.values() for d in shape if isinstance(d, int)}
    used |= set(chosen.values())
    sizes = {}
    for name in names:
        size = chosen.get(name) or next(n for n in FIRST_TRACE_SIZES if n not in used)
        used.add(size)
        sizes[name] = size
    return sizes


def sources(trace, wrt):
    """What to differentiate with respect to: the ``--wrt`` names, or every input and
    variable."""
    if wrt is None:
        return list(trace.tensors.values()) + list(trace.tape.watched_variables())
    known = named_values(trace)
    unknown = [n for n in wrt if n not in known]
    if unknown:
        raise CommandError(f"unknown --wrt name {', '.join(unknown)}: choose from "
                           f"{', '.join(known)}", USAGE)
    return [known[n] for n in wrt]


def named_values(trace):
    """The traced inputs, then the named variables the function read, by name."""
    named = dict(trace.tensors)
    for variable in trace.tape.watched_variables():
        if variable.name:
            named.setdefault(variable.name, variable)
    return named


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
    return _function_in(module, name, path)


def _function_in(module, name, path):
    """The function ``name`` of the user's module, or why there is none."""
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
        raise CommandError(f"cannot read the parameters of {name}: {one_line(error)}",
                           USAGE) from None
    plain = [p for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    missing = [p.name for p in plain if p.default is p.empty and p.name not in inputs]
    if missing:
        raise CommandError(f"{name}() needs --arg for {', '.join(missing)}", USAGE)
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters)
    unknown = [n for n in inputs if n not in {p.name for p in plain}]
    if unknown and not takes_any:
        raise CommandError(f"{name}() has no parameter {', '.join(unknown)}", USAGE)


def _random_tensors(inputs, sizes, symbolic):
    """Seeded standard-normal tensors, named after their parameters: the same every run;
    a named size is ``sizes[name]``, and declared symbolic when ``symbolic``."""
    rng = np.random.default_rng(0)
    try:
        return {name: tracer.constant(rng.standard_normal(tuple(sizes.get(d, d) for d in shape)),
                                      dtype=dtype, name=name, dims=_dims(shape, symbolic))
                for name, (shape, dtype) in inputs.items()}
    except MemoryError:
        shapes = ", ".join(f"{n}={list(s)}" for n, (s, _) in inputs.items())
        raise CommandError(f"not enough memory for random inputs of shapes {shapes}",
                           USAGE) from None


def _dims(shape, symbolic):
    """``dims=`` of an input: its named sizes, if any and if traced symbolically."""
    dims = tuple(d if isinstance(d, str) else None for d in shape)
    return dims if symbolic and any(dims) else None


def _call_under_tape(function, name, path, tensors):
    """Call ``function`` on ``tensors`` under a persistent tape that watches them all:
    ``(tape, result)``."""
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


def _describe(error, path):
    """``Type: message at FILE:LINE``, on one line, at the deepest frame in the user's file."""
    message = one_line(error)
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if os.path.abspath(frame.filename) == os.path.abspath(path)]
    place = f"{os.path.basename(path)}:{frames[-1].lineno}" if frames else None
    where = f" at {place}" if place and place not in message else ""
    kind = type(error).__name__
    return f"{kind}: {message}{where}" if message else f"{kind}{where}"
