"""``tracer.layers`` against Keras 3's definitions, written out here in plain numpy: each
layer's forward values, its gradients (inputs and weights) against central
differences, its weights (names, order, ``get_weights``/``set_weights``), and its
behaviour in training, under a tape and inside ``tracer.function``."""

import numpy as np
import pytest
from scipy.special import erf

import tracer
from tracer import initializers, layers, regularizers

RNG = np.random.default_rng(0)


def normal(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape)


def value(tensor):
    return np.asarray(tensor.numpy() if hasattr(tensor, "numpy") else tensor)


def assert_weight_gradients(layer, x, training=False, reset=lambda: None, eps=1e-6):
    """The tape's gradient of ``<u, layer(x)>`` with respect to each trainable weight
    against a central difference along a random direction.  ``reset`` runs before
    every call (to give a random layer the same draw each time)."""
    rng = np.random.default_rng(1)
    reset()
    u = rng.normal(size=np.shape(value(layer(x, training=training))))

    def inner():
        reset()
        return float(np.sum(u * value(layer(x, training=training))))

    reset()
    with tracer.GradientTape() as tape:
        total = np.sum(u * layer(x, training=training))
    gradients = tape.gradient(total, layer.trainable_weights)
    assert gradients and all(g is not None for g in gradients)
    for weight, gradient in zip(layer.trainable_weights, gradients):
        v = rng.normal(size=weight.shape)
        start = weight.numpy().copy()
        weight.assign(start + eps * v)
        plus = inner()
        weight.assign(start - eps * v)
        minus = inner()
        weight.assign(start)
        numeric = (plus - minus) / (2 * eps)
        analytic = float(np.sum(value(gradient) * v))
        assert abs(numeric - analytic) <= 1e-7 + 1e-5 * (abs(numeric) + abs(analytic)), (
            weight.name, numeric, analytic)


def built(layer, shape):
    layer.build(shape)
    layer.built = True
    return layer


# --- Dense, Activation, Flatten, Embedding -------------------------------------------

ACTIVATIONS = {
    "linear": lambda z: z,
    "relu": lambda z: np.maximum(z, 0),
    "tanh": np.tanh,
    "sigmoid": lambda z: 1 / (1 + np.exp(-z)),
    "softmax": lambda z: np.exp(z) / np.sum(np.exp(z), axis=-1, keepdims=True),
    "gelu": lambda z: 0.5 * z * (1 + erf(z / np.sqrt(2))),
    "silu": lambda z: z / (1 + np.exp(-z)),
}


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_dense_is_activation_of_an_affine_map(activation, shape):
    x = normal(*shape)
    dense = layers.Dense(5, activation=activation, bias_initializer="random_normal")
    y = dense(x)
    kernel, bias = dense.get_weights()
    assert kernel.shape == (4, 5) and bias.shape == (5,)
    np.testing.assert_allclose(value(y), ACTIVATIONS[activation](x @ kernel + bias),
                               rtol=1e-12, atol=1e-14)
    tracer.check_gradients(lambda t: dense(t), x)
    assert_weight_gradients(dense, x)


def relu_and_gradient(x, upstream):
    """``relu(x)`` and its gradient for the ``upstream`` cotangent, eagerly."""
    x = tracer.constant(x)
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = tracer.activations.relu(x)
    return y.numpy(), tape.gradient(y, x, output_gradients=tracer.constant(upstream)).numpy()


