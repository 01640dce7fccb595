"""``Sum``, ``Mean`` and ``MeanMetricWrapper``: totals over batches, as Keras 3 keeps them.

A ``Mean`` keeps a weighted ``total`` and a ``count``: a batch adds the sum of its
per-sample values (each first averaged over its other axes) and the number of its
samples, or the sum of their weights.  The result is ``total / count``, and 0 before
any sample (Keras' ``divide_no_nan``), decided on tensors, not in Python.
"""

import numpy as np

from tracer.losses.base import Loss
from tracer.losses.lookup import BY_NAME as LOSSES_BY_NAME
from tracer.losses.reduction import cast, divide_no_nan, squeeze_or_expand_to_same_rank
from tracer.metrics.base import Metric


def reduce_to_samplewise_values(values, sample_weight, reduce_fn, dtype):
    """``values`` reduced with ``reduce_fn`` to one value per sample (the first axis),
    weighted by ``sample_weight``, and the weights reduced alike (Keras' rules: values
    are first reduced to the weights' rank, the weights broadcast to the values)."""
    values = cast(values, dtype)
    if sample_weight is not None:
        sample_weight = cast(sample_weight, dtype)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        weight_ndim, values_ndim = len(sample_weight.shape), len(values.shape)
        if values_ndim > weight_ndim:
            values = reduce_fn(values, axis=tuple(range(weight_ndim, values_ndim)))
        sample_weight = np.broadcast_to(sample_weight, values.shape)
        values = values * sample_weight
        if weight_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=tuple(range(1, weight_ndim)))
    if len(values.shape) > 1:
        values = reduce_fn(values, axis=tuple(range(1, len(values.shape))))
    return values, sample_weight


class Sum(Metric):
    """The (weighted) sum of every value seen: ``[1, 3, 5, 7]`` gives 16, and 4 with
    ``sample_weight=[1, 1, 0, 0]``."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = reduce_to_samplewise_values(values, sample_weight, np.sum, self._dtype)
        self.total.assign_add(np.sum(values))

    def result(self):
        return self.total.read_value()


class Mean(Metric):
    """The (weighted) mean of every value seen: ``[1, 3, 5, 7]`` gives 4, and 2 with
    ``sample_weight=[1, 1, 0, 0]``."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), "zeros", name="total")
        self.count = self.add_variable((), "zeros", name="count")

    def update_state(self, values, sample_weight=None):
        values, sample_weight = reduce_to_samplewise_values(values, sample_weight, np.mean,
                                                            self._dtype)
        self.total.assign_add(np.sum(values))
        if sample_weight is not None:
            samples = np.sum(sample_weight)
        else:
            samples = values.shape[0] if len(values.shape) >= 1 else 1
        self.count.assign_add(samples)

    def result(self):
        return divide_no_nan(self.total.read_value(), self.count.read_value())


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred, **kwargs)``, a function of one value per
    sample (a loss function, say), over every sample seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs
        if isinstance(fn, Loss) or any(fn is loss for loss in LOSSES_BY_NAME.values()):
            self._direction = "down"  # a loss: smaller is better

    def update_state(self, y_true, y_pred, sample_weight=None):
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        return super().update_state(values, sample_weight=sample_weight)

    def get_config(self):
        return {**super().get_config(), "fn": self._fn, **self._fn_kwargs}
