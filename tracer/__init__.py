"""tapegen's front door: tensors, variables and TensorFlow-style gradient tapes over numpy.

    import numpy as np
    import tracer

    x = tracer.constant([1.0, 2.0])
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.sin(x) * x)
    tape.gradient(y, x)
"""


from tracer import callbacks, layers, losses, metrics, optimizers
from tracer.layers import activations, initializers, regularizers
from tracer.numpy import hooks as numpy_hooks
from tracer.buffers import release_memory
from tracer.checks import check_gradients
from tracer.core import Tensor
from tracer.loops.control_flow import cond, fori_loop, scan, while_loop
from tracer.custom import custom_gradient
from tracer.sizes.declared import Dim, declare
from tracer.errors import (ControlFlowError, GradientTapeWarning, TapeStateError,
                           UnsupportedOperation)
from tracer.forward_accumulator import ForwardAccumulator
from tracer.graph_mode.concrete import ConcreteFunction
from tracer.graph_mode.function import Function, function
from tracer.graph_mode.printing import print  # noqa: A001 (TensorFlow's name)
from tracer.graph_mode.signature import TensorSpec
from tracer.models import Input, Model, Sequential
from tracer.module import Module
from tracer.functional import grad, hessian, hvp, jacobian, value_and_grad
from tracer.numpy.api import stop_gradient
from tracer.special import logsumexp
from tracer.tape import GradientTape, UnconnectedGradients
from tracer.variable import Variable

numpy_hooks.install()


def constant(value, dtype=None, name=None, dims=None):
    """A tensor holding a copy of ``value`` (dtypes follow numpy: a Python float is float64).

    ``dims`` declares symbolic axes: one entry per axis, a name for a symbolic
    one (``("batch", None)``), ``None`` for a static one.  The tensor's shape then
    reads as ``Dim``s, and code generated from a trace of it holds for every size.
    """
    tensor = Tensor(value, dtype=dtype, name=name)
    return tensor if dims is None else declare(tensor, dims)


__all__ = ["ConcreteFunction", "ControlFlowError", "Dim", "ForwardAccumulator", "Function",
           "GradientTape", "GradientTapeWarning", "Input", "Model", "Module", "Sequential",
           "TapeStateError", "Tensor", "TensorSpec", "UnconnectedGradients",
           "UnsupportedOperation", "Variable", "activations", "callbacks",
           "check_gradients", "cond", "constant", "custom_gradient", "fori_loop",
           "function", "grad", "hessian", "hvp", "initializers", "jacobian", "layers",
           "logsumexp", "losses", "metrics", "optimizers", "print", "regularizers",
           "release_memory", "scan", "stop_gradient", "value_and_grad", "while_loop"]


def __dir__():
    """The public API: what ``dir(tracer)`` shows, without the internal submodules."""
    return __all__
