"""Each layer, loss and metric of ``tracer`` on its own against the numbers real Keras 3
computed (float64, recorded in ``tests/keras_reference/data``): forward values, the
gradients of ``sum(output * cotangent)``, weights, metric states, names and errors.

One test per recorded entry, so a disagreement names the entry.  The issue asks for
1e-6 relative; these parts agree with Keras to about 1e-13 (rounding), so ``RTOL``
is tighter, to catch a formula that is off by less than the bound (a clipping
epsilon, say) here, where the entry names it, rather than in a trained model.
``ATOL`` only keeps values that are zero up to rounding from failing on their
relative difference.
"""

import numpy as np
import pytest
from keras_recorded import case

import tracer

RTOL = 1e-9
ATOL = 1e-12

LAYERS = case("layers")
LOSSES = case("losses")
METRICS = case("metrics")


def value(tensor):
    return np.asarray(tensor.numpy() if hasattr(tensor, "numpy") else tensor)


def assert_close(actual, expected, what):
    actual, expected = value(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (what, actual.shape, expected.shape)
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL, err_msg=what)


def assert_all_close(actuals, expecteds, what):
    assert len(actuals) == len(expecteds), (what, len(actuals), len(expecteds))
    for i, (actual, expected) in enumerate(zip(actuals, expecteds)):
        assert_close(actual, expected, f"{what}[{i}]")


def entries(recorded):
    return [pytest.param(entry, id=name) for name, entry in recorded["entries"].items()]


# --- layers ---------------------------------------------------------------------------

def from_spec(spec, namespace):
    """The object a recorded ``{"class", "args"}`` spec describes; an argument that is
    itself a spec (a regularizer) is made from ``tracer.regularizers``."""
    args = {key: from_spec(arg, tracer.regularizers) if isinstance(arg, dict) else arg
            for key, arg in spec["args"].items()}
    return getattr(namespace, spec["class"])(**args)


def short_name(variable):
    """Keras 3 names a weight ``kernel`` and its path ``dense/kernel``; tapegen's
    ``Variable.name`` is that path, so the part after the layer's prefix is compared."""
    return variable.name.rsplit("/", 1)[-1]


@pytest.mark.parametrize("entry", entries(LAYERS))
def test_layer_matches_keras(entry):
    layer = from_spec(entry["config"], tracer.layers)
    x = entry["x"]
    layer(x)  # builds the weights from x's shape, as Keras does
    assert [short_name(w) for w in layer.weights] == entry["weight_names"]
    assert [w.trainable for w in layer.weights] == entry["trainable"]
    layer.set_weights(entry["weights"])

    floating = np.issubdtype(x.dtype, np.floating)
    inputs = tracer.constant(x)
    with tracer.GradientTape() as tape:
        if floating:
            tape.watch(inputs)
        output = layer(inputs, **entry["call"])
        target = np.sum(output * entry["cotangent"])
    sources = {"weights": list(layer.trainable_weights)}
    if floating:
        sources["x"] = inputs
    gradients = tape.gradient(target, sources,
                              unconnected_gradients=tracer.UnconnectedGradients.ZERO)

    assert_close(output, entry["output"], "output")
    if floating:
        assert_close(gradients["x"], entry["grad_x"], "grad_x")
    assert_all_close(gradients["weights"], entry["grad_weights"], "grad_weights")
    if "weights_after" in entry:
        assert_all_close(layer.get_weights(), entry["weights_after"], "weights_after")
    if "losses" in entry:
        assert_regularization_matches(layer, entry)


def assert_regularization_matches(layer, entry):
    layer.set_weights(entry["weights"])
    with tracer.GradientTape() as tape:
        penalties = layer.losses
        total = sum(penalties[1:], penalties[0])
    gradients = tape.gradient(total, layer.trainable_weights,
                              unconnected_gradients=tracer.UnconnectedGradients.ZERO)
    assert_all_close(penalties, entry["losses"], "losses")
    assert_all_close(gradients, entry["grad_losses_weights"], "grad_losses_weights")


# --- losses ---------------------------------------------------------------------------

@pytest.mark.parametrize("entry", entries(LOSSES))
def test_loss_matches_keras(entry):
    assert entry["reduction"] == "sum_over_batch_size"
    loss = from_spec(entry["config"], tracer.losses)
    function = getattr(tracer.losses, entry["function"])
    y_true, sample_weight = entry["y_true"], entry["sample_weight"]
    y_pred = tracer.constant(entry["y_pred"])

    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(y_pred)
        reduced = loss(y_true, y_pred)
        weighted = loss(y_true, y_pred, sample_weight=sample_weight)
    assert_close(reduced, entry["value"], "value")
    assert_close(weighted, entry["value_weighted"], "value_weighted")
    assert_close(tape.gradient(reduced, y_pred), entry["grad_y_pred"], "grad_y_pred")
    assert_close(tape.gradient(weighted, y_pred), entry["grad_y_pred_weighted"],
                 "grad_y_pred_weighted")
    per_sample = function(y_true, entry["y_pred"], **entry["config"]["args"])
    assert_close(per_sample, entry["per_sample"], "per_sample")


@pytest.mark.parametrize("name", sorted(LOSSES["names"]))
def test_loss_name_gives_keras_function(name):
    assert tracer.losses.get(name).__name__ == LOSSES["names"][name]


def test_unknown_loss_name_is_a_value_error_listing_the_names():
    assert "no_such_name" in LOSSES["unknown_name_error"]
    with pytest.raises(ValueError, match="no_such_name") as error:
        tracer.losses.get("no_such_name")
    assert "mean_squared_error" in str(error.value)


# --- metrics --------------------------------------------------------------------------

@pytest.mark.parametrize("entry", entries(METRICS))
def test_metric_matches_keras(entry):
    metric = from_spec(entry["config"], tracer.metrics)
    assert metric.name == entry["metric_name"]
    for i, update in enumerate(entry["updates"]):
        metric.update_state(**update)
        assert_close(metric.result(), entry["results"][i], f"result after update {i}")
    metric.reset_state()
    assert_close(metric.result(), entry["result_after_reset"], "result after reset")


@pytest.mark.parametrize("name", sorted(METRICS["names"]))
def test_metric_name_gives_keras_class(name):
    assert type(tracer.metrics.get(name)).__name__ == METRICS["names"][name]


def test_unknown_metric_name_is_a_value_error_listing_the_names():
    assert "no_such_name" in METRICS["unknown_name_error"]
    with pytest.raises(ValueError, match="no_such_name") as error:
        tracer.metrics.get("no_such_name")
    assert "mean_squared_error" in str(error.value)


@pytest.mark.parametrize("resolution", METRICS["accuracy_resolution"],
                         ids=lambda r: f"{r['loss']}-{r['y_true_shape']}-{r['y_pred_shape']}")
def test_accuracy_resolves_to_keras_class(resolution):
    y_pred = np.zeros(resolution["y_pred_shape"])
    sparse = len(resolution["y_true_shape"]) < len(resolution["y_pred_shape"]) or (
        resolution["y_true_shape"][-1] == 1 and resolution["y_pred_shape"][-1] > 1)
    y_true = np.zeros(resolution["y_true_shape"], dtype=np.int64 if sparse else np.float64)
    metric = tracer.metrics.resolve("accuracy", y_true, y_pred)
    assert type(metric).__name__ == resolution["metric_class"]
    assert metric.name == resolution["metric_name"]
