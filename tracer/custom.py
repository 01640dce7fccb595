"""``custom_gradient``: a function whose derivative the user supplies.

As in TensorFlow, the forward function runs while tapes record (so values
it computes and the gradient function captures stay differentiable for
higher orders), and its result is recorded as one op whose VJP is the
user's gradient function.  Because that function supplies the derivative,
numpy functions without a rule of their own may be used in the forward; their
results are constants to every tape, so a higher-order derivative through
such a function is refused rather than silently incomplete.

Variables the forward reads get their gradients from the user's function
too, so it must accept ``variables=`` (TensorFlow's contract): otherwise
their gradient would be silently missing.

Inside a loop or branch body, which runs as a graph at every step, the
gradient function is traced once instead (``tracer.loops.custom_in_body``).
"""

import contextlib
import functools
import inspect

import numpy as np

from ir.primitives import control
from ir.primitive import is_trainable
from tracer.core import Tensor, push_forward, record, tracks_any, value_of, wrap
from tracer.loops.custom_in_body import custom_gradient_in_body
from tracer.errors import UnsupportedOperation
from tracer.recording import graph_recording
from tracer.sites import site_location
from tracer.state import CustomForward, active_recordings, custom_forwards, thread_state
from tracer.variable import Variable


def custom_gradient(f):
    """Decorator for ``f(*x) -> (y, grad_fn)``; ``grad_fn(upstream)`` returns one gradient per input.

    ``grad_fn`` may return a single value for a single input, and ``None``
    for an input that gets no gradient.  If ``f`` reads trainable (or
    watched) variables, ``grad_fn(upstream, variables=None)`` is called with
    them and returns ``(input_gradients, variable_gradients)``.
    """
    name = getattr(f, "__qualname__", repr(f))

    @functools.wraps(f)
    def decorated(*args):
        # Like TensorFlow, variables passed as arguments are read here: f sees
        # their values, and their gradients are input gradients.
        inputs = tuple(a._read() if isinstance(a, Variable) else a for a in args)
        with _forward() as forward:
            result, grad_fn = f(*inputs)
        read = forward.variables
        variables = [read[k] for k in sorted(read) if _needs_gradient(read[k])]
        if variables and not _accepts_variables(grad_fn):
            names = ", ".join(v.name or repr(v) for v in variables)
            raise TypeError(f"@custom_gradient grad_fn of {name} must accept keyword argument "
                            f"'variables', since the function uses variables: [{names}]. Return "
                            "(input_gradients, variable_gradients) from it.")
        if isinstance(result, (tuple, list, dict)):
            raise TypeError(f"custom_gradient function {name} returned a {type(result).__name__} "
                            "as its value: return (y, grad_fn) with y one tensor or array")
        recorded = inputs + tuple(v._value for v in variables)
        if _in_a_body():
            return custom_gradient_in_body(
                name, result, _GradFunction(grad_fn, len(inputs), variables, name, recorded, None))
        # A plain array the function returns is copied: tensors are immutable.
        value = value_of(result)
        out = wrap(value if isinstance(result, (Tensor, Variable)) else np.array(value))
        grad = _GradFunction(grad_fn, len(inputs), variables, name, recorded,
                             forward.opaque_site)
        params = {"grad_fn": grad, "function": name}
        tracing = graph_recording()
        if tracing is None:
            record(control.custom_gradient, recorded, params, out)
        else:
            _record_for_graph_mode(tracing, name, forward, recorded, params, result, out)
        push_forward(control.custom_gradient, recorded, params, out)
        return out

    return decorated


