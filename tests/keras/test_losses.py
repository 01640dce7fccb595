"""``tracer.losses`` against Keras 3's definitions, written out here in plain numpy:
each loss and its function form on several shapes, each reduction, with sample
weights; the stable forms at extreme logits; gradients against finite differences
and closed forms; losses inside ``tracer.function``; names and configs."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tracer
from tracer import losses

EPS = 1e-7


# --- Keras 3's formulas, on plain numpy -----------------------------------------------

def _log_softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _softplus(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def ref_mse(t, p):
    return np.mean((t - p) ** 2, axis=-1)


def ref_mae(t, p):
    return np.mean(np.abs(t - p), axis=-1)


def ref_huber(t, p, delta=1.0):
    e = np.abs(p - t)
    return np.mean(np.where(e <= delta, 0.5 * e ** 2, delta * e - 0.5 * delta ** 2), axis=-1)


def ref_bce(t, p, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        return np.mean(t * _softplus(-p) + (1 - t) * _softplus(p), axis=-1)
    p = np.clip(p, EPS, 1 - EPS)
    return np.mean(-(t * np.log(p) + (1 - t) * np.log(1 - p)), axis=-1)


def ref_cce(t, p, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + label_smoothing / t.shape[-1]
    if from_logits:
        return -np.sum(t * _log_softmax(p), axis=-1)
    p = np.clip(p / np.sum(p, axis=-1, keepdims=True), EPS, 1 - EPS)
    return -np.sum(t * np.log(p), axis=-1)


def ref_scce(labels, p, from_logits=False):
    return ref_cce(np.eye(p.shape[-1])[labels], p, from_logits)


def ref_reduce(values, sample_weight, reduction):
    """Keras' weighting and reduction for the weights used here: none, a scalar, one
    per sample, or one per sample with a last axis of 1 (which, against a vector of
    losses, makes the losses a column: Keras expands a rank-1 side)."""
    if sample_weight is not None:
        w = np.asarray(sample_weight, dtype=float)
        if w.ndim == values.ndim + 1:
            if values.ndim == 1:
                values = values[:, None]
            else:
                w = w[..., 0]
        values = values * w.reshape(w.shape + (1,) * (values.ndim - w.ndim))
    if reduction in (None, "none"):
        return values
    if reduction == "sum":
        return np.sum(values)
    return np.sum(values) / values.size


# --- Values ------------------------------------------------------------------------

RNG = np.random.default_rng(0)


def _regression(shape):
    return RNG.normal(size=shape), RNG.normal(size=shape)


def _binary(shape, from_logits):
    labels = RNG.integers(0, 2, size=shape).astype(float)
    return labels, (RNG.normal(size=shape) * 3 if from_logits else RNG.uniform(size=shape))


def _categorical(shape, from_logits):
    labels = np.eye(shape[-1])[RNG.integers(0, shape[-1], size=shape[:-1])]
    return labels, (RNG.normal(size=shape) * 3 if from_logits else
                    RNG.uniform(0.05, 1, size=shape))


def _sparse(shape, from_logits):
    labels = RNG.integers(0, shape[-1], size=shape[:-1])
    return labels, (RNG.normal(size=shape) * 3 if from_logits else
                    RNG.uniform(0.05, 1, size=shape))


CASES = [
    # (loss, function, reference, make data, options)
    (losses.MeanSquaredError, losses.mean_squared_error, ref_mse, _regression, {}),
    (losses.MeanAbsoluteError, losses.mean_absolute_error, ref_mae, _regression, {}),
    (losses.Huber, losses.huber, ref_huber, _regression, {}),
    (losses.Huber, losses.huber, ref_huber, _regression, {"delta": 0.4}),
    (losses.BinaryCrossentropy, losses.binary_crossentropy, ref_bce, _binary, {}),
    (losses.BinaryCrossentropy, losses.binary_crossentropy, ref_bce, _binary,
     {"from_logits": True}),
    (losses.BinaryCrossentropy, losses.binary_crossentropy, ref_bce, _binary,
     {"label_smoothing": 0.2}),
    (losses.CategoricalCrossentropy, losses.categorical_crossentropy, ref_cce, _categorical,
     {}),
    (losses.CategoricalCrossentropy, losses.categorical_crossentropy, ref_cce, _categorical,
     {"from_logits": True, "label_smoothing": 0.1}),
    (losses.SparseCategoricalCrossentropy, losses.sparse_categorical_crossentropy, ref_scce,
     _sparse, {}),
    (losses.SparseCategoricalCrossentropy, losses.sparse_categorical_crossentropy, ref_scce,
     _sparse, {"from_logits": True}),
]
CASE_IDS = [f"{case[0].__name__}-{case[4]}" for case in CASES]
SHAPES = [(5, 3), (4, 2, 3), (1, 4)]


def _data(make, options, shape):
    if make is _regression:
        return make(shape)
    return make(shape, options.get("from_logits", False))


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("shape", SHAPES)
def test_functions_give_one_value_per_sample(case, shape):
    _, function, reference, make, options = case
    y_true, y_pred = _data(make, options, shape)
    value = function(y_true, y_pred, **options)
    assert value.shape == shape[:-1]
    np.testing.assert_allclose(np.asarray(value), reference(y_true, y_pred, **options),
                               rtol=1e-12, atol=1e-15)


WEIGHTS = ["none", "scalar", "per sample", "per sample, last axis 1"]


def _weights(kind, n):
    return {"none": None, "scalar": 0.7, "per sample": RNG.uniform(0, 2, size=n),
            "per sample, last axis 1": RNG.uniform(0, 2, size=(n, 1))}[kind]


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none", None, "mean"])
@pytest.mark.parametrize("weights", WEIGHTS)
def test_classes_weight_and_reduce_as_keras(case, reduction, weights):
    cls, _, reference, make, options = case
    y_true, y_pred = _data(make, options, (6, 3))
    sample_weight = _weights(weights, 6)
    loss = cls(reduction=reduction, **options)
    value = loss(y_true, y_pred, sample_weight=sample_weight)
    expected = ref_reduce(reference(y_true, y_pred, **options), sample_weight, reduction)
    np.testing.assert_allclose(np.asarray(value), expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_per_element_weights_on_a_sequence(case):
    """Weights of shape (batch, steps) against per-sample losses of that shape."""
    cls, _, reference, make, options = case
    y_true, y_pred = _data(make, options, (3, 4, 2))
    sample_weight = RNG.uniform(0, 2, size=(3, 4))
    value = cls(**options)(y_true, y_pred, sample_weight=sample_weight)
    expected = np.sum(reference(y_true, y_pred, **options) * sample_weight) / 12
    np.testing.assert_allclose(np.asarray(value), expected, rtol=1e-12)


def test_sum_over_batch_size_divides_by_the_entries_not_the_weights():
    y_true, y_pred = np.zeros((4, 1)), np.ones((4, 1))
    weights = np.array([1.0, 1.0, 0.0, 0.0])
    assert float(losses.MeanSquaredError()(y_true, y_pred, sample_weight=weights)) == 0.5
    with_weights = losses.MeanSquaredError(reduction="mean_with_sample_weight")
    assert float(with_weights(y_true, y_pred, sample_weight=weights)) == 1.0
    none_weighted = with_weights(y_true, y_pred, sample_weight=np.zeros(4))
    assert float(none_weighted) == 0.0


def test_labels_without_a_last_axis_meet_predictions_with_one():
    y_true, y_pred = RNG.normal(size=5), RNG.normal(size=(5, 1))
    per_sample = losses.MeanSquaredError(reduction=None)(y_true, y_pred)
    np.testing.assert_allclose(np.asarray(per_sample), (y_true - y_pred[:, 0]) ** 2)
    labels = RNG.integers(0, 3, size=(5, 1))
    probabilities = RNG.uniform(0.1, 1, size=(5, 3))
    np.testing.assert_allclose(
        np.asarray(losses.SparseCategoricalCrossentropy(reduction=None)(labels, probabilities)),
        ref_scce(labels[:, 0], probabilities))


def test_a_vector_of_binary_predictions_is_one_sample_as_in_keras():
    """Keras averages the last axis, so a 1-D batch gives one number, which weights scale
    by their mean (the sum over the weighted copies, divided by their number)."""
    y_true, y_pred = np.array([0.0, 1.0, 1.0]), np.array([0.2, 0.7, 0.9])
    value = losses.BinaryCrossentropy()(y_true, y_pred)
    assert value.shape == ()
    np.testing.assert_allclose(float(value), np.mean(-np.log([0.8, 0.7, 0.9])), rtol=1e-14)
    weighted = losses.BinaryCrossentropy()(y_true, y_pred, sample_weight=[1.0, 2.0, 3.0])
    np.testing.assert_allclose(float(weighted), 2 * float(value), rtol=1e-14)


# --- Stable forms ----------------------------------------------------------------------

def test_crossentropy_from_huge_logits_is_finite_and_exact():
    logits = np.array([[1000.0, -1000.0, 0.0], [-800.0, 900.0, 5.0]])
    labels = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(np.asarray(losses.categorical_crossentropy(labels, logits, True)),
                               [2000.0, 895.0])
    np.testing.assert_allclose(
        np.asarray(losses.binary_crossentropy(np.array([[1.0, 0.0]]), np.array([[-700.0, 800.0]]),
                                              from_logits=True)), [750.0])


def test_probabilities_are_clipped_to_epsilon_as_in_keras():
    value = losses.binary_crossentropy(np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]))
    np.testing.assert_allclose(np.asarray(value), [-np.log(EPS)], rtol=1e-9)


def test_categorical_probabilities_are_normalised_by_their_sum():
    labels, probabilities = _categorical((4, 3), from_logits=False)
    np.testing.assert_allclose(
        np.asarray(losses.categorical_crossentropy(labels, 7 * probabilities)),
        np.asarray(losses.categorical_crossentropy(labels, probabilities)), rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(2, 5), st.integers(0, 2 ** 16), st.booleans())
def test_sparse_labels_give_the_one_hot_loss(n, classes, seed, from_logits):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, size=n)
    y_pred = rng.normal(size=(n, classes)) if from_logits else rng.uniform(0.01, 1, (n, classes))
    sparse = losses.SparseCategoricalCrossentropy(from_logits=from_logits)(labels, y_pred)
    dense = losses.CategoricalCrossentropy(from_logits=from_logits)(np.eye(classes)[labels],
                                                                   y_pred)
    np.testing.assert_allclose(float(sparse), float(dense), rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-30, 30), min_size=1, max_size=6), st.integers(0, 2 ** 16))
def test_binary_logits_give_the_loss_of_their_sigmoid(logits, seed):
    logits = np.array(logits)
    labels = np.random.default_rng(seed).integers(0, 2, size=logits.shape).astype(float)
    probabilities = np.clip(1 / (1 + np.exp(-logits)), EPS, 1 - EPS)
    from_logits = losses.binary_crossentropy(labels, logits, from_logits=True)
    # away from the clip, the two agree; near it the logits' form is the exact one
    exact = np.mean(labels * _softplus(-logits) + (1 - labels) * _softplus(logits))
    np.testing.assert_allclose(float(from_logits), exact, rtol=1e-12, atol=1e-15)
    if np.all(np.abs(logits) < 15):
        np.testing.assert_allclose(float(from_logits),
                                   float(losses.binary_crossentropy(labels, probabilities)),
                                   rtol=1e-9)


# --- ignore_class ---------------------------------------------------------------------

@pytest.mark.parametrize("from_logits", [False, True])
def test_ignored_labels_are_left_out_of_the_average(from_logits):
    labels = np.array([1, -1, 2, 0, -1])
    y_pred = RNG.normal(size=(5, 3)) if from_logits else RNG.uniform(0.1, 1, size=(5, 3))
    kept = labels != -1
    per_sample = ref_scce(labels[kept], y_pred[kept], from_logits)
    loss = losses.SparseCategoricalCrossentropy(from_logits=from_logits, ignore_class=-1)
    np.testing.assert_allclose(float(loss(labels, y_pred)), np.mean(per_sample), rtol=1e-12)
    summed = losses.SparseCategoricalCrossentropy(from_logits=from_logits, ignore_class=-1,
                                                  reduction="sum")
    np.testing.assert_allclose(float(summed(labels, y_pred)), np.sum(per_sample), rtol=1e-12)
    function = losses.sparse_categorical_crossentropy(labels, y_pred, from_logits, -1)
    np.testing.assert_allclose(np.asarray(function)[kept], per_sample, rtol=1e-12)
    assert np.all(np.asarray(function)[~kept] == 0)

    p = tracer.constant(y_pred)
    with tracer.GradientTape() as tape:
        tape.watch(p)
        value = loss(labels, p)
    gradient = tape.gradient(value, p).numpy()
    assert np.all(np.isfinite(gradient)) and np.all(gradient[~kept] == 0)


# --- Gradients ----------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2)])
def test_gradients_match_finite_differences(case, shape):
    cls, _, _, make, options = case
    y_true, y_pred = _data(make, options, shape)
    if make is _binary and not options.get("from_logits"):
        y_pred = RNG.uniform(0.05, 0.95, size=shape)  # off the clip's corners
    if make is _regression:
        y_true = y_pred + RNG.choice([-1, 1], size=shape) * RNG.uniform(0.1, 0.3, size=shape)
    weights = RNG.uniform(0.5, 2, size=shape[:-1])  # one per loss value
    loss = cls(**options)
    tracer.check_gradients(lambda p: loss(y_true, p, sample_weight=weights), y_pred)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5)])
def test_gradient_from_logits_is_softmax_minus_labels(shape):
    labels, logits = _categorical(shape, from_logits=True)
    x = tracer.constant(logits * 100)
    with tracer.GradientTape() as tape:
        tape.watch(x)
        value = losses.CategoricalCrossentropy(from_logits=True, reduction="sum")(labels, x)
    softmax = np.exp(_log_softmax(logits * 100))
    np.testing.assert_allclose(tape.gradient(value, x).numpy(), softmax - labels, atol=1e-12)


# --- Graph mode -----------------------------------------------------------------------------

TRACED = [(losses.MeanSquaredError(), _regression, {}),
          (losses.BinaryCrossentropy(from_logits=True), _binary, {"from_logits": True}),
          (losses.CategoricalCrossentropy(label_smoothing=0.1), _categorical, {}),
          (losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=1), _sparse,
           {"from_logits": True})]


@pytest.mark.parametrize("loss, make, options", TRACED,
                         ids=[type(loss).__name__ for loss, _, _ in TRACED])
def test_a_loss_and_its_gradient_in_a_traced_step_match_eager(loss, make, options):
    kernel = tracer.Variable(RNG.normal(size=(4, 3)), name="kernel")

    def step(x, y, w):
        with tracer.GradientTape() as tape:
            prediction = x @ kernel
            if make is _categorical:
                prediction = np.exp(prediction)
            value = loss(y, prediction, sample_weight=w)
        return value, tape.gradient(value, kernel)

    traced = tracer.function(step, reduce_retracing=True)
    for n in (6, 4):
        y, _ = _data(make, options, (n, 3))
        x, w = RNG.normal(size=(n, 4)), RNG.uniform(0, 2, size=n)
        for got, expected in zip(traced(x, y, w), step(x, y, w)):
            np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12, atol=1e-15)
    assert traced.experimental_get_tracing_count() == 1


# --- dtypes, names, configs, errors -------------------------------------------------------

def test_the_computation_takes_the_predictions_floating_dtype():
    y_true, y_pred = _categorical((4, 3), from_logits=True)
    assert losses.CategoricalCrossentropy(from_logits=True)(
        y_true, y_pred.astype(np.float32)).dtype == np.float32
    assert losses.MeanSquaredError()(np.ones(3), np.arange(3)).dtype == np.float64
    assert losses.MeanSquaredError(dtype="float32")(np.ones(3), np.ones(3)).dtype == np.float32


def test_get_knows_keras_names():
    assert losses.get("mse") is losses.mean_squared_error
    assert losses.get("MAE") is losses.mean_absolute_error
    assert losses.get("bce") is losses.binary_crossentropy
    assert losses.get("sparse_categorical_crossentropy") is losses.sparse_categorical_crossentropy
    assert isinstance(losses.get("Huber"), losses.Huber)
    instance = losses.BinaryCrossentropy(from_logits=True)
    assert losses.get(instance) is instance
    assert losses.get(None) is None
    made = losses.get({"class_name": "CategoricalCrossentropy", "config": {"from_logits": True}})
    assert isinstance(made, losses.CategoricalCrossentropy) and made.from_logits
    assert losses.mse is losses.mean_squared_error and losses.mae is losses.mean_absolute_error


def test_an_unknown_name_lists_the_names_there_are():
    with pytest.raises(ValueError, match="Did you mean 'mse'") as error:
        losses.get("msee")
    for name in ("mse", "huber", "SparseCategoricalCrossentropy", "binary_crossentropy"):
        assert name in str(error.value)
    with pytest.raises(ValueError, match="Could not interpret"):
        losses.get(3)


@pytest.mark.parametrize("y_true_shape, y_pred_shape, function", [
    ((8,), (8, 1), losses.binary_crossentropy),
    ((8, 1), (8, 1), losses.binary_crossentropy),
    ((8,), (8, 5), losses.sparse_categorical_crossentropy),
    ((8, 1), (8, 5), losses.sparse_categorical_crossentropy),
    ((8, 5), (8, 5), losses.categorical_crossentropy),
])
def test_resolve_reads_crossentropy_from_the_shapes(y_true_shape, y_pred_shape, function):
    loss = losses.resolve("crossentropy", np.zeros(y_true_shape), np.zeros(y_pred_shape))
    assert isinstance(loss, losses.LossFunctionWrapper) and loss.fn is function
    assert loss.name == "crossentropy"


def test_resolve_wraps_functions_under_the_name_given():
    y = np.zeros((4, 1))
    assert losses.resolve("mse", y, y).name == "mse"
    assert float(losses.resolve("mse", y, y + 2)(y, y + 2)) == 4.0
    assert losses.resolve(losses.mean_absolute_error, y, y).name == "mean_absolute_error"
    instance = losses.Huber()
    assert losses.resolve(instance, y, y) is instance


@pytest.mark.parametrize("loss", [losses.MeanSquaredError(reduction="sum"),
                                  losses.Huber(delta=0.5, name="h"),
                                  losses.BinaryCrossentropy(from_logits=True, axis=-2),
                                  losses.CategoricalCrossentropy(label_smoothing=0.1),
                                  losses.SparseCategoricalCrossentropy(ignore_class=3)],
                         ids=lambda loss: type(loss).__name__)
def test_config_round_trips(loss):
    config = loss.get_config()
    assert type(loss).from_config(config).get_config() == config
    assert config["name"] == loss.name and config["reduction"] == loss.reduction


def test_a_reduction_keras_lacks_is_refused():
    with pytest.raises(ValueError, match="sum_over_batch_size"):
        losses.MeanSquaredError(reduction="average")


def test_shapes_that_cannot_meet_are_refused():
    with pytest.raises(ValueError, match="same shape"):
        losses.binary_crossentropy(np.zeros((4, 2)), np.zeros((4, 3)))
    with pytest.raises(ValueError, match="same shape"):
        losses.categorical_crossentropy(np.zeros((4, 2)), np.zeros((4, 3)))
    with pytest.raises(ValueError, match="without its last axis"):
        losses.sparse_categorical_crossentropy(np.zeros(5), np.zeros((4, 3)))


def test_one_class_categorical_warns_as_keras_does():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        losses.categorical_crossentropy(np.ones((3, 1)), np.ones((3, 1)))
    assert any("binary_crossentropy" in str(w.message) for w in caught)


def test_a_loss_without_call_says_what_to_define():
    with pytest.raises(NotImplementedError, match="call"):
        losses.Loss()(np.zeros(2), np.zeros(2))
