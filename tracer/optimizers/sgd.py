"""``SGD``: gradient descent, with momentum and Nesterov momentum, as Keras 3's."""

from tracer.optimizers.base import Optimizer, _cast, current_value


class SGD(Optimizer):
    """``v -= lr * g``; with ``momentum``, ``m = momentum * m - lr * g`` and ``v += m``
    (``v += momentum * m - lr * g`` with ``nesterov``)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name="SGD"):
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm,
                         name)
        if not 0 <= momentum <= 1:
            raise ValueError(f"`momentum` must be a float between [0, 1], got {momentum}")
        self.momentum = momentum
        self.nesterov = nesterov

    def build_slots(self, variable):
        return {"momentum": 0} if self.momentum != 0 else {}

    def update_step(self, gradient, variable, learning_rate):
        value = current_value(variable)
        rate = _cast(learning_rate, value)
        if self.momentum == 0:
            variable.assign(value - gradient * rate)
            return
        momentum = _cast(self.momentum, value)
        m = self._get(variable, "momentum") * momentum - gradient * rate
        self._set(variable, "momentum", m)
        step = m * momentum - gradient * rate if self.nesterov else m
        variable.assign(value + step)

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}
