"""Keras 3's weight regularizers: penalties a layer adds to its ``losses``."""

import numpy as np


class Regularizer:
    """A penalty on one weight: ``regularizer(weight)`` is a scalar."""

    def __call__(self, weight):
        raise NotImplementedError


class L1L2(Regularizer):
    """``l1 * sum(|w|) + l2 * sum(w**2)``."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, weight):
        penalty = 0.0
        if self.l1:
            penalty = penalty + self.l1 * np.sum(np.abs(weight))
        if self.l2:
            penalty = penalty + self.l2 * np.sum(np.square(weight))
        return penalty

    def __repr__(self):
        return f"{type(self).__name__}(l1={self.l1}, l2={self.l2})"


class L1(L1L2):
    def __init__(self, l1=0.01):
        super().__init__(l1=l1)


class L2(L1L2):
    def __init__(self, l2=0.01):
        super().__init__(l2=l2)


REGULARIZERS = {"l1": L1, "l2": L2, "l1_l2": L1L2}


def get(identifier):
    """The regularizer ``identifier`` names (``"l2"``, with Keras' default factor), a
    regularizer or callable as it is, or ``None``."""
    if identifier is None or callable(identifier) and not isinstance(identifier, type):
        return identifier
    cls = REGULARIZERS.get(identifier)
    if cls is None:
        raise ValueError(f"unknown regularizer {identifier!r}: use one of "
                         f"{', '.join(REGULARIZERS)}, tracer.regularizers.L1L2(l1, l2), "
                         "or a function of the weight")
    return cls()
