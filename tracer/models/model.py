"""``Model``: a layer that trains (Keras 3's subclassing API).

Subclass it, make layers in ``__init__`` and write ``call(inputs, training=False)``;
``compile`` then ``fit``.  A model is a ``tracer.Module``: its ``variables`` are its
weights, in ``get_weights`` order, and its layers' random state (``Dropout``'s).
"""

import os

from tracer.layers.base import Layer
from tracer.models.weights_file import load, save
from tracer.models.summary import summary_text
from tracer.models.trainer import Trainer


class Model(Trainer, Layer):
    """A layer with ``compile``, ``fit``, ``evaluate``, ``predict``, ``summary`` and
    weights saved to and loaded from ``.npz`` files."""

    def __init__(self, *, name=None, trainable=True, dtype=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype)
        self.history = None

    def summary(self, print_fn=None):
        """Print each layer, its output shape and its parameter count, then the totals."""
        (print_fn or print)(summary_text(self))

    def save_weights(self, filepath, overwrite=True):
        """Write the weights to ``filepath`` (``.npz``), atomically."""
        if not overwrite and os.path.exists(filepath):
            raise FileExistsError(f"{filepath} exists; pass overwrite=True to replace it")
        save(filepath, self.weights)

    def load_weights(self, filepath):
        """Read weights ``save_weights`` wrote; the model must be built (called once)."""
        if not self.built:
            raise ValueError(f"{self.name} has no weights yet: call it on a batch (or fit) "
                             "before load_weights, so its weights are built")
        load(filepath, self.weights)
