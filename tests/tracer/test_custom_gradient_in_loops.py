"""``custom_gradient`` inside loop and branch bodies: the gradient function is traced once
with the body, and the loop's gradient uses it, as the unrolled loop's tape does."""

import numpy as np
import pytest

import codegen
import ir
import tracer


@tracer.custom_gradient
def clipped_square(x):
    """x * x whose gradient is clipped to [-1, 1] per element: not the derivative."""
    return x * x, lambda upstream: upstream * np.clip(2 * x, -1.0, 1.0)


def _step(c, _):
    c = clipped_square(c) * 0.5 + 0.1
    return c, np.sum(c)


def _unrolled(c, steps):
    parts = []
    for _ in range(steps):
        c, y = _step(c, None)
        parts.append(y)
    return c, np.stack(parts)


@pytest.mark.parametrize("start", [np.array([0.3, 2.0]), np.array([-1.5, 0.8, 0.1])])
def test_a_scan_uses_the_custom_gradient_as_the_unrolled_loop_does(start):
    gradients = []
    for looped in (True, False):
        x0 = tracer.constant(start)
        with tracer.GradientTape() as tape:
            tape.watch(x0)
            final, ys = (tracer.scan(_step, x0, length=4) if looped else _unrolled(x0, 4))
            loss = np.sum(final) + np.sum(ys)
        gradients.append(tape.gradient(loss, x0).numpy())
    np.testing.assert_allclose(gradients[0], gradients[1], rtol=1e-13)
    x0 = tracer.constant(start)
    with tracer.GradientTape() as tape:  # the derivative itself differs: the clip is used
        tape.watch(x0)
        final, ys = tracer.scan(lambda c, _: (c * c * 0.5 + 0.1, np.sum(c * c * 0.5 + 0.1)),
                                x0, length=4)
        loss = np.sum(final) + np.sum(ys)
    assert not np.allclose(tape.gradient(loss, x0).numpy(), gradients[0])


def test_the_gradient_function_is_traced_once_and_generated_code_inlines_it():
    calls = []

    @tracer.custom_gradient
    def noted(x):
        def grad(upstream):
            calls.append(1)
            return upstream * 3.0
        return x * 2.0, grad

    x0 = tracer.constant(np.array([1.0, 2.0]), name="x0")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x0)
        final, _ = tracer.scan(lambda c, _: (noted(c), c), x0, length=5)
        loss = np.sum(final)
    assert len(calls) == 1
    np.testing.assert_allclose(tape.gradient(loss, x0).numpy(), [3.0 ** 5] * 2)
    assert len(calls) == 1
    source = codegen.gradient_source(tape, loss, [x0])
    assert "custom_vjp" not in source and "for step" in source
    module = codegen.load(source)
    np.testing.assert_allclose(module.gradient(np.array([1.0, 2.0]))[0], [3.0 ** 5] * 2)


def test_variables_read_by_a_custom_function_in_a_body_get_its_gradients():
    scale = tracer.Variable(np.array([1.5, -0.5]), name="scale")

    @tracer.custom_gradient
    def scaled(x):
        def grad(upstream, variables=None):
            return upstream * 0.5, [upstream * x * 2.0]
        return x * scale, grad

    results = []
    for looped in (True, False):
        x0 = tracer.constant(np.array([0.4, 1.2]))
        with tracer.GradientTape() as tape:
            tape.watch(x0)
            if looped:
                final, _ = tracer.scan(lambda c, _: (scaled(c) + 0.2, c), x0, length=3)
            else:
                final = x0
                for _ in range(3):
                    final = scaled(final) + 0.2
            loss = np.sum(final * final)
        results.append([g.numpy() for g in tape.gradient(loss, [x0, scale])])
    for got, expected in zip(*results):
        np.testing.assert_allclose(got, expected, rtol=1e-13)


def test_a_custom_gradient_in_a_branch():
    def program(y, use_cond):
        big = np.sum(y) > 0
        if use_cond:
            return tracer.cond(big, lambda: clipped_square(y), lambda: y * 3.0)
        return clipped_square(y) if big else y * 3.0

    for start in (np.array([0.7, 1.4]), np.array([-0.7, -1.4])):
        gradients = []
        for use_cond in (True, False):
            y = tracer.constant(start)
            with tracer.GradientTape() as tape:
                tape.watch(y)
                value = np.sum(program(y, use_cond))
            gradients.append(tape.gradient(value, y).numpy())
        np.testing.assert_allclose(gradients[0], gradients[1], rtol=1e-13)


@pytest.mark.parametrize("grad, message", [
    (lambda x: (lambda upstream: (upstream, upstream)), "expected to return 1 gradients"),
    (lambda x: (lambda upstream: np.sum(upstream)), "shape"),
])
def test_a_wrong_gradient_function_in_a_body_is_refused_while_tracing(grad, message):
    @tracer.custom_gradient
    def wrong(x):
        return x * 2.0, grad(x)

    with pytest.raises(ValueError, match=message):
        tracer.scan(lambda c, _: (wrong(c), c), tracer.constant(np.ones(2)), length=3)


def test_json_round_trip_and_listing_of_a_custom_gradient_in_a_body():
    x0 = tracer.constant(np.array([0.3, 2.0]), name="x0")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x0)
        final, ys = tracer.scan(_step, x0, length=4)
        loss = np.sum(final) + np.sum(ys)
    graph = tape.graph
    listing = graph.to_text()
    assert "custom_vjp" in listing and "rule: inputs upstream" in listing
    loaded = ir.Graph.from_json(graph.to_json())
    assert loaded.to_text() == listing
    target = [n.id for n in graph if n.kind == "op"][-1]
    inputs = [n.id for n in graph if n.kind == "input"]
    assert (codegen.gradient_source(loaded, target, inputs)
            == codegen.gradient_source(graph, target, inputs))
    assert "depends differentiably" in str(tape.explain(loss, x0))
