"""``LambdaCallback``: a callback made of plain functions, for one-off hooks."""

from tracer.callbacks.callback import Callback


class LambdaCallback(Callback):
    """Each given function becomes that hook: ``on_epoch_begin(epoch, logs)``,
    ``on_epoch_end(epoch, logs)``, ``on_train_begin(logs)``, ``on_train_end(logs)``,
    ``on_train_batch_begin(batch, logs)``, ``on_train_batch_end(batch, logs)``; any
    other hook may be given by its name as a keyword."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None, on_train_batch_end=None,
                 **kwargs):
        super().__init__()
        self.__dict__.update(kwargs)
        hooks = {"on_epoch_begin": on_epoch_begin, "on_epoch_end": on_epoch_end,
                 "on_train_begin": on_train_begin, "on_train_end": on_train_end,
                 "on_train_batch_begin": on_train_batch_begin,
                 "on_train_batch_end": on_train_batch_end}
        self.__dict__.update({name: f for name, f in hooks.items() if f is not None})
