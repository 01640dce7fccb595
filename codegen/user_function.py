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
from codegen.command_errors import USAGE, CommandError, one_line


class Trace(typing.NamedTuple):
    """One call of the user's function under a persistent tape that watched its inputs."""

    tensors: dict
    tape: object
    result: object


def trace_function(reference, specs):
    """Load the function ``reference`` (``(path, name)``) names and trace it on seeded
    random inputs of the ``--arg`` ``specs`` (``(name, shape, dtype)`` each)."""
    path, name = reference
    function = _load_function(path, name)
    inputs = _unique_inputs(specs)
    _check_parameters(function, name, inputs)
    tensors = _random_tensors(inputs)
    return Trace(tensors, *_call_under_tape(function, name, path, tensors))


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
