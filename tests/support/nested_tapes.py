"""The k-th derivative of a small tanh model from k nested tapes, shared by the
optimisation-pass and expression-growth tests."""

import contextlib

import numpy as np

import tracer


def kth_derivative(k, s0, v, W):
    """The outermost of k nested tapes, the (k-1)-th derivative of
    ``sum(tanh(W @ (s * v)))`` by ``s`` that it recorded, and ``s``."""
    s = tracer.constant(s0, name="s")
    with contextlib.ExitStack() as stack:
        tapes = [stack.enter_context(tracer.GradientTape(persistent=True)) for _ in range(k)]
        for tape in tapes:
            tape.watch(s)
        y = np.sum(np.tanh(W @ (s * v)))
        for tape in reversed(tapes[1:]):
            y = tape.gradient(y, s)
    return tapes[0], y, s
