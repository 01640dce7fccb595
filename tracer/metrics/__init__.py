"""Keras 3's metrics on tapegen's tensors: state in non-trainable ``tracer.Variable``s,
``update_state(y_true, y_pred, sample_weight=None)``, ``result()`` and
``reset_state()``, with Keras' names, arguments and numbers.  Updates are
assignments, so inside a ``tracer.function`` they are traced and written back."""

from tracer.metrics.accuracy import (Accuracy, BinaryAccuracy, CategoricalAccuracy,
                                     SparseCategoricalAccuracy, binary_accuracy,
                                     categorical_accuracy, sparse_categorical_accuracy)
from tracer.metrics.base import Metric
from tracer.metrics.lookup import get, resolve, resolve_accuracy
from tracer.metrics.probabilistic import (BinaryCrossentropy, CategoricalCrossentropy,
                                          SparseCategoricalCrossentropy)
from tracer.metrics.reduction import Mean, MeanMetricWrapper, Sum
from tracer.metrics.regression import MeanAbsoluteError, MeanSquaredError

__all__ = ["Accuracy", "BinaryAccuracy", "BinaryCrossentropy", "CategoricalAccuracy",
           "CategoricalCrossentropy", "Mean", "MeanAbsoluteError", "MeanMetricWrapper",
           "MeanSquaredError", "Metric", "SparseCategoricalAccuracy",
           "SparseCategoricalCrossentropy", "Sum", "binary_accuracy", "categorical_accuracy",
           "get", "resolve", "resolve_accuracy", "sparse_categorical_accuracy"]


def __dir__():
    """The public API, without the internal submodules."""
    return __all__
