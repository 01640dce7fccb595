"""Cross-entropy losses, binary, categorical and sparse categorical, computed as Keras 3
computes them, each function beside the class that reduces it.

From logits they use stable forms: ``log_softmax`` with its largest logit taken out
(held constant, so the gradient is still ``softmax - labels``), and the binary
loss as ``logaddexp`` terms, which never take the log of a rounded probability.
From probabilities Keras clips them to ``[EPSILON, 1 - EPSILON]`` before the log
(the categorical ones after dividing by their sum), and so does this module, so
the values agree with Keras to rounding.
"""

import warnings

import numpy as np

from tracer.core import Tensor
from tracer.losses.base import LossFunctionWrapper
from tracer.losses.reduction import cast, floating_dtype
from tracer.numpy.api import stop_gradient

EPSILON = 1e-7
"""Keras' ``backend.epsilon()``: how far probabilities are kept from 0 and 1."""


def log_softmax(logits, axis=-1):
    """``log(softmax(logits))`` along ``axis``, without overflow (JAX's formula)."""
    shift = np.max(logits, axis=axis, keepdims=True)
    if isinstance(shift, Tensor):
        shift = stop_gradient(shift)
    shifted = logits - shift
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def log_probabilities(y_pred, from_logits, axis):
    """The log-probabilities of classes along ``axis``: a stable ``log_softmax`` of
    logits, or the log of probabilities divided by their sum and clipped."""
    if from_logits:
        return log_softmax(y_pred, axis=axis)
    y_pred = y_pred / np.sum(y_pred, axis=axis, keepdims=True)
    return np.log(np.clip(y_pred, EPSILON, 1.0 - EPSILON))


def one_hot(labels, num_classes, axis, dtype):
    """Integer ``labels`` as one-hot rows along ``axis``; a label outside
    ``[0, num_classes)`` gives a row of zeros, as in Keras."""
    classes = np.arange(num_classes)
    expanded = np.expand_dims(labels, axis)
    classes = classes.reshape([-1 if i == axis % expanded.ndim else 1
                               for i in range(expanded.ndim)])
    return cast(expanded == classes, dtype)


def _same_shape(y_true, y_pred, function):
    if tuple(y_true.shape) != tuple(y_pred.shape):
        raise ValueError(f"{function}: y_true and y_pred must have the same shape; got "
                         f"y_true.shape={tuple(y_true.shape)}, "
                         f"y_pred.shape={tuple(y_pred.shape)}")


