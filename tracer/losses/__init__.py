"""Keras 3's losses on tapegen's tensors: classes that weight and reduce
(``MeanSquaredError()(y_true, y_pred, sample_weight=None)``), their functions, one
value per sample (``mean_squared_error(y_true, y_pred)``), and names
(``get("mse")``), with Keras' names, arguments, defaults and numbers.  They are
numpy calls, so a tape or a ``tracer.function`` records them and gradients flow."""

from tracer.losses.base import Loss, LossFunctionWrapper
from tracer.losses.crossentropy import (BinaryCrossentropy, CategoricalCrossentropy,
                                        SparseCategoricalCrossentropy, binary_crossentropy,
                                        categorical_crossentropy,
                                        sparse_categorical_crossentropy)
from tracer.losses.lookup import get, resolve
from tracer.losses.regression import (Huber, MeanAbsoluteError, MeanSquaredError, huber,
                                      mae, mean_absolute_error, mean_squared_error, mse)

__all__ = ["BinaryCrossentropy", "CategoricalCrossentropy", "Huber", "Loss",
           "LossFunctionWrapper", "MeanAbsoluteError", "MeanSquaredError",
           "SparseCategoricalCrossentropy", "binary_crossentropy", "categorical_crossentropy",
           "get", "huber", "mae", "mean_absolute_error", "mean_squared_error", "mse", "resolve",
           "sparse_categorical_crossentropy"]


def __dir__():
    """The public API, without the internal submodules."""
    return __all__
