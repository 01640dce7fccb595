"""``History``: the per-epoch logs that ``fit`` returns."""

from tracer.callbacks.callback import Callback


class History(Callback):
    """Records each epoch's logs: ``history`` maps a metric's name to its values by
    epoch, ``epoch`` lists the epochs run.  ``fit`` adds one and returns it; it is also
    ``model.history``."""

    def __init__(self):
        super().__init__()
        self.history = {}

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.epoch.append(epoch)
        for key, value in logs.items():
            self.history.setdefault(key, []).append(value)
        self.model.history = self
