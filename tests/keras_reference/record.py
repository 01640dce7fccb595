"""Record what real Keras computes, for tapegen's Keras-style API to be compared against.

Keras 3 runs on its JAX backend in float64. Every input and initial weight is drawn here
with numpy and stored beside Keras' results, so a test loads them instead of matching a
random generator. Each case is written as ``data/<case>.npz`` (arrays, no pickle) and
``data/<case>.json`` (configuration), in the layout ``keras_recorded.py`` reads and README.md
describes. Only the tests read the data: neither Keras nor TensorFlow is needed to run them.

    python tests/keras_reference/record.py
"""

import json
import os

import record_build  # noqa: F401  (first: it sets the backend and float64 before Keras loads)
import jax
import keras
import numpy as np
import record_layers
import record_losses_metrics
import record_models

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


# Saving: one nested record per case, its arrays to .npz and everything else to .json.

def holds_arrays(value):
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return any(holds_arrays(v) for v in value)
    return isinstance(value, np.ndarray)


def split(record, prefix=""):
    """``(arrays by "a/b/0" path, the rest as a JSON tree)``; a list that holds arrays is
    stored as a dict keyed "0", "1", ..., which ``keras_recorded.py`` turns back into a list."""
    arrays, plain = {}, {}
    for key, value in record.items():
        path = f"{prefix}{key}"
        if isinstance(value, list) and holds_arrays(value):
            value = {str(i): v for i, v in enumerate(value)}
        if isinstance(value, np.ndarray):
            if value.dtype.kind not in "biuf":
                raise TypeError(f"{path}: only plain numeric arrays are stored, not {value.dtype}")
            arrays[path] = value
        elif isinstance(value, dict):
            sub_arrays, sub_plain = split(value, f"{path}/")
            arrays.update(sub_arrays)
            if sub_plain or not sub_arrays:
                plain[key] = sub_plain
        else:
            plain[key] = value
    return arrays, plain


def save(name, record):
    arrays, plain = split(record)
    plain["recorded_with"] = {"keras": keras.__version__, "jax": jax.__version__,
                              "numpy": np.__version__, "backend": keras.backend.backend(),
                              "floatx": keras.config.floatx()}
    np.savez_compressed(os.path.join(DATA, f"{name}.npz"), **arrays)
    with open(os.path.join(DATA, f"{name}.json"), "w") as file:
        json.dump(plain, file, indent=1, sort_keys=False)
        file.write("\n")


def main():
    os.makedirs(DATA, exist_ok=True)
    models = record_models
    save("mlp_adam", models.record_fit("mlp_adam", models.MLP_ADAM, models.mlp_adam_data))
    save("bn_sgd", models.record_fit("bn_sgd", models.BN_SGD, models.bn_sgd_data))
    save("custom_train_step", models.record_custom_train_step(
        "custom_train_step", models.CUSTOM_TRAIN_STEP, models.GuideLowLevelModel))
    save("custom_train_step_compiled", models.record_custom_train_step(
        "custom_train_step_compiled", models.CUSTOM_TRAIN_STEP_COMPILED, models.GuideModel))
    save("layers", record_layers.layers())
    save("losses", record_losses_metrics.losses())
    save("metrics", record_losses_metrics.metrics())


if __name__ == "__main__":
    main()