def test_relu_is_tensorflows_relu_and_relu_gradient():
    """TensorFlow's Relu keeps a NaN, and its ReluGrad is ``g * (x > 0)``: 0 at 0, and NaN
    where an infinite cotangent meets x <= 0; eager and compiled alike."""
    x = np.array([-np.inf, -1.0, 0.0, 2.0, np.nan, np.inf])
    ones, infinite = np.ones(6), np.full(6, np.inf)

    @tracer.function
    def compiled(x, upstream):
        with tracer.GradientTape() as tape:
            tape.watch(x)
            y = tracer.activations.relu(x)
        return y, tape.gradient(y, x, output_gradients=upstream)

    with np.errstate(invalid="ignore"):
        for run in (relu_and_gradient,
                    lambda x, g: tuple(t.numpy() for t in compiled(tracer.constant(x), g))):
            y, gradient = run(x, ones)
            np.testing.assert_array_equal(y, [0.0, 0.0, 0.0, 2.0, np.nan, np.inf])
            np.testing.assert_array_equal(gradient, [0.0, 0.0, 0.0, 1.0, 0.0, 1.0])
            _, gradient = run(x, infinite)
            np.testing.assert_array_equal(gradient, [np.nan, np.nan, np.nan, np.inf, np.nan,
                                                     np.inf])
    tracer.check_gradients(tracer.activations.relu, np.array([[-1.5, 0.5], [2.0, -0.1]]),
                           order=2)


def test_dense_weights_names_order_and_initial_values():
    initializers.set_random_seed(3)
    dense = layers.Dense(4, name="hidden")
    assert dense.weights == [] and not dense.built
    dense(np.ones((2, 6)))
    assert [w.name for w in dense.weights] == ["hidden/kernel", "hidden/bias"]
    assert dense.trainable_weights == dense.weights and dense.non_trainable_weights == []
    kernel, bias = dense.get_weights()
    limit = np.sqrt(6 / (6 + 4))  # Glorot's uniform
    assert np.all(np.abs(kernel) <= limit) and np.ptp(kernel) > limit
    np.testing.assert_array_equal(bias, np.zeros(4))
    assert dense.count_params() == 6 * 4 + 4
    no_bias = layers.Dense(4, use_bias=False, name="plain")
    no_bias(np.ones((2, 6)))
    assert [w.name for w in no_bias.weights] == ["plain/kernel"]
    np.testing.assert_allclose(value(no_bias(np.ones((1, 6)))),
                               np.ones((1, 6)) @ no_bias.get_weights()[0])


def test_set_weights_round_trip_and_refusals():
    dense = layers.Dense(3)
    dense(np.ones((1, 2)))
    new = [normal(2, 3, seed=4), normal(3, seed=5)]
    dense.set_weights(new)
    for got, expected in zip(dense.get_weights(), new):
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_allclose(value(dense(np.eye(2))), new[0] + new[1], rtol=1e-14)
    with pytest.raises(ValueError, match="has 2 weights but 1"):
        dense.set_weights(new[:1])
    with pytest.raises(ValueError, match=r"kernel has shape \(2, 3\)"):
        dense.set_weights([np.ones((3, 3)), np.ones(3)])
    np.testing.assert_array_equal(dense.get_weights()[0], new[0])  # none was assigned


@pytest.mark.parametrize("penalty, expected", [
    (regularizers.L1(0.1), lambda w: 0.1 * np.sum(np.abs(w))),
    (regularizers.L2(0.2), lambda w: 0.2 * np.sum(w ** 2)),
    (regularizers.L1L2(l1=0.1, l2=0.3), lambda w: 0.1 * np.sum(np.abs(w)) + 0.3 * np.sum(w ** 2)),
    ("l2", lambda w: 0.01 * np.sum(w ** 2)),
])
def test_dense_regularizer_losses_and_their_gradients(penalty, expected):
    dense = layers.Dense(3, kernel_regularizer=penalty)
    x = normal(4, 2)
    dense(x)
    (loss,) = dense.losses
    kernel = dense.get_weights()[0]
    np.testing.assert_allclose(value(loss), expected(kernel), rtol=1e-12)
    with tracer.GradientTape() as tape:
        total = np.sum(dense(x)) + sum(dense.losses)
    gradient = value(tape.gradient(total, dense.kernel))
    eps = 1e-6
    direction = normal(2, 3, seed=2)
    numeric = (np.sum(x @ (kernel + eps * direction)) + expected(kernel + eps * direction)
               - np.sum(x @ (kernel - eps * direction))
               - expected(kernel - eps * direction)) / (2 * eps)
    np.testing.assert_allclose(np.sum(gradient * direction), numeric, rtol=1e-6)


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_activation_layer(activation):
    x = normal(3, 5)
    layer = layers.Activation(activation)
    np.testing.assert_allclose(value(layer(x)), ACTIVATIONS[activation](x), rtol=1e-12,
                               atol=1e-14)
    assert layer.weights == []
    tracer.check_gradients(lambda t: layer(t), x)


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (1, 2, 3, 2)])
def test_flatten(shape):
    x = normal(*shape)
    layer = layers.Flatten()
    np.testing.assert_array_equal(value(layer(x)), x.reshape(shape[0], -1))
    tracer.check_gradients(lambda t: layer(t), x)