def _floating(y_true, y_pred):
    dtype = floating_dtype(y_pred)
    return cast(y_true, dtype), cast(y_pred, dtype)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """The binary cross-entropy of each entry, averaged over ``axis``.  Labels are
    0 or 1, smoothed towards 0.5 by ``label_smoothing``; ``y_pred`` holds
    probabilities, or logits with ``from_logits=True``."""
    y_true, y_pred = _floating(y_true, y_pred)
    _same_shape(y_true, y_pred, "binary_crossentropy")
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        # -log(sigmoid(x)) = logaddexp(0, -x): no probability is rounded to 0 or 1
        entries = y_true * np.logaddexp(-y_pred, 0) + (1.0 - y_true) * np.logaddexp(y_pred, 0)
    else:
        y_pred = np.clip(y_pred, EPSILON, 1.0 - EPSILON)
        entries = -(y_true * np.log(y_pred) + (1.0 - y_true) * np.log(1.0 - y_pred))
    return np.mean(entries, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0,
                             axis=-1):
    """``-sum(y_true * log(p), axis)`` for one-hot (or soft) labels; ``label_smoothing``
    mixes them with the uniform distribution over the classes."""
    if isinstance(axis, bool):
        raise ValueError(f"categorical_crossentropy: `axis` must be an int, got {axis!r}")
    y_true, y_pred = _floating(y_true, y_pred)
    if len(y_pred.shape) < 1:
        raise ValueError("categorical_crossentropy: y_true and y_pred must have at "
                         f"least one axis, got shape {tuple(y_pred.shape)}")
    if y_pred.shape[-1] == 1:
        warnings.warn("In loss categorical_crossentropy, expected y_pred.shape to be "
                      "(batch_size, num_classes) with num_classes > 1. Received: "
                      f"y_pred.shape={tuple(y_pred.shape)}. Consider using "
                      "'binary_crossentropy' if you only have 2 classes.",
                      SyntaxWarning, stacklevel=2)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / y_true.shape[-1]
    _same_shape(y_true, y_pred, "categorical_crossentropy")
    return -np.sum(y_true * log_probabilities(y_pred, from_logits, axis), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None,
                                    axis=-1):
    """The categorical cross-entropy of integer labels (one axis fewer than
    ``y_pred``, or a last axis of 1).  Entries labelled ``ignore_class`` get 0; the
    class ``SparseCategoricalCrossentropy`` also leaves them out of its average."""
    y_true, y_pred = _floating(y_true, y_pred)
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[axis] == 1:
        y_true = np.squeeze(y_true, axis=axis)
    valid = None
    if ignore_class is not None:
        valid = y_true != ignore_class
        y_true = np.where(valid, y_true, 0)
        # Keras fills ignored rows with 0, which divides 0 by 0 for probabilities; a
        # row of 1 gives the same losses (the row's is replaced by 0) and no NaN.
        y_pred = np.where(np.expand_dims(valid, axis), y_pred, 1)
    labels = _sparse_labels(y_true, y_pred)
    log_prob = log_probabilities(y_pred, from_logits, axis)
    losses = -np.sum(one_hot(labels, y_pred.shape[axis], axis, y_pred.dtype) * log_prob,
                     axis=axis)
    return losses if valid is None else np.where(valid, losses, 0.0)


def _sparse_labels(y_true, y_pred):
    """The labels as integers (truncated, as Keras casts them), checked against the
    predictions' shape."""
    labels = y_true.astype(np.int32)
    if len(labels.shape) == len(y_pred.shape) and labels.shape[-1] == 1:
        labels = np.squeeze(labels, axis=-1)
    if len(y_pred.shape) < 1:
        raise ValueError("sparse_categorical_crossentropy: y_pred must have at least one "
                         f"axis, got shape {tuple(y_pred.shape)}")
    if tuple(labels.shape) != tuple(y_pred.shape[:-1]):
        raise ValueError("sparse_categorical_crossentropy: y_true must have y_pred's shape "
                         f"without its last axis; got y_true.shape={tuple(labels.shape)}, "
                         f"y_pred.shape={tuple(y_pred.shape)}")
    return labels


class BinaryCrossentropy(LossFunctionWrapper):
    """Cross-entropy of binary labels (see ``binary_crossentropy``)."""

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="binary_crossentropy", dtype=None):
        super().__init__(binary_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing, "axis": self.axis}


class CategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy of one-hot labels (see ``categorical_crossentropy``)."""

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_crossentropy", dtype=None):
        super().__init__(categorical_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing, "axis": self.axis}


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy of integer labels (see ``sparse_categorical_crossentropy``).
    Entries labelled ``ignore_class`` are left out: ``"sum_over_batch_size"``
    averages over the others."""

    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 axis=-1, name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(sparse_categorical_crossentropy, name=name, reduction=reduction,
                         dtype=dtype, from_logits=from_logits, ignore_class=ignore_class,
                         axis=axis)
        self.from_logits, self.ignore_class, self.axis = from_logits, ignore_class, axis

    def mask(self, y_true, y_pred):
        if self.ignore_class is None:
            return None
        if len(y_true.shape) == len(y_pred.shape) and y_true.shape[self.axis] == 1:
            y_true = np.squeeze(y_true, axis=self.axis)
        return y_true != self.ignore_class

    def get_config(self):
        # Keras leaves ``axis`` out, so its ``from_config`` forgets it; kept here.
        return {"name": self.name, "reduction": self.reduction, "from_logits": self.from_logits,
                "ignore_class": self.ignore_class, "axis": self.axis}
