"""A loop's reverse loop computes the cotangents asked for and what they need, no more:
a gradient with respect to some sources equals those entries of the gradient with
respect to all of them, and the reverse step of a body leaves out carries and inputs
that reach nothing wanted."""

import itertools

import numpy as np
import pytest

import tracer
from ir.loops.adjoint import reverse_step


def _integrator(k, y0, t0, drive):
    """An explicit integrator whose time ``t`` feeds only itself and the drive."""
    def step(carry, _):
        y, t = carry
        return (y + 0.1 * (drive * np.sin(t) - k * y), t + 0.1), np.sum(y)
    (y, t), ys = tracer.scan(step, (y0, t0), length=6)
    return np.sum(y ** 2) + np.sum(ys * ys) + t * t


def _newton(c, x0, scale):
    """A while loop whose test reads ``scale`` and whose body reads ``c``."""
    x, _ = tracer.while_loop(lambda x, i: np.abs(x * x - c) > 1e-9 * scale,
                             lambda x, i: (x - (x * x - c) / (2 * x), i + 1), (x0, 0))
    return x * c


PROGRAMS = {
    "scan": (_integrator, [np.array([0.7, 1.3]), np.array([1.0, -0.5]), np.array(0.2),
                           np.array(0.8)]),
    "while_loop": (_newton, [np.array(2.0), np.array(1.0), np.array(3.0)]),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_gradient_with_respect_to_some_sources_is_that_part_of_the_whole(name):
    function, arrays = PROGRAMS[name]
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        value = function(*tensors)
    whole = tape.gradient(value, tensors, unconnected_gradients="zero")
    assert np.any(whole[0].numpy() != 0)
    for size in range(1, len(tensors)):
        for subset in itertools.combinations(range(len(tensors)), size):
            some = tape.gradient(value, [tensors[k] for k in subset],
                                 unconnected_gradients="zero")
            for k, got in zip(subset, some):
                np.testing.assert_allclose(got.numpy(), whole[k].numpy(), rtol=1e-13,
                                           atol=1e-15)


def _integrator_body():
    k, drive = tracer.constant(np.array([0.7, 1.3])), tracer.constant(0.8)
    with tracer.GradientTape() as tape:
        tape.watch([k, drive])
        _integrator(k, tracer.constant(np.array([1.0, -0.5])), tracer.constant(0.2), drive)
    loop = next(node for node in tape.graph if node.op == "scan")
    return loop.params["body"]


def test_the_reverse_step_carries_only_cotangents_that_reach_a_wanted_one():
    body = _integrator_body()  # inputs: y, t (carries), then the invariants
    assert len(body.carries) == 2 and len(body.xs) == 0
    every = reverse_step(body, [0])
    assert every.carries == [0, 1] and every.invariants == list(range(len(body.invariants)))
    k = 2 + next(j for j in range(len(body.invariants))
                 if body.graph[body.inputs[2 + j]].shape == (2,))
    only_k = reverse_step(body, [0], wanted={k})
    assert only_k.carries == [0]  # y reaches k's cotangent; t never depends on k
    assert only_k.invariants == [k - 2]
    only_t = reverse_step(body, [0], wanted={1})
    assert only_t.carries == [0, 1] and only_t.invariants == []