def test_embedding_rows_and_their_gradient():
    layer = layers.Embedding(6, 3, name="words")
    ids = np.array([[0, 5, 2], [2, 2, 1]])
    rows = value(layer(ids))
    (table,) = layer.get_weights()
    assert [w.name for w in layer.weights] == ["words/embeddings"]
    assert np.all(np.abs(table) <= 0.05)  # Keras' "uniform": RandomUniform(-0.05, 0.05)
    np.testing.assert_array_equal(rows, table[ids])
    u = normal(2, 3, 3)
    with tracer.GradientTape() as tape:
        total = np.sum(u * layer(ids))
    expected = np.zeros_like(table)
    np.add.at(expected, ids, u)  # each row gets the upstream gradients of its lookups
    np.testing.assert_allclose(value(tape.gradient(total, layer.embeddings)), expected,
                               rtol=1e-14)
    assert_weight_gradients(layer, ids)


# --- LayerNormalization ---------------------------------------------------------------

def layer_norm_reference(x, axes, gamma, beta, epsilon):
    mean = np.mean(x, axis=axes, keepdims=True)
    variance = np.mean((x - mean) ** 2, axis=axes, keepdims=True)
    return gamma * (x - mean) / np.sqrt(variance + epsilon) + beta


@pytest.mark.parametrize("shape, axis, axes", [
    ((4, 5), -1, (1,)),
    ((2, 3, 4), -1, (2,)),
    ((2, 3, 4), [1, 2], (1, 2)),
    ((2, 3, 4), 1, (1,)),
])
def test_layer_normalization_values_and_gradients(shape, axis, axes):
    x = normal(*shape) * 3 + 1
    layer = layers.LayerNormalization(axis=axis, epsilon=1e-2,
                                      gamma_initializer="random_normal",
                                      beta_initializer="random_normal")
    y = value(layer(x))
    gamma, beta = layer.get_weights()
    assert gamma.shape == beta.shape == tuple(shape[a] for a in axes)
    broadcast = tuple(shape[d] if d in axes else 1 for d in range(len(shape)))
    np.testing.assert_allclose(
        y, layer_norm_reference(x, axes, gamma.reshape(broadcast), beta.reshape(broadcast),
                                1e-2), rtol=1e-12, atol=1e-13)
    tracer.check_gradients(lambda t: layer(t), x)
    assert_weight_gradients(layer, x)


def test_layer_normalization_defaults_and_weights():
    layer = layers.LayerNormalization(name="norm")
    x = normal(3, 4)
    y = value(layer(x))
    assert [w.name for w in layer.weights] == ["norm/gamma", "norm/beta"]
    np.testing.assert_array_equal(layer.get_weights()[0], np.ones(4))
    np.testing.assert_array_equal(layer.get_weights()[1], np.zeros(4))
    np.testing.assert_allclose(y, layer_norm_reference(x, (1,), 1.0, 0.0, 1e-3), rtol=1e-12)
    bare = layers.LayerNormalization(center=False, scale=False)
    np.testing.assert_allclose(value(bare(x)), y, rtol=1e-12)
    assert bare.weights == []
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        layers.LayerNormalization(axis=2)(x)


