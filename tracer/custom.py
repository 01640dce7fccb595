"""``custom_gradient``: a function whose derivative the user supplies.

As in TensorFlow, the forward function runs while tapes record (so values
it computes and the gradient function captures stay differentiable for
higher orders), and its result is recorded as one op whose VJP is the
user's gradient function.
"""

import functools

import numpy as np

from ir.primitives import control
from tracer.core import Tensor, record
from tracer.variable import Variable


def custom_gradient(f):
    """Decorator for ``f(*x) -> (y, grad_fn)``; ``grad_fn(upstream)`` returns one gradient per input.

    ``grad_fn`` may return a single value for a single input, and ``None``
    for an input that gets no gradient.
    """
    name = getattr(f, "__qualname__", repr(f))

    @functools.wraps(f)
    def decorated(*args):
        result, grad_fn = f(*args)
        args = tuple(a._read() if isinstance(a, Variable) else a for a in args)
        value = result._value if isinstance(result, Tensor) else np.asarray(result)
        out = Tensor(value)
        params = {"grad_fn": _GradFunction(grad_fn, len(args), name), "function": name}
        record(control.custom_gradient, args, params, out)
        return out

    return decorated


class _GradFunction:
    """The user's grad_fn, checked and called once per upstream gradient."""

    def __init__(self, grad_fn, n_inputs, name):
        self.grad_fn = grad_fn
        self.n_inputs = n_inputs
        self.name = name
        self._last = (None, None)

    def __call__(self, upstream):
        if self._last[0] is upstream:
            return self._last[1]
        grads = self.grad_fn(upstream)
        if not isinstance(grads, (list, tuple)):
            grads = (grads,)
        if len(grads) != self.n_inputs:
            raise ValueError(f"custom_gradient function {self.name} expected to return "
                             f"{self.n_inputs} gradients, but returned {len(grads)} instead.")
        self._last = (upstream, tuple(grads))
        return self._last[1]

    def __repr__(self):
        return f"<gradient function of {self.name}>"
