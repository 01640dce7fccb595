"""``Adam`` and ``AdamW``, as Keras 3's: moments of the gradient with bias correction,
the AMSGrad variant, and for AdamW the decoupled weight decay on by default."""

import numpy as np

from tracer.optimizers.base import Optimizer, _cast, current_value


class Adam(Optimizer):
    """``m += (g - m) (1 - beta_1)``, ``v += (g**2 - v) (1 - beta_2)``, and
    ``var -= lr sqrt(1 - beta_2**t) / (1 - beta_1**t) m / (sqrt(v) + epsilon)`` at step
    ``t`` (from 1); with ``amsgrad``, the largest ``v`` so far in place of ``v``."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="adam"):
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         name)
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = beta_1, beta_2, epsilon, amsgrad

    def build_slots(self, variable):
        slots = {"momentum": 0, "velocity": 0}
        return {**slots, "velocity_hat": 0} if self.amsgrad else slots

    def update_step(self, gradient, variable, learning_rate):
        value = current_value(variable)
        step = _cast(current_value(self.iterations) + 1, value)
        beta_1, beta_2 = _cast(self.beta_1, value), _cast(self.beta_2, value)
        alpha = (_cast(learning_rate, value) * np.sqrt(1 - beta_2 ** step)
                 / (1 - beta_1 ** step))
        m = self._get(variable, "momentum")
        m = m + (gradient - m) * (1 - beta_1)
        v = self._get(variable, "velocity")
        v = v + (np.square(gradient) - v) * (1 - beta_2)
        self._set(variable, "momentum", m)
        self._set(variable, "velocity", v)
        if self.amsgrad:
            v = np.maximum(self._get(variable, "velocity_hat"), v)
            self._set(variable, "velocity_hat", v)
        variable.assign(value - m * alpha / (np.sqrt(v) + _cast(self.epsilon, value)))

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon, "amsgrad": self.amsgrad}


class AdamW(Adam):
    """Adam with the weight decay decoupled from the gradient (on by default):
    ``var -= var * weight_decay * lr`` before each update."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="adamw"):
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: "
                             "weight_decay=None")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad, weight_decay,
                         clipnorm, clipvalue, global_clipnorm, name)
