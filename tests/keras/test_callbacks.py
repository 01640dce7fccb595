"""``tracer.callbacks`` against Keras 3's rules.

A fake model (the attributes callbacks use: ``stop_training``, ``optimizer``,
``get_weights``/``set_weights``, ``save_weights``, ``history``, ``metrics``) is
driven through the hooks with scripted logs.  Each expected decision, file and
printed line was checked against Keras 3 running the same script; the progress
output is Keras' own, byte for byte, under a clock that advances 0.1 s per reading.
"""

import os
import re
import sys
import types

import numpy as np
import pytest

import tracer
import tracer.callbacks as callbacks
from tracer.callbacks import progbar as progbar_module

# --- a model, a clock and a training loop ------------------------------------------


class FakeOptimizer:
    def __init__(self, learning_rate=0.01):
        self.learning_rate = learning_rate


class FakeMetric:
    def __init__(self, name, direction):
        self.name = name
        self._direction = direction


class FakeMetricsContainer:
    """Like the compiled metrics: a metric-like object holding the metrics."""

    def __init__(self, metrics):
        self.name = "compile_metrics"
        self.metrics = metrics


class FakeModel:
    """The part of a model that callbacks talk to. Weights are one array per model."""

    def __init__(self, metrics=(), optimizer=None):
        self.stop_training = False
        self.optimizer = optimizer or FakeOptimizer()
        self.weights = [np.zeros(2)]
        self.metrics = list(metrics)
        self.saved = []

    def get_weights(self):
        return [w.copy() for w in self.weights]

    def set_weights(self, weights):
        self.weights = [np.array(w) for w in weights]

    def save_weights(self, filepath, overwrite=True):
        np.savez(filepath, *self.weights)
        self.saved.append(os.path.basename(filepath))


class ModelWithSave(FakeModel):
    def save(self, filepath, overwrite=True):
        np.savez(filepath, *self.weights)
        self.saved.append(("save", os.path.basename(filepath)))


class FakeClock:
    """Stands for the ``time`` module: each reading is ``step`` seconds after the last."""

    def __init__(self, step=0.1):
        self.now = 100.0
        self.step = step

    def time(self):
        self.now += self.step
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(progbar_module, "time", fake)
    return fake


@pytest.fixture
def redrawn(monkeypatch):
    """Output that can be redrawn in place: Keras takes any POSIX system to be one."""
    posix = sys.modules.get("posix") or types.ModuleType("posix")
    monkeypatch.setitem(sys.modules, "posix", posix)