# --- BatchNormalization ---------------------------------------------------------------

def batch_norm_reference(x, axis, gamma, beta, mean, variance, epsilon):
    shape = [1] * x.ndim
    shape[axis] = -1
    return (gamma.reshape(shape) * (x - mean.reshape(shape))
            / np.sqrt(variance.reshape(shape) + epsilon) + beta.reshape(shape))


def batch_statistics(x, axis):
    axes = tuple(d for d in range(x.ndim) if d != axis % x.ndim)
    mean = np.mean(x, axis=axes)
    return mean, np.mean((x - np.expand_dims(mean, axes)) ** 2, axis=axes)  # biased


def random_batch_norm(shape, axis=-1, momentum=0.9, epsilon=1e-3):
    layer = layers.BatchNormalization(axis=axis, momentum=momentum, epsilon=epsilon,
                                      name="bn")
    built(layer, shape)
    features = shape[axis]
    layer.set_weights([normal(features, seed=7) + 1, normal(features, seed=8),
                       normal(features, seed=9), np.exp(normal(features, seed=10))])
    return layer


def test_batch_normalization_weights_in_keras_order():
    layer = layers.BatchNormalization(name="bn")
    layer(np.ones((2, 3)))
    assert [w.name for w in layer.weights] == ["bn/gamma", "bn/beta", "bn/moving_mean",
                                               "bn/moving_variance"]
    assert [w.name for w in layer.trainable_weights] == ["bn/gamma", "bn/beta"]
    assert [w.name for w in layer.non_trainable_weights] == ["bn/moving_mean",
                                                             "bn/moving_variance"]
    for got, expected in zip(layer.get_weights(), [1, 0, 0, 1]):
        np.testing.assert_array_equal(got, np.full(3, float(expected)))
    bare = layers.BatchNormalization(center=False, scale=False, name="bare")
    bare(np.ones((2, 3)))
    assert [w.name for w in bare.weights] == ["bare/moving_mean", "bare/moving_variance"]


@pytest.mark.parametrize("shape, axis", [((6, 4), -1), ((5, 3, 2), 1), ((4, 2, 3, 3), -1)])
def test_batch_normalization_in_training_uses_and_moves_the_batch_statistics(shape, axis):
    layer = random_batch_norm(shape, axis)
    gamma, beta, moving_mean, moving_variance = layer.get_weights()
    for step in range(3):
        x = normal(*shape, seed=step) * 2 + 3
        y = value(layer(x, training=True))
        mean, variance = batch_statistics(x, axis)
        np.testing.assert_allclose(y, batch_norm_reference(x, axis, gamma, beta, mean,
                                                           variance, 1e-3),
                                   rtol=1e-11, atol=1e-12)
        moving_mean = moving_mean * 0.9 + mean * (1 - 0.9)
        moving_variance = moving_variance * 0.9 + variance * (1 - 0.9)
        np.testing.assert_allclose(layer.moving_mean.numpy(), moving_mean, rtol=1e-13)
        np.testing.assert_allclose(layer.moving_variance.numpy(), moving_variance,
                                   rtol=1e-13)
    x = normal(*shape, seed=20)
    np.testing.assert_allclose(value(layer(x)), batch_norm_reference(
        x, axis, gamma, beta, moving_mean, moving_variance, 1e-3), rtol=1e-11, atol=1e-12)


