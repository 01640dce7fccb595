"""Derivatives through generated code: the tape is traced once, ``codegen`` writes a
module for the derivative, ``codegen.load`` compiles it, and the module's function
is called on the arguments' values instead of asking the tape.

Captured arrays are written into the code, so a generated function's
parameters are the watched arguments (named ``x0``, ``x1``... by the shim) and
the seed or vector of the request.
"""

import inspect
import math

import numpy as np

import codegen
import codegen.module
from autograd._values import plain, zeros_like

codegen.module.INLINE_CONSTANT_SIZE = math.inf


class HarnessError(RuntimeError):
    """A generated function asks for a parameter the harness cannot supply."""


def vjp_function(tape, targets, leaves):
    """``seeds -> gradients of leaves`` (TensorFlow's convention), from one module."""
    single = len(targets) == 1
    source = codegen.gradient_source(tape, targets[0] if single else list(targets),
                                     list(leaves), seed_argument=True)
    function = codegen.load(source).gradient

    def pull(seeds):
        arrays = [np.asarray(plain(s)).astype(t.dtype, copy=False)
                  for s, t in zip(seeds, targets)]
        grads = _call(function, leaves, seed=arrays[0] if single else arrays)
        return [zeros_like(leaf) if g is None else g for g, leaf in zip(grads, leaves)]
    return pull


def jacobian(tape, target, leaf):
    function = codegen.load(codegen.jacobian_source(tape, target, leaf)).jacobian
    result = _call(function, [leaf])
    shape = np.shape(plain(target)) + np.shape(plain(leaf))
    return np.zeros(shape, leaf.dtype) if result is None else result


def hessian(tape, target, leaf):
    function = codegen.load(codegen.hessian_source(tape, target, leaf)).hessian
    result = _call(function, [leaf])
    shape = np.shape(plain(leaf)) * 2
    return np.zeros(shape, leaf.dtype) if result is None else result


def hvp(tape, target, leaf, vector):
    """The Hessian of ``target`` times ``vector``; the vector is the module's last parameter."""
    function = codegen.load(codegen.hvp_source(tape, target, leaf)).hvp
    last = list(inspect.signature(function).parameters)[-1]
    vector = np.asarray(plain(vector)).astype(leaf.dtype, copy=False)
    result = _call(function, [leaf], **{last: vector})
    return zeros_like(leaf) if result is None else result


def _call(function, leaves, **extra):
    values = {leaf.name: plain(leaf) for leaf in leaves if leaf.name}
    values.update(extra)
    arguments = {}
    for name in inspect.signature(function).parameters:
        if name not in values:
            raise HarnessError(f"the generated function asks for {name!r}, which is neither a "
                               f"watched argument ({', '.join(sorted(values))}) nor the request's "
                               "seed or vector")
        arguments[name] = values[name]
    return function(**arguments)
