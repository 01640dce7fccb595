"""Regression metrics: the mean squared and mean absolute error over every sample seen,
the loss functions of the same names averaged by ``MeanMetricWrapper``."""

from tracer.losses.regression import mean_absolute_error, mean_squared_error
from tracer.metrics.reduction import MeanMetricWrapper


class MeanSquaredError(MeanMetricWrapper):
    """The mean of ``mean(square(y_true - y_pred), axis=-1)`` over the samples seen."""

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name=name, dtype=dtype)
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class MeanAbsoluteError(MeanMetricWrapper):
    """The mean of ``mean(abs(y_true - y_pred), axis=-1)`` over the samples seen."""

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name=name, dtype=dtype)
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}
