"""Keras 3's ``SimpleRNN``, its steps one ``tracer.scan``.

A Python loop over the time steps would record a copy of the step per time step;
``tracer.scan`` records the step once, and its gradient is one reverse loop, eager
and in a compiled step alike.  The inputs' products with ``kernel`` do not depend on
the state, so they are computed for every step at once before the loop, which leaves
the loop one product with ``recurrent_kernel`` per step.
"""

import numpy as np

from tracer.layers.activations import get as activation_named
from tracer.layers.base import Layer
from tracer.loops.control_flow import scan


class SimpleRNN(Layer):
    """``h_t = activation(x_t @ kernel + bias + h_{t-1} @ recurrent_kernel)`` over inputs
    of shape ``(batch, time, features)``, from ``h_0 = 0`` (or ``initial_state``).

    Returns the last ``h`` ``(batch, units)``, or with ``return_sequences`` every one
    ``(batch, time, units)``; with ``return_state``, ``[outputs, last h]``.
    ``go_backwards`` reads the time steps from the last.
    """

    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, return_sequences=False,
                 return_state=False, go_backwards=False, **kwargs):
        super().__init__(**kwargs)
        if int(units) != units or units < 1:
            raise ValueError(f"SimpleRNN needs a positive whole number of units, not {units!r}")
        self.units = int(units)
        self.activation = activation_named(activation)
        self.use_bias = use_bias
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards = go_backwards
        self._initializers = (kernel_initializer, recurrent_initializer, bias_initializer)
        self._regularizers = (kernel_regularizer, recurrent_regularizer, bias_regularizer)

    def build(self, input_shape):
        if len(input_shape) != 3:
            raise ValueError(f"{self.name} takes inputs of shape (batch, time, features); "
                             f"got shape {tuple(input_shape)}")
        self.kernel = self.add_weight((input_shape[-1], self.units), self._initializers[0],
                                      regularizer=self._regularizers[0], name="kernel")
        self.recurrent_kernel = self.add_weight(
            (self.units, self.units), self._initializers[1],
            regularizer=self._regularizers[1], name="recurrent_kernel")
        self.bias = (self.add_weight((self.units,), self._initializers[2],
                                     regularizer=self._regularizers[2], name="bias")
                     if self.use_bias else None)

    def call(self, inputs, initial_state=None):
        projected = inputs @ self.kernel
        if self.bias is not None:
            projected = projected + self.bias
        steps = np.swapaxes(projected, 0, 1)  # (time, batch, units): scan's leading axis
        if self.go_backwards:
            steps = np.flip(steps, axis=0)
        if initial_state is None:
            state = np.zeros_like(steps[0])
        else:
            state = initial_state[0] if isinstance(initial_state, (list, tuple)) else (
                initial_state)

        def step(previous, projected_input):
            output = self.activation(projected_input + previous @ self.recurrent_kernel)
            return output, output if self.return_sequences else None

        last, outputs = scan(step, state, steps)
        outputs = np.swapaxes(outputs, 0, 1) if self.return_sequences else last
        return [outputs, last] if self.return_state else outputs