@pytest.fixture
def plain(monkeypatch):
    """Output that cannot be redrawn: no terminal, notebook, POSIX system or PyCharm."""
    for name in ("posix", "ipykernel"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.delenv("PYCHARM_HOSTED", raising=False)


def train(callback_list, values, monitor="val_loss", model=None, steps=0):
    """Run epochs whose logs are ``{monitor: value}`` until ``stop_training``; during
    epoch ``e`` the weights are ``[e, e]``.  Returns the epochs run."""
    model = model or callback_list.model
    callback_list.on_train_begin()
    run = 0
    logs = {}
    for epoch, value in enumerate(values):
        model.weights = [np.full(2, float(epoch))]
        callback_list.on_epoch_begin(epoch)
        for batch in range(steps):
            callback_list.on_train_batch_begin(batch)
            callback_list.on_train_batch_end(batch, {"loss": value})
        logs = {monitor: value}
        callback_list.on_epoch_end(epoch, logs)
        run += 1
        if model.stop_training:
            break
    callback_list.on_train_end(logs)
    return run


def fit_with(*cbs, values, monitor="val_loss", model=None, steps=0, verbose=0):
    model = model or FakeModel()
    callback_list = callbacks.CallbackList(list(cbs), add_history=True,
                                           add_progbar=verbose != 0, verbose=verbose,
                                           epochs=len(values), steps=steps or None,
                                           model=model)
    return train(callback_list, values, monitor, model, steps), model


def fit_logs(callback_list, epochs, steps, batch_logs, epoch_logs):
    callback_list.on_train_begin()
    for epoch in range(epochs):
        callback_list.on_epoch_begin(epoch)
        for batch in range(steps):
            callback_list.on_train_batch_begin(batch)
            callback_list.on_train_batch_end(batch, batch_logs(batch))
        callback_list.on_epoch_end(epoch, dict(epoch_logs))
    callback_list.on_train_end()


def visible(text):
    """``text`` without its colour and bold escapes."""
    return re.sub(r"\x1b\[\d+m", "", text)


# --- Callback, CallbackList, History ------------------------------------------------


def test_a_callback_has_every_hook_and_the_batch_hooks_fall_back_to_the_old_names():
    seen = []

    class Old(callbacks.Callback):
        def on_batch_begin(self, batch, logs=None):
            seen.append(("begin", batch))

        def on_batch_end(self, batch, logs=None):
            seen.append(("end", batch, logs))

    callback = Old()
    assert callback.model is None and callback.params is None
    for hook in ("train", "test", "predict"):
        getattr(callback, f"on_{hook}_begin")()
        getattr(callback, f"on_{hook}_end")(logs={})
        getattr(callback, f"on_{hook}_batch_begin")(0)
        getattr(callback, f"on_{hook}_batch_end")(0, logs={})
    callback.on_epoch_begin(0)
    callback.on_epoch_end(0, {"loss": 1.0})
    assert seen == [("begin", 0), ("end", 0, {})]
    model = FakeModel()
    callback.set_model(model)
    callback.set_params({"epochs": 3})
    assert callback.model is model and callback.params == {"epochs": 3}


def test_callback_list_calls_each_callback_in_order_with_python_float_logs():
    calls = []

    class Recorder(callbacks.Callback):
        def __init__(self, name):
            super().__init__()
            self.name = name

        def on_epoch_end(self, epoch, logs=None):
            calls.append((self.name, epoch, logs))

        def on_test_batch_end(self, batch, logs=None):
            calls.append((self.name, batch, logs))

    first, second = Recorder("a"), Recorder("b")
    callback_list = callbacks.CallbackList([first, [second]], model=FakeModel())
    assert callback_list.callbacks == [first, second]
    logs = {"loss": np.float64(0.5), "acc": tracer.Variable(0.25), "name": "x",
            "out": {"b_mae": np.float32(2.0)}, "vector": np.ones(2)}
    callback_list.on_epoch_end(3, logs)
    callback_list.on_test_batch_end(1, {"loss": np.array(1.5)})
    shown = calls[0][2]
    assert list(shown) == ["acc", "loss", "name", "b_mae", "vector"]
    assert shown["acc"] == 0.25 and type(shown["acc"]) is float
    assert type(shown["loss"]) is float and shown["b_mae"] == 2.0
    assert shown["name"] == "x" and isinstance(shown["vector"], np.ndarray)
    assert calls[1][2] is shown
    assert calls[2:] == [("a", 1, {"loss": 1.5}), ("b", 1, {"loss": 1.5})]


def test_callback_list_adds_history_and_progbar_once_and_passes_model_and_params():
    model = FakeModel()
    mine = callbacks.History()
    callback_list = callbacks.CallbackList([mine], add_history=True, add_progbar=True,
                                           model=model, verbose=2, epochs=4, steps=10)
    assert [type(c).__name__ for c in callback_list.callbacks] == ["History", "ProgbarLogger"]
    assert model.history is mine
    assert all(c.model is model for c in callback_list.callbacks)
    progbar = callback_list.callbacks[1]
    assert (progbar.verbose, progbar.epochs, progbar.target) == (2, 4, 10)
    assert mine.params == {"verbose": 2, "epochs": 4, "steps": 10}
    assert callbacks.CallbackList().callbacks == []


def test_an_end_hook_without_its_begin_hook_is_an_error():
    callback_list = callbacks.CallbackList([callbacks.History()], model=FakeModel())
    callback_list.on_test_begin()
    callback_list.on_test_end()
    with pytest.raises(ValueError, match="on_predict_begin"):
        callback_list.on_predict_end()


def test_history_records_every_key_by_epoch_and_becomes_model_history():
    model = FakeModel()
    callback_list = callbacks.CallbackList(add_history=True, model=model)
    fit_logs(callback_list, 2, 0, None, {"loss": np.float64(0.5), "val_loss": 0.75})
    history = model.history
    assert isinstance(history, callbacks.History)
    assert history.history == {"loss": [0.5, 0.5], "val_loss": [0.75, 0.75]}
    assert history.epoch == [0, 1]


def test_a_key_a_callback_adds_to_the_epoch_logs_reaches_the_history():
    model = FakeModel()
    schedule = callbacks.LearningRateScheduler(lambda epoch, lr: lr / 2)
    fit_with(schedule, values=[1.0, 1.0], model=model)
    assert model.history.history["learning_rate"] == [0.005, 0.0025]


# --- EarlyStopping ------------------------------------------------------------------

# (arguments, monitored values, epochs run): the run ends at the epoch that stops it.
STOPPING = [
    ({}, [1.0, 0.9, 0.95, 0.8], 3),
    ({"patience": 2}, [1.0, 0.9, 0.95, 0.95, 0.8], 4),
    ({"patience": 2}, [1.0, 0.9, 0.95, 0.85, 0.87, 0.86, 0.1], 6),
    ({"patience": 1, "min_delta": 0.05}, [1.0, 0.96, 0.9], 2),
    ({"patience": 1, "min_delta": -0.05}, [1.0, 0.96, 0.9], 2),
    ({"patience": 3}, [1.0, 1.0, 1.0, 1.0, 1.0], 4),
    ({"mode": "max"}, [0.5, 0.6, 0.6, 0.7], 3),
    ({"mode": "max", "min_delta": 0.2}, [0.5, 0.6, 0.9], 2),
    ({"start_from_epoch": 2}, [1.0, 2.0, 3.0, 4.0, 3.5], 4),
    ({"baseline": 0.5, "patience": 2}, [0.9, 0.8, 0.7, 0.6], 4),
    ({"baseline": 0.5, "patience": 2}, [0.9, 0.8, 0.85, 0.7], 3),
    ({"baseline": 0.5, "patience": 1}, [0.9, 0.4, 0.45, 0.3], 3),
    ({"patience": 0}, [1.0], 1),
    ({"patience": 0}, [1.0, 1.0, 0.5], 2),
]


@pytest.mark.parametrize("kwargs, values, epochs_run", STOPPING)
def test_early_stopping_stops_after_patience_epochs_without_improvement(kwargs, values,
                                                                         epochs_run):
    stopper = callbacks.EarlyStopping(**kwargs)
    run, model = fit_with(stopper, values=values)
    assert run == epochs_run
    assert model.stop_training == (epochs_run < len(values))
    assert stopper.stopped_epoch == (epochs_run - 1 if model.stop_training else 0)


def test_early_stopping_counts_the_epochs_since_the_best_one():
    stopper = callbacks.EarlyStopping(patience=5)
    fit_with(stopper, values=[1.0, 0.5, 0.7, 0.6])
    assert (stopper.best, stopper.best_epoch, stopper.wait) == (0.5, 1, 2)


def test_early_stopping_restores_the_best_weights_when_it_stops(capsys):
    stopper = callbacks.EarlyStopping(patience=2, restore_best_weights=True, verbose=1)
    run, model = fit_with(stopper, values=[1.0, 0.5, 0.7, 0.8, 0.1])
    assert run == 4
    np.testing.assert_array_equal(model.weights[0], [1.0, 1.0])
    assert capsys.readouterr().out == ("Epoch 4: early stopping\nRestoring model weights "
                                       "from the end of the best epoch: 2.\n")


def test_early_stopping_restores_the_best_weights_at_the_end_even_without_stopping():
    stopper = callbacks.EarlyStopping(patience=5, restore_best_weights=True)
    run, model = fit_with(stopper, values=[1.0, 0.5, 0.7])
    assert run == 3
    np.testing.assert_array_equal(model.weights[0], [1.0, 1.0])


def test_early_stopping_keeps_the_last_weights_unless_asked():
    _, model = fit_with(callbacks.EarlyStopping(patience=1), values=[1.0, 0.5, 0.7, 0.8])
    np.testing.assert_array_equal(model.weights[0], [2.0, 2.0])


def test_early_stopping_restores_the_best_epoch_even_when_none_beat_the_baseline():
    stopper = callbacks.EarlyStopping(patience=2, baseline=0.1, restore_best_weights=True,
                                      start_from_epoch=1)
    run, model = fit_with(stopper, values=[0.0, 0.9, 0.8, 0.85, 0.7])
    assert run == 4
    np.testing.assert_array_equal(model.weights[0], [2.0, 2.0])


def test_early_stopping_can_be_used_again_by_another_fit():
    stopper = callbacks.EarlyStopping(patience=1)
    assert fit_with(stopper, values=[1.0, 2.0, 3.0])[0] == 2
    assert fit_with(stopper, values=[5.0, 4.0, 3.0])[0] == 3


def test_early_stopping_warns_when_the_monitored_metric_is_missing():
    stopper = callbacks.EarlyStopping(monitor="val_loss")
    with pytest.warns(UserWarning, match="`val_loss` which is not available. Available "
                                         "metrics are: loss"):
        run, model = fit_with(stopper, values=[1.0, 2.0], monitor="loss")
    assert run == 2 and not model.stop_training


def test_auto_mode_takes_a_loss_to_fall_and_a_metric_the_way_it_says():
    accuracy = FakeMetric("accuracy", "up")
    model = FakeModel(metrics=[FakeMetric("loss", "down"), FakeMetricsContainer([accuracy])])
    rising = callbacks.EarlyStopping(monitor="val_accuracy")
    assert fit_with(rising, values=[0.5, 0.6, 0.7, 0.6, 0.9], monitor="val_accuracy",
                    model=model)[0] == 4
    falling = callbacks.EarlyStopping(monitor="loss")
    assert fit_with(falling, values=[0.5, 0.6, 0.4], monitor="loss")[0] == 2
    # Keras looks only inside containers; a tracker of the model's own counts here too.
    error = FakeModel(metrics=[FakeMetric("mae", "down")])
    assert fit_with(callbacks.EarlyStopping(monitor="mae"), values=[0.5, 0.4, 0.6],
                    monitor="mae", model=error)[0] == 3


def test_auto_mode_on_a_metric_of_unknown_direction_asks_for_a_mode():
    stopper = callbacks.EarlyStopping(monitor="val_f1")
    with pytest.raises(ValueError, match="monitor=val_f1.*mode='max'"):
        fit_with(stopper, values=[0.5], monitor="val_f1")


def test_an_unknown_mode_warns_and_falls_back_to_auto():
    with pytest.warns(UserWarning, match="mode 'lowest' is unknown, fallback to auto mode"):
        stopper = callbacks.EarlyStopping(mode="lowest")
    assert stopper.mode == "auto"


# --- ModelCheckpoint ----------------------------------------------------------------


def test_model_checkpoint_saves_each_epoch_under_a_formatted_name(tmp_path):
    checkpoint = callbacks.ModelCheckpoint(str(tmp_path / "w.{epoch:02d}.weights.npz"),
                                           save_weights_only=True)
    _, model = fit_with(checkpoint, values=[1.0, 2.0, 3.0])
    assert model.saved == ["w.01.weights.npz", "w.02.weights.npz", "w.03.weights.npz"]
    with np.load(tmp_path / "w.02.weights.npz") as saved:
        np.testing.assert_array_equal(saved["arr_0"], [1.0, 1.0])


def test_model_checkpoint_formats_metrics_of_the_logs_into_the_name(tmp_path):
    checkpoint = callbacks.ModelCheckpoint(str(tmp_path / "e{epoch}-{val_loss:.2f}.npz"))
    _, model = fit_with(checkpoint, values=[0.123, 0.5])
    assert model.saved == ["e1-0.12.npz", "e2-0.50.npz"]


def test_model_checkpoint_saves_only_improvements_with_save_best_only(tmp_path, capsys):
    path = str(tmp_path / "best-{epoch}.npz")
    checkpoint = callbacks.ModelCheckpoint(path, save_best_only=True, verbose=1)
    _, model = fit_with(checkpoint, values=[1.0, 0.8, 0.9, 0.7])
    assert model.saved == ["best-1.npz", "best-2.npz", "best-4.npz"]
    assert checkpoint.best == 0.7
    out = capsys.readouterr().out
    first = path.format(epoch=1)
    assert out.startswith(f"\nEpoch 1: val_loss improved from None to 1.00000, saving model "
                          f"to {first}\n\nEpoch 1: finished saving model to {first}\n")
    assert "\nEpoch 3: val_loss did not improve from 0.80000\n" in out


def test_model_checkpoint_starts_from_initial_value_threshold_and_mode(tmp_path):
    path = str(tmp_path / "best-{epoch}.npz")
    below = callbacks.ModelCheckpoint(path, save_best_only=True, initial_value_threshold=0.85)
    assert fit_with(below, values=[1.0, 0.8, 0.9, 0.7])[1].saved == ["best-2.npz",
                                                                     "best-4.npz"]
    rising = callbacks.ModelCheckpoint(path, monitor="val_accuracy", mode="max",
                                       save_best_only=True)
    assert fit_with(rising, values=[0.5, 0.4, 0.6], monitor="val_accuracy")[1].saved == [
        "best-1.npz", "best-3.npz"]


def test_model_checkpoint_saves_when_the_monitored_metric_is_missing(tmp_path):
    checkpoint = callbacks.ModelCheckpoint(str(tmp_path / "c.npz"), save_best_only=True)
    with pytest.warns(UserWarning, match="Can save best model only with val_loss available"):
        _, model = fit_with(checkpoint, values=[1.0], monitor="loss")
    assert model.saved == ["c.npz"]


def test_model_checkpoint_saves_every_save_freq_batches(tmp_path):
    checkpoint = callbacks.ModelCheckpoint(str(tmp_path / "e{epoch}b{batch}.npz"),
                                           save_freq=2)
    _, model = fit_with(checkpoint, values=[1.0, 1.0], steps=3)
    assert model.saved == ["e1b2.npz", "e2b1.npz", "e2b3.npz"]


def test_model_checkpoint_uses_the_models_save_unless_weights_only(tmp_path):
    path = str(tmp_path / "m.npz")
    full = fit_with(callbacks.ModelCheckpoint(path), values=[1.0], model=ModelWithSave())[1]
    assert full.saved == [("save", "m.npz")]
    weights = callbacks.ModelCheckpoint(path, save_weights_only=True)
    assert fit_with(weights, values=[1.0], model=ModelWithSave())[1].saved == ["m.npz"]
    assert fit_with(callbacks.ModelCheckpoint(path), values=[1.0])[1].saved == ["m.npz"]


def test_model_checkpoint_makes_missing_folders(tmp_path):
    path = tmp_path / "runs" / "a" / "w.npz"
    fit_with(callbacks.ModelCheckpoint(path), values=[1.0])
    assert path.exists()


@pytest.mark.parametrize("filepath", ["w.weights.h5", "model.keras", "w.{epoch}"])
def test_model_checkpoint_wants_an_npz_path(filepath):
    with pytest.raises(ValueError, match=r"must end in `\.npz`.*Received: filepath="):
        callbacks.ModelCheckpoint(filepath)


def test_model_checkpoint_rejects_an_unknown_save_freq():
    with pytest.raises(ValueError, match="Unrecognized save_freq: batch"):
        callbacks.ModelCheckpoint("w.npz", save_freq="batch")


def test_model_checkpoint_names_a_placeholder_the_logs_lack(tmp_path):
    checkpoint = callbacks.ModelCheckpoint(str(tmp_path / "w-{val_acc:.2f}.npz"))
    with pytest.raises(KeyError, match="Failed to format this callback filepath.*val_acc"):
        fit_with(checkpoint, values=[1.0])


def test_model_checkpoint_refuses_a_folder_as_its_file(tmp_path):
    (tmp_path / "w.npz").mkdir()
    with pytest.raises(OSError, match="non-directory filepath"):
        fit_with(callbacks.ModelCheckpoint(str(tmp_path / "w.npz")), values=[1.0])


# --- LearningRateScheduler and ReduceLROnPlateau ------------------------------------


def test_learning_rate_scheduler_sets_the_rate_from_the_epoch_and_the_current_rate(capsys):
    seen = []

    def schedule(epoch, lr):
        seen.append((epoch, lr))
        return lr * 0.5 if epoch else 0.1

    model = FakeModel()
    fit_with(callbacks.LearningRateScheduler(schedule, verbose=1), values=[1.0] * 3,
             model=model)
    assert seen == [(0, 0.01), (1, 0.1), (2, 0.05)]
    assert model.optimizer.learning_rate == 0.025
    assert model.history.history["learning_rate"] == [0.1, 0.05, 0.025]
    assert capsys.readouterr().out.startswith(
        "\nEpoch 1: LearningRateScheduler setting learning rate to 0.1.\n"
        "\nEpoch 2: LearningRateScheduler setting learning rate to 0.05.\n")


def test_learning_rate_scheduler_takes_a_schedule_of_the_epoch_alone():
    model = FakeModel()
    fit_with(callbacks.LearningRateScheduler(lambda epoch: 1.0 / (epoch + 1)),
             values=[1.0] * 4, model=model)
    assert model.optimizer.learning_rate == 0.25


def test_learning_rate_scheduler_wants_a_float():
    with pytest.raises(ValueError, match="should be a float. Got: 1"):
        fit_with(callbacks.LearningRateScheduler(lambda epoch, lr: 1), values=[1.0])


def test_learning_rate_scheduler_drives_a_tapegen_optimizer():
    optimizer = tracer.optimizers.SGD(learning_rate=0.1)
    fit_with(callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.1),
             values=[1.0, 1.0], model=FakeModel(optimizer=optimizer))
    assert optimizer.learning_rate == pytest.approx(0.001)


