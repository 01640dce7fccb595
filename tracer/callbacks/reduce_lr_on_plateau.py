"""``ReduceLROnPlateau``: lower the learning rate when the monitored metric stalls."""

import warnings

import numpy as np

from tracer.callbacks.messages import print_msg
from tracer.callbacks.monitor_callback import MonitorCallback


class ReduceLROnPlateau(MonitorCallback):
    """Multiplies the learning rate by ``factor`` (never below ``min_lr``) after
    ``patience`` epochs without an improvement of ``monitor`` by more than ``min_delta``,
    then waits ``cooldown`` epochs before counting again.  Puts the rate in the epoch's
    logs as ``learning_rate``."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0.0):
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0: the rate "
                             f"would not go down. Received factor={factor}")
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0

    def _reset(self):
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = logs or {}
        logs["learning_rate"] = float(self.model.optimizer.learning_rate)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn("Learning rate reduction is conditioned on metric "
                          f"`{self.monitor}` which is not available. Available metrics are: "
                          f"{','.join(logs)}.", stacklevel=2)
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience and self._reduce_lr(epoch):
                self.cooldown_counter = self.cooldown
                self.wait = 0

    def _reduce_lr(self, epoch):
        """Lower the rate unless it is at ``min_lr`` already; whether it was lowered."""
        optimizer = self.model.optimizer
        old_lr = float(optimizer.learning_rate)
        if not old_lr > np.float32(self.min_lr):
            return False
        new_lr = max(old_lr * self.factor, self.min_lr)
        optimizer.learning_rate = new_lr
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to "
                      f"{new_lr}.")
        return True

    def in_cooldown(self):
        return self.cooldown_counter > 0
