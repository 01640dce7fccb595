"""``CSVLogger``: one CSV row per epoch, in Keras' columns and number formatting."""

import collections.abc
import csv
import os

import numpy as np

from tracer.callbacks.callback import Callback


def _csv_value(value):
    """A string as is, a sequence as ``"[a, b]"``, any other value for ``csv`` to write."""
    if isinstance(value, str):
        return value
    if isinstance(value, collections.abc.Iterable) and not (
            isinstance(value, np.ndarray) and value.ndim == 0):
        return f'"[{", ".join(map(str, value))}]"'
    return value


class CSVLogger(Callback):
    """Writes ``epoch`` and the epoch's logs to ``filename``, one row per epoch.

    The columns are ``epoch`` then the first epoch's keys sorted; when none starts with
    ``val_``, a ``val_`` column follows for each (``NA`` where a value is missing).
    ``append`` adds to an existing file, with a header only if it is empty.
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        else:
            mode = "w"
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode)
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(key.startswith("val_") for key in self.keys):
                self.keys.extend([f"val_{key}" for key in self.keys])
        if not self.writer:
            self.writer = self._new_writer()
        row = {"epoch": epoch}
        row.update((key, _csv_value(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def _new_writer(self):
        dialect = type("CustomDialect", (csv.excel,), {"delimiter": self.sep})
        writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                dialect=dialect)
        if self.append_header:
            writer.writeheader()
        return writer

    def on_train_end(self, logs=None):
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None