# (arguments, monitored values, learning rate logged at each epoch's end, final rate)
PLATEAUS = [
    ({"factor": 0.5, "patience": 1}, [1.0, 1.0, 1.0, 0.5, 0.6],
     [0.01, 0.01, 0.005, 0.0025, 0.0025], 0.00125),
    ({"factor": 0.5, "patience": 2}, [1.0, 1.0, 1.0, 1.0, 1.0],
     [0.01, 0.01, 0.01, 0.005, 0.005], 0.0025),
    ({"factor": 0.5, "patience": 1, "cooldown": 2}, [1.0] * 6,
     [0.01, 0.01, 0.005, 0.005, 0.0025, 0.0025], 0.00125),
    ({"factor": 0.1, "patience": 0, "min_lr": 0.0005}, [1.0] * 4,
     [0.01, 0.01, 0.001, 0.0005], 0.0005),
    ({"factor": 0.5, "patience": 1, "min_delta": 0.1}, [1.0, 0.95, 0.8, 0.75],
     [0.01, 0.01, 0.005, 0.005], 0.0025),
    ({"factor": 0.5, "patience": 1, "mode": "max"}, [1.0, 1.5, 1.2, 2.0],
     [0.01, 0.01, 0.01, 0.005], 0.005),
]


@pytest.mark.parametrize("kwargs, values, logged, final", PLATEAUS)
def test_reduce_lr_on_plateau_lowers_the_rate_after_patience_epochs(kwargs, values, logged,
                                                                    final):
    model = FakeModel()
    fit_with(callbacks.ReduceLROnPlateau(**kwargs), values=values, model=model)
    assert model.history.history["learning_rate"] == pytest.approx(logged)
    assert model.optimizer.learning_rate == pytest.approx(final)


