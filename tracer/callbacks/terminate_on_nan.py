"""``TerminateOnNaN``: stop ``fit`` at the first batch whose loss is NaN or infinite."""

import numpy as np

from tracer.callbacks.callback import Callback
from tracer.callbacks.messages import print_msg


class TerminateOnNaN(Callback):
    """After a training batch whose ``loss`` is NaN or infinite, sets
    ``model.stop_training`` (the epoch ends, ``fit`` returns), or with ``raise_error``
    raises a ``RuntimeError`` at once."""

    def __init__(self, raise_error=False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is None or not (np.isnan(loss) or np.isinf(loss)):
            return
        if self.raise_error:
            raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss value: "
                               f"{loss}. Terminating training immediately.")
        print_msg(f"Batch {batch}: Invalid loss, terminating training")
        self.model.stop_training = True
