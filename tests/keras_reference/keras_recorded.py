"""Keras' recorded references, read with numpy and json alone: no Keras, no pickle.

    ref = case("mlp_adam")
    ref["x"], ref["initial_weights"][0], ref["history"]["val_loss"], ref["config"]["fit"]
    case("layers")["dense_relu"]["grad_x"]

README.md beside this file lists what each case holds.
"""

import json
import os

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def names():
    """The recorded cases."""
    return sorted(name.removesuffix(".json") for name in os.listdir(DATA)
                  if name.endswith(".json"))


def case(name):
    """Everything recorded for one case, as one nested dict: the configuration from its
    ``.json`` file with the arrays of its ``.npz`` file put in place by their ``a/b/0``
    keys. Dicts keyed "0", "1", ... come back as lists (of weights, of layers, ...)."""
    path = os.path.join(DATA, name)
    if not os.path.exists(f"{path}.json"):
        raise ValueError(f"no recorded Keras case {name!r}; the cases are: {', '.join(names())}")
    with open(f"{path}.json", encoding="utf-8") as file:
        tree = json.load(file)
    with np.load(f"{path}.npz", allow_pickle=False) as arrays:
        for key in arrays.files:
            put(tree, key.split("/"), arrays[key])
    return as_lists(tree)


def put(tree, keys, value):
    for key in keys[:-1]:
        tree = tree.setdefault(key, {})
    tree[keys[-1]] = value


def as_lists(value):
    if isinstance(value, list):
        return [as_lists(v) for v in value]
    if not isinstance(value, dict):
        return value
    value = {key: as_lists(v) for key, v in value.items()}
    if value and sorted(value) == sorted(str(i) for i in range(len(value))):
        return [value[str(i)] for i in range(len(value))]
    return value
