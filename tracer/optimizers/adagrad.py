"""``Adagrad``, as Keras 3's: each element's learning rate divided by the root of its
summed squared gradients."""

import numpy as np

from tracer.optimizers.base import Optimizer, _cast, current_value


class Adagrad(Optimizer):
    """``a += g**2`` and ``var -= lr g / sqrt(a + epsilon)``, ``a`` starting at
    ``initial_accumulator_value``."""

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 name="adagrad"):
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         name)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def build_slots(self, variable):
        return {"accumulator": self.initial_accumulator_value}

    def update_step(self, gradient, variable, learning_rate):
        value = current_value(variable)
        accumulator = self._get(variable, "accumulator") + np.square(gradient)
        self._set(variable, "accumulator", accumulator)
        step = (_cast(learning_rate, value) * gradient
                / np.sqrt(accumulator + _cast(self.epsilon, value)))
        variable.assign(value - step)

    def get_config(self):
        return {**super().get_config(),
                "initial_accumulator_value": self.initial_accumulator_value,
                "epsilon": self.epsilon}
