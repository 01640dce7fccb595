"""Derivatives of functions of arrays, each a few lines over tapes and accumulators.

Each transformation takes ``f(*args)`` and returns a function of the same
arguments.  Arguments may be arrays, numbers or tensors; results are
tensors, so the transformations compose (``grad(grad(f))``) and an outer
tape or accumulator sees through them.  ``argnums`` picks the arguments to
differentiate by: an int gives one result, a tuple gives a tuple.
"""

import numpy as np

from ir.autodiff.batching import Batched
from tracer.core import Tensor, concrete_shape, wrap
from tracer.forward_accumulator import ForwardAccumulator
from tracer.jacobian_rows import one_hot_seeds
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


def jacobian(f, argnums=0, mode="reverse"):
    """``d f / d x`` of shape ``f(x).shape + x.shape`` for each chosen argument ``x``.

    ``mode="reverse"``: one backward pass over a batch of seeds, one per output
    element (cheaper when outputs are fewer than inputs).  ``mode="forward"``:
    one forward pass with a batch of tangents, one per input element.
    """
    if mode not in ("reverse", "forward"):
        raise ValueError(f"jacobian mode must be 'reverse' or 'forward', not {mode!r}")

    def jacobian_of(*args):
        if mode == "reverse":
            tape, sources, value = _recorded(f, args, argnums)
            return tape.jacobian(value, sources, unconnected_gradients=ZERO)
        tensors = _as_tensors(args)
        chosen = [argnums] if isinstance(argnums, int) else list(argnums)
        results = [_forward_jacobian(f, tensors, k) for k in chosen]
        return results[0] if isinstance(argnums, int) else tuple(results)
    return jacobian_of


def _forward_jacobian(f, tensors, k):
    """One forward pass of ``f`` with a batch of one-hot tangents for argument ``k``."""
    source = tensors[k]
    directions = one_hot_seeds(concrete_shape(source), source.dtype)
    with ForwardAccumulator(source, directions) as accumulator:
        value = f(*tensors)
    tangent = accumulator.jvp(value, unconnected_gradients=ZERO)
    return _columns(tangent, directions.size, np.shape(value), concrete_shape(source))


def _columns(tangent, size, value_shape, source_shape):
    """A batch of tangents, one per element of the source, as ``value_shape + source_shape``."""
    if not isinstance(tangent, Batched):
        tangent = Batched(np.broadcast_to(tangent, (size,) + tuple(value_shape)), size)
    columns = np.moveaxis(tangent.value, 0, -1)
    return np.reshape(columns, tuple(value_shape) + tuple(source_shape))


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

    Forward over reverse, vectorised: one gradient, with an accumulator
    carrying a batch of one-hot tangents (one per element of ``x``) around it.
    """
    def hessian_of(*args):
        tensors = _as_tensors(args)
        source = tensors[argnums]
        directions = one_hot_seeds(concrete_shape(source), source.dtype)
        with ForwardAccumulator(source, directions) as accumulator:
            gradient = grad(f, argnums)(*tensors)
        tangent = accumulator.jvp(gradient, unconnected_gradients=ZERO)
        return _columns(tangent, directions.size, concrete_shape(source), concrete_shape(source))
    return hessian_of


def _name(f):
    return getattr(f, "__qualname__", repr(f))
