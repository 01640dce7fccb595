"""``tracer.metrics`` against Keras 3's definitions, written out here in plain numpy:
totals and counts over several batches, with sample weights; the accuracies on
their label layouts; the state as variables, updated and written back inside
``tracer.function``; names, ``compile``'s reading of ``"accuracy"``, and configs."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tracer
from tracer import losses, metrics

RNG = np.random.default_rng(0)
SIZES = (5, 3, 4)


def _values(metric):
    return [v.numpy() for v in metric.variables]


# --- Mean and Sum -----------------------------------------------------------------------

def _reference_mean(batches):
    """Keras' Mean: each sample's value (and weight) averaged over its other axes."""
    total = count = 0.0
    for values, weights in batches:
        values = np.asarray(values, dtype=float)
        if weights is None:
            total += np.sum(values.reshape(len(values), -1).mean(axis=1))
            count += len(values)
            continue
        weights = np.broadcast_to(weights.reshape(weights.shape + (1,) * (values.ndim
                                                                          - weights.ndim)),
                                  values.shape)
        total += np.sum((values * weights).reshape(len(values), -1).mean(axis=1))
        count += np.sum(weights.reshape(len(values), -1).mean(axis=1))
    return total, count


MEAN_BATCHES = {
    "values": lambda n: (RNG.normal(size=n), None),
    "weights": lambda n: (RNG.normal(size=n), RNG.uniform(0, 2, size=n)),
    "rows": lambda n: (RNG.normal(size=(n, 3)), None),
    "rows, weights per sample": lambda n: (RNG.normal(size=(n, 3)), RNG.uniform(0, 2, size=n)),
    "rows, weights per entry": lambda n: (RNG.normal(size=(n, 3)), RNG.uniform(0, 2, (n, 3))),
}


@pytest.mark.parametrize("kind", MEAN_BATCHES)
def test_mean_keeps_a_weighted_total_and_count(kind):
    mean, seen = metrics.Mean(), []
    for n in SIZES:
        values, weights = MEAN_BATCHES[kind](n)
        mean.update_state(values, sample_weight=weights)
        seen.append((values, weights))
        total, count = _reference_mean(seen)
        np.testing.assert_allclose(_values(mean), [total, count], rtol=1e-13)
        np.testing.assert_allclose(mean.result().numpy(), total / count, rtol=1e-13)


@pytest.mark.parametrize("kind", MEAN_BATCHES)
def test_sum_adds_the_weighted_values(kind):
    total_metric, expected = metrics.Sum(), 0.0
    for n in SIZES:
        values, weights = MEAN_BATCHES[kind](n)
        total_metric.update_state(values, sample_weight=weights)
        w = 1.0 if weights is None else weights.reshape(weights.shape + (1,) * (values.ndim
                                                                               - weights.ndim))
        expected += np.sum(values * w)
        np.testing.assert_allclose(total_metric.result().numpy(), expected, rtol=1e-13)


def test_a_scalar_counts_as_one_sample():
    mean = metrics.Mean()
    mean.update_state(2.5)
    mean.update_state(np.float64(1.0))
    assert _values(mean) == [3.5, 2.0] and float(mean.result()) == 1.75


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=4), st.integers(0, 2 ** 16))
def test_a_mean_over_batches_is_the_weighted_average_of_them_all(sizes, seed):
    rng = np.random.default_rng(seed)
    batches = [(rng.normal(size=n), rng.uniform(0.1, 2, size=n)) for n in sizes]
    mean = metrics.Mean()
    for values, weights in batches:
        mean.update_state(values, sample_weight=weights)
    values, weights = (np.concatenate(parts) for parts in zip(*batches))
    np.testing.assert_allclose(float(mean.result()), np.average(values, weights=weights),
                               rtol=1e-12)


def test_an_empty_mean_is_zero_and_reset_empties_it():
    mean = metrics.Mean()
    assert float(mean.result()) == 0.0
    mean.update_state([1.0, 2.0])
    assert float(mean.result()) == 1.5
    mean.reset_state()
    assert _values(mean) == [0.0, 0.0] and float(mean.result()) == 0.0
    weightless = metrics.Mean()
    weightless.update_state([1.0, 2.0], sample_weight=[0.0, 0.0])
    assert float(weightless.result()) == 0.0


# --- Metrics of labels and predictions -------------------------------------------------

def _batches(make):
    return [make(n) for n in SIZES]


def _one_hot(labels, classes):
    return np.eye(classes)[labels]


CASES = {
    "mse": (metrics.MeanSquaredError, {},
            lambda n: (RNG.normal(size=(n, 3)), RNG.normal(size=(n, 3)), RNG.uniform(0, 2, n)),
            lambda t, p: np.mean((t - p) ** 2, axis=-1)),
    "mae, labels without the last axis": (
        metrics.MeanAbsoluteError, {},
        lambda n: (RNG.normal(size=n), RNG.normal(size=(n, 1)), None),
        lambda t, p: np.abs(t - p[:, 0])),
    "accuracy": (metrics.Accuracy, {},
                 lambda n: (RNG.integers(0, 3, n), RNG.integers(0, 3, n), RNG.uniform(0, 2, n)),
                 lambda t, p: (t == p).astype(float)),
    "binary accuracy": (metrics.BinaryAccuracy, {},
                        lambda n: (RNG.integers(0, 2, (n, 1)), RNG.uniform(size=(n, 1)),
                                   RNG.uniform(0, 2, n)),
                        lambda t, p: (t[:, 0] == (p[:, 0] > 0.5)).astype(float)),
    "binary accuracy, threshold": (metrics.BinaryAccuracy, {"threshold": 0.3},
                                   lambda n: (RNG.integers(0, 2, n), RNG.uniform(size=(n, 1)),
                                              None),
                                   lambda t, p: (t == (p[:, 0] > 0.3)).astype(float)),
    "categorical accuracy": (
        metrics.CategoricalAccuracy, {},
        lambda n: (_one_hot(RNG.integers(0, 4, n), 4), RNG.normal(size=(n, 4)),
                   RNG.uniform(0, 2, n)),
        lambda t, p: (np.argmax(t, -1) == np.argmax(p, -1)).astype(float)),
    "sparse categorical accuracy": (
        metrics.SparseCategoricalAccuracy, {},
        lambda n: (RNG.integers(0, 4, n), RNG.normal(size=(n, 4)), None),
        lambda t, p: (t == np.argmax(p, -1)).astype(float)),
    "sparse categorical accuracy, labels (n, 1)": (
        metrics.SparseCategoricalAccuracy, {},
        lambda n: (RNG.integers(0, 4, (n, 1)), RNG.normal(size=(n, 4)), RNG.uniform(0, 2, n)),
        lambda t, p: (t[:, 0] == np.argmax(p, -1)).astype(float)),
    "sparse categorical accuracy, sequences": (
        metrics.SparseCategoricalAccuracy, {},
        lambda n: (RNG.integers(0, 4, (n, 2)), RNG.normal(size=(n, 2, 4)), None),
        lambda t, p: (t == np.argmax(p, -1)).mean(axis=1)),
    "binary crossentropy": (
        metrics.BinaryCrossentropy, {"from_logits": True},
        lambda n: (RNG.integers(0, 2, (n, 1)), RNG.normal(size=(n, 1)), None),
        lambda t, p: np.asarray(losses.binary_crossentropy(t, p, from_logits=True))),
    "categorical crossentropy": (
        metrics.CategoricalCrossentropy, {"label_smoothing": 0.1},
        lambda n: (_one_hot(RNG.integers(0, 3, n), 3), RNG.uniform(0.1, 1, (n, 3)),
                   RNG.uniform(0, 2, n)),
        lambda t, p: np.asarray(losses.categorical_crossentropy(t, p, label_smoothing=0.1))),
    "sparse categorical crossentropy": (
        metrics.SparseCategoricalCrossentropy, {"from_logits": True},
        lambda n: (RNG.integers(0, 3, n), RNG.normal(size=(n, 3)), None),
        lambda t, p: np.asarray(losses.sparse_categorical_crossentropy(t, p, True))),
}


@pytest.mark.parametrize("name", CASES)
def test_metrics_average_their_per_sample_values_over_batches(name):
    cls, options, make, per_sample = CASES[name]
    metric, total, count = cls(**options), 0.0, 0.0
    for y_true, y_pred, weights in _batches(make):
        metric.update_state(y_true, y_pred, sample_weight=weights)
        w = np.ones(len(y_true)) if weights is None else weights
        total += np.sum(per_sample(y_true, y_pred) * w)
        count += np.sum(w)
        np.testing.assert_allclose(_values(metric), [total, count], rtol=1e-13)
        np.testing.assert_allclose(float(metric.result()), total / count, rtol=1e-13)


def test_ties_go_to_the_first_class_and_calling_updates():
    metric = metrics.CategoricalAccuracy()
    assert float(metric([[0, 1, 0], [1, 0, 0]], [[0.4, 0.4, 0.2], [0.5, 0.5, 0.0]])) == 0.5


def test_the_state_is_non_trainable_variables_in_the_metrics_dtype():
    metric = metrics.SparseCategoricalAccuracy()
    assert [v.name for v in metric.variables] == ["total", "count"]
    assert all(isinstance(v, tracer.Variable) and not v.trainable for v in metric.variables)
    assert metric.dtype == "float64" and metric.variables[0].dtype == np.float64
    single = metrics.Mean(dtype="float32")
    single.update_state(np.arange(3.0))
    assert single.variables[0].dtype == np.float32 and single.result().dtype == np.float32


def test_a_metric_of_ones_own_as_keras_writes_one():
    class TruePositives(metrics.Metric):
        def __init__(self, name="true_positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.true_positives = self.add_variable(shape=(), initializer="zeros",
                                                    name="true_positives")

        def update_state(self, y_true, y_pred, sample_weight=None):
            hits = np.logical_and(np.asarray(y_true, bool), np.asarray(y_pred, bool))
            self.true_positives.assign_add(np.sum(hits.astype(self.dtype)))

        def result(self):
            return self.true_positives.read_value()

    metric = TruePositives()
    assert float(metric([1, 1, 0, 1], [1, 0, 0, 1])) == 2.0
    metric.reset_state()
    assert float(metric.result()) == 0.0 and len(metric.variables) == 1


# --- Graph mode ------------------------------------------------------------------------

def test_updates_in_a_traced_step_are_written_back():
    accuracy, loss_mean = metrics.SparseCategoricalAccuracy(), metrics.Mean(name="loss")
    eager_accuracy, eager_mean = metrics.SparseCategoricalAccuracy(), metrics.Mean(name="loss")
    kernel = tracer.Variable(RNG.normal(size=(4, 3)), name="kernel")
    loss_fn = losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(x, y, accuracy, loss_mean):
        logits = x @ kernel
        loss = loss_fn(y, logits)
        accuracy.update_state(y, logits)
        loss_mean.update_state(loss)
        return accuracy.result(), loss_mean.result()

    traced = tracer.function(step, reduce_retracing=True)
    for n in (6, 4, 5):
        x, y = RNG.normal(size=(n, 4)), RNG.integers(0, 3, size=n)
        got = traced(x, y, accuracy, loss_mean)
        expected = step(x, y, eager_accuracy, eager_mean)
        np.testing.assert_allclose([g.numpy() for g in got], [e.numpy() for e in expected],
                                   rtol=1e-13)
        np.testing.assert_allclose(_values(accuracy) + _values(loss_mean),
                                   _values(eager_accuracy) + _values(eager_mean), rtol=1e-13)
    assert _values(accuracy)[1] == 15.0
    assert traced.experimental_get_tracing_count() == 1


def test_result_and_reset_run_in_a_trace():
    mean = metrics.Mean()

    @tracer.function
    def result_then_reset():
        before = mean.result()
        mean.reset_state()
        return before, mean.result()

    assert [float(r) for r in result_then_reset()] == [0.0, 0.0]
    mean.update_state([1.0, 3.0])
    assert [float(r) for r in result_then_reset()] == [2.0, 0.0]
    assert _values(mean) == [0.0, 0.0]


# --- Names, compile's reading and configs ----------------------------------------------

def test_get_knows_keras_names():
    assert isinstance(metrics.get("mse"), metrics.MeanSquaredError)
    assert isinstance(metrics.get("MAE"), metrics.MeanAbsoluteError)
    assert isinstance(metrics.get("sparse_categorical_accuracy"),
                      metrics.SparseCategoricalAccuracy)
    assert isinstance(metrics.get("BinaryAccuracy"), metrics.BinaryAccuracy)
    assert type(metrics.get("accuracy")) is metrics.Accuracy
    assert metrics.get(losses.huber) is losses.huber
    instance = metrics.Mean()
    assert metrics.get(instance) is instance and metrics.get(None) is None
    made = metrics.get({"class_name": "BinaryAccuracy", "config": {"threshold": 0.2}})
    assert made.threshold == 0.2


def test_an_unknown_name_lists_the_names_there_are():
    with pytest.raises(ValueError, match="Did you mean 'accuracy'") as error:
        metrics.get("acuracy")
    for name in ("mse", "mean", "sparse_categorical_accuracy", "BinaryAccuracy"):
        assert name in str(error.value)


@pytest.mark.parametrize("y_true_shape, y_pred_shape, cls", [
    ((8,), (8, 1), metrics.BinaryAccuracy),
    ((8, 1), (8, 1), metrics.BinaryAccuracy),
    ((8,), (8, 5), metrics.SparseCategoricalAccuracy),
    ((8, 1), (8, 5), metrics.SparseCategoricalAccuracy),
    ((8, 3), (8, 3, 5), metrics.SparseCategoricalAccuracy),
    ((8, 5), (8, 5), metrics.CategoricalAccuracy),
])
@pytest.mark.parametrize("name", ["accuracy", "acc"])
def test_accuracy_is_read_from_the_shapes_as_keras_3_does(y_true_shape, y_pred_shape, cls,
                                                          name):
    metric = metrics.resolve(name, np.zeros(y_true_shape), np.zeros(y_pred_shape))
    assert type(metric) is cls and metric.name == name
    assert type(metrics.resolve_accuracy(name, np.zeros(y_true_shape),
                                         np.zeros(y_pred_shape))) is cls


def test_resolve_names_metrics_by_the_string_given_and_wraps_functions():
    y = np.zeros((4, 1))
    assert metrics.resolve("mse", y, y).name == "mse"
    assert type(metrics.resolve("mse", y, y)) is metrics.MeanSquaredError
    wrapped = metrics.resolve(losses.mean_absolute_error, y, y)
    assert type(wrapped) is metrics.MeanMetricWrapper and wrapped.name == "mean_absolute_error"
    wrapped.update_state(y, y + 2)
    assert float(wrapped.result()) == 2.0
    mine = metrics.Mean(name="mine")
    assert metrics.resolve(mine, y, y) is mine and mine.name == "mine"


@pytest.mark.parametrize("metric", [metrics.Mean(name="m"), metrics.Sum(dtype="float32"),
                                    metrics.BinaryAccuracy(threshold=0.7),
                                    metrics.SparseCategoricalCrossentropy(from_logits=True),
                                    metrics.CategoricalAccuracy()],
                         ids=lambda metric: type(metric).__name__)
def test_config_round_trips(metric):
    config = metric.get_config()
    assert type(metric).from_config(config).get_config() == config
    assert config["name"] == metric.name and config["dtype"] == metric.dtype
