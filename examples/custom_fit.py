"""Customizing what happens in ``fit()``: Keras' guide, on tapegen.

The guide's lower-level example, line for line: a ``tracer.Model`` subclass that
keeps its own loss tracker and metric, overrides ``train_step`` with a
``GradientTape`` around ``self(x, training=True)``, ``tape.gradient`` and
``self.optimizer.apply_gradients``, and lists its trackers in ``metrics`` so
that ``fit`` resets them at each epoch.  ``fit`` still compiles the step
(``tracer.function``), so the custom step runs as one generated module; its
body is printed at the end.

Run it with:

    python examples/custom_fit.py
"""

import numpy as np

import tracer
from tracer import layers, losses, metrics


class CustomModel(tracer.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = layers.Dense(16, activation="tanh")
        self.dense = layers.Dense(1)
        self.loss_tracker = metrics.Mean(name="loss")
        self.mae_metric = metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = losses.MeanSquaredError()

    def call(self, inputs, training=False):
        return self.dense(self.hidden(inputs))

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


def main():
    tracer.initializers.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(1000, 4))
    y = np.sin(3 * x[:, :1]) * x[:, 1:2] + 0.05 * rng.normal(size=(1000, 1))
    model = CustomModel()
    model.compile(optimizer=tracer.optimizers.Adam(0.01))
    history = model.fit(x, y, batch_size=32, epochs=10, verbose=2)
    losses_by_epoch = history.history["loss"]
    print(f"loss: first epoch {losses_by_epoch[0]:.4f}, last epoch {losses_by_epoch[-1]:.4f}")
    step = model._steps["train"]
    print(f"traces of the custom train_step: {step.experimental_get_tracing_count()}")
    source = step.get_concrete_function((x[:32], y[:32], None)).source
    body = source[source.index("\n    # "):source.index("\n    return")]
    print("the step, as generated (after its parameters and input check):" + body)


if __name__ == "__main__":
    main()
