"""Models whose generated gradient modules are kept as golden files.

Generated modules quote the user's file and line for every statement, so the
models live in this file of their own: editing a test elsewhere never moves
them.  Each ``record_*`` function records one model and returns what
``codegen.gradient_source`` takes, plus the values to call the result with.
"""

import numpy as np

import tracer


def loss_fn(W, b, x, y):
    z = x @ W + b
    h = np.tanh(z)
    err = h - y
    return np.mean(err ** 2)


def energy(w, x):
    r = np.sin(x @ w)
    return np.sum(r * r) / 2


def record_dense_layer():
    """A tanh layer under a mean squared error: loss and gradients by ``W`` and ``b``."""
    rng = np.random.default_rng(0)
    W = tracer.Variable(rng.normal(size=(64, 32)), name="W")
    b = tracer.Variable(np.zeros(32), name="b")
    x = tracer.constant(rng.normal(size=(256, 64)), name="x")
    y = tracer.constant(rng.normal(size=(256, 32)), name="y")
    with tracer.GradientTape(persistent=True) as tape:
        loss = loss_fn(W, b, x, y)
    values = {"W": W.numpy(), "b": b.numpy(), "x": x.numpy(), "y": y.numpy()}
    return tape, loss, [W, b], values


def record_hessian_vector_product():
    """The gradient of ``energy`` by ``w``, recorded by an outer tape: differentiated
    again with a seed, it is the Hessian times that seed."""
    rng = np.random.default_rng(1)
    w = tracer.constant(rng.normal(size=(3,)), name="w")
    x = tracer.constant(rng.normal(size=(5, 3)), name="x")
    with tracer.GradientTape(persistent=True) as outer:
        outer.watch(w)
        with tracer.GradientTape() as inner:
            inner.watch(w)
            e = energy(w, x)
        g = inner.gradient(e, w)
    return outer, g, w, {"w": w.numpy(), "x": x.numpy()}


def cross_entropy(W, x, targets):
    logits = x @ W
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_p = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(targets * log_p, axis=1))


def record_classifier():
    """Softmax cross-entropy of a linear classifier against one-hot targets, written
    the numerically stable way (the largest logit is subtracted first)."""
    rng = np.random.default_rng(2)
    W = tracer.Variable(rng.normal(size=(4, 3)), name="W")
    x = tracer.constant(rng.normal(size=(8, 4)), name="x")
    targets = tracer.constant(np.eye(3)[rng.integers(0, 3, size=8)], name="targets")
    with tracer.GradientTape(persistent=True) as tape:
        loss = cross_entropy(W, x, targets)
    return tape, loss, W, {"W": W.numpy(), "x": x.numpy(), "targets": targets.numpy()}


def pendulum(theta, omega, k, steps, dt=0.05, damping=0.1):
    for _ in range(steps):
        omega = omega - dt * (k * np.sin(theta) + damping * omega)
        theta = theta + dt * omega
    return np.sum(theta ** 2) + np.mean(omega)


def record_unrolled_pendulum(steps=16):
    """A damped pendulum integrated by a Python loop of ``steps`` steps, each recorded
    anew: a long straight-line module whose values number up (``sin_15``), whose
    gradient by ``k`` gathers one term a step, and whose ``del`` lines follow each
    value's last use."""
    rng = np.random.default_rng(4)
    theta = tracer.constant(rng.uniform(-1.0, 1.0, 3), name="theta")
    omega = tracer.constant(np.zeros(3), name="omega")
    k = tracer.Variable(np.array([1.0, 2.0, 4.0]), name="k")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([theta, omega])
        loss = pendulum(theta, omega, k, steps)
    values = {"theta": theta.numpy(), "omega": omega.numpy(), "k": k.numpy()}
    return tape, loss, [theta, omega, k], values


def rnn(W, U, xs):
    h = np.zeros(2)
    for x in xs:
        h = np.tanh(h @ W + x @ U)
    return np.sum(h * h)


def record_unrolled_rnn(steps=3):
    """A tanh RNN unrolled over a plain array of inputs: each step's input is captured
    data, written into the code as an array the module makes once and the function
    reads by name, in the forward steps and (as a column) in the gradient by ``U``."""
    rng = np.random.default_rng(5)
    W = tracer.Variable(np.round(rng.normal(size=(2, 2)) * 0.5, 2), name="W")
    U = tracer.Variable(np.round(rng.normal(size=(3, 2)) * 0.5, 2), name="U")
    xs = np.round(rng.normal(size=(steps, 3)), 2)
    with tracer.GradientTape(persistent=True) as tape:
        loss = rnn(W, U, xs)
    return tape, loss, [W, U], {"W": W.numpy(), "U": U.numpy()}