def test_reduce_lr_on_plateau_says_what_it_does(capsys):
    fit_with(callbacks.ReduceLROnPlateau(factor=0.5, patience=0, verbose=1),
             values=[1.0, 1.0])
    assert capsys.readouterr().out == ("\nEpoch 2: ReduceLROnPlateau reducing learning rate "
                                       "to 0.005.\n")


def test_reduce_lr_on_plateau_wants_a_factor_below_one():
    with pytest.raises(ValueError, match="factor >= 1.0.*factor=1.5"):
        callbacks.ReduceLROnPlateau(factor=1.5)


def test_reduce_lr_on_plateau_warns_when_the_monitored_metric_is_missing():
    with pytest.warns(UserWarning, match="`val_loss` which is not available. Available "
                                         "metrics are: loss,learning_rate"):
        fit_with(callbacks.ReduceLROnPlateau(), values=[1.0], monitor="loss")


# --- CSVLogger, TerminateOnNaN, LambdaCallback --------------------------------------


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read().decode()


def test_csv_logger_writes_sorted_columns_and_adds_val_columns(tmp_path):
    path = tmp_path / "log.csv"
    callback_list = callbacks.CallbackList([callbacks.CSVLogger(path)], model=FakeModel())
    callback_list.on_train_begin()
    callback_list.on_epoch_end(0, {"loss": 0.5, "accuracy": np.float64(0.25)})
    callback_list.on_epoch_end(1, {"loss": 0.25, "accuracy": 0.5, "val_loss": 1 / 3})
    callback_list.on_train_end()
    assert read_bytes(path) == ("epoch,accuracy,loss,val_accuracy,val_loss\r\n"
                                "0,0.25,0.5,NA,NA\r\n"
                                "1,0.5,0.25,NA,0.3333333333333333\r\n")


