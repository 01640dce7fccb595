"""Metrics by name, as ``compile(metrics=["accuracy", "mse"])`` names them: Keras 3's
``metrics.get`` and the resolution ``compile`` applies (``"accuracy"`` picked from
the shapes of the labels and predictions, functions averaged by a
``MeanMetricWrapper``, each metric named by the string given)."""

from tracer.losses.base import snake_case
from tracer.losses.lookup import by_identifier, is_binary_or_sparse_categorical, object_name
from tracer.metrics.accuracy import (Accuracy, BinaryAccuracy, CategoricalAccuracy,
                                     SparseCategoricalAccuracy)
from tracer.metrics.base import Metric
from tracer.metrics.probabilistic import (BinaryCrossentropy, CategoricalCrossentropy,
                                          SparseCategoricalCrossentropy)
from tracer.metrics.reduction import Mean, MeanMetricWrapper, Sum
from tracer.metrics.regression import MeanAbsoluteError, MeanSquaredError

_CLASSES = (Accuracy, BinaryAccuracy, BinaryCrossentropy, CategoricalAccuracy,
            CategoricalCrossentropy, Mean, MeanAbsoluteError, MeanSquaredError,
            SparseCategoricalAccuracy, SparseCategoricalCrossentropy, Sum)

BY_NAME = {**{cls.__name__: cls for cls in _CLASSES},
           **{snake_case(cls.__name__): cls for cls in _CLASSES},
           "bce": BinaryCrossentropy, "BCE": BinaryCrossentropy,
           "mae": MeanAbsoluteError, "MAE": MeanAbsoluteError,
           "mse": MeanSquaredError, "MSE": MeanSquaredError}
"""Every name ``get`` knows, each for a class: ``get`` gives an instance."""


def get(identifier):
    """A metric from a name (``"mse"``, ``"sparse_categorical_accuracy"``,
    ``"SparseCategoricalAccuracy"``), a config ``{"class_name": ..., "config":
    {...}}``, a ``Metric`` or a function; ``None`` stays ``None``.  ``"accuracy"`` is
    ``Accuracy`` (exact equality) here; ``resolve`` applies ``compile``'s reading."""
    return by_identifier(identifier, BY_NAME, _CLASSES, "metric")


def resolve_accuracy(identifier, y_true, y_pred):
    """The accuracy ``compile`` means by ``"accuracy"`` or ``"acc"``, read from the
    shapes as Keras 3 reads them: ``BinaryAccuracy`` for one prediction per sample,
    ``SparseCategoricalAccuracy`` for integer labels, else ``CategoricalAccuracy``;
    named by the string given."""
    is_binary, is_sparse = is_binary_or_sparse_categorical(y_true, y_pred)
    cls = (BinaryAccuracy if is_binary else
           SparseCategoricalAccuracy if is_sparse else CategoricalAccuracy)
    return cls(name=str(identifier))


def resolve(identifier, y_true, y_pred):
    """The ``Metric`` that ``compile(metrics=[identifier])`` makes for outputs like
    ``y_pred`` with labels like ``y_true`` (Keras' ``compile_utils.get_metric``):
    ``"accuracy"``/``"acc"`` by ``resolve_accuracy``, other names by ``get``; a
    function is averaged by a ``MeanMetricWrapper``.  A metric given by a string
    takes that string as its name (so ``"mse"`` reports as ``mse``)."""
    if identifier is None:
        raise ValueError("Expected a metric, received None")
    if str(identifier).lower() in ("accuracy", "acc"):
        metric = resolve_accuracy(identifier, y_true, y_pred)
    else:
        metric = get(identifier)
    name = identifier if isinstance(identifier, str) else object_name(metric)
    if not isinstance(metric, Metric):
        metric = MeanMetricWrapper(metric)
    metric.name = name
    return metric
