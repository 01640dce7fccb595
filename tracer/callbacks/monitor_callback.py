"""``MonitorCallback``: what ``EarlyStopping``, ``ModelCheckpoint`` and
``ReduceLROnPlateau`` share, deciding whether a monitored value improved."""

import warnings

import numpy as np

from tracer.callbacks.callback import Callback


def _named_metrics(model):
    """The model's metrics, with those inside a container (an object with a ``metrics``
    list, such as compiled metrics) listed one by one."""
    found = []
    for metric in getattr(model, "metrics", None) or ():
        inner = getattr(metric, "metrics", None)
        found.extend(inner if isinstance(inner, (list, tuple)) else [metric])
    return found


class MonitorCallback(Callback):
    """Watches ``monitor`` in the epoch's logs.  ``mode`` is ``"min"``, ``"max"`` or
    ``"auto"``: a loss is minimised, and another metric goes the way its ``_direction``
    says (``"up"`` or ``"down"``, as Keras' metrics say it).  A change smaller than
    ``min_delta`` is not an improvement."""

    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"{type(self).__name__} mode '{mode}' is unknown, fallback to "
                          "auto mode.", stacklevel=2)
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op = None

    def _set_monitor_op(self):
        if self.mode == "min":
            self.monitor_op = np.less
        elif self.mode == "max":
            self.monitor_op = np.greater
        else:
            self.monitor_op = self._inferred_monitor_op()
        if self.monitor_op is np.less:
            self.min_delta *= -1

    def _inferred_monitor_op(self):
        name = self.monitor.removeprefix("val_")
        monitor_op = np.less if name == "loss" else None
        for metric in _named_metrics(self.model):
            if getattr(metric, "name", None) == name and hasattr(metric, "_direction"):
                monitor_op = np.greater if metric._direction == "up" else np.less
        if monitor_op is None:
            raise ValueError(
                f"{type(self).__name__} callback received monitor={self.monitor}, but "
                "the direction of that metric is unknown: it is no loss and the model has "
                "no metric of that name that says whether it should rise or fall. Pass "
                "`mode='max'` to keep the highest value, or `mode='min'` for the lowest.")
        return monitor_op

    def _is_improvement(self, monitor_value, reference_value):
        if reference_value is None:
            return True
        return bool(self.monitor_op(monitor_value - self.min_delta, reference_value))