def test_csv_logger_appends_with_one_header_and_writes_lists(tmp_path):
    path = tmp_path / "log.csv"
    logger = callbacks.CSVLogger(str(path), separator=";", append=True)
    for run in range(2):
        callback_list = callbacks.CallbackList([logger], model=FakeModel())
        callback_list.on_train_begin()
        callback_list.on_epoch_end(run, {"loss": 1.0, "val_loss": 2.0,
                                         "per_class": np.array([1.5, 2.0])})
        callback_list.on_train_end()
    assert read_bytes(path) == ('epoch;loss;per_class;val_loss\r\n'
                                '0;1.0;"""[1.5, 2.0]""";2.0\r\n'
                                '1;1.0;"""[1.5, 2.0]""";2.0\r\n')


@pytest.mark.parametrize("loss", [float("nan"), float("inf"), -float("inf")])
def test_terminate_on_nan_stops_at_the_first_invalid_loss(loss, capsys):
    model = FakeModel()
    callback_list = callbacks.CallbackList([callbacks.TerminateOnNaN()], model=model)
    callback_list.on_train_batch_end(0, {"loss": 1.0})
    assert not model.stop_training
    callback_list.on_train_batch_end(1, {"loss": np.float64(loss)})
    assert model.stop_training
    assert capsys.readouterr().out == "Batch 1: Invalid loss, terminating training\n"


