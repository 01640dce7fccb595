"""Models and fit: the training loop's numbers against a loop written by hand with a tape,
compiled steps against eager ones, data handling, weights files and errors."""

import numpy as np
import pytest

import tracer
from tracer import layers, losses, optimizers


def classification_data(rows=70, features=6, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, features))
    y = rng.integers(0, classes, size=rows)
    return x, y


def mlp(seed=1, features=6, classes=3):
    rng = np.random.default_rng(seed)
    model = tracer.Sequential([layers.Dense(8, activation="relu"), layers.Dense(classes)])
    model(np.zeros((1, features)))
    model.set_weights([rng.normal(scale=0.5, size=w.shape) for w in model.get_weights()])
    return model


def compiled_mlp(run_eagerly=False, seed=1):
    model = mlp(seed)
    model.compile(optimizer=optimizers.Adam(0.01),
                  loss=losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], run_eagerly=run_eagerly)
    return model


def test_fit_is_the_loop_written_by_hand():
    """Each batch: a tape around the forward pass, the mean cross-entropy, Adam; the epoch's
    loss is the batches' losses weighted by their rows (the last batch is shorter)."""
    x, y = classification_data()
    model = compiled_mlp()
    history = model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)

    by_hand = mlp()
    optimizer = optimizers.Adam(0.01)
    for epoch in range(2):
        total = 0.0
        for start in range(0, len(x), 16):
            xb, yb = x[start:start + 16], y[start:start + 16]
            with tracer.GradientTape() as tape:
                logits = by_hand(xb, training=True)
                log_p = logits - tracer.logsumexp(logits, axis=1, keepdims=True)
                loss = -np.mean(log_p[np.arange(len(yb)), yb])
            gradients = tape.gradient(loss, by_hand.trainable_variables)
            optimizer.apply_gradients(zip(gradients, by_hand.trainable_variables))
            total += float(loss) * len(yb)
        np.testing.assert_allclose(history.history["loss"][epoch], total / len(x), rtol=1e-12)
    for ours, theirs in zip(model.get_weights(), by_hand.get_weights()):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)
    accuracy = np.mean(np.argmax(np.asarray(model.predict(x, verbose=0)), axis=1) == y)
    np.testing.assert_allclose(model.evaluate(x, y, verbose=0)[1], accuracy, rtol=1e-12)


def test_compiled_steps_equal_eager_ones_and_trace_once_for_a_short_last_batch():
    x, y = classification_data()
    compiled, eager = compiled_mlp(), compiled_mlp(run_eagerly=True)
    kwargs = dict(batch_size=16, epochs=3, shuffle=False, verbose=0, validation_data=(x, y))
    a, b = compiled.fit(x, y, **kwargs), eager.fit(x, y, **kwargs)
    assert set(a.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    for key in a.history:
        np.testing.assert_allclose(a.history[key], b.history[key], rtol=1e-12)
    for ours, theirs in zip(compiled.get_weights(), eager.get_weights()):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
    assert compiled._steps["train"].experimental_get_tracing_count() == 1
    assert compiled._steps["test"].experimental_get_tracing_count() == 1


@pytest.mark.parametrize("return_sequences", [False, True])
def test_a_recurrent_model_traces_once_for_a_short_last_batch(return_sequences):
    """SimpleRNN runs over tracer.scan, whose reverse loop keeps the batch symbolic too."""
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(70, 5, 3)), rng.normal(size=(70, 2))

    def model(run_eagerly):
        stack = [layers.SimpleRNN(4, return_sequences=return_sequences)]
        stack += [layers.SimpleRNN(3)] if return_sequences else []
        built = tracer.Sequential([tracer.Input((5, 3)), *stack, layers.Dense(2)])
        built.set_weights([np.random.default_rng(k).normal(scale=0.5, size=w.shape)
                           for k, w in enumerate(built.get_weights())])
        built.compile(optimizer=optimizers.SGD(0.1, momentum=0.9), loss="mse",
                      metrics=["mae"], run_eagerly=run_eagerly)
        return built
    compiled, eager = model(False), model(True)
    kwargs = dict(batch_size=16, epochs=2, shuffle=False, verbose=0, validation_data=(x, y))
    a, b = compiled.fit(x, y, **kwargs), eager.fit(x, y, **kwargs)
    for key in a.history:
        np.testing.assert_allclose(a.history[key], b.history[key], rtol=1e-12)
    for ours, theirs in zip(compiled.get_weights(), eager.get_weights()):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
    assert compiled._steps["train"].experimental_get_tracing_count() == 1
    assert compiled._steps["test"].experimental_get_tracing_count() == 1


