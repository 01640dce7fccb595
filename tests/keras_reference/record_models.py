"""Cases 1 to 3: models through ``compile``, ``fit``, ``evaluate`` and ``predict``.

Each ``record_*`` function returns one nested record: its spec (stored as configuration,
and the very dict the model was built from), the data and initial weights drawn here,
and what Keras computed from them.
"""

import jax
import keras
import numpy as np
from record_build import (compile_model, make, numeric, seeded, sequential, set_drawn_weights,
                          weight_names)

GUIDE = "Customizing what happens in fit() with JAX (keras.io guides)"


def summary(model):
    """Per layer: class, output shape (``None`` for the batch), parameter count, weights."""
    return [{"class": type(layer).__name__, "output_shape": list(layer.output.shape),
             "params": layer.count_params(), "weights": weight_names(layer)}
            for layer in model.layers]


# Cases 1 and 2: Sequential models through compile, fit, evaluate and predict.

MLP_ADAM = {
    "input_shape": [20],
    "layers": [{"class": "Dense", "args": {"units": 32, "activation": "relu"}},
               {"class": "Dense", "args": {"units": 16, "activation": "relu"}},
               {"class": "Dense", "args": {"units": 10}}],
    "optimizer": {"class": "Adam", "args": {"learning_rate": 1e-3}},
    "loss": {"class": "SparseCategoricalCrossentropy", "args": {"from_logits": True}},
    "metrics": ["accuracy"],
    "fit": {"batch_size": 32, "epochs": 3, "shuffle": False, "verbose": 0},
    "validation_data": ["x_val", "y_val"],
    "evaluate": {"x": "x_val", "y": "y_val", "return_dict": True, "verbose": 0},
    "predict": {"x": "x_val", "verbose": 0},
    "train_on_batch": {"x": "x[:32]", "y": "y[:32]", "return_dict": True},
    "test_on_batch": {"x": "x_val", "y": "y_val", "return_dict": True},
}

BN_SGD = {
    "input_shape": [6],
    "layers": [{"class": "Dense", "args": {"units": 16}},
               {"class": "BatchNormalization", "args": {}},
               {"class": "Activation", "args": {"activation": "relu"}},
               {"class": "Dense", "args": {"units": 1}}],
    "optimizer": {"class": "SGD", "args": {"learning_rate": 0.01, "momentum": 0.9}},
    "loss": "mse",
    "metrics": ["mae"],
    "fit": {"batch_size": 16, "epochs": 3, "shuffle": False, "verbose": 0,
            "validation_split": 0.2},
    "validation_rows": "x_val, y_val: the rows validation_split holds out, the last 18 "
                       "of 90 (Keras trains on the first floor(90 * (1 - 0.2)) = 72)",
    "evaluate": {"x": "x_val", "y": "y_val", "return_dict": True, "verbose": 0},
    "predict": {"x": "x_val", "verbose": 0},
    "train_on_batch": {"x": "x[:16]", "y": "y[:16]", "return_dict": True},
    "test_on_batch": {"x": "x_val", "y": "y_val", "return_dict": True},
}


def mlp_adam_data(rng):
    x = rng.standard_normal((250, 20))
    y = np.argmax(x @ rng.standard_normal((20, 10)) + rng.standard_normal((250, 10)), axis=1)
    return {"x": x[:200], "y": y[:200], "x_val": x[200:], "y_val": y[200:]}


def bn_sgd_data(rng):
    x = 2.0 * rng.standard_normal((90, 6)) + 1.0
    y = np.tanh(x @ rng.standard_normal((6, 1))) + 0.1 * rng.standard_normal((90, 1))
    return {"x": x, "y": y, "x_val": x[72:], "y_val": y[72:]}


def logs(values):
    return {key: numeric(value) for key, value in values.items()}


def record_fit(name, spec, draw_data):
    seed, rng = seeded(name)
    data = draw_data(rng)
    model = sequential(spec)
    initial = set_drawn_weights(rng, model)
    compile_model(model, spec)
    validation = ({"validation_data": tuple(data[k] for k in spec["validation_data"])}
                  if "validation_data" in spec else {})
    history = model.fit(data["x"], data["y"], **validation, **spec["fit"]).history
    record = {"config": spec, "seed": seed, "weight_names": weight_names(model),
              "summary": summary(model), **data, "initial_weights": initial,
              "history_keys": list(history),
              "history": {key: numeric(values) for key, values in history.items()},
              "evaluate": logs(model.evaluate(data["x_val"], data["y_val"],
                                              return_dict=True, verbose=0)),
              "predict": numeric(model.predict(data["x_val"], verbose=0)),
              "final_weights": model.get_weights()}
    record.update(record_on_batch(spec, data, initial))
    return record


def record_on_batch(spec, data, initial):
    """One ``train_on_batch`` on the first batch from the initial weights, then one
    ``test_on_batch`` on the validation rows."""
    model = sequential(spec)
    model.set_weights(initial)
    compile_model(model, spec)
    rows = spec["fit"]["batch_size"]
    trained = model.train_on_batch(data["x"][:rows], data["y"][:rows], return_dict=True)
    tested = model.test_on_batch(data["x_val"], data["y_val"], return_dict=True)
    return {"train_on_batch": {"logs": logs(trained), "weights_after": model.get_weights()},
            "test_on_batch": {"logs": logs(tested)}}


