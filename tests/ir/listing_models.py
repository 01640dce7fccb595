"""Recordings whose text listings are kept as golden files.

Listings name the file and line that made each node, so the models live in
this file of their own: editing a test elsewhere never moves them.  Each
``record_*`` function returns ``(tape, target, sources)`` from a persistent
tape, for the listing test to print the tape's graph and its adjoint.
"""

import numpy as np

import tracer

MASK = np.array([1.0, 0.0, 1.0])
"""A captured array: it enters the graph as a constant node of its own."""


def layer(W, b, x, y):
    h = np.tanh(x @ W + b) * MASK
    err = h - y
    return 0.5 * np.sum(err ** 2)


def energy(w, x):
    r = np.sin(x @ w)
    return np.sum(r * r) / 2


def record_layer():
    """A masked tanh layer under a squared error: variables, inputs, an array constant
    and scalar constants, with the loss and the variables to differentiate by."""
    W = tracer.Variable(np.linspace(-1.0, 1.0, 6).reshape(2, 3), name="W")
    b = tracer.Variable(np.zeros(3), name="b")
    x = tracer.constant(np.linspace(0.0, 1.0, 8).reshape(4, 2), name="x")
    y = tracer.constant(np.full((4, 3), 0.25), name="y")
    with tracer.GradientTape(persistent=True) as tape:
        loss = layer(W, b, x, y)
    return tape, loss, [W, b]


def record_second_order():
    """The gradient of ``energy`` by ``w``, recorded by an outer tape: its graph holds
    the inner tape's derivative rules as ordinary ops."""
    w = tracer.constant(np.array([0.5, -1.0, 2.0]), name="w")
    x = tracer.constant(np.linspace(-1.0, 1.0, 6).reshape(2, 3), name="x")
    with tracer.GradientTape(persistent=True) as outer:
        outer.watch(w)
        with tracer.GradientTape() as inner:
            inner.watch(w)
            e = energy(w, x)
        g = inner.gradient(e, w)
    return outer, g, [w]
