"""Cases 5 and 6: losses and metrics on their own, and how Keras resolves their names."""

import jax
import keras
import numpy as np
from record_build import numeric, seeded


def spec(cls, **args):
    return {"class": cls, "args": args}


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def one_hot(rng, rows, classes):
    return np.eye(classes)[rng.integers(0, classes, rows)]


def draw_targets(rng, kind, rows):
    """``(y_true, y_pred)`` for ``rows`` samples of one kind of problem."""
    if kind == "regression":
        return rng.standard_normal((rows, 3)), rng.standard_normal((rows, 3))
    if kind == "regression_3d":
        return rng.standard_normal((rows, 3, 4)), rng.standard_normal((rows, 3, 4))
    if kind.startswith("binary"):
        y_true = rng.integers(0, 2, (rows, 3)).astype(np.float64)
        if kind == "binary_logits":
            return y_true, 2.0 * rng.standard_normal((rows, 3))
        y_pred = rng.uniform(0.05, 0.95, (rows, 3))
        if kind == "binary_edges":
            y_true[0, 0], y_pred[0, 0], y_true[1, 1], y_pred[1, 1] = 1.0, 0.0, 0.0, 1.0
            y_pred[2, 2] = 1.0 - y_true[2, 2]
        return y_true, y_pred
    if kind.startswith("sparse"):
        y_true = rng.integers(0, 4, (rows, 1) if kind == "sparse_column" else rows)
        return y_true, draw_scores(rng, kind.removeprefix("sparse"), rows)
    if kind == "labels":
        return (rng.integers(0, 3, (rows, 1)).astype(np.float64),
                rng.integers(0, 3, (rows, 1)).astype(np.float64))
    return one_hot(rng, rows, 4), draw_scores(rng, kind.removeprefix("categorical"), rows)


def draw_scores(rng, variant, rows):
    """Class scores over 4 classes: probabilities, logits, or positive and unnormalized."""
    if variant == "_logits":
        return 2.0 * rng.standard_normal((rows, 4))
    if variant == "_unnormalized":
        return rng.uniform(0.1, 1.0, (rows, 4))
    return softmax(rng.standard_normal((rows, 4)))


# Case 5: losses.

BCE, CCE = "BinaryCrossentropy", "CategoricalCrossentropy"
LOSS_ENTRIES = {
    "mean_squared_error": (spec("MeanSquaredError"), "mean_squared_error", "regression"),
    "mean_squared_error_3d": (spec("MeanSquaredError"), "mean_squared_error", "regression_3d"),
    "mean_absolute_error": (spec("MeanAbsoluteError"), "mean_absolute_error", "regression"),
    "huber": (spec("Huber"), "huber", "regression"),
    "huber_delta_0_5": (spec("Huber", delta=0.5), "huber", "regression"),
    "binary_crossentropy": (spec(BCE), "binary_crossentropy", "binary"),
    "binary_crossentropy_smoothing": (spec(BCE, label_smoothing=0.1), "binary_crossentropy",
                                      "binary"),
    "binary_crossentropy_logits": (spec(BCE, from_logits=True), "binary_crossentropy",
                                   "binary_logits"),
    "binary_crossentropy_logits_smoothing": (
        spec(BCE, from_logits=True, label_smoothing=0.1), "binary_crossentropy",
        "binary_logits"),
    "binary_crossentropy_clipped": (spec(BCE), "binary_crossentropy", "binary_edges"),
    "categorical_crossentropy": (spec(CCE), "categorical_crossentropy", "categorical"),
    "categorical_crossentropy_smoothing": (spec(CCE, label_smoothing=0.1),
                                           "categorical_crossentropy", "categorical"),
    "categorical_crossentropy_logits": (spec(CCE, from_logits=True),
                                        "categorical_crossentropy", "categorical_logits"),
    "categorical_crossentropy_logits_smoothing": (
        spec(CCE, from_logits=True, label_smoothing=0.1), "categorical_crossentropy",
        "categorical_logits"),
    "categorical_crossentropy_unnormalized": (spec(CCE), "categorical_crossentropy",
                                              "categorical_unnormalized"),
    "sparse_categorical_crossentropy": (spec("SparseCategoricalCrossentropy"),
                                        "sparse_categorical_crossentropy", "sparse"),
    "sparse_categorical_crossentropy_logits": (
        spec("SparseCategoricalCrossentropy", from_logits=True),
        "sparse_categorical_crossentropy", "sparse_logits"),
}
LOSS_NAMES = ("mse", "mae", "huber", "binary_crossentropy", "categorical_crossentropy",
              "sparse_categorical_crossentropy", "mean_squared_error", "mean_absolute_error")


