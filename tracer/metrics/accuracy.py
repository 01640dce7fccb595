"""Accuracy metrics, as Keras 3 computes them: a function that gives 1.0 or 0.0 per
sample, beside the ``MeanMetricWrapper`` that averages it over batches.

Predictions are compared with labels on tensors (``argmax``, ``>``, ``==``), so
they run in a traced function; nothing here has a gradient, nor needs one.
"""

import numpy as np

from tracer.losses.reduction import cast, floating_dtype, squeeze_or_expand_to_same_rank
from tracer.metrics.reduction import MeanMetricWrapper

_MATCH_DTYPE = np.float64
"""The dtype of the 0/1 matches (Keras' ``floatx``); the metric casts them to its own."""


def _as_array(value):
    return value if hasattr(value, "shape") else np.asarray(value)


def accuracy(y_true, y_pred):
    """1.0 where ``y_pred`` equals ``y_true``, entry by entry."""
    y_pred = _as_array(y_pred)
    y_true = cast(y_true, y_pred.dtype)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return cast(y_true == y_pred, _MATCH_DTYPE)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where ``y_pred > threshold`` matches the 0/1 label."""
    y_pred, y_true = _as_array(y_pred), _as_array(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    return cast(y_true == cast(y_pred > threshold, y_true.dtype), _MATCH_DTYPE)


def categorical_accuracy(y_true, y_pred):
    """1.0 where the largest prediction is the class of the one-hot label (the first
    largest, on ties)."""
    y_pred = _as_array(y_pred)
    y_true = cast(np.argmax(_as_array(y_true), axis=-1), floating_dtype(y_pred))
    return _class_matches(y_true, y_pred, squeeze=len(y_true.shape) == len(y_pred.shape))


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the largest prediction is the integer label's class; labels of
    shape ``(n, 1)`` count as ``(n,)``."""
    y_pred = _as_array(y_pred)
    y_true = cast(y_true, floating_dtype(y_pred))
    squeeze = len(y_true.shape) == len(y_pred.shape) and y_true.shape[-1] == 1
    matches = _class_matches(y_true, y_pred, squeeze)
    if len(matches.shape) > 1 and matches.shape[-1] == 1:
        matches = np.squeeze(matches, axis=-1)
    return matches


def _class_matches(y_true, y_pred, squeeze):
    """Class labels ``y_true`` against the ``argmax`` of ``y_pred``, in ``y_true``'s
    shape; ``squeeze`` drops the labels' last axis first, as Keras does."""
    shape = y_true.shape
    if squeeze:
        y_true = np.squeeze(y_true, axis=-1)
    predicted = cast(np.argmax(y_pred, axis=-1), y_true.dtype)
    matches = cast(y_true == predicted, _MATCH_DTYPE)
    return np.reshape(matches, shape) if squeeze else matches


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels, exactly (see ``accuracy``)."""

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name=name, dtype=dtype)
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class BinaryAccuracy(MeanMetricWrapper):
    """How often ``y_pred > threshold`` matches binary labels."""

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "threshold": self.threshold}


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the largest prediction is the one-hot label's class."""

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name=name, dtype=dtype)
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the largest prediction is the integer label's class."""

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)
        self._direction = "up"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}
