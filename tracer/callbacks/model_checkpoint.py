"""``ModelCheckpoint``: save the model's weights during ``fit``, as ``.npz`` files.

Keras writes ``.weights.h5`` and ``.keras`` files; tapegen writes numpy's ``.npz``
(``model.save_weights``), so the path must end in ``.npz``.  Without
``save_weights_only`` the model's own ``save(path)`` is used when it has one, else
``save_weights``: the weights are then all that is saved.
"""

import os
import warnings

from tracer.callbacks.messages import print_msg
from tracer.callbacks.monitor_callback import MonitorCallback


class ModelCheckpoint(MonitorCallback):
    """Saves the model to ``filepath`` after every epoch (``save_freq="epoch"``) or every
    ``save_freq`` training batches.

    ``filepath`` may hold ``{epoch}`` (from 1), ``{batch}`` (from 1, when saving by
    batch) and any key of the logs: ``"ckpt.{epoch:02d}-{val_loss:.2f}.weights.npz"``.
    ``save_best_only`` saves only when ``monitor`` improves (by ``mode``) on the best so
    far, which starts at ``initial_value_threshold``.
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch",
                 initial_value_threshold=None):
        super().__init__(monitor, mode, initial_value_threshold)
        self.verbose = verbose
        self.filepath = os.fspath(filepath)
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = None
        self._current_epoch = 0
        if self.save_freq != "epoch" and not isinstance(self.save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {self.save_freq}. Expected save_freq "
                             "are 'epoch' or integer values")
        if not self.filepath.endswith(".npz"):
            raise ValueError(
                "ModelCheckpoint saves numpy .npz files (`model.save_weights`): the "
                "filepath must end in `.npz`, e.g. 'ckpt.{epoch:02d}.weights.npz'. "
                f"Received: filepath={self.filepath}")

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model(epoch=self._current_epoch, batch=batch, logs=logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save_model(epoch=epoch, batch=None, logs=logs)

    def _should_save_on_batch(self, batch):
        """Count the batches (a batch index that does not grow starts a new epoch)."""
        if self.save_freq == "epoch":
            return False
        if self._last_batch_seen is None or batch <= self._last_batch_seen:
            add_batches = batch + 1
        else:
            add_batches = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += add_batches
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _should_save_model(self, epoch, logs, filepath):
        logs = logs or {}
        if not self.save_best_only:
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available.",
                          stacklevel=2)
            return True
        if len(getattr(current, "shape", ())) > 0:
            warnings.warn("Can save best model only when `monitor` is a scalar value. "
                          f"Received: {current}. Falling back to `save_best_only=False`.")
            return True
        return self._improved(epoch, current, filepath)

    def _improved(self, epoch, current, filepath):
        if self.monitor_op is None:
            self._set_monitor_op()
        best_str = "None" if self.best is None else f"{self.best:.5f}"
        if not self._is_improvement(current, self.best):
            if self.verbose > 0:
                print_msg(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from "
                          f"{best_str}")
            return False
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best_str} to "
                      f"{current:.5f}, saving model to {filepath}")
        self.best = current
        return True

    def _save_model(self, epoch, batch, logs):
        filepath = self._get_file_path(epoch, batch, logs)
        if not self._should_save_model(epoch, logs, filepath):
            return
        if os.path.isdir(filepath):
            raise IsADirectoryError("Please specify a non-directory filepath for "
                                    f"ModelCheckpoint. Filepath used is an existing "
                                    f"directory: {filepath}")
        dirname = os.path.dirname(filepath)
        if dirname and not os.path.exists(dirname):
            os.makedirs(dirname)
        save = None if self.save_weights_only else getattr(self.model, "save", None)
        (save or self.model.save_weights)(filepath)
        if self.verbose > 0:
            print_msg(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")

    def _get_file_path(self, epoch, batch, logs):
        logs = logs or {}
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f"Reason: {e}. The placeholders must be `epoch`, `batch` or keys "
                           f"of the logs: {', '.join(sorted(logs))}") from None
