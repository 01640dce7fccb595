"""Regression losses: mean squared error, mean absolute error and Huber, as Keras 3
computes them, each function beside the class that reduces it.

The functions return one value per sample: the mean over the last axis.
"""

import numpy as np

from tracer.losses.base import LossFunctionWrapper
from tracer.losses.reduction import cast, floating_dtype, squeeze_or_expand_to_same_rank


def aligned(y_true, y_pred):
    """Both arguments as arrays of the prediction's floating dtype, their ranks aligned
    as Keras aligns them (a last axis of 1 squeezed, or added to a vector)."""
    dtype = floating_dtype(y_pred)
    return squeeze_or_expand_to_same_rank(cast(y_true, dtype), cast(y_pred, dtype))


def mean_squared_error(y_true, y_pred):
    """``mean(square(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = aligned(y_true, y_pred)
    return np.mean(np.square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = aligned(y_true, y_pred)
    return np.mean(np.abs(y_true - y_pred), axis=-1)


def huber(y_true, y_pred, delta=1.0):
    """The mean over the last axis of ``0.5 * e**2`` where ``|e| <= delta``, else
    ``delta * |e| - 0.5 * delta**2``, for ``e = y_pred - y_true``: quadratic near
    zero, linear beyond ``delta``, so outliers pull less than in a squared error."""
    y_true, y_pred = aligned(y_true, y_pred)
    delta = np.asarray(delta, dtype=y_pred.dtype)
    error = y_pred - y_true
    abs_error = np.abs(error)
    half = np.asarray(0.5, dtype=y_pred.dtype)
    return np.mean(np.where(abs_error <= delta, half * np.square(error),
                            delta * abs_error - half * np.square(delta)), axis=-1)


mse = mean_squared_error
mae = mean_absolute_error


class MeanSquaredError(LossFunctionWrapper):
    """The mean of squared errors, ``mean(square(y_true - y_pred))``."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error",
                 dtype=None):
        super().__init__(mean_squared_error, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}


class MeanAbsoluteError(LossFunctionWrapper):
    """The mean of absolute errors, ``mean(abs(y_true - y_pred))``."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error",
                 dtype=None):
        super().__init__(mean_absolute_error, name=name, reduction=reduction, dtype=dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}


class Huber(LossFunctionWrapper):
    """The Huber loss (see ``huber``), quadratic up to ``delta`` and linear beyond."""

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss",
                 dtype=None):
        super().__init__(huber, name=name, reduction=reduction, dtype=dtype, delta=delta)
        self.delta = delta

    def get_config(self):
        # Keras leaves ``delta`` out, so its ``from_config`` forgets it; kept here.
        return {"name": self.name, "reduction": self.reduction, "delta": self.delta}
