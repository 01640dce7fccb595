"""Keras 3's ``LayerNormalization`` and ``BatchNormalization``, with Keras' formulas.

Both normalise as Keras' backends do, ``x * inv + (beta - mean * inv)`` with
``inv = gamma / sqrt(variance + epsilon)``, so the rounding matches Keras', and the
variance is the biased one (``np.var``).  Gradients flow through the mean and the
variance of the batch as through any other numpy call.
"""

import numpy as np

from tracer.layers.base import Layer


class LayerNormalization(Layer):
    """Each sample normalised over ``axis`` (an axis or a list of them), then scaled by
    ``gamma`` and shifted by ``beta``, weights of the shape of those axes."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axis, (int, list, tuple)):
            raise TypeError(f"LayerNormalization's axis is an int or a list of ints, "
                            f"not {axis!r}")
        self.axis = axis
        self.epsilon = float(epsilon)
        self.center, self.scale = center, scale
        self._initializers = {"beta": beta_initializer, "gamma": gamma_initializer}
        self._regularizers = {"beta": beta_regularizer, "gamma": gamma_regularizer}

    def build(self, input_shape):
        self._axes = _normalized_axes(self.axis, input_shape, self.name)
        self._broadcast_shape = tuple(input_shape[d] if d in self._axes else 1
                                      for d in range(len(input_shape)))
        shape = tuple(input_shape[d] for d in self._axes)
        self.gamma = self._add_parameter("gamma", shape) if self.scale else None
        self.beta = self._add_parameter("beta", shape) if self.center else None

    def _add_parameter(self, name, shape):
        return self.add_weight(shape, self._initializers[name],
                               regularizer=self._regularizers[name], name=name)

    def call(self, inputs):
        mean = np.mean(inputs, axis=self._axes, keepdims=True)
        variance = np.var(inputs, axis=self._axes, keepdims=True)
        gamma = None if self.gamma is None else np.reshape(self.gamma, self._broadcast_shape)
        beta = None if self.beta is None else np.reshape(self.beta, self._broadcast_shape)
        return normalize(inputs, mean, variance, gamma, beta, self.epsilon)


class BatchNormalization(Layer):
    """Inputs normalised per feature (``axis``) over every other axis.

    In training (``training=True`` on a trainable layer) by the batch's mean and
    variance, which also move the statistics kept for inference:
    ``moving = moving * momentum + batch * (1 - momentum)``, assigned to the
    non-trainable ``moving_mean`` and ``moving_variance``.  Otherwise, and always
    when the layer is frozen (``trainable = False``, as in Keras), by those
    moving statistics.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise TypeError(f"BatchNormalization's axis is one int, not {axis!r}")
        self.axis = int(axis)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center, self.scale = center, scale
        self._initializers = {"beta": beta_initializer, "gamma": gamma_initializer,
                              "moving_mean": moving_mean_initializer,
                              "moving_variance": moving_variance_initializer}
        self._regularizers = {"beta": beta_regularizer, "gamma": gamma_regularizer}

    def build(self, input_shape):
        (axis,) = _normalized_axes(self.axis, input_shape, self.name)
        self._reduction_axes = tuple(d for d in range(len(input_shape)) if d != axis)
        self._broadcast_shape = tuple(input_shape[d] if d == axis else 1
                                      for d in range(len(input_shape)))
        shape = (input_shape[axis],)
        self.gamma = self._add_parameter("gamma", shape) if self.scale else None
        self.beta = self._add_parameter("beta", shape) if self.center else None
        self.moving_mean = self._add_parameter("moving_mean", shape, trainable=False)
        self.moving_variance = self._add_parameter("moving_variance", shape, trainable=False)

    def _add_parameter(self, name, shape, trainable=True):
        return self.add_weight(shape, self._initializers[name], trainable=trainable,
                               regularizer=self._regularizers.get(name), name=name)

    def call(self, inputs, training=False):
        if training and self.trainable:
            mean = np.mean(inputs, axis=self._reduction_axes)
            variance = np.var(inputs, axis=self._reduction_axes)
            self.moving_mean.assign(
                self.moving_mean * self.momentum + mean * (1.0 - self.momentum))
            self.moving_variance.assign(
                self.moving_variance * self.momentum + variance * (1.0 - self.momentum))
        else:
            mean, variance = self.moving_mean, self.moving_variance
        gamma, beta = (None if w is None else np.reshape(w, self._broadcast_shape)
                       for w in (self.gamma, self.beta))
        return normalize(inputs, np.reshape(mean, self._broadcast_shape),
                         np.reshape(variance, self._broadcast_shape), gamma, beta,
                         self.epsilon)


def normalize(x, mean, variance, gamma, beta, epsilon):
    """``gamma * (x - mean) / sqrt(variance + epsilon) + beta`` in the order Keras
    computes it; ``gamma`` and ``beta`` may be ``None``."""
    inv = 1 / np.sqrt(variance + epsilon)
    if gamma is not None:
        inv = inv * gamma
    offset = -mean * inv
    if beta is not None:
        offset = offset + beta
    return x * inv + offset


def _normalized_axes(axis, input_shape, layer):
    """``axis`` (an int or several) as sorted non-negative axes of ``input_shape``."""
    rank = len(input_shape)
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"{layer}: axis {a} is out of range for inputs of shape "
                             f"{tuple(input_shape)} ({rank} axes)")
    return tuple(sorted({int(a) % rank for a in axes}))