def test_terminate_on_nan_can_raise_at_once():
    callback = callbacks.TerminateOnNaN(raise_error=True)
    callback.set_model(FakeModel())
    with pytest.raises(RuntimeError, match="NaN or Inf loss encountered at batch 2"):
        callback.on_train_batch_end(2, {"loss": float("nan")})


def test_lambda_callback_runs_the_given_functions():
    seen = []
    callback = callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: seen.append(("epoch", epoch, logs["val_loss"])),
        on_train_end=lambda logs: seen.append("end"),
        on_test_end=lambda logs: seen.append("test"))
    callback_list = callbacks.CallbackList([callback], model=FakeModel())
    train(callback_list, [0.5, 0.25])
    callback_list.on_test_begin()
    callback_list.on_test_end()
    assert seen == [("epoch", 0, 0.5), ("epoch", 1, 0.25), "end", "test"]


# --- progress output ----------------------------------------------------------------

BATCH_LOGS = {0: {"loss": 0.7, "accuracy": 0.5}, 1: {"loss": 0.6, "accuracy": 0.5},
              2: {"loss": 0.5, "accuracy": 0.5}}
EPOCH_LOGS = {"loss": 0.6, "accuracy": 0.5, "val_loss": 0.00012, "val_accuracy": 0.25}
BACK = "\b" * 72


def progress_of_fit(verbose, epochs=2, steps=3):
    callback_list = callbacks.CallbackList(add_history=True, add_progbar=verbose != 0,
                                           verbose=verbose, epochs=epochs, steps=steps,
                                           model=FakeModel())
    fit_logs(callback_list, epochs, steps or 2, BATCH_LOGS.get, EPOCH_LOGS)


