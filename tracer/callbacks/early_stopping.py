"""``EarlyStopping``: stop ``fit`` once the monitored metric stops improving."""

import warnings

from tracer.callbacks.messages import print_msg
from tracer.callbacks.monitor_callback import MonitorCallback


class EarlyStopping(MonitorCallback):
    """Sets ``model.stop_training`` after ``patience`` epochs without an improvement of
    ``monitor`` by more than ``min_delta``, counted from epoch ``start_from_epoch``.

    With a ``baseline``, an epoch that does not beat it does not reset the count.
    ``restore_best_weights`` puts back, at the end of training, the weights of the best
    epoch (``model.get_weights``/``set_weights``), whether training stopped early or not.
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0):
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights = None
        self.start_from_epoch = start_from_epoch

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print_msg(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print_msg("Restoring model weights from the end of the best epoch: "
                          f"{self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs):
        """``logs[monitor]``, or ``None`` with a warning naming the metrics there are."""
        logs = logs or {}
        monitor_value = logs.get(self.monitor)
        if monitor_value is None:
            warnings.warn(f"Early stopping conditioned on metric `{self.monitor}` which is "
                          f"not available. Available metrics are: {','.join(logs)}",
                          stacklevel=2)
        return monitor_value
