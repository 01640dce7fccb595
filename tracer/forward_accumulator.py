"""Forward mode: ``ForwardAccumulator``, as TensorFlow's ``tf.autodiff.ForwardAccumulator``.

While an accumulator is active, each primitive applied to a tensor that has
a tangent gets a tangent for its result: the primitive's Jacobian-vector
product, ``ir.autodiff.forward.jvp``.  Where that transposes a VJP rule, the rule is
differentiated on a private tape.

Tangents are computed by ordinary primitive applications on tensors: tapes
and outer accumulators see them, which is what gives forward-over-reverse
Hessian-vector products (an accumulator around a tape) and higher-order
forward derivatives (nested accumulators).  An accumulator does not see its
own tangent computations, nor do the accumulators opened inside it.
"""

import numpy as np

import ir
from ir.autodiff.batching import Batched
from ir.autodiff.forward import jvp
from ir.primitive import is_trainable
from ir.primitives.elementwise import add
from ir.structure import flatten, pack_as
from tracer.core import Tensor, concrete_shape, record_values, value_of, wrap
from tracer.recording import Recording
from tracer.state import accumulator_stack, active_recordings, set_accumulators
from tracer.tape import UnconnectedGradients, unconnected_choice
from tracer.variable import Variable


class ForwardAccumulator:
    """Computes Jacobian-vector products of everything computed from ``primals``.

    ``primals`` are tensors or variables (any nested structure) and
    ``tangents`` their directions, of the same structure, shapes and dtypes.
    A tangent may be an ``ir.autodiff.batching.Batched`` batch of directions: every
    tangent then carries the batch, and one pass computes them all.
    Inside ``with accumulator:``, ``accumulator.jvp(t)`` is the directional
    derivative of ``t`` along the tangents.
    """

    def __init__(self, primals, tangents):
        self._tangents = {}
        self._variable_tangents = {}
        self._active = False
        for primal, tangent in _pairs(primals, tangents):
            self._watch(primal, tangent)

    def _watch(self, primal, tangent):
        if not isinstance(primal, (Tensor, Variable)):
            raise TypeError(f"ForwardAccumulator primals must be tracer.Tensor or "
                            f"tracer.Variable values, got {type(primal).__name__}; wrap arrays "
                            "with tracer.constant first.")
        shape = tangent.shape if isinstance(tangent, Batched) else np.shape(value_of(tangent))
        if tuple(shape) != concrete_shape(primal):
            raise ValueError(f"a tangent of shape {tuple(shape)} was given for a primal of shape "
                             f"{concrete_shape(primal)}; each tangent needs its primal's shape.")
        if not is_trainable(primal.dtype):
            raise ValueError(f"a primal of dtype {primal.dtype} cannot have a tangent: only "
                             "floating-point and complex values carry derivatives.")
        if not isinstance(tangent, (Tensor, Batched)):
            tangent = wrap(np.asarray(value_of(tangent)).astype(primal.dtype))
        if isinstance(primal, Variable):
            self._variable_tangents[primal._serial] = tangent
            self._tangents[primal._value._serial] = tangent
        else:
            previous = self._tangents.get(primal._serial)
            self._tangents[primal._serial] = (tangent if previous is None
                                              else add(previous, tangent))

    def __enter__(self):
        if self._active:
            raise ValueError("this ForwardAccumulator is already active; make a new one to "
                             "nest forward-mode derivatives.")
        self._active = True
        set_accumulators(accumulator_stack() + [self])
        return self

    def __exit__(self, *exc_info):
        stack = accumulator_stack()
        set_accumulators([a for a in stack if a is not self])
        self._active = False

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """The tangent of each of ``primals`` (same structure): ``None`` for values not
        computed from the watched primals, or zeros with ``UnconnectedGradients.ZERO``."""
        zeros = unconnected_choice(unconnected_gradients) is UnconnectedGradients.ZERO
        results = []
        for value in flatten(primals):
            tensor = value._value if isinstance(value, Variable) else value
            tangent = (self._tangents.get(tensor._serial) if isinstance(tensor, Tensor)
                       else None)
            if tangent is None and zeros:
                tangent = wrap(np.zeros(np.shape(value_of(tensor)), _dtype(tensor)))
            results.append(tangent)
        return pack_as(primals, results)

    # --- called by tracer.core ---------------------------------------------------

    def read_variable(self, variable, value):
        """A watched variable was read: its value carries the variable's tangent."""
        tangent = self._variable_tangents.get(variable._serial)
        if tangent is not None:
            self._tangents[value._serial] = tangent

    def push_forward(self, prim, args, params, result):
        """Give ``result`` a tangent when one of ``args`` has one."""
        tangents = self._tangents
        inputs = [tangents.get(a._serial) if a.__class__ is Tensor else None for a in args]
        if not any(t is not None for t in inputs):
            return
        stack = accumulator_stack()
        # Neither this accumulator nor those opened inside it see the tangent
        # computation; outer accumulators and tapes do.
        set_accumulators(stack[:stack.index(self)])
        try:
            tangent = jvp(prim, args, params, result, inputs, _transpose, _zeros_like)
        finally:
            set_accumulators(stack)
        if tangent is not None:
            tangents[result._serial] = tangent


def _pairs(primals, tangents):
    """``(primal, tangent)`` pairs; a tangent is read only as deep as the primals' nesting,
    so a list of numbers is one tangent of one primal."""
    if isinstance(primals, dict):
        if not isinstance(tangents, dict) or set(tangents) != set(primals):
            raise ValueError("ForwardAccumulator tangents must be a dict with the primals' keys")
        return [pair for key in primals for pair in _pairs(primals[key], tangents[key])]
    if isinstance(primals, (list, tuple)):
        if not isinstance(tangents, (list, tuple)) or len(tangents) != len(primals):
            raise ValueError(f"ForwardAccumulator got {len(primals)} primals but tangents "
                             f"{tangents!r}; give one tangent per primal, in the same structure.")
        return [pair for p, t in zip(primals, tangents) for pair in _pairs(p, t)]
    return [(primals, tangents)]


def _transpose(linear_map, like, tangent):
    """Differentiate ``linear_map`` on a private tape, seeded with ``tangent``: the
    derivative of a linear map is its transpose.  Tapes and outer accumulators see
    the computation, so the result is differentiable again."""
    probe = Recording(watch_accessed_variables=False)
    cotangent = wrap(np.zeros(concrete_shape(like), like.dtype))
    probe.tracked.add(cotangent._serial)
    stack = active_recordings()
    stack.append(probe)
    try:
        image = linear_map(cotangent)
    finally:
        stack.remove(probe)
    if not isinstance(image, Tensor) or image._serial not in probe.tracked:
        return None
    found = ir.backward(probe.records, {image._serial: tangent}, {cotangent._serial},
                        record_values)
    return found.get(cotangent._serial)


def _zeros_like(value, dtype):
    return wrap(np.zeros(np.shape(value_of(value)), dtype))


def _dtype(value):
    return np.asarray(value_of(value)).dtype if not hasattr(value, "dtype") else value.dtype