def test_validation_split_keeps_the_last_rows():
    x, y = classification_data()
    split = compiled_mlp().fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0,
                               validation_split=0.2)
    cut = int(len(x) * 0.8)
    given = compiled_mlp().fit(x[:cut], y[:cut], batch_size=16, epochs=1, shuffle=False,
                               verbose=0, validation_data=(x[cut:], y[cut:]))
    for key in given.history:
        np.testing.assert_allclose(split.history[key], given.history[key], rtol=1e-12)


def test_batches_from_an_iterable_and_dict_inputs():
    x, y = classification_data()
    from_arrays = compiled_mlp().fit(x, y, batch_size=10, epochs=1, shuffle=False, verbose=0)
    batches = [(x[k:k + 10], y[k:k + 10]) for k in range(0, len(x), 10)]
    from_batches = compiled_mlp().fit(batches, epochs=1, verbose=0)
    np.testing.assert_allclose(from_batches.history["loss"], from_arrays.history["loss"],
                               rtol=1e-12)

    class TwoInputs(tracer.Model):
        def __init__(self):
            super().__init__()
            self.dense = layers.Dense(1)

        def call(self, inputs):
            return self.dense(inputs["a"] * inputs["b"])

    model = TwoInputs()
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit({"a": x, "b": x}, y.astype(float)[:, None], batch_size=32, verbose=0)
    assert len(history.history["loss"]) == 1
    assert model.predict({"a": x, "b": x}, verbose=0).shape == (len(x), 1)


def test_weights_files_round_trip_and_refuse_another_architecture(tmp_path):
    model = mlp()
    path = tmp_path / "model.weights.npz"
    model.save_weights(path)
    copy = mlp(seed=5)
    copy.load_weights(path)
    for a, b in zip(model.get_weights(), copy.get_weights()):
        np.testing.assert_array_equal(a, b)
    other = tracer.Sequential([layers.Dense(5), layers.Dense(3)])
    other(np.zeros((1, 6)))
    before = other.get_weights()
    with pytest.raises(ValueError, match=r"kernel has shape \(6, 5\).*shape \(6, 8\)"):
        other.load_weights(path)
    for a, b in zip(before, other.get_weights()):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match=r"\.npz"):
        model.save_weights(tmp_path / "model.h5")


def test_an_interrupted_save_leaves_the_previous_file(tmp_path, monkeypatch):
    model = mlp()
    path = tmp_path / "w.npz"
    model.save_weights(path)
    before = path.read_bytes()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        mlp(seed=9).save_weights(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.npz"]


def test_bad_data_is_refused_before_any_step():
    x, y = classification_data()
    model = compiled_mlp()
    before = model.get_weights()
    with pytest.raises(ValueError, match="x has 70 rows but y has 69"):
        model.fit(x, y[:-1], verbose=0)
    for split in (1.0, -0.1):
        with pytest.raises(ValueError, match=r"validation_split must be in \[0, 1\)"):
            model.fit(x, y, validation_split=split, verbose=0)
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(RuntimeError, match="compile"):
        mlp().fit(x, y, verbose=0)
    with pytest.raises(ValueError, match="unknown optimizer"):
        mlp().compile(optimizer="adamax_typo", loss="mse")


def test_summary_lists_layers_shapes_and_parameters():
    model = tracer.Sequential([tracer.Input((6,)), layers.Dense(8, activation="relu"),
                               layers.Dense(3)], name="classifier")
    lines = []
    model.summary(print_fn=lines.append)
    text = lines[0]
    assert 'Model: "classifier"' in text
    assert "(None, 8)" in text and "(None, 3)" in text
    assert " 56 " in text and " 27 " in text
    assert "Total params: 83" in text