def test_batch_normalization_in_inference_uses_the_moving_statistics():
    layer = random_batch_norm((6, 4))
    weights = layer.get_weights()
    x = normal(6, 4)
    for training in (False, None):
        y = value(layer(x) if training is None else layer(x, training=training))
        np.testing.assert_allclose(y, batch_norm_reference(x, -1, *weights, 1e-3),
                                   rtol=1e-12)
    layer.trainable = False  # a frozen layer runs in inference mode, as in Keras
    np.testing.assert_allclose(value(layer(x, training=True)),
                               batch_norm_reference(x, -1, *weights, 1e-3), rtol=1e-12)
    for got, expected in zip(layer.get_weights(), weights):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape, axis", [((5, 3), -1), ((4, 3, 2), 1)])
def test_batch_normalization_gradients(shape, axis, training):
    layer = random_batch_norm(shape, axis)
    x = normal(*shape, seed=3)
    tracer.check_gradients(lambda t: layer(t, training=training), x)
    assert_weight_gradients(layer, x, training=training)


def test_batch_normalization_assignments_are_not_differentiated():
    """Under a tape, the moving statistics are assigned, and the gradient is the one of
    the normalised value alone."""
    layer = random_batch_norm((5, 3))
    x = tracer.constant(normal(5, 3))
    before = layer.moving_mean.numpy().copy()
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        total = np.sum(layer(x, training=True) ** 2)
        statistic = np.sum(layer.moving_mean)
    assert not np.allclose(layer.moving_mean.numpy(), before)
    gamma_gradient, mean_gradient = tape.gradient(total, [layer.gamma, layer.moving_mean])
    assert mean_gradient is None  # not read by the training-mode output
    # d/dgamma sum((gamma * n + beta)**2) = sum(2 * y * n) over the batch
    gamma, beta = layer.get_weights()[:2]
    mean, variance = batch_statistics(value(x), -1)
    normalized = (value(x) - mean) / np.sqrt(variance + 1e-3)
    np.testing.assert_allclose(value(gamma_gradient),
                               np.sum(2 * (gamma * normalized + beta) * normalized, axis=0),
                               rtol=1e-11)
    assert tape.gradient(statistic, x) is None  # the assigned value's history is cut


def test_batch_normalization_training_step_compiled_equals_eager():
    def run(compiled):
        layer = random_batch_norm((6, 3), momentum=0.8)
        dense = layers.Dense(3, name="dense")
        dense(np.ones((1, 3)))
        dense.set_weights([normal(3, 3, seed=11), normal(3, seed=12)])
        variables = layer.trainable_weights + dense.trainable_weights

        def step(x):
            with tracer.GradientTape() as tape:
                loss = np.mean(dense(layer(x, training=True)) ** 2)
            for variable, gradient in zip(variables, tape.gradient(loss, variables)):
                variable.assign_sub(0.1 * gradient)
            return loss, layer(x)

        step = tracer.function(step, reduce_retracing=True) if compiled else step
        results = [step(normal(n, 3, seed=n) + 2) for n in (6, 6, 4, 6)]
        if compiled:
            assert step.experimental_get_tracing_count() == 1
        return ([value(r) for pair in results for r in pair],
                layer.get_weights() + dense.get_weights())

    eager, compiled = run(False), run(True)
    for a, b in zip(eager[0] + eager[1], compiled[0] + compiled[1]):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-14)


def test_batch_normalization_refuses_an_axis_it_cannot_use():
    with pytest.raises(TypeError, match="one int"):
        layers.BatchNormalization(axis=[1, 2])
    with pytest.raises(ValueError, match="axis 3 is out of range"):
        layers.BatchNormalization(axis=3)(np.ones((2, 3)))


# --- SimpleRNN ------------------------------------------------------------------------

def simple_rnn_reference(x, kernel, recurrent, bias, activation=np.tanh, backwards=False,
                         initial=None):
    state = np.zeros((x.shape[0], kernel.shape[1])) if initial is None else initial
    outputs = []
    for t in (range(x.shape[1])[::-1] if backwards else range(x.shape[1])):
        state = activation(x[:, t] @ kernel + bias + state @ recurrent)
        outputs.append(state)
    return np.stack(outputs, axis=1), state


