"""Cross-entropy metrics: the loss functions of the same names averaged over every
sample seen by ``MeanMetricWrapper``, with the losses' arguments.

Entries labelled ``ignore_class`` count as 0 in the sparse one's average, as in
Keras, whose metric (unlike its loss) does not leave them out.
"""

from tracer.losses.crossentropy import (binary_crossentropy, categorical_crossentropy,
                                        sparse_categorical_crossentropy)
from tracer.metrics.reduction import MeanMetricWrapper


class BinaryCrossentropy(MeanMetricWrapper):
    """The mean binary cross-entropy (see ``tracer.losses.binary_crossentropy``)."""

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0):
        super().__init__(binary_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)
        self.from_logits, self.label_smoothing = from_logits, label_smoothing
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing}


class CategoricalCrossentropy(MeanMetricWrapper):
    """The mean categorical cross-entropy (see
    ``tracer.losses.categorical_crossentropy``)."""

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0, axis=-1):
        super().__init__(categorical_crossentropy, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing, "axis": self.axis}


class SparseCategoricalCrossentropy(MeanMetricWrapper):
    """The mean sparse categorical cross-entropy (see
    ``tracer.losses.sparse_categorical_crossentropy``)."""

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False,
                 ignore_class=None, axis=-1):
        super().__init__(sparse_categorical_crossentropy, name=name, dtype=dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)
        self.from_logits, self.ignore_class, self.axis = from_logits, ignore_class, axis
        self._direction = "down"

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype, "from_logits": self.from_logits,
                "ignore_class": self.ignore_class, "axis": self.axis}
