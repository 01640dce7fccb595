"""``LearningRateScheduler``: set the optimizer's learning rate at each epoch's start."""

import numpy as np

from tracer.callbacks.callback import Callback
from tracer.callbacks.messages import print_msg


class LearningRateScheduler(Callback):
    """Sets ``model.optimizer.learning_rate`` to ``schedule(epoch, lr)`` (epochs from 0,
    ``lr`` the current rate; ``schedule(epoch)`` also works) before each epoch, and puts
    the rate in the epoch's logs as ``learning_rate``."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def _update_optimizer_lr(self, optimizer, epoch):
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        try:
            learning_rate = self.schedule(epoch, float(optimizer.learning_rate))
        except TypeError:
            learning_rate = self.schedule(epoch)
        if not isinstance(learning_rate, (float, np.float32, np.float64)):
            raise ValueError("The output of the `schedule` function should be a float. "
                             f"Got: {learning_rate}")
        optimizer.learning_rate = learning_rate
        return learning_rate

    def on_epoch_begin(self, epoch, logs=None):
        learning_rate = self._update_optimizer_lr(self.model.optimizer, epoch)
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate "
                      f"to {learning_rate}.")

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        logs["learning_rate"] = float(self.model.optimizer.learning_rate)