def random_rnn(shape, units, **kwargs):
    layer = built(layers.SimpleRNN(units, name="rnn", **kwargs), shape)
    features = shape[-1]
    weights = [normal(features, units, seed=1) / 2, normal(units, units, seed=2) / 2]
    layer.set_weights(weights + ([normal(units, seed=3)] if layer.use_bias else []))
    return layer


@pytest.mark.parametrize("return_sequences", [False, True])
@pytest.mark.parametrize("shape, units", [((2, 5, 3), 4), ((3, 1, 2), 2), ((1, 7, 1), 3)])
def test_simple_rnn_values_and_gradients(shape, units, return_sequences):
    layer = random_rnn(shape, units, return_sequences=return_sequences)
    x = normal(*shape, seed=4)
    sequence, last = simple_rnn_reference(x, *layer.get_weights())
    y = value(layer(x))
    np.testing.assert_allclose(y, sequence if return_sequences else last, rtol=1e-12,
                               atol=1e-14)
    tracer.check_gradients(lambda t: layer(t), x)
    assert_weight_gradients(layer, x)


def test_simple_rnn_options():
    x = normal(2, 4, 3, seed=5)
    initial = normal(2, 5, seed=6) / 3
    backwards = random_rnn(x.shape, 5, return_sequences=True, return_state=True,
                           go_backwards=True, activation="relu")
    sequence, last = simple_rnn_reference(x, *backwards.get_weights(),
                                          activation=lambda z: np.maximum(z, 0),
                                          backwards=True)
    outputs, state = backwards(x)
    np.testing.assert_allclose(value(outputs), sequence, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(value(state), last, rtol=1e-12, atol=1e-14)
    started = random_rnn(x.shape, 5, use_bias=False)
    kernel, recurrent = started.get_weights()
    np.testing.assert_allclose(value(started(x, initial_state=[initial])),
                               simple_rnn_reference(x, kernel, recurrent, 0.0,
                                                    initial=initial)[1], rtol=1e-12)


def test_simple_rnn_weights_in_keras_order():
    initializers.set_random_seed(0)
    layer = layers.SimpleRNN(4)
    assert layer.name.startswith("simple_rnn")
    layer(np.ones((2, 3, 5)))
    assert [w.name.split("/")[1] for w in layer.weights] == ["kernel", "recurrent_kernel",
                                                             "bias"]
    kernel, recurrent, bias = layer.get_weights()
    assert kernel.shape == (5, 4) and bias.shape == (4,)
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(4), atol=1e-12)  # orthogonal
    np.testing.assert_array_equal(bias, np.zeros(4))
    with pytest.raises(ValueError, match=r"\(batch, time, features\)"):
        layers.SimpleRNN(2)(np.ones((2, 3)))


@pytest.mark.parametrize("return_sequences", [False, True])
def test_simple_rnn_gradient_compiled_equals_eager(return_sequences):
    layer = random_rnn((3, 6, 2), 4, return_sequences=return_sequences)
    target = normal(3, 6, 4, seed=7) if return_sequences else normal(3, 4, seed=7)

    def gradients(x):
        with tracer.GradientTape() as tape:
            tape.watch(x)
            loss = np.mean((layer(x) - target) ** 2)
        return [loss] + tape.gradient(loss, layer.trainable_weights + [x])

    compiled = tracer.function(gradients)
    x = tracer.constant(normal(3, 6, 2, seed=8))
    for a, b in zip(gradients(x), compiled(x)):
        np.testing.assert_allclose(value(b), value(a), rtol=1e-12, atol=1e-15)


# --- Dropout --------------------------------------------------------------------------

