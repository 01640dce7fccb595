"""``CallbackList``: one object that calls every callback's hook, as ``fit`` needs.

Logs are flattened and turned into Python floats once, before the callbacks see
them, with keys in sorted order (Keras' ``pythonify_logs``): that is why the
progress bar shows ``accuracy`` before ``loss``.  All callbacks of an epoch share
that one dict, so a key a callback adds (``learning_rate``) reaches those after it.
Hooks run in order, in the caller's thread.
"""

from tracer.callbacks.callback import Callback
from tracer.callbacks.history import History
from tracer.callbacks.progbar_logger import ProgbarLogger


def pythonify_logs(logs):
    """``logs`` with nested dicts flattened, keys sorted and each value that ``float``
    accepts made a Python float (tensors and numpy scalars included)."""
    result = {}
    for key, value in sorted((logs or {}).items()):
        if isinstance(value, dict):
            result.update(pythonify_logs(value))
            continue
        try:
            value = float(value)
        except (TypeError, ValueError):
            pass
        result[key] = value
    return result


def _flattened(callbacks):
    if isinstance(callbacks, (list, tuple)):
        return [c for item in callbacks for c in _flattened(item)]
    return [callbacks]


class CallbackList(Callback):
    """Holds ``callbacks`` (a list, possibly nested) and calls each one's hooks.

    ``add_history`` and ``add_progbar`` append a ``History`` and a ``ProgbarLogger``
    unless the list has one already; the ``History`` becomes ``model.history``.
    ``params`` (``verbose``, ``epochs``, ``steps``) go to every callback.
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        self.callbacks = _flattened(callbacks) if callbacks else []
        self._in_begin_end_block_count = 0
        self._add_default_callbacks(add_history, add_progbar)
        self._model = None
        self.set_model(model)
        self.set_params(params)

    def _add_default_callbacks(self, add_history, add_progbar):
        self._progbar = next((c for c in self.callbacks if isinstance(c, ProgbarLogger)), None)
        self._history = next((c for c in self.callbacks if isinstance(c, History)), None)
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        if self._progbar is None and add_progbar:
            self._progbar = ProgbarLogger()
            self.callbacks.append(self._progbar)

    def set_params(self, params):
        self.params = params
        if params:
            for callback in self.callbacks:
                callback.set_params(params)

    def set_model(self, model):
        if model is None:
            return
        super().set_model(model)
        if self._history:
            model.history = self._history
        for callback in self.callbacks:
            callback.set_model(model)

    def _call_each(self, hook, *args, logs=None, by_keyword=False):
        logs = pythonify_logs(logs)
        for callback in self.callbacks:
            if by_keyword:
                getattr(callback, hook)(*args, logs=logs)
            else:
                getattr(callback, hook)(*args, logs)

    def _begin(self, hook, logs):
        self._in_begin_end_block_count += 1
        self._call_each(hook, logs=logs)

    def _end(self, hook, logs):
        self._call_each(hook, logs=logs)
        self._in_begin_end_block_count -= 1
        if self._in_begin_end_block_count < 0:
            raise ValueError(f"`{hook}` was called without its begin hook: call "
                             f"`{hook.replace('_end', '_begin')}` first")

    def on_batch_begin(self, batch, logs=None):
        self._call_each("on_batch_begin", batch, logs=logs, by_keyword=True)

    def on_batch_end(self, batch, logs=None):
        self._call_each("on_batch_end", batch, logs=logs, by_keyword=True)

    def on_epoch_begin(self, epoch, logs=None):
        self._call_each("on_epoch_begin", epoch, logs=logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call_each("on_epoch_end", epoch, logs=logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._call_each("on_train_batch_begin", batch, logs=logs, by_keyword=True)

    def on_train_batch_end(self, batch, logs=None):
        self._call_each("on_train_batch_end", batch, logs=logs, by_keyword=True)

    def on_test_batch_begin(self, batch, logs=None):
        self._call_each("on_test_batch_begin", batch, logs=logs, by_keyword=True)

    def on_test_batch_end(self, batch, logs=None):
        self._call_each("on_test_batch_end", batch, logs=logs, by_keyword=True)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call_each("on_predict_batch_begin", batch, logs=logs, by_keyword=True)

    def on_predict_batch_end(self, batch, logs=None):
        self._call_each("on_predict_batch_end", batch, logs=logs, by_keyword=True)

    def on_train_begin(self, logs=None):
        self._begin("on_train_begin", logs)

    def on_train_end(self, logs=None):
        self._end("on_train_end", logs)

    def on_test_begin(self, logs=None):
        self._begin("on_test_begin", logs)

    def on_test_end(self, logs=None):
        self._end("on_test_end", logs)

    def on_predict_begin(self, logs=None):
        self._begin("on_predict_begin", logs)

    def on_predict_end(self, logs=None):
        self._end("on_predict_end", logs)
