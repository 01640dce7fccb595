"""Keras 3's callbacks for ``Model.fit``, ``evaluate`` and ``predict``: hooks called at
the start and end of training, of each epoch and of each batch.  Names, arguments,
defaults, decisions and printed output are Keras 3's; checkpoints are ``.npz`` files."""

from tracer.callbacks.callback import Callback
from tracer.callbacks.callback_list import CallbackList
from tracer.callbacks.csv_logger import CSVLogger
from tracer.callbacks.early_stopping import EarlyStopping
from tracer.callbacks.history import History
from tracer.callbacks.lambda_callback import LambdaCallback
from tracer.callbacks.learning_rate_scheduler import LearningRateScheduler
from tracer.callbacks.model_checkpoint import ModelCheckpoint
from tracer.callbacks.progbar import Progbar
from tracer.callbacks.progbar_logger import ProgbarLogger
from tracer.callbacks.reduce_lr_on_plateau import ReduceLROnPlateau
from tracer.callbacks.terminate_on_nan import TerminateOnNaN

__all__ = ["CSVLogger", "Callback", "CallbackList", "EarlyStopping", "History",
           "LambdaCallback", "LearningRateScheduler", "ModelCheckpoint", "Progbar",
           "ProgbarLogger", "ReduceLROnPlateau", "TerminateOnNaN"]