def test_dropout_is_the_identity_unless_training():
    x = normal(4, 5)
    np.testing.assert_array_equal(value(layers.Dropout(0.5)(x)), x)
    np.testing.assert_array_equal(value(layers.Dropout(0.5)(x, training=False)), x)
    np.testing.assert_array_equal(value(layers.Dropout(0.0)(x, training=True)), x)
    np.testing.assert_array_equal(value(layers.Dropout(1.0)(x, training=True)), 0 * x)


@pytest.mark.parametrize("rate", [0.1, 0.5, 0.8])
def test_dropout_keeps_a_fraction_and_scales_what_it_keeps(rate):
    x = np.abs(normal(200, 100)) + 0.5
    layer = layers.Dropout(rate, seed=3)
    y = value(layer(x, training=True))
    kept = y != 0
    n = x.size
    assert abs(kept.mean() - (1 - rate)) < 5 * np.sqrt(rate * (1 - rate) / n)
    np.testing.assert_allclose(y[kept], x[kept] / (1 - rate), rtol=1e-15)
    # kept elements spread evenly over rows and columns
    assert abs(kept[:, :50].mean() - kept[:, 50:].mean()) < 10 * np.sqrt(rate / n)
    assert abs(kept[:100].mean() - kept[100:].mean()) < 10 * np.sqrt(rate / n)


def test_dropout_draws_a_new_mask_at_every_call_reproducible_from_its_seed():
    x = np.ones((8, 16))
    first, second = layers.Dropout(0.5, seed=42), layers.Dropout(0.5, seed=42)
    masks = [value(first(x, training=True)) != 0 for _ in range(4)]
    for a in range(4):
        for b in range(a):
            assert not np.array_equal(masks[a], masks[b])
    for mask in masks:  # the same seed gives the same sequence of masks
        np.testing.assert_array_equal(value(second(x, training=True)) != 0, mask)
    other = layers.Dropout(0.5, seed=43)
    assert not np.array_equal(value(other(x, training=True)) != 0, masks[0])
    # successive masks are independent: about a quarter of the elements kept in both
    assert abs(np.mean(masks[0] & masks[1]) - 0.25) < 0.15


def test_dropout_without_a_seed_draws_one_from_the_initializers_generator():
    x = np.ones((6, 6))
    initializers.set_random_seed(5)
    first = value(layers.Dropout(0.5)(x, training=True))
    again = value(layers.Dropout(0.5)(x, training=True))
    initializers.set_random_seed(5)
    np.testing.assert_array_equal(value(layers.Dropout(0.5)(x, training=True)), first)
    assert not np.array_equal(again, first)


def test_dropout_masks_compiled_equal_eager_from_the_same_state():
    eager_layer, compiled_layer = layers.Dropout(0.3, seed=7), layers.Dropout(0.3, seed=7)
    step = tracer.function(lambda x: compiled_layer(x, training=True), reduce_retracing=True)
    for rows in (5, 5, 3, 5):
        x = normal(rows, 4, seed=rows)
        np.testing.assert_array_equal(value(step(x)), value(eager_layer(x, training=True)))
    assert step.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(compiled_layer.seed_generator.state.numpy(), [7, 4])


def test_dropout_noise_shape_drops_whole_slices():
    x = np.ones((6, 3, 40))
    layer = layers.Dropout(0.5, noise_shape=(None, 1, 40), seed=1)
    y = value(layer(x, training=True))
    np.testing.assert_array_equal(y, np.broadcast_to(y[:, :1], y.shape))
    assert 0 < np.mean(y == 0) < 1
    with pytest.raises(ValueError, match="noise_shape"):
        layers.Dropout(0.5, noise_shape=(None, 0))
    with pytest.raises(ValueError, match="has 2 axes but the inputs have 3"):
        layers.Dropout(0.5, noise_shape=(None, 1))(x, training=True)
    with pytest.raises(ValueError, match=r"rate is a fraction in \[0, 1\]"):
        layers.Dropout(1.5)


