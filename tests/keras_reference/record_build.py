"""Keras set up as the references need it, and Keras objects built from stored specs.

Importing this module first fixes the backend (JAX) and float64 before Keras loads.
Two things stand between Keras-on-JAX and float64, and both are undone here:

- without ``jax_enable_x64``, JAX silently makes every float64 request float32;
- Keras' dtype promotion (``result_type``) then still turns float64 into float32 on every
  backend but TensorFlow, "to be aligned with JAX's default behavior", whatever ``floatx``
  says. ``ops.mean`` (so every mean-reduced loss and metric), ``ops.var``, ``ops.tanh``
  (so SimpleRNN), ``ops.logaddexp`` and others would compute in float32 and lose the
  precision the references are for. Keras reads that demotion from one table, which is
  emptied of float64 here. With JAX's x64 mode on, that is the float64 TensorFlow gives.
"""

import os
import zlib

os.environ["KERAS_BACKEND"] = "jax"

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras.src.backend.common import dtypes  # noqa: E402

keras.config.set_floatx("float64")
dtypes.BIT64_TO_BIT32_DTYPE.pop("float64")


def numeric(value):
    """A Keras or JAX value as a float64 numpy array (0-d for a scalar); a float of
    lower precision is refused, since it means Keras left float64 somewhere."""
    array = np.asarray(keras.ops.convert_to_numpy(value))
    if array.dtype.kind == "f" and array.dtype != np.float64:
        raise TypeError(f"Keras computed in {array.dtype}, not float64")
    return array.astype(np.float64)


def make(module, spec):
    """A Keras object from ``{"class", "args"}`` looked up in ``module``; a string is
    passed on for Keras to resolve. An argument that is itself a spec is a regularizer."""
    if isinstance(spec, str):
        return spec
    args = {key: make(keras.regularizers, value) if isinstance(value, dict) else value
            for key, value in spec.get("args", {}).items()}
    return getattr(module, spec["class"])(**args)


def sequential(spec):
    layers = [make(keras.layers, layer) for layer in spec["layers"]]
    return keras.Sequential([keras.Input(tuple(spec["input_shape"])), *layers])


def compile_model(model, spec):
    loss = make(keras.losses, spec["loss"]) if spec["loss"] is not None else None
    model.compile(optimizer=make(keras.optimizers, spec["optimizer"]), loss=loss,
                  metrics=spec["metrics"])


def draw_weight(rng, name, shape):
    """A start away from Keras' own initializers, so that nothing depends on them:
    Glorot-uniform kernels, non-zero biases and BatchNormalization statistics."""
    if name in ("kernel", "recurrent_kernel"):
        limit = np.sqrt(6.0 / (shape[0] + shape[-1]))
        return rng.uniform(-limit, limit, shape)
    if name == "gamma":
        return 1.0 + 0.1 * rng.standard_normal(shape)
    if name == "moving_variance":
        return rng.uniform(0.5, 1.5, shape)
    if name == "embeddings":
        return 0.5 * rng.standard_normal(shape)
    return 0.1 * rng.standard_normal(shape)


def set_drawn_weights(rng, layer_or_model):
    """Draw every weight in ``get_weights`` order, set them, and return them."""
    weights = [draw_weight(rng, v.name, tuple(v.shape)) for v in layer_or_model.weights]
    layer_or_model.set_weights(weights)
    return weights


def weight_names(layer_or_model):
    """Short names (``kernel``, ``moving_mean``) in ``get_weights`` order: Keras' paths
    hold layer names numbered by how many layers the process made before."""
    return [v.name for v in layer_or_model.weights]


def seeded(name):
    """``(seed, generator)`` for one case or entry, from its name alone, so that adding or
    changing an entry leaves the data of every other one as it was."""
    seed = zlib.crc32(name.encode())
    return seed, np.random.default_rng(seed)
