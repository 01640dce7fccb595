"""The shim's derivatives on tapegen: every differential operator comes down to these.

Eager mode (the default) asks tapes (``tape.gradient``, ``tape.jacobian``),
forward accumulators and ``tracer.hessian``/``tracer.hvp``.  Generated mode
(``AUTOGRAD_SHIM_MODE=generated``) computes each top-level derivative with a
module generated from the tape (``autograd._generated``).  A derivative taken
while an outer derivative is traced stays eager, so that the outer tape
records it: the outermost module then holds the whole higher-order
computation, as code generated from nested tapes does.
"""

import os

import numpy as np

import tracer
from autograd import _generated, _usage
from autograd._values import (conj, flatten, fresh_sources, outward, pack_as, plain, tracing,
                              zeros_like)
from tracer.core import Tensor

GENERATED = os.environ.get("AUTOGRAD_SHIM_MODE", "eager") == "generated"
ZERO = tracer.UnconnectedGradients.ZERO


def generating():
    """Whether this derivative is computed by generated code."""
    return GENERATED and not tracing()


def _differentiable(value):
    return isinstance(value, Tensor) and value.dtype.kind in "fc"


def _trace(fun, sources, leaves):
    tape = tracer.GradientTape(persistent=True)
    with tape:
        tape.watch(leaves)
        ans = fun(sources)
    return tape, ans


class Pullback:
    """autograd's ``vjp`` of one traced call: a cotangent of the result (in its
    structure) to a cotangent of the argument (in its structure)."""

    def __init__(self, tape, ans, sources, leaves):
        self.tape, self.ans, self.sources, self.leaves = tape, ans, sources, leaves
        self._generated = None

    def __call__(self, g):
        targets, seeds = [], []
        for target, seed in zip(flatten(self.ans), flatten(g)):
            if _differentiable(target):
                targets.append(target)
                seeds.append(conj(seed))
        if not targets:
            grads = [zeros_like(leaf) for leaf in self.leaves]
        elif generating():
            if self._generated is None:
                self._generated = _generated.vjp_function(self.tape, targets, self.leaves)
            grads = self._generated(seeds)
        else:
            grads = self.tape.gradient(targets, self.leaves, output_gradients=seeds,
                                       unconnected_gradients=ZERO)
        return outward(pack_as(self.sources, [conj(grad) for grad in grads]))


def make_vjp(fun, x):
    """``(vjp, fun(x))``, as autograd's ``core.make_vjp``."""
    _usage.note_derivative()
    sources, leaves = fresh_sources(x)
    tape, ans = _trace(fun, sources, leaves)
    return Pullback(tape, ans, sources, leaves), outward(ans)


def make_jvp(fun, x):
    """``v -> (fun(x), J v)``, as autograd's ``core.make_jvp``."""
    def jvp(v):
        _usage.note_derivative()
        sources, leaves = fresh_sources(x)
        directions = [d if isinstance(d, Tensor) else np.asarray(plain(d)).astype(leaf.dtype)
                      for d, leaf in zip(flatten(v), leaves)]
        if generating():
            return _transposed_jvp(fun, sources, leaves, directions)
        with tracer.ForwardAccumulator(leaves, directions) as accumulator:
            ans = fun(sources)
        return outward(ans), outward(accumulator.jvp(ans, unconnected_gradients=ZERO))
    return jvp


def _transposed_jvp(fun, sources, leaves, directions):
    """``J v`` read off the generated VJP module, which generated code has instead of a
    forward mode: ``(J v)_k = Re<vjp(e_k), v> + i Re<vjp(i e_k), v>``, one call per
    element of the result (two for a complex one)."""
    tape, ans = _trace(fun, sources, leaves)
    targets = [out for out in flatten(ans) if _differentiable(out)]
    pull = _generated.vjp_function(tape, targets, leaves) if targets else None
    tangents, position = [], 0
    for out in flatten(ans):
        if not _differentiable(out):
            tangents.append(zeros_like(out))
            continue
        tangents.append(_tangent_column(pull, targets, position, directions))
        position += 1
    return outward(ans), pack_as(ans, tangents)


def _tangent_column(pull, targets, j, directions):
    target = plain(targets[j])
    tangent = np.zeros(target.shape, target.dtype)
    units = (1.0, 1j) if target.dtype.kind == "c" else (1.0,)
    for index in np.ndindex(*target.shape):
        for unit in units:
            seeds = [np.zeros(np.shape(plain(t)), t.dtype) for t in targets]
            seeds[j][index] = unit
            grads = pull(seeds)
            tangent[index] += unit * sum(np.real(np.vdot(g, d)) for g, d in zip(grads, directions))
    return tangent


def jacobian(fun, x):
    """``d fun(x) / d x`` of shape ``fun(x).shape + x.shape``, for an array ``x``."""
    _usage.note_derivative()
    sources, leaves = fresh_sources(x)
    if len(leaves) != 1 or sources is not leaves[0]:
        raise TypeError("jacobian differentiates by one array argument, not a container")
    tape, ans = _trace(fun, sources, leaves)
    if not _differentiable(ans):
        shape = np.shape(plain(ans)) + np.shape(plain(sources))
        return outward(np.zeros(shape, sources.dtype))
    if generating():
        return outward(conj(_generated.jacobian(tape, ans, sources)))
    return outward(conj(tape.jacobian(ans, sources, unconnected_gradients=ZERO)))


def hessian(fun, x):
    """autograd's ``jacobian(jacobian(fun))``; for a scalar function of one array,
    tapegen's own Hessian (forward over reverse, or ``codegen.hessian_source``)."""
    _usage.note_derivative()
    sources, leaves = fresh_sources(x)
    tape, ans = _trace(fun, sources, leaves)
    if np.ndim(plain(ans)) != 0 or sources is not leaves[0]:
        return jacobian(lambda y: jacobian(fun, y), x)
    if not _differentiable(ans):
        return outward(np.zeros(np.shape(plain(sources)) * 2, sources.dtype))
    if generating():
        return outward(_generated.hessian(tape, ans, sources))
    return outward(tracer.hessian(fun)(sources))


def hessian_vector_product(fun, x, vector):
    """The Hessian of a scalar ``fun`` at ``x`` times ``vector`` (of ``x``'s shape):
    ``tracer.hvp``, or ``codegen.hvp_source``."""
    _usage.note_derivative()
    sources, leaves = fresh_sources(x)
    if generating():
        tape, ans = _trace(fun, sources, leaves)
        if not _differentiable(ans):
            return zeros_like(sources)
        return outward(_generated.hvp(tape, ans, sources, vector))
    return outward(tracer.hvp(fun)(sources, vector))
