"""``Sequential``: a model that is a stack of layers, each calling the next."""

import numpy as np

from tracer.layers.base import Layer
from tracer.models.model import Model


class Input:
    """The shape of one input row (Keras' ``keras.Input(shape=...)``): put first in a
    ``Sequential`` to build its weights at once."""

    def __init__(self, shape, dtype=np.float64, name=None):
        self.shape, self.dtype, self.name = tuple(shape), np.dtype(dtype), name


class Sequential(Model):
    """``Sequential([Dense(32, activation="relu"), Dense(10)])``."""

    def __init__(self, layers=None, name=None, trainable=True):
        super().__init__(name=name, trainable=trainable)
        self._input = None
        for layer in layers or []:
            self.add(layer)

    def add(self, layer):
        """Put ``layer`` (or an ``Input``, first) on top of the stack."""
        if isinstance(layer, Input):
            if self._layers or self._input is not None:
                raise ValueError("an Input goes first in a Sequential model, once")
            self._input = layer
            return
        if not isinstance(layer, Layer):
            raise TypeError(f"a Sequential model stacks layers; got {type(layer).__name__}")
        self._layers.append(layer)
        self.built = False
        shape = self._input.shape if self._input is not None else (
            layer._declared_input_shape if len(self._layers) == 1 else None)
        if shape is not None:
            dtype = self._input.dtype if self._input is not None else np.float64
            self(np.zeros((1,) + shape, dtype=dtype))

    def pop(self):
        layer = self._layers.pop()
        self.built = False
        return layer

    def call(self, inputs, training=False):
        outputs = inputs
        for layer in self._layers:
            outputs = layer(outputs, training=training)
        return outputs
