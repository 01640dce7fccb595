"""``Metric``, Keras 3's base class of metrics: state kept in non-trainable variables.

Because the state is ``tracer.Variable``s changed by ``assign`` and ``assign_add``,
``update_state`` inside a ``tracer.function`` is part of the trace, and the
compiled step writes the new totals back at every call; ``result`` is numpy on
the variables, so it is a tensor eagerly and in a trace alike.
"""

import numpy as np

from tracer.losses.base import snake_case
from tracer.variable import Variable

_INITIALIZERS = {"zeros": np.zeros, "ones": np.ones}


class Metric:
    """Keras 3's ``keras.metrics.Metric``: subclasses make their state with
    ``add_variable`` in ``__init__``, change it in ``update_state``, and compute
    ``result()`` from it; ``reset_state()`` sets every variable back to zeros.

    ``dtype`` is the dtype of the state and the result: float64 unless given, where
    Keras takes its global ``floatx``.
    """

    def __init__(self, dtype=None, name=None):
        self.name = name or snake_case(type(self).__name__)
        self._dtype = np.dtype(dtype or np.float64)
        self._variables = []

    @property
    def dtype(self):
        """The name of the state's dtype (``"float64"``), as Keras gives it."""
        return self._dtype.name

    @property
    def variables(self):
        """The state: this metric's variables, then those of metrics it holds."""
        variables = list(self._variables)
        for value in vars(self).values():
            if isinstance(value, Metric):
                variables.extend(value.variables)
        return variables

    def add_variable(self, shape, initializer, dtype=None, aggregation="sum", name=None):
        """A non-trainable variable of the state.  ``initializer`` is ``"zeros"``,
        ``"ones"`` or a function of ``(shape, dtype)``; ``aggregation`` is accepted
        for Keras' signature (there is one replica)."""
        dtype = np.dtype(dtype or self._dtype)
        if isinstance(initializer, str):
            if initializer not in _INITIALIZERS:
                raise ValueError(f"Unknown initializer {initializer!r} for metric variable "
                                 f"{name!r}: use {sorted(_INITIALIZERS)} or a function of "
                                 "(shape, dtype)")
            initializer = _INITIALIZERS[initializer]
        variable = Variable(initializer(shape, dtype=dtype), trainable=False, name=name,
                            dtype=dtype)
        self._variables.append(variable)
        return variable

    def add_weight(self, shape=(), initializer=None, dtype=None, name=None):
        """``add_variable`` with Keras' other name and defaults (zeros)."""
        return self.add_variable(shape, initializer or "zeros", dtype=dtype, name=name)

    def update_state(self, *args, **kwargs):
        """Accumulate statistics; subclasses define it."""
        raise NotImplementedError(f"{type(self).__name__} must define update_state")

    def result(self):
        """The metric's value from its state; subclasses define it."""
        raise NotImplementedError(f"{type(self).__name__} must define result")

    def reset_state(self):
        """Every variable back to zeros, as between epochs."""
        for variable in self.variables:
            variable.assign(np.zeros(variable.shape, dtype=variable.dtype))

    def __call__(self, *args, **kwargs):
        """``update_state(*args, **kwargs)``, then the ``result()``."""
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"
