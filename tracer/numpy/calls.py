"""numpy functions without a primitive, applied to values that need no gradient.

Those are recorded integer and boolean values, or any value when the function
itself has no derivative (``np.linalg.matrix_rank``), so these calls compute
as usual.  But what they return depends on the inputs, so where they return
arrays they are recorded (``ir.primitives.calls.numpy_call``) on each tape
that recorded one of their inputs: the graph, and the code generated from it,
call the function again instead of keeping the result seen while tracing.  A
call is recorded only when the function has a public name and no ``out=``;
otherwise its result is a constant, as in TensorFlow.  Code generation refuses
a recorded call with an argument source cannot write (a Python function).
"""

import math

import numpy as np

from ir.primitives.calls import Opaque, fill, numpy_call, numpy_function
from ir.primitives.shape import IndexArg
from tracer.numpy.arguments import unwrap, unwrap_dict
from tracer.core import (Tensor, derived_by_a_tape, flat_leaves, read, record, tracked_by_a_tape,
                         value_of, wrap)


def call(function, name, args, kwargs, *, no_gradient=False, answers=False):
    """``function(*args, **kwargs)`` on plain values: recorded, as tensors, when an
    argument is a recorded integer or boolean value (or, for a function that has
    ``no_gradient``, any recorded value) and the call can be recorded.

    For ``answers`` (functions that answer questions about values, such as
    ``np.count_nonzero``) only results that are arrays of one or more dimensions
    are recorded: a count or a truth value stays a plain number for Python code.
    """
    leaves = flat_leaves(args, kwargs)
    if "out" not in kwargs and numpy_function(name) == function and (
            derived_by_a_tape(leaves) or (no_gradient and tracked_by_a_tape(leaves))):
        args = [read(a) for a in args]
        kwargs = {key: read(value) for key, value in kwargs.items()}
        inputs = []
        arguments = _template(tuple(args), inputs)
        keywords = tuple((key, _template(value, inputs)) for key, value in kwargs.items())
        return _recorded(function, name, arguments, keywords, inputs, answers)
    return function(*unwrap(args), **unwrap_dict(kwargs))


def _template(value, inputs):
    """``value`` with each array in it replaced by ``IndexArg(k)``, ``inputs[k]`` being the
    array (or tensor), and what source cannot write wrapped as ``Opaque``."""
    if value.__class__ is Tensor or isinstance(value, (np.ndarray, np.generic)):
        inputs.append(value)
        return IndexArg(len(inputs) - 1)
    if type(value) in (tuple, list):
        return type(value)(_template(v, inputs) for v in value)
    if value is None or value is Ellipsis or type(value) in (bool, int, float):
        return value
    if type(value) is complex and math.isfinite(abs(value)):
        return value
    if type(value) is str and "{" not in value and "}" not in value:
        return value
    if type(value) is slice:
        return slice(*(_template(v, inputs) for v in (value.start, value.stop, value.step)))
    if value in (bool, int, float, complex) or isinstance(value, np.dtype) or (
            isinstance(value, type) and issubclass(value, np.generic)):
        dtype = np.dtype(value)
        if dtype.kind in "biufc" and dtype.isnative:
            return dtype
    return Opaque(value)


def _recorded(function, name, arguments, keywords, inputs, answers):
    values = [value_of(i) for i in inputs]
    result = function(*fill(arguments, values), **dict(fill(keywords, values)))
    several = isinstance(result, tuple)
    parts = result if several else (result,)
    if not all(isinstance(r, (np.ndarray, np.generic)) and r.dtype.kind in "biufc"
               and (np.ndim(r) > 0 or not answers) for r in parts):
        return result  # not arrays of numbers: a plain answer, as unrecorded
    tensors = []
    for k, part in enumerate(parts):
        tensor = wrap(np.asarray(part))
        params = {"function": name, "arguments": arguments, "keywords": keywords,
                  "result": k if several else None}
        record(numpy_call, tuple(inputs), params, tensor)
        tensors.append(tensor)
    if not several:
        return tensors[0]
    return type(result)(*tensors) if hasattr(result, "_fields") else tuple(tensors)
