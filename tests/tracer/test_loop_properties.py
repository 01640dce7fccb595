"""Random loop bodies, drawn from the primitives of the gradient table, give through
``tracer.scan`` the values and gradients of the same body unrolled; and loops work with
the rest of the tape's API (custom gradients, stopped recording, output gradients)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tracer

UNARY = [np.sin, np.tanh, np.cos, lambda a: a * a, lambda a: np.log1p(a * a), np.arctan,
         lambda a: np.exp(-a * a), np.negative]
BINARY = [np.add, np.subtract, np.multiply, lambda a, b: a * np.tanh(b),
          lambda a, b: np.maximum(a, b) + 0.5 * np.minimum(a, b)]


@st.composite
def bodies(draw):
    """A body: a few unary and binary steps over the carry, the slice and a weight."""
    steps = draw(st.lists(st.tuples(st.integers(0, len(UNARY) - 1),
                                    st.integers(0, len(BINARY) - 1),
                                    st.sampled_from(["carry", "x", "w"])),
                          min_size=1, max_size=4))

    def body(carry, x, w):
        values = {"carry": carry, "x": x, "w": w}
        value = carry
        for unary, binary, other in steps:
            value = BINARY[binary](UNARY[unary](value), values[other])
        return 0.5 * value, np.sum(value * x)
    return body


def _gradients(body, looped, arrays):
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        c0, xs, w = tensors
        if looped:
            final, ys = tracer.scan(lambda c, x: body(c, x, w), c0, xs)
        else:
            c, parts = c0, []
            for t in range(xs.shape[0]):
                c, y = body(c, xs[t], w)
                parts.append(y)
            final, ys = c, np.stack(parts)
        value = np.sum(final ** 2) + np.sum(ys * np.arange(1, ys.shape[0] + 1))
    return [value.numpy()] + [None if g is None else g.numpy()
                              for g in tape.gradient(value, tensors)]


@settings(max_examples=30, deadline=None)
@given(bodies(), st.integers(1, 5), st.integers(0, 2 ** 16))
def test_random_bodies_give_the_unrolled_gradients(body, steps, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-1, 1, 3), rng.uniform(-1, 1, (steps, 3)), rng.uniform(-1, 1, 3)]
    with np.errstate(over="ignore", invalid="ignore"):  # (a drawn body may overflow: then
        looped, unrolled = _gradients(body, True, arrays), _gradients(body, False, arrays)
    for got, expected in zip(looped, unrolled):  # both must agree on the infinities)
        assert (got is None) == (expected is None)
        if expected is not None:
            np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_output_gradients_stopped_recording_and_unconnected_sources():
    k = tracer.constant(np.array([0.5, 1.5]))
    other = tracer.constant(np.ones(2))
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([k, other])
        final, ys = tracer.scan(lambda c, _: (c * k + 1.0, c), np.ones(2), length=3)
        with tape.stop_recording():
            ignored, _ = tracer.scan(lambda c, _: (c * other, c), np.ones(2), length=3)
    upstream = np.array([2.0, -1.0])
    (grad,) = tape.gradient(final, [k], output_gradients=[tracer.constant(upstream)])
    c, expected = np.ones(2), np.zeros(2)
    for _ in range(3):  # d final / dk along the upstream, by hand
        expected = expected * k.numpy() + c
        c = c * k.numpy() + 1.0
    np.testing.assert_allclose(grad.numpy(), upstream * expected, rtol=1e-12)
    assert tape.gradient(ignored, other) is None
    zeros = tape.gradient(final, other, unconnected_gradients=tracer.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(zeros.numpy(), np.zeros(2))
