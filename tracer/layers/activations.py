"""Keras 3's activations by name, written in numpy so tapes record them.

Each is what Keras computes: ``relu``'s derivative at 0 is 0 (TensorFlow's and
JAX's), ``sigmoid`` saturates without overflow, ``softmax`` subtracts the
largest logit first, ``gelu`` is exact by default (``erf``, which needs scipy)
and approximate with ``approximate=True``.
"""

import math

import numpy as np

from ir.primitives.elementwise import relu as relu_primitive
from tracer.special import logsumexp


def linear(x):
    return x


def relu(x):
    """``max(x, 0)``, a NaN kept, with TensorFlow's gradient ``g * (x > 0)`` (0 at 0)."""
    return relu_primitive(x)


def tanh(x):
    return np.tanh(x)


def sigmoid(x):
    """``1 / (1 + exp(-x))``, as ``exp(-log(1 + exp(-x)))``: no exponential overflows and
    tiny values keep their digits."""
    return np.exp(-np.logaddexp(0, -x))


def softmax(x, axis=-1):
    return np.exp(log_softmax(x, axis=axis))


def log_softmax(x, axis=-1):
    return x - logsumexp(x, axis=axis, keepdims=True)


def softplus(x):
    """``log(1 + exp(x))`` without overflow."""
    return np.logaddexp(x, 0)


def silu(x):
    """``x * sigmoid(x)`` (also called swish)."""
    return x * sigmoid(x)


def gelu(x, approximate=False):
    """``x * P(X <= x)`` for a standard normal ``X``; with ``approximate``, its tanh form."""
    if approximate:
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    try:
        from scipy.special import erf
    except ImportError:
        raise ImportError("the exact gelu needs scipy.special.erf: pip install "
                          "'tapegen[scipy]', or use gelu(x, approximate=True)") from None
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def exponential(x):
    return np.exp(x)


ACTIVATIONS = {f.__name__: f for f in (linear, relu, tanh, sigmoid, softmax, log_softmax,
                                       softplus, silu, gelu, elu, exponential)}
ACTIVATIONS["swish"] = silu


def get(identifier):
    """The activation ``identifier`` names (``"relu"``), a callable as it is, or
    ``linear`` for ``None``."""
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in ACTIVATIONS:
        return ACTIVATIONS[identifier]
    raise ValueError(f"unknown activation {identifier!r}: use one of "
                     f"{', '.join(sorted(ACTIVATIONS))}, or a function")