def record_loss(name, loss_spec, function, kind):
    seed, rng = seeded(name)
    y_true, y_pred = draw_targets(rng, kind, 6)
    loss = getattr(keras.losses, loss_spec["class"])(**loss_spec["args"])
    per_sample = numeric(getattr(keras.losses, function)(y_true, y_pred, **loss_spec["args"]))
    sample_weight = rng.uniform(0.0, 2.0, per_sample.shape)  # Keras does not broadcast (6,)

    def value(pred, weight=None):
        return loss(y_true, pred, sample_weight=weight)

    return {"config": loss_spec, "function": function, "reduction": loss.reduction,
            "seed": seed, "y_true": y_true, "y_pred": y_pred, "sample_weight": sample_weight,
            "value": numeric(value(y_pred)),
            "value_weighted": numeric(value(y_pred, sample_weight)),
            "per_sample": per_sample,
            "grad_y_pred": numeric(jax.grad(value)(y_pred)),
            "grad_y_pred_weighted": numeric(jax.grad(value)(y_pred, sample_weight))}


def unknown_name_error(get):
    try:
        get("no_such_name")
    except ValueError as error:
        return str(error)
    raise AssertionError("Keras accepted an unknown name")


def resolved_name(found):
    return getattr(found, "__name__", None) or type(found).__name__


def losses():
    record = {"entries": {name: record_loss(name, *entry)
                          for name, entry in LOSS_ENTRIES.items()}}
    record["names"] = {name: resolved_name(keras.losses.get(name)) for name in LOSS_NAMES}
    record["unknown_name_error"] = unknown_name_error(keras.losses.get)
    return record


# Case 6: metrics, updated three times (the second with sample_weight), then reset.

METRIC_ENTRIES = {
    "mean": (spec("Mean"), "values"),
    "sum": (spec("Sum"), "values"),
    "mean_squared_error": (spec("MeanSquaredError"), "regression"),
    "mean_absolute_error": (spec("MeanAbsoluteError"), "regression"),
    "accuracy": (spec("Accuracy"), "labels"),
    "binary_accuracy": (spec("BinaryAccuracy"), "binary"),
    "binary_accuracy_threshold_0_7": (spec("BinaryAccuracy", threshold=0.7), "binary"),
    "categorical_accuracy": (spec("CategoricalAccuracy"), "categorical"),
    "sparse_categorical_accuracy": (spec("SparseCategoricalAccuracy"), "sparse"),
    "sparse_categorical_accuracy_column": (spec("SparseCategoricalAccuracy"), "sparse_column"),
}
METRIC_NAMES = ("mse", "mae", "mean_squared_error", "mean_absolute_error", "accuracy",
                "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy")
UPDATE_ROWS = (5, 3, 4)


def draw_update(rng, kind, rows, weighted):
    """One ``update_state`` call's arguments; ``Mean`` and ``Sum`` get values, the second
    time as a (rows, 2) matrix against a per-row sample_weight."""
    if kind == "values":
        update = {"values": rng.standard_normal((rows, 2) if weighted else rows)}
    else:
        update = dict(zip(("y_true", "y_pred"), draw_targets(rng, kind, rows)))
    if weighted:
        update["sample_weight"] = rng.uniform(0.0, 2.0, rows)
    return update


def record_metric(name, metric_spec, kind):
    seed, rng = seeded(name)
    metric = getattr(keras.metrics, metric_spec["class"])(**metric_spec["args"])
    updates = [draw_update(rng, kind, rows, weighted=i == 1) for i, rows in enumerate(UPDATE_ROWS)]
    results = []
    for update in updates:
        metric.update_state(**update)
        results.append(numeric(metric.result()))
    metric.reset_state()
    return {"config": metric_spec, "seed": seed, "metric_name": metric.name, "updates": updates,
            "results": np.stack(results), "result_after_reset": numeric(metric.result())}


ACCURACY_RESOLUTION = (
    ("sparse_categorical_crossentropy", [8], 3),
    ("sparse_categorical_crossentropy", [8, 1], 3),
    ("categorical_crossentropy", [8, 3], 3),
    ("binary_crossentropy", [8, 1], 1),
    ("mse", [8, 3], 3),
    ("mse", [8, 1], 1),
)


def resolve_accuracy(loss, y_true_shape, units):
    """The metric class ``compile(metrics=["accuracy"])`` picks for these shapes."""
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(units)])
    model.compile(loss=loss, metrics=["accuracy"])
    model.evaluate(np.zeros((8, 2)), np.zeros(y_true_shape), verbose=0)
    chosen = model.metrics[1].metrics[0]
    return {"loss": loss, "y_true_shape": y_true_shape, "y_pred_shape": [8, units],
            "metric_class": type(chosen).__name__, "metric_name": chosen.name}


def metrics():
    record = {"entries": {name: record_metric(name, *entry)
                          for name, entry in METRIC_ENTRIES.items()}}
    record["names"] = {name: resolved_name(keras.metrics.get(name)) for name in METRIC_NAMES}
    record["unknown_name_error"] = unknown_name_error(keras.metrics.get)
    record["accuracy_resolution"] = [resolve_accuracy(*row) for row in ACCURACY_RESOLUTION]
    return record