# Case 3: the guide's custom train_step, the JAX way (stateless), as the guide writes it.

class GuideModel(keras.Model):
    """The guide's first example: the compiled loss through ``stateless_compute_loss``,
    then each metric of ``self.metrics`` updated, the one named "loss" with the loss."""

    def loss_and_updates(self, trainable, non_trainable, metric_vars, x, y, sample_weight):
        y_pred, non_trainable = self.stateless_call(trainable, non_trainable, x, training=True)
        loss, (_, non_trainable, metric_vars) = self.stateless_compute_loss(
            trainable, non_trainable, metric_vars, x=x, y=y, y_pred=y_pred,
            sample_weight=sample_weight, training=True)
        return loss, (y_pred, non_trainable, metric_vars)

    def train_step(self, state, data):
        trainable, non_trainable, optimizer_vars, metric_vars = state
        x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
        (loss, (y_pred, non_trainable, metric_vars)), grads = jax.value_and_grad(
            self.loss_and_updates, has_aux=True)(
            trainable, non_trainable, metric_vars, x, y, sample_weight)
        trainable, optimizer_vars = self.optimizer.stateless_apply(
            optimizer_vars, grads, trainable)
        updated, logs = [], {}
        for metric in self.metrics:
            own = metric_vars[len(updated):len(updated) + len(metric.variables)]
            arguments = (loss,) if metric.name == "loss" else (y, y_pred)
            own = metric.stateless_update_state(own, *arguments, sample_weight=sample_weight)
            logs[metric.name] = metric.stateless_result(own)
            updated += own
        return logs, (trainable, non_trainable, optimizer_vars, updated)


class GuideLowLevelModel(keras.Model):
    """The guide's lower-level example: its own loss and trackers, listed by ``metrics``
    so that fit resets them each epoch; ``compile`` gives only the optimizer."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = keras.losses.MeanSquaredError()

    def loss_and_updates(self, trainable, non_trainable, x, y, sample_weight):
        y_pred, non_trainable = self.stateless_call(trainable, non_trainable, x, training=True)
        return self.loss_fn(y, y_pred, sample_weight=sample_weight), (y_pred, non_trainable)

    def train_step(self, state, data):
        trainable, non_trainable, optimizer_vars, metric_vars = state
        x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
        (loss, (y_pred, non_trainable)), grads = jax.value_and_grad(
            self.loss_and_updates, has_aux=True)(trainable, non_trainable, x, y, sample_weight)
        trainable, optimizer_vars = self.optimizer.stateless_apply(
            optimizer_vars, grads, trainable)
        split_at = len(self.loss_tracker.variables)
        loss_vars = self.loss_tracker.stateless_update_state(
            metric_vars[:split_at], loss, sample_weight=sample_weight)
        mae_vars = self.mae_metric.stateless_update_state(
            metric_vars[split_at:], y, y_pred, sample_weight=sample_weight)
        logs = {"loss": self.loss_tracker.stateless_result(loss_vars),
                "mae": self.mae_metric.stateless_result(mae_vars)}
        return logs, (trainable, non_trainable, optimizer_vars, loss_vars + mae_vars)

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


CUSTOM_TRAIN_STEP = {
    "guide": GUIDE, "example": "Going lower-level",
    "model": "GuideLowLevelModel: Model subclass with loss_tracker = Mean(name='loss'), "
             "mae_metric = MeanAbsoluteError(name='mae'), loss_fn = MeanSquaredError(); "
             "train_step updates loss_tracker with the batch loss (sample_weight=None) and "
             "mae_metric with (y, y_pred); metrics property lists [loss_tracker, mae_metric]",
    "input_shape": [32], "layers": [{"class": "Dense", "args": {"units": 1}}],
    "optimizer": "adam", "loss": None, "metrics": None,
    "fit": {"batch_size": 32, "epochs": 3, "shuffle": False, "verbose": 0},
}

CUSTOM_TRAIN_STEP_COMPILED = {
    **CUSTOM_TRAIN_STEP, "example": "A first simple example",
    "model": "GuideModel: Model subclass whose train_step computes the loss with "
             "compute_loss (the compiled loss) and updates every metric in self.metrics",
    "loss": "mse", "metrics": ["mae"],
}


def record_custom_train_step(name, spec, model_class):
    seed, rng = seeded(name)
    x, y = rng.random((100, 32)), rng.random((100, 1))
    inputs = keras.Input(tuple(spec["input_shape"]))
    model = model_class(inputs, make(keras.layers, spec["layers"][0])(inputs))
    initial = set_drawn_weights(rng, model)
    compile_model(model, spec)
    history = model.fit(x, y, **spec["fit"]).history
    return {"config": spec, "seed": seed, "weight_names": weight_names(model), "x": x, "y": y,
            "initial_weights": initial, "history_keys": list(history),
            "history": {key: numeric(values) for key, values in history.items()},
            "predict": numeric(model.predict(x, verbose=0)),
            "final_weights": model.get_weights()}
