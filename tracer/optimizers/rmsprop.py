"""``RMSprop``, as Keras 3's: a moving average of squared gradients, optionally centred by
the average gradient, and momentum."""

import numpy as np

from tracer.optimizers.base import Optimizer, _cast, current_value


class RMSprop(Optimizer):
    """``v = rho v + (1 - rho) g**2`` and ``var -= lr g / sqrt(v + epsilon)``; ``centered``
    subtracts the squared average gradient under the root, ``momentum`` accumulates the
    increments."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="rmsprop"):
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         name)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered

    def build_slots(self, variable):
        slots = {"velocity": 0}
        if self.momentum > 0:
            slots["momentum"] = 0
        if self.centered:
            slots["average_gradient"] = 0
        return slots

    def update_step(self, gradient, variable, learning_rate):
        value = current_value(variable)
        rho, epsilon = _cast(self.rho, value), _cast(self.epsilon, value)
        v = rho * self._get(variable, "velocity") + (1 - rho) * np.square(gradient)
        self._set(variable, "velocity", v)
        if self.centered:
            average = rho * self._get(variable, "average_gradient") + (1 - rho) * gradient
            self._set(variable, "average_gradient", average)
            denominator = v - np.square(average) + epsilon
        else:
            denominator = v + epsilon
        increment = _cast(learning_rate, value) * gradient / np.sqrt(denominator)
        if self.momentum > 0:
            increment = _cast(self.momentum, value) * self._get(variable, "momentum") + increment
            self._set(variable, "momentum", increment)
        variable.assign(value - increment)

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "momentum": self.momentum,
                "epsilon": self.epsilon, "centered": self.centered}
