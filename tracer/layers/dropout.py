"""Keras 3's ``Dropout``: random zeros while training, a new mask at every call."""

import numpy as np

from tracer.layers.base import Layer
from tracer.layers.seed_generator import SeedGenerator


class Dropout(Layer):
    """With ``training=True``, each element zeroed with probability ``rate`` and the
    others scaled by ``1 / (1 - rate)``; the inputs as they are otherwise.

    ``noise_shape`` gives the mask's shape, broadcast to the inputs' (``None`` for an
    axis of the inputs' size), to drop whole rows or channels.  The masks come from a
    ``SeedGenerator`` the layer holds, whose state is one of its ``variables`` but not
    of its ``weights``: a compiled step draws a new mask at every call, the one the
    eager step draws from the same state.
    """

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"Dropout's rate is a fraction in [0, 1], not {rate!r}")
        self.rate = rate
        self.noise_shape = _checked_noise_shape(noise_shape)
        self.seed = seed
        if rate > 0:
            self.seed_generator = SeedGenerator(seed, name=self.name)

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        if self.rate == 1:
            return np.zeros_like(inputs)
        keep = 1.0 - self.rate
        shape = _mask_shape(self.noise_shape, inputs.shape, self.name)
        kept = self.seed_generator.uniform(shape, like=inputs) < keep
        return np.where(kept, inputs / keep, 0)


def _checked_noise_shape(noise_shape):
    if noise_shape is None:
        return None
    if isinstance(noise_shape, str) or not hasattr(noise_shape, "__iter__"):
        raise ValueError("Dropout's noise_shape is a tuple of sizes (None for an axis of "
                         f"the inputs' size), not {noise_shape!r}")
    noise_shape = tuple(noise_shape)
    for size in noise_shape:
        if size is not None and (isinstance(size, bool) or not isinstance(size, int)
                                 or size < 1):
            raise ValueError("Dropout's noise_shape holds positive sizes or None, not "
                             f"{size!r} (in {noise_shape})")
    return noise_shape


def _mask_shape(noise_shape, input_shape, layer):
    """``noise_shape`` with the inputs' sizes for its ``None``s (the inputs' shape if
    there is none)."""
    if noise_shape is None:
        return tuple(input_shape)
    if len(noise_shape) != len(input_shape):
        raise ValueError(f"{layer}: noise_shape {noise_shape} has {len(noise_shape)} axes "
                         f"but the inputs have {len(input_shape)} (shape "
                         f"{tuple(input_shape)})")
    return tuple(size if noise is None else noise
                 for noise, size in zip(noise_shape, input_shape))
