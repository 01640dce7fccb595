"""``Loss``, Keras 3's base class of losses, and ``LossFunctionWrapper``, a loss made
of a function that returns one value per sample.

Calling a loss converts both arguments to its dtype, computes the per-sample
values with ``call``, and weights and reduces them as Keras does (see
``tracer.losses.reduction``).  Everything is numpy on tapegen's tensors, so a
loss computed inside a ``GradientTape`` or a ``tracer.function`` is recorded.
"""

import re

from tracer.losses.reduction import (cast, floating_dtype, reduce_weighted_values,
                                     squeeze_or_expand_to_same_rank, standardize_reduction)


class Loss:
    """Keras 3's ``keras.losses.Loss``: subclasses define ``call(y_true, y_pred)``, the
    per-sample values; ``loss(y_true, y_pred, sample_weight=None)`` reduces them.

    ``reduction`` is ``"sum_over_batch_size"`` (the sum over every entry divided by
    their number, also called ``"mean"``), ``"sum"``, ``"mean_with_sample_weight"``
    (the sum divided by the weights' sum) or ``"none"``/``None`` (no reduction).
    ``dtype`` is the dtype of the computation; ``None`` takes the prediction's
    floating dtype (float64 for integer predictions), where Keras takes its global
    ``floatx``.
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or snake_case(type(self).__name__)
        self.reduction = standardize_reduction(reduction)
        self.dtype = dtype

    def __call__(self, y_true, y_pred, sample_weight=None):
        dtype = floating_dtype(y_pred, self.dtype)
        y_pred, y_true = cast(y_pred, dtype), cast(y_true, dtype)
        values = self.call(y_true, y_pred)
        return reduce_weighted_values(values, sample_weight=sample_weight,
                                      mask=self.mask(y_true, y_pred),
                                      reduction=self.reduction, dtype=dtype)

    def call(self, y_true, y_pred):
        """The loss of each sample; subclasses define it."""
        raise NotImplementedError(f"{type(self).__name__} must define call(y_true, y_pred), "
                                  "returning the loss of each sample")

    def mask(self, y_true, y_pred):
        """Which per-sample values count (a boolean array), or ``None`` for all.  Keras
        attaches such a mask to the values; a loss that leaves entries out says so here."""
        return None

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"


class LossFunctionWrapper(Loss):
    """A loss made of ``fn(y_true, y_pred, **kwargs)``, which returns one value per
    sample; ranks that differ by a last axis of 1 are aligned first, as in Keras."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        return {**super().get_config(), "fn": self.fn, **self._fn_kwargs}

    def __repr__(self):
        return f"<LossFunctionWrapper({self.fn}, kwargs={self._fn_kwargs})>"


def snake_case(name):
    """Keras' ``to_snake_case``: ``"MeanSquaredError"`` -> ``"mean_squared_error"``."""
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()
