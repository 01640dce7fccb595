"""``Callback``: the hooks ``fit``, ``evaluate`` and ``predict`` call, as Keras 3 names them.

Each hook does nothing by default; a subclass overrides the ones it needs.  The
batch hooks of training also call the older ``on_batch_begin``/``on_batch_end``,
so callbacks written against those still run, as in Keras.
"""


class Callback:
    """The base of the callbacks: ``model`` and ``params`` set by the loop, and every hook.

    ``params`` holds the loop's settings (``verbose``, ``epochs``, ``steps``); ``model``
    is the model being trained.  ``logs`` are dicts of Python floats: the running
    metrics after a batch, the epoch's metrics (``val_``-prefixed for validation)
    after an epoch.
    """

    def __init__(self):
        self.params = None
        self._model = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self._model = model

    @property
    def model(self):
        return self._model

    def on_batch_begin(self, batch, logs=None):
        """The older name of ``on_train_batch_begin``."""

    def on_batch_end(self, batch, logs=None):
        """The older name of ``on_train_batch_end``."""

    def on_epoch_begin(self, epoch, logs=None):
        """At the start of training epoch ``epoch`` (from 0)."""

    def on_epoch_end(self, epoch, logs=None):
        """At the end of training epoch ``epoch``, with its metrics and validation's."""

    def on_train_batch_begin(self, batch, logs=None):
        """Before training batch ``batch`` (from 0 in each epoch)."""
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        """After training batch ``batch``, with the epoch's running metrics."""
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        """Before a batch of ``evaluate`` or of validation in ``fit``."""

    def on_test_batch_end(self, batch, logs=None):
        """After a batch of ``evaluate`` or of validation, with the running metrics."""

    def on_predict_batch_begin(self, batch, logs=None):
        """Before a batch of ``predict``."""

    def on_predict_batch_end(self, batch, logs=None):
        """After a batch of ``predict``."""

    def on_train_begin(self, logs=None):
        """At the start of ``fit``."""

    def on_train_end(self, logs=None):
        """At the end of ``fit``, with the last epoch's logs."""

    def on_test_begin(self, logs=None):
        """At the start of ``evaluate`` or of a validation pass."""

    def on_test_end(self, logs=None):
        """At the end of ``evaluate`` or of a validation pass, with its metrics."""

    def on_predict_begin(self, logs=None):
        """At the start of ``predict``."""

    def on_predict_end(self, logs=None):
        """At the end of ``predict``."""