def test_verbose_1_redraws_one_live_line_per_epoch(clock, redrawn, capsys):
    progress_of_fit(verbose=1)
    out = capsys.readouterr().out
    epoch = ("\r\x1b[1m1/3\x1b[0m \x1b[32m━━━━━━\x1b[0m\x1b[37m━━━━━━━━━━━━━━\x1b[0m "
             "\x1b[1m0s\x1b[0m 100ms/step - accuracy: 0.5000 - loss: 0.7000" + BACK +
             "\r\x1b[1m2/3\x1b[0m \x1b[32m━━━━━━━━━━━━━\x1b[0m\x1b[37m━━━━━━━\x1b[0m "
             "\x1b[1m0s\x1b[0m 100ms/step - accuracy: 0.5000 - loss: 0.6000" + BACK +
             "\r\x1b[1m3/3\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m "
             "\x1b[1m0s\x1b[0m 100ms/step - accuracy: 0.5000 - loss: 0.5000" + BACK +
             "\r\x1b[1m3/3\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m "
             "\x1b[1m0s\x1b[0m 150ms/step - accuracy: 0.5000 - loss: 0.6000 - val_accuracy: "
             "0.2500 - val_loss: 1.2000e-04\n")
    assert out == "Epoch 1/2\n" + epoch + "Epoch 2/2\n" + epoch


def test_verbose_1_starts_a_new_line_per_update_where_lines_cannot_be_redrawn(clock, plain,
                                                                             capsys):
    progress_of_fit(verbose=1, epochs=1)
    assert visible(capsys.readouterr().out) == (
        "\n1/3 ━━━━━━━━━━━━━━━━━━━━ 0s 100ms/step - accuracy: 0.5000 - loss: 0.7000"
        "\n2/3 ━━━━━━━━━━━━━━━━━━━━ 0s 100ms/step - accuracy: 0.5000 - loss: 0.6000"
        "\n3/3 ━━━━━━━━━━━━━━━━━━━━ 0s 100ms/step - accuracy: 0.5000 - loss: 0.5000"
        "\n3/3 ━━━━━━━━━━━━━━━━━━━━ 0s 150ms/step - accuracy: 0.5000 - loss: 0.6000"
        " - val_accuracy: 0.2500 - val_loss: 1.2000e-04\n")


@pytest.mark.parametrize("shows", ["tty", "ipykernel", "PYCHARM_HOSTED"])
def test_a_terminal_a_notebook_or_pycharm_is_redrawn_in_place(shows, plain, monkeypatch):
    if shows == "tty":
        monkeypatch.setattr(sys, "stdout", types.SimpleNamespace(isatty=lambda: True))
    elif shows == "ipykernel":
        monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    else:
        monkeypatch.setenv("PYCHARM_HOSTED", "1")
    assert callbacks.Progbar(3)._dynamic_display


def test_verbose_2_prints_one_line_per_epoch(clock, capsys):
    progress_of_fit(verbose=2)
    line = ("3/3 - 0s - 33ms/step - accuracy: 0.5000 - loss: 0.6000 - val_accuracy: 0.2500 "
            "- val_loss: 1.2000e-04\n")
    assert capsys.readouterr().out == "Epoch 1/2\n" + line + "Epoch 2/2\n" + line


def test_one_epoch_has_no_epoch_header_and_verbose_0_prints_nothing(clock, capsys):
    progress_of_fit(verbose=2, epochs=1)
    assert capsys.readouterr().out.startswith("3/3 - 0s")
    progress_of_fit(verbose=0)
    silent = callbacks.CallbackList([callbacks.ProgbarLogger()], verbose=0, epochs=2, steps=3,
                                    model=FakeModel())
    fit_logs(silent, 2, 3, BATCH_LOGS.get, EPOCH_LOGS)
    assert capsys.readouterr().out == ""


def test_an_epoch_of_unknown_length_counts_up_then_learns_its_length(clock, redrawn, capsys):
    progress_of_fit(verbose=1, epochs=1, steps=None)
    lines = visible(capsys.readouterr().out).split("\r")
    assert lines[1:] == ["      1/Unknown 0s 100ms/step - accuracy: 0.5000 - loss: 0.7000"
                         + "\b" * 63,
                         "      2/Unknown 0s 100ms/step - accuracy: 0.5000 - loss: 0.6000"
                         + "\b" * 63,
                         "2/2 ━━━━━━━━━━━━━━━━━━━━ 0s 200ms/step - accuracy: 0.5000 - "
                         "loss: 0.6000 - val_accuracy: 0.2500 - val_loss: 1.2000e-04\n"]


