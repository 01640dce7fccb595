"""A custom training loop, written the way you would write it with TensorFlow.

A two-layer network learns y = sin(3x) from noisy samples.  The parameters
are ``tracer.Variable``s; each step computes the loss under a
``tracer.GradientTape``, asks the tape for the gradients, and hands them to an
optimizer, ``optimizer.apply_gradients(zip(grads, params))``, as TensorFlow's
guide to custom training loops does.  The model itself is ordinary numpy.

Run it with:

    python examples/training_loop.py
"""

import numpy as np

import tracer


def make_data(n=128, seed=0):
    """Noisy samples of sin(3x) on [-1, 1], as columns of shape (n, 1)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, size=(n, 1))
    y = np.sin(3.0 * x) + 0.05 * rng.standard_normal((n, 1))
    return tracer.constant(x, name="x"), tracer.constant(y, name="y")


def init_params(hidden=16, seed=1):
    rng = np.random.default_rng(seed)
    W1 = tracer.Variable(rng.standard_normal((1, hidden)), name="W1")
    b1 = tracer.Variable(np.zeros(hidden), name="b1")
    W2 = tracer.Variable(rng.standard_normal((hidden, 1)) / np.sqrt(hidden), name="W2")
    b2 = tracer.Variable(np.zeros(1), name="b2")
    return [W1, b1, W2, b2]


def model(params, x):
    W1, b1, W2, b2 = params
    h = np.tanh(x @ W1 + b1)
    return h @ W2 + b2


def mse(prediction, target):
    return np.mean((prediction - target) ** 2)


def main(steps=600, learning_rate=0.02, report_every=50):
    x, y = make_data()
    params = init_params()
    optimizer = tracer.optimizers.Adam(learning_rate=learning_rate)

    for step in range(steps + 1):
        with tracer.GradientTape() as tape:
            loss = mse(model(params, x), y)
        grads = tape.gradient(loss, params)
        optimizer.apply_gradients(zip(grads, params))
        if step % report_every == 0:
            print(f"step {step:4d}  loss {float(loss):.6f}")

    final_loss = float(mse(model(params, x), y))
    print(f"final loss {final_loss:.6f}")


if __name__ == "__main__":
    main()
