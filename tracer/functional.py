"""Derivatives of functions of arrays, each a few lines over tapes and accumulators.

Each transformation takes ``f(*args)`` and returns a function of the same
arguments.  Arguments may be arrays, numbers or tensors; results are
tensors, so the transformations compose (``grad(grad(f))``) and an outer
tape or accumulator sees through them.  ``argnums`` picks the arguments to
differentiate by: an int gives one result, a tuple gives a tuple.
"""

import numpy as np

from tracer.core import Tensor, wrap
from tracer.forward import ForwardAccumulator
from tracer.tape import GradientTape, UnconnectedGradients

ZERO = UnconnectedGradients.ZERO


def _as_tensors(args):
    return [a if isinstance(a, Tensor) else wrap(np.array(a, dtype=np.result_type(a, 0.0)))
            for a in args]


def _chosen(tensors, argnums):
    if isinstance(argnums, int):
        return tensors[argnums]
    return tuple(tensors[k] for k in argnums)


def _recorded(f, args, argnums):
    """``f(*args)`` on a tape watching the chosen arguments: ``(tape, sources, value)``."""
    tensors = _as_tensors(args)
    sources = _chosen(tensors, argnums)
    with GradientTape() as tape:
        tape.watch(sources)
        value = f(*tensors)
    return tape, sources, value


def value_and_grad(f, argnums=0):
    """``(f(*args), gradient)``: the gradient of a scalar ``f`` has each chosen argument's shape."""
    def value_and_gradient(*args):
        tape, sources, value = _recorded(f, args, argnums)
        if np.shape(value) != ():
            raise ValueError(f"grad needs a scalar function, but {_name(f)} returned shape "
                             f"{np.shape(value)}; use jacobian for vector-valued functions.")
        return value, tape.gradient(value, sources, unconnected_gradients=ZERO)
    return value_and_gradient


def grad(f, argnums=0):
    """The gradient of a scalar ``f``: one array of each chosen argument's shape."""
    value_and_gradient = value_and_grad(f, argnums)
    return lambda *args: value_and_gradient(*args)[1]


def jacobian(f, argnums=0):
    """``d f / d x`` of shape ``f(x).shape + x.shape`` for each chosen argument ``x``.

    Reverse mode, one row per output element.
    """
    def jacobian_of(*args):
        tape, sources, value = _recorded(f, args, argnums)
        return tape.jacobian(value, sources, unconnected_gradients=ZERO)
    return jacobian_of


def hvp(f, argnums=0):
    """``(*args, v) -> H @ v``, the Hessian of a scalar ``f`` times ``v`` (argument's shape).

    Forward over reverse: one gradient with a forward accumulator around it,
    about the cost of two gradients.
    """
    def hessian_vector_product(*args_and_vector):
        *args, vector = args_and_vector
        tensors = _as_tensors(args)
        source = tensors[argnums]
        with ForwardAccumulator(source, vector) as accumulator:
            gradient = grad(f, argnums)(*tensors)
        return accumulator.jvp(gradient, unconnected_gradients=ZERO)
    return hessian_vector_product


def hessian(f, argnums=0):
    """The Hessian of a scalar ``f``: shape ``x.shape + x.shape`` for argument ``x``.

    The gradient is recorded once by an outer tape, which then takes one
    backward pass per element of ``x`` (cheaper than a forward-over-reverse
    product per element, which would run ``f`` each time).
    """
    def hessian_of(*args):
        tensors = _as_tensors(args)
        source = tensors[argnums]
        with GradientTape() as outer:
            outer.watch(source)
            gradient = grad(f, argnums)(*tensors)
        return outer.jacobian(gradient, source, unconnected_gradients=ZERO)
    return hessian_of


def _name(f):
    return getattr(f, "__qualname__", repr(f))
