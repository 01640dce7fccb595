"""A classifier trained with ``model.fit``, as Keras users train one.

The data are synthetic and MNIST-like: 28x28 "images" of ten classes, each class a
blurred stroke pattern plus noise, so nothing is downloaded.  The model is a
``tracer.Sequential`` of ``Flatten``, ``Dense`` and ``Dropout`` layers compiled
with Adam and sparse categorical cross-entropy; ``fit`` runs its training step
compiled (``tracer.function``), shows Keras' progress bar, stops early when the
validation loss stops improving and keeps the best weights in a ``.npz`` file.

Run it with:

    python examples/fit_mnist_like.py
"""

import os
import tempfile

import numpy as np

import tracer
from tracer import callbacks, layers


PATTERNS = np.random.default_rng(0).normal(size=(10, 28, 28))
"""Each class's stroke pattern, blurred below: the same for training and test images."""


def make_images(rows, seed):
    """``rows`` noisy 28x28 images of the ten classes, and their labels."""
    rng = np.random.default_rng(seed)
    blurred = (PATTERNS + np.roll(PATTERNS, 1, axis=1) + np.roll(PATTERNS, 1, axis=2)) / 3
    labels = rng.integers(0, 10, size=rows)
    return blurred[labels] + 4.0 * rng.normal(size=(rows, 28, 28)), labels


def main():
    tracer.initializers.set_random_seed(0)
    x, y = make_images(3000, seed=1)
    x_test, y_test = make_images(500, seed=2)
    model = tracer.Sequential([
        tracer.Input((28, 28)),
        layers.Flatten(),
        layers.Dense(64, activation="relu"),
        layers.Dropout(0.2, seed=1),
        layers.Dense(10),
    ])
    model.summary()
    model.compile(optimizer="adam",
                  loss=tracer.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    with tempfile.TemporaryDirectory() as folder:
        best = os.path.join(folder, "best.weights.npz")
        history = model.fit(
            x, y, batch_size=64, epochs=60, validation_split=0.2, verbose=1,
            callbacks=[callbacks.EarlyStopping(patience=2, restore_best_weights=True),
                       callbacks.ModelCheckpoint(best, save_best_only=True,
                                                 save_weights_only=True)])
        model.load_weights(best)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"epochs run: {len(history.history['loss'])}")
    print(f"best validation loss: {min(history.history['val_loss']):.4f}")
    print(f"test accuracy: {accuracy:.4f}")
    print(f"traces of the training step: "
          f"{model._steps['train'].experimental_get_tracing_count()}")


if __name__ == "__main__":
    main()