@pytest.mark.parametrize("verbose, expected", [
    (1, "\r1/2 ━━━━━━━━━━━━━━━━━━━━ 0s 100ms/step - loss: 0.5000 - mae: 2.0000e-04" + "\b" * 71
        + "\r2/2 ━━━━━━━━━━━━━━━━━━━━ 0s 100ms/step - loss: 0.5000 - mae: 2.0000e-04"
        + "\b" * 71 + "\r2/2 ━━━━━━━━━━━━━━━━━━━━ 0s 200ms/step - loss: 0.5000 - mae: "
        "2.0000e-04\n\r1/2 ━━━━━━━━━━━━━━━━━━━━ 0s 100ms/step" + "\b" * 38
        + "\r2/2 ━━━━━━━━━━━━━━━━━━━━ 0s 100ms/step" + "\b" * 38
        + "\r2/2 ━━━━━━━━━━━━━━━━━━━━ 0s 200ms/step\n"),
    (2, "2/2 - 0s - 50ms/step - loss: 0.5000 - mae: 2.0000e-04\n2/2 - 0s - 50ms/step\n"),
])
def test_evaluate_and_predict_show_their_own_bars(verbose, expected, clock, redrawn, capsys):
    logs = {"loss": 0.5, "mae": 2e-4}
    evaluating = callbacks.CallbackList(add_progbar=True, verbose=verbose, epochs=1, steps=2,
                                        model=FakeModel())
    evaluating.on_test_begin()
    for batch in range(2):
        evaluating.on_test_batch_end(batch, logs)
    evaluating.on_test_end(logs)
    predicting = callbacks.CallbackList(add_progbar=True, verbose=verbose, epochs=1, steps=2,
                                        model=FakeModel())
    predicting.on_predict_begin()
    for batch in range(2):
        predicting.on_predict_batch_end(batch, {"outputs": np.ones(3)})
    predicting.on_predict_end()
    assert visible(capsys.readouterr().out) == expected


def test_validation_inside_fit_prints_nothing_of_its_own(clock, capsys):
    logger = callbacks.ProgbarLogger()
    callback_list = callbacks.CallbackList([logger], verbose=2, epochs=1, steps=1,
                                           model=FakeModel())
    callback_list.on_train_begin()
    callback_list.on_epoch_begin(0)
    callback_list.on_test_begin()
    callback_list.on_test_batch_end(0, {"loss": 1.0})
    callback_list.on_test_end({"loss": 1.0})
    assert capsys.readouterr().out == ""


def bar_updates(verbose, steps, values, target=None, interval=0.05, **kwargs):
    bar = callbacks.Progbar(target, verbose=verbose, interval=interval, **kwargs)
    for step, value in zip(steps, values):
        bar.update(step, value)
    return bar


def test_the_bar_averages_stateless_values_over_the_steps_they_cover(clock, redrawn,
                                                                     capsys):
    values = [[("a", 1.0), ("b", 5.0)], [("a", 4.0), ("b", 6.0)], [("a", 2.0), ("b", 7.0)]]
    bar_updates(1, [1, 3, 4], values, target=5, stateful_metrics=["b"])
    assert "- a: 2.7500 - b: 7.0000" in visible(capsys.readouterr().out).split("\r")[-1]
    bar_updates(1, [1, 3, 4], values, target=4, stateful_metrics=["b"])
    assert visible(capsys.readouterr().out).endswith("- a: 2.0000 - b: 7.0000\n")


@pytest.mark.parametrize("value, live, summary", [
    (0.5, "0.5000", "0.5000"), (12345.6789, "12345.6789", "12345.6789"),
    (0.001, "1.0000e-03", "1.0000e-03"), (2e-4, "2.0000e-04", "2.0000e-04"),
    (-0.5, "-0.5000", "-5.0000e-01"), (0.0, "0.0000e+00", "0.0000e+00"),
    (float("nan"), "nan", "nan"),
])
def test_values_show_four_decimals_or_scientific_when_small(value, live, summary, clock,
                                                            capsys):
    bar_updates(1, [1], [[("m", value)]], target=1)
    bar_updates(2, [1], [[("m", value)]], target=1)
    out = visible(capsys.readouterr().out)
    assert f"- m: {live}\n" in out and out.endswith(f"- m: {summary}\n")


@pytest.mark.parametrize("seconds, shown", [
    (0.0, " 0s/step"), (2.4, " 2s/step"), (0.0031, " 3ms/step"), (4.5e-4, " 450us/step"),
])
def test_time_per_step_is_in_seconds_milliseconds_or_microseconds(seconds, shown):
    assert progbar_module.format_time(seconds, "step") == shown


@pytest.mark.parametrize("step, eta", [(1.0, "9s"), (30.0, "4:30"), (1000.0, "2:30:00")])
def test_the_eta_is_shown_in_seconds_minutes_or_hours(step, eta, clock, redrawn, capsys):
    clock.step = step
    bar_updates(1, [1], [[]], target=10)
    assert re.search(r"━ (\S+) ", visible(capsys.readouterr().out)).group(1) == eta


def test_live_updates_closer_than_the_interval_are_skipped_but_not_the_last(clock, redrawn,
                                                                            capsys):
    clock.step = 0.01
    bar_updates(1, [1, 2, 3, 4], [[]] * 4, target=4, interval=0.05)
    counters = re.findall(r"\d/4", visible(capsys.readouterr().out))
    assert counters == ["1/4", "4/4"]


def test_progbar_takes_one_kind_of_metric_list():
    with pytest.raises(ValueError, match="Only one of `stateful_metrics` or "
                                         "`stateless_metrics`"):
        callbacks.Progbar(3, stateful_metrics=["a"], stateless_metrics=["b"])
