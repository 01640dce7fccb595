"""Case 4: each layer on its own, forward and gradient.

The gradient is of ``sum(output * cotangent)`` (a stored random cotangent), taken by JAX
through ``layer.stateless_call`` from the weights as set, with respect to the input (when
it is float) and each trainable weight. The stateful call is made afterwards, and checked
against the stateless one, for what it leaves behind: moving statistics, ``layer.losses``.
"""

import jax
import keras
import numpy as np
from record_build import make, numeric, seeded, set_drawn_weights, weight_names

ACTIVATIONS = ("relu", "tanh", "sigmoid", "softmax", "gelu", "silu", "linear")


def spec(cls, **args):
    return {"class": cls, "args": args}


def layer_entries():
    """``{entry: (layer spec, input shape, call arguments)}``."""
    entries = {}
    for name in ACTIVATIONS:
        entries[f"dense_{name}"] = (spec("Dense", units=4, activation=name), (5, 3), {})
        entries[f"activation_{name}"] = (spec("Activation", activation=name), (4, 5), {})
    entries.update({
        "dense_relu_3d": (spec("Dense", units=4, activation="relu"), (2, 3, 3), {}),
        "activation_softmax_3d": (spec("Activation", activation="softmax"), (2, 3, 4), {}),
        "dense_no_bias": (spec("Dense", units=4, use_bias=False), (5, 3), {}),
        "dense_l1": (spec("Dense", units=4, kernel_regularizer=spec("L1", l1=0.01)),
                     (5, 3), {}),
        "dense_l2": (spec("Dense", units=4, kernel_regularizer=spec("L2", l2=0.02)),
                     (5, 3), {}),
        "dense_l1l2": (spec("Dense", units=4,
                            kernel_regularizer=spec("L1L2", l1=0.01, l2=0.02)), (5, 3), {}),
        "flatten": (spec("Flatten"), (2, 3, 4), {}),
        "dropout_inference": (spec("Dropout", rate=0.5), (3, 4), {"training": False}),
        "embedding": (spec("Embedding", input_dim=7, output_dim=3), (4, 5), {}),
        "layer_normalization": (spec("LayerNormalization"), (4, 5), {}),
        "layer_normalization_3d": (spec("LayerNormalization"), (2, 3, 4), {}),
        "layer_normalization_epsilon": (spec("LayerNormalization", axis=-1, epsilon=1e-5),
                                        (4, 5), {}),
        "batch_normalization_training": (spec("BatchNormalization"), (6, 4),
                                         {"training": True}),
        "batch_normalization_training_3d": (spec("BatchNormalization"), (2, 3, 4),
                                            {"training": True}),
        "batch_normalization_momentum_epsilon": (
            spec("BatchNormalization", momentum=0.9, epsilon=1e-2), (6, 4), {"training": True}),
        "batch_normalization_inference": (spec("BatchNormalization"), (6, 4),
                                          {"training": False}),
        "simple_rnn": (spec("SimpleRNN", units=4), (3, 5, 2), {}),
        "simple_rnn_sequences": (spec("SimpleRNN", units=4, return_sequences=True),
                                 (3, 5, 2), {}),
    })
    return entries


def draw_input(rng, layer_spec, shape):
    if layer_spec["class"] == "Embedding":
        return rng.integers(0, layer_spec["args"]["input_dim"], shape)
    if layer_spec["class"] == "BatchNormalization":
        return 2.0 * rng.standard_normal(shape) + 1.0
    return 1.5 * rng.standard_normal(shape)


def stateless_vjp(layer, x, call):
    """``(output, vjp)`` of the layer from its current weights; the vjp gives
    ``(trainable weight gradients, input gradient)``, the latter ``None`` for int input."""
    trainable = [v.value for v in layer.trainable_variables]
    non_trainable = [v.value for v in layer.non_trainable_variables]

    def forward(weights, inputs):
        return layer.stateless_call(weights, non_trainable, inputs, **call)[0]

    if np.issubdtype(x.dtype, np.floating):
        return jax.vjp(forward, trainable, x)
    output, vjp = jax.vjp(lambda weights: forward(weights, x), trainable)
    return output, lambda cotangent: (vjp(cotangent)[0], None)


def regularization_gradient(layer, x, call):
    """Gradient of the sum of ``layer.losses`` with respect to each trainable weight."""
    non_trainable = [v.value for v in layer.non_trainable_variables]

    def total(weights):
        losses = layer.stateless_call(weights, non_trainable, x, return_losses=True, **call)[2]
        return sum(losses)

    return [numeric(g) for g in jax.grad(total)([v.value for v in layer.trainable_variables])]


def record_layer(name, layer_spec, shape, call):
    seed, rng = seeded(name)
    x = draw_input(rng, layer_spec, shape)
    layer = make(keras.layers, layer_spec)
    layer.build(shape)
    weights = set_drawn_weights(rng, layer)
    output, vjp = stateless_vjp(layer, x, call)
    cotangent = rng.standard_normal(output.shape)
    grad_weights, grad_x = vjp(cotangent)
    record = {"config": layer_spec, "call": call, "seed": seed,
              "weight_names": weight_names(layer),
              "trainable": [v.trainable for v in layer.weights],
              "x": x, "weights": weights, "output": numeric(output), "cotangent": cotangent,
              "grad_weights": [numeric(g) for g in grad_weights]}
    if grad_x is not None:
        record["grad_x"] = numeric(grad_x)
    if layer.losses:
        record["grad_losses_weights"] = regularization_gradient(layer, x, call)
    eager = layer(x, **call)
    if not np.allclose(numeric(eager), record["output"], rtol=1e-12, atol=1e-12):
        raise AssertionError(f"{name}: the stateful call differs from the stateless one")
    if not all(v.trainable for v in layer.weights):
        record["weights_after"] = layer.get_weights()
    if layer.losses:
        record["losses"] = [numeric(loss) for loss in layer.losses]
    return record


def layers():
    """One record per entry of ``layer_entries``."""
    return {"entries": {name: record_layer(name, *entry)
                        for name, entry in layer_entries().items()}}
