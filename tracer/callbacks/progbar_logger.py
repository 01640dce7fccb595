"""``ProgbarLogger``: the progress output of ``fit``, ``evaluate`` and ``predict``."""

from tracer.callbacks.callback import Callback
from tracer.callbacks.messages import print_msg
from tracer.callbacks.progbar import Progbar


class ProgbarLogger(Callback):
    """Prints ``Epoch i/n`` (when there is more than one epoch) and a ``Progbar`` per
    epoch, as Keras does: ``verbose=1`` a live bar, ``verbose=2`` one line per epoch,
    ``"auto"`` meaning 1.  Metrics are shown as the logs give them (they are already
    running averages).  Inside ``fit`` the validation pass prints nothing of its own:
    its ``val_`` metrics end the epoch's line."""

    def __init__(self):
        super().__init__()
        self.seen = 0
        self.progbar = None
        self.target = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params):
        verbose = params["verbose"]
        self.verbose = 1 if verbose == "auto" else verbose
        self.epochs = params["epochs"]
        self.target = params["steps"]

    def on_train_begin(self, logs=None):
        self._called_in_fit = True

    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset_progbar()
            self._maybe_init_progbar()

    def on_predict_begin(self, logs=None):
        self._reset_progbar()
        self._maybe_init_progbar()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset_progbar()
        self._maybe_init_progbar()
        if self.verbose and self.epochs > 1:
            print_msg(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch, logs=None):
        self._update_progbar(batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._update_progbar(batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._update_progbar(batch, None)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize_progbar(logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finalize_progbar(logs)

    def on_predict_end(self, logs=None):
        self._finalize_progbar(logs)

    def _reset_progbar(self):
        self.seen = 0
        self.progbar = None

    def _maybe_init_progbar(self):
        if self.progbar is None:
            self.progbar = Progbar(target=self.target, verbose=self.verbose,
                                   unit_name="step", stateless_metrics=set())

    def _update_progbar(self, batch, logs=None):
        logs = logs or {}
        self._maybe_init_progbar()
        self.seen = batch + 1
        if self.verbose == 1:
            self.progbar.update(self.seen, list(logs.items()), finalize=False)

    def _finalize_progbar(self, logs):
        """The last update; an epoch of unknown length learns its length here."""
        logs = logs or {}
        if self.target is None:
            self.target = self.seen
            self.progbar.target = self.target
        self.progbar.update(self.target, list(logs.items()), finalize=True)
