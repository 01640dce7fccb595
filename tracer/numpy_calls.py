"""numpy functions without a primitive, applied to values that need no gradient.

Those are recorded integer and boolean values, or any value when the function
itself has no derivative (``np.linalg.matrix_rank``), so these calls compute
as usual.  But what they return depends on the inputs, so where they return
arrays they are recorded (``ir.primitives.calls.numpy_call``) on each tape
that recorded one of their inputs: the graph, and the code generated from it,
call the function again instead of keeping the result seen while tracing.  A call is recorded
only when the function has a public name and every argument that is not an
array can be written in source; otherwise its result is a constant, as
before.
"""

import math

import numpy as np

from ir.primitives.calls import fill, numpy_call, numpy_function
from ir.primitives.shape import IndexArg
from tracer.arguments import flat_leaves, unwrap, unwrap_dict
from tracer.core import Tensor, active_recordings, record, value_of, wrap


class _Unspellable(Exception):
    """An argument that generated source could not write."""


def call(function, name, args, kwargs, *, no_gradient=False):
    """``function(*args, **kwargs)`` on plain values: recorded, as tensors, when an
    argument is a recorded integer or boolean value (or, for a function that has
    ``no_gradient``, any recorded value) and the call can be recorded."""
    leaves = flat_leaves(args, kwargs)
    if _recorded_on_a_tape(leaves, no_gradient) and numpy_function(name) is function:
        inputs = []
        try:
            arguments = _template(tuple(args), inputs)
            keywords = tuple((key, _template(value, inputs)) for key, value in kwargs.items())
        except _Unspellable:
            pass
        else:
            return _recorded(function, name, arguments, keywords, inputs)
    return function(*unwrap(args), **unwrap_dict(kwargs))


def _recorded_on_a_tape(leaves, tracked_too):
    """Whether a tape recorded a leaf that carries no gradient (or, ``tracked_too``, any)."""
    for recording in active_recordings():
        sets = (recording.derived, recording.tracked) if tracked_too else (recording.derived,)
        for serials in sets:
            if serials and any(a.__class__ is Tensor and a._serial in serials for a in leaves):
                return True
    return False


def _template(value, inputs):
    """``value`` with each array in it replaced by ``IndexArg(k)``, ``inputs[k]`` being the
    array (or tensor); raises ``_Unspellable`` for what source cannot write."""
    if value.__class__ is Tensor or isinstance(value, (np.ndarray, np.generic)):
        inputs.append(value)
        return IndexArg(len(inputs) - 1)
    if type(value) in (tuple, list):
        return type(value)(_template(v, inputs) for v in value)
    if value is None or type(value) in (bool, int):
        return value
    if type(value) is float and math.isfinite(value):
        return value
    if type(value) is str and "{" not in value and "}" not in value:
        return value
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return np.dtype(value)
    raise _Unspellable


def _recorded(function, name, arguments, keywords, inputs):
    values = [value_of(i) for i in inputs]
    result = function(*fill(arguments, values), **dict(fill(keywords, values)))
    parts = result if type(result) is tuple else (result,)
    if not all(isinstance(r, (np.ndarray, np.generic)) and r.dtype.kind in "biufc"
               for r in parts):
        return result  # not arrays of numbers: a plain answer, as unrecorded
    tensors = []
    for k, part in enumerate(parts):
        tensor = wrap(np.asarray(part))
        params = {"function": name, "arguments": arguments, "keywords": keywords,
                  "result": k if type(result) is tuple else None}
        record(numpy_call, tuple(inputs), params, tensor)
        tensors.append(tensor)
    return tuple(tensors) if type(result) is tuple else tensors[0]