def test_dropout_gradient_is_the_mask_over_the_keep_probability():
    layer = layers.Dropout(0.4, seed=9)
    start = layer.seed_generator.state.numpy().copy()
    x = normal(5, 6)

    def dropped(t):
        layer.seed_generator.state.assign(start)
        return layer(t, training=True)

    mask = value(dropped(x)) != 0
    x_tensor = tracer.constant(x)
    with tracer.GradientTape() as tape:
        tape.watch(x_tensor)
        total = np.sum(dropped(x_tensor))
    np.testing.assert_allclose(value(tape.gradient(total, x_tensor)), mask / 0.6, rtol=1e-15)
    tracer.check_gradients(dropped, x)


def test_dropout_seed_state_is_a_variable_but_not_a_weight():
    layer = layers.Dropout(0.5, seed=1, name="drop")
    layer(np.ones((2, 2)), training=True)
    assert layer.weights == [] and layer.get_weights() == [] and layer.count_params() == 0
    (state,) = layer.variables
    assert layer.non_trainable_variables == (state,) and layer.trainable_variables == ()
    assert state.name == "drop/seed_generator_state" and not state.trainable
    assert state.dtype == np.uint64
    np.testing.assert_array_equal(state.numpy(), [1, 1])
    assert layers.Dropout(0.0).variables == ()


# --- layers inside layers -------------------------------------------------------------

class Block(layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = layers.Dense(4, activation="relu", name="block_dense")
        self.dropout = layers.Dropout(0.5, seed=2, name="block_dropout")
        self.norm = layers.BatchNormalization(name="block_norm")

    def call(self, inputs):
        return self.norm(self.dropout(self.dense(inputs)))


def test_a_block_orders_weights_and_variables_as_keras():
    block = Block()
    block(np.ones((3, 2)))
    assert [w.name for w in block.weights] == [
        "block_dense/kernel", "block_dense/bias", "block_norm/gamma", "block_norm/beta",
        "block_norm/moving_mean", "block_norm/moving_variance"]
    assert [v.name for v in block.variables] == [
        "block_dense/kernel", "block_dense/bias", "block_dropout/seed_generator_state",
        "block_norm/gamma", "block_norm/beta", "block_norm/moving_mean",
        "block_norm/moving_variance"]
    assert [v.name for v in block.non_trainable_variables] == [
        "block_dropout/seed_generator_state", "block_norm/moving_mean",
        "block_norm/moving_variance"]
    assert len(block.get_weights()) == 6


def test_training_reaches_the_layers_inside_a_block():
    block = Block()
    x = normal(8, 2) + 1
    np.testing.assert_array_equal(value(block(x)), value(block(x)))  # inference: no noise
    state = block.dropout.seed_generator.state.numpy().copy()
    moving_mean = block.norm.moving_mean.numpy().copy()
    block(x, training=True)
    assert not np.array_equal(block.dropout.seed_generator.state.numpy(), state)
    assert not np.array_equal(block.norm.moving_mean.numpy(), moving_mean)


def test_a_compiled_training_step_with_dropout_equals_the_eager_one():
    def run(compiled):
        block = Block()
        block(np.ones((1, 2)))
        block.set_weights([normal(2, 4, seed=1), normal(4, seed=2), np.ones(4),
                           np.zeros(4), np.zeros(4), np.ones(4)])

        def step(x):
            with tracer.GradientTape() as tape:
                loss = np.mean(block(x, training=True) ** 2)
            gradients = tape.gradient(loss, block.trainable_weights)
            for variable, gradient in zip(block.trainable_weights, gradients):
                variable.assign_sub(0.05 * gradient)
            return loss

        step = tracer.function(step) if compiled else step
        losses = [value(step(normal(6, 2, seed=s))) for s in range(4)]
        return losses, [v.numpy() for v in block.variables]

    eager, compiled = run(False), run(True)
    np.testing.assert_allclose(compiled[0], eager[0], rtol=1e-12)
    for a, b in zip(eager[1], compiled[1]):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-15)
