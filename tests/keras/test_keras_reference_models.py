"""fit, evaluate, predict, train_on_batch and test_on_batch against Keras 3's own numbers
(recorded by tests/keras_reference/record.py in float64, same data, same initial
weights, shuffle=False): every History key and epoch, validation included, to 1e-6."""

import numpy as np
import pytest
from keras_recorded import case

import tracer
from tracer import layers, losses, metrics, optimizers

RTOL = 1e-6


def model_of(config):
    model = tracer.Sequential([getattr(layers, spec["class"])(**spec["args"])
                               for spec in config["layers"]])
    model(np.zeros((1, *config["input_shape"])))
    return model


def loss_of(config):
    spec = config["loss"]
    return getattr(losses, spec["class"])(**spec["args"]) if isinstance(spec, dict) else spec


def compiled(reference, run_eagerly):
    config = reference["config"]
    model = model_of(config)
    model.set_weights(reference["initial_weights"])
    spec = config["optimizer"]
    model.compile(optimizer=getattr(optimizers, spec["class"])(**spec["args"]),
                  loss=loss_of(config), metrics=config["metrics"], run_eagerly=run_eagerly)
    return model


def assert_close(ours, theirs):
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=1e-12)


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["compiled", "eager"])
@pytest.mark.parametrize("name", ["mlp_adam", "bn_sgd"])
def test_fit_evaluate_and_predict_give_keras_numbers(name, run_eagerly):
    reference = case(name)
    config = reference["config"]
    model = compiled(reference, run_eagerly)
    fit = dict(config["fit"])
    if "validation_split" not in fit:  # (with it, x holds every row, x_val its last ones)
        fit["validation_data"] = (reference["x_val"], reference["y_val"])
    history = model.fit(reference["x"], reference["y"], **fit)
    assert sorted(history.history) == sorted(reference["history_keys"])
    for key in reference["history_keys"]:
        assert_close(history.history[key], reference["history"][key])
    for ours, theirs in zip(model.get_weights(), reference["final_weights"]):
        assert_close(ours, theirs)
    results = model.evaluate(reference["x_val"], reference["y_val"], verbose=0,
                             return_dict=True)
    assert sorted(results) == sorted(reference["evaluate"])
    for key, value in reference["evaluate"].items():
        assert_close(results[key], value)
    assert_close(model.predict(reference["x_val"], verbose=0), reference["predict"])


@pytest.mark.parametrize("name", ["mlp_adam", "bn_sgd"])
def test_train_and_test_on_batch_give_keras_numbers(name):
    reference = case(name)
    model = compiled(reference, run_eagerly=False)
    rows = reference["config"]["fit"]["batch_size"]
    logs = model.train_on_batch(reference["x"][:rows], reference["y"][:rows], return_dict=True)
    for key, value in reference["train_on_batch"]["logs"].items():
        assert_close(logs[key], value)
    for ours, theirs in zip(model.get_weights(), reference["train_on_batch"]["weights_after"]):
        assert_close(ours, theirs)
    logs = model.test_on_batch(reference["x_val"], reference["y_val"], return_dict=True)
    for key, value in reference["test_on_batch"]["logs"].items():
        assert_close(logs[key], value)


class GuideModel(tracer.Model):
    """Keras' guide "Customizing what happens in fit()", its first example."""

    def __init__(self):
        super().__init__()
        self.dense = layers.Dense(1)

    def call(self, inputs):
        return self.dense(inputs)

    def train_step(self, data):
        x, y = data[0], data[1]
        with tracer.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


class GuideLowLevelModel(tracer.Model):
    """The guide's lower-level example: its own loss and trackers."""

    def __init__(self):
        super().__init__()
        self.dense = layers.Dense(1)
        self.loss_tracker = metrics.Mean(name="loss")
        self.mae_metric = metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = losses.MeanSquaredError()

    def call(self, inputs):
        return self.dense(inputs)

    def train_step(self, data):
        x, y = data[0], data[1]
        with tracer.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.loss_fn(y, y_pred)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


@pytest.mark.parametrize("run_eagerly", [False, True], ids=["compiled", "eager"])
@pytest.mark.parametrize("name, model_class", [("custom_train_step", GuideLowLevelModel),
                                               ("custom_train_step_compiled", GuideModel)])
def test_the_guides_custom_train_steps_give_keras_numbers(name, model_class, run_eagerly):
    reference = case(name)
    config = reference["config"]
    model = model_class()
    model(reference["x"][:1])
    model.set_weights(reference["initial_weights"])
    model.compile(optimizer=config["optimizer"], loss=config["loss"],
                  metrics=config["metrics"], run_eagerly=run_eagerly)
    history = model.fit(reference["x"], reference["y"], **config["fit"])
    assert sorted(history.history) == sorted(reference["history_keys"])
    for key in reference["history_keys"]:
        assert_close(history.history[key], reference["history"][key])
    for ours, theirs in zip(model.get_weights(), reference["final_weights"]):
        assert_close(ours, theirs)
    assert_close(model.predict(reference["x"], verbose=0), reference["predict"])