def _record_for_graph_mode(tracing, name, forward, recorded, params, result, out):
    """In a function traced for graph mode, tapes record the op with the user's gradient,
    and the trace records ``out`` as the forward's own result: generated code computes
    the forward, and never differentiates it."""
    if forward.opaque_site is not None:
        location = site_location(forward.opaque_site)
        raise UnsupportedOperation(
            f"custom_gradient function {name} applies a numpy function without a derivative "
            f"rule to a traced value{f' at {location}' if location else ''}, which "
            "tracer.function cannot record: the generated code would repeat the first call's "
            "value. Write that part with numpy functions tapegen records, or call the function "
            "outside tracer.function.")
    tapes = [r for r in active_recordings() if r is not tracing]
    if tapes:
        record(control.custom_gradient, recorded, params, out, stack=tapes)
    if isinstance(result, Tensor):
        record(control.stop_gradient, (result,), {}, out, stack=[tracing])


@contextlib.contextmanager
def _forward():
    forwards = custom_forwards()
    forward = CustomForward()
    forwards.append(forward)
    try:
        yield forward
    finally:
        forwards.pop()


def _in_a_body():
    """Whether a loop or branch body is being traced (its recording is the innermost)."""
    stack = thread_state.stack
    return bool(stack) and stack[-1].strict


def _needs_gradient(variable):
    return variable.trainable or any(variable._serial in r.variables for r in active_recordings())


def _accepts_variables(grad_fn):
    try:
        parameters = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in parameters)


class _GradFunction:
    """The user's grad_fn, called once per backward pass, its answer checked.

    Its answer is one gradient per recorded input: the function's inputs,
    then the variables it read.
    """

    def __init__(self, grad_fn, n_inputs, variables, name, inputs, opaque_site):
        self.grad_fn = grad_fn
        self.n_inputs = n_inputs
        self.variables = variables
        self.name = name
        self.inputs = inputs
        self.opaque_site = opaque_site

    def __call__(self, upstream):
        if self.opaque_site is not None and tracks_any(self.inputs):
            raise UnsupportedOperation(self._higher_order_message())
        if self.variables:
            answer = self.grad_fn(upstream, variables=list(self.variables))
            if not (isinstance(answer, (list, tuple)) and len(answer) == 2):
                raise ValueError(f"custom_gradient function {self.name} reads variables, so its "
                                 "grad_fn must return (input_gradients, variable_gradients).")
            grads = (self._checked(answer[0], self.n_inputs, "")
                     + self._checked(answer[1], len(self.variables), "variable "))
        else:
            grads = self._checked(self.grad_fn(upstream), self.n_inputs, "")
        for grad, value in zip(grads, self.inputs):
            self._check_fits(grad, value)
        return grads

    def _checked(self, grads, expected, kind):
        if not isinstance(grads, (list, tuple)):
            grads = (grads,)
        if len(grads) != expected:
            raise ValueError(f"custom_gradient function {self.name} expected to return "
                             f"{expected} {kind}gradients, but returned {len(grads)} instead.")
        return tuple(grads)

    def _check_fits(self, grad, value):
        """A gradient must have its input's shape and a floating dtype: anything else
        would be broadcast or summed into a silently wrong answer."""
        if grad is None:
            return
        array = np.asarray(value_of(grad))
        if array.shape != np.shape(value_of(value)) or not is_trainable(array.dtype):
            raise ValueError(
                f"custom_gradient function {self.name} returned a gradient of shape "
                f"{array.shape} and dtype {array.dtype} for an input of shape "
                f"{np.shape(value_of(value))}: each gradient needs its input's shape and a "
                "floating-point or complex dtype (or None for no gradient)")

    def _higher_order_message(self):
        location = site_location(self.opaque_site)
        where = f" at {location} ({location.text!r})" if location else ""
        return (f"a tape is recording the gradient of custom_gradient function {self.name} "
                f"and tracks its inputs (a higher-order derivative), but its forward applied a "
                f"numpy function without a derivative rule to a traced value{where}. That value "
                "is a constant to every tape, so the derivative of the gradient could be silently "
                "wrong. If the gradient function does not use that value, apply the numpy "
                "function to plain values there (e.g. x.numpy()); otherwise take only first "
                f"derivatives through {self.name}.")

    def __repr__(self):
        return f"<gradient function of {self.name}>"
