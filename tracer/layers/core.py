"""Keras 3's core layers: ``Dense``, ``Activation``, ``Flatten``, ``Embedding``."""

import math

import numpy as np

from tracer.layers.activations import get as activation_named
from tracer.layers.base import Layer


class Dense(Layer):
    """``activation(inputs @ kernel + bias)``, over the last axis of the inputs."""

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, **kwargs):
        super().__init__(**kwargs)
        if int(units) != units or units < 1:
            raise ValueError(f"Dense needs a positive whole number of units, not {units!r}")
        self.units = int(units)
        self.activation = activation_named(activation)
        self.use_bias = use_bias
        self._initializers = (kernel_initializer, bias_initializer)
        self._regularizers = (kernel_regularizer, bias_regularizer)

    def build(self, input_shape):
        if not input_shape:
            raise ValueError(f"{self.name} takes inputs with a feature axis; got a scalar")
        self.kernel = self.add_weight((input_shape[-1], self.units), self._initializers[0],
                                      regularizer=self._regularizers[0], name="kernel")
        self.bias = (self.add_weight((self.units,), self._initializers[1],
                                     regularizer=self._regularizers[1], name="bias")
                     if self.use_bias else None)

    def call(self, inputs):
        outputs = inputs @ self.kernel
        if self.bias is not None:
            outputs = outputs + self.bias
        return self.activation(outputs)


class Activation(Layer):
    """An activation (by name or function) as a layer."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activation_named(activation)

    def call(self, inputs):
        return self.activation(inputs)


class Flatten(Layer):
    """Every axis after the first (the batch) made one."""

    def call(self, inputs):
        shape = inputs.shape
        return np.reshape(inputs, (shape[0], math.prod(shape[1:])))


class Embedding(Layer):
    """Row ``i`` of ``embeddings`` for each integer ``i`` of the inputs."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, **kwargs):
        super().__init__(**kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self._initializer = ("random_uniform" if embeddings_initializer == "uniform"
                             else embeddings_initializer)
        self._regularizer = embeddings_regularizer

    def build(self, input_shape):
        self.embeddings = self.add_weight((self.input_dim, self.output_dim),
                                          self._initializer,
                                          regularizer=self._regularizer, name="embeddings")

    def call(self, inputs):
        if not hasattr(inputs, "dtype"):
            inputs = np.asarray(inputs)
        if inputs.dtype.kind not in "iu":  # (Keras casts other indices to integers too)
            inputs = inputs.astype(np.int64)
        return self.embeddings[inputs]
