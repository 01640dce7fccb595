"""Weights saved as ``.npz`` (arrays only, no pickle), written atomically.

The file is written beside its destination and renamed over it, so an interrupted
save leaves the previous file whole.  Arrays are stored in ``get_weights`` order
under ``<position>/<weight name>``; loading checks the count and every shape before
it changes any weight.
"""

import os
import tempfile

import numpy as np


def save(path, weights):
    """Write the values of ``weights`` (variables) to ``path``, a ``.npz`` file."""
    path = os.fspath(path)
    _check_suffix(path)
    arrays = {f"{k:03d}/{w.name}": np.asarray(w.numpy()) for k, w in enumerate(weights)}
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(suffix=".npz", dir=folder)
    try:
        with os.fdopen(handle, "wb") as file:
            np.savez(file, **arrays)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def load(path, weights):
    """Give ``weights`` (variables) the values ``save`` wrote to ``path``: all of them, or
    none if the file holds another architecture's."""
    path = os.fspath(path)
    _check_suffix(path)
    with np.load(path, allow_pickle=False) as stored:
        keys = sorted(stored.files, key=lambda key: int(key.split("/", 1)[0]))
        values = [stored[key] for key in keys]
    if len(values) != len(weights):
        raise ValueError(f"{path} holds {len(values)} weights but the model has "
                         f"{len(weights)}: it was saved from another architecture")
    for key, value, weight in zip(keys, values, weights):
        if value.shape != tuple(weight.shape):
            raise ValueError(f"{path}: weight {weight.name} has shape {tuple(weight.shape)} "
                             f"but the file's {key.split('/', 1)[-1]} (at the same place) has "
                             f"shape {value.shape}: it was saved from another architecture")
    for value, weight in zip(values, weights):
        weight.assign(value.astype(weight.dtype))


def _check_suffix(path):
    if not path.endswith(".npz"):
        raise ValueError(f"weights are saved as .npz files: name the file "
                         f"{os.path.basename(path)}.npz, or another name ending in .npz")
