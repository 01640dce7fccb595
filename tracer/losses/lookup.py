"""Losses by name, as ``compile(loss="mse")`` names them: Keras 3's ``losses.get`` and
the resolution ``compile`` applies (``"crossentropy"`` picked from the shapes of the
labels and predictions, functions wrapped into a ``Loss`` of their name)."""

import difflib
import inspect

from tracer.losses.base import Loss, LossFunctionWrapper, snake_case
from tracer.losses.crossentropy import (BinaryCrossentropy, CategoricalCrossentropy,
                                        SparseCategoricalCrossentropy, binary_crossentropy,
                                        categorical_crossentropy,
                                        sparse_categorical_crossentropy)
from tracer.losses.regression import (Huber, MeanAbsoluteError, MeanSquaredError, huber,
                                      mean_absolute_error, mean_squared_error)

_CLASSES = (BinaryCrossentropy, CategoricalCrossentropy, Huber, MeanAbsoluteError,
            MeanSquaredError, SparseCategoricalCrossentropy)
_FUNCTIONS = (binary_crossentropy, categorical_crossentropy, huber, mean_absolute_error,
              mean_squared_error, sparse_categorical_crossentropy)

BY_NAME = {**{cls.__name__: cls for cls in _CLASSES},
           **{fn.__name__: fn for fn in _FUNCTIONS},
           "bce": binary_crossentropy, "BCE": binary_crossentropy,
           "mae": mean_absolute_error, "MAE": mean_absolute_error,
           "mse": mean_squared_error, "MSE": mean_squared_error}
"""Every name ``get`` knows: a class name gives an instance, a function's name the
function (one value per sample), as in Keras."""


def lookup(identifier, table, kind):
    """``table[identifier]``, or a ``ValueError`` listing the names there are."""
    if identifier in table:
        return table[identifier]
    close = (difflib.get_close_matches(identifier, list(table), n=1)
             if isinstance(identifier, str) else [])
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"Unknown {kind} {identifier!r}.{hint} The {kind} names are: "
                     f"{', '.join(sorted(table))}; or pass an instance or a function.")


def get(identifier):
    """A loss from a name (``"mse"``, ``"SparseCategoricalCrossentropy"``), a config
    ``{"class_name": ..., "config": {...}}``, a ``Loss`` or a function; ``None`` stays
    ``None``.  Names of classes give instances; names of functions the functions."""
    return by_identifier(identifier, BY_NAME, _CLASSES, "loss")


def by_identifier(identifier, table, classes, kind):
    """Keras' ``get`` of losses and metrics: a name looked up in ``table``, a config
    ``{"class_name", "config"}`` of one of ``classes``, or an object or function as it is."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        cls = lookup(identifier.get("class_name"), {c.__name__: c for c in classes}, kind)
        return cls.from_config(identifier.get("config", {}))
    obj = lookup(identifier, table, kind) if isinstance(identifier, str) else identifier
    if inspect.isclass(obj):
        return obj()
    if callable(obj):
        return obj
    raise ValueError(f"Could not interpret {kind} identifier {identifier!r}: pass a {kind} "
                     f"name, a {kind.capitalize()} instance or a function of "
                     "(y_true, y_pred)")


def is_binary_or_sparse_categorical(y_true, y_pred):
    """Keras' reading of labels and predictions: binary when the prediction has one
    entry per sample; sparse categorical when the labels are class indices (a rank
    lower than the predictions', or a last axis of 1 against several classes)."""
    is_binary = y_pred.shape[-1] == 1
    is_sparse = (len(y_true.shape) < len(y_pred.shape)
                 or y_true.shape[-1] == 1 and y_pred.shape[-1] > 1)
    return is_binary, is_sparse


def object_name(obj):
    """Keras' ``get_object_name``: a ``name`` attribute, else the snake-case name."""
    if hasattr(obj, "name"):
        return obj.name
    if hasattr(obj, "__name__"):
        return snake_case(obj.__name__)
    return snake_case(type(obj).__name__)


def resolve(identifier, y_true, y_pred):
    """The ``Loss`` that ``compile(loss=identifier)`` uses for outputs like ``y_pred``
    with labels like ``y_true`` (Keras' ``compile_utils.get_loss``): ``"crossentropy"``
    or ``"ce"`` picks the binary, sparse or categorical function from their shapes; a
    function becomes a ``LossFunctionWrapper`` named by the string given, or by its
    own name."""
    if identifier is None:
        return None
    if str(identifier).lower() in ("crossentropy", "ce"):
        is_binary, is_sparse = is_binary_or_sparse_categorical(y_true, y_pred)
        loss = (binary_crossentropy if is_binary else
                sparse_categorical_crossentropy if is_sparse else categorical_crossentropy)
    else:
        loss = get(identifier)
    if isinstance(loss, Loss):
        return loss
    name = identifier if isinstance(identifier, str) else object_name(loss)
    return LossFunctionWrapper(loss, name=name)
