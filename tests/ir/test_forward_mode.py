"""Forward mode over the whole gradient table: JVPs of every primitive, to second order.

The reverse-mode derivatives of each case are checked against finite
differences elsewhere; here each forward-mode product must agree with them
through the transpose identity ``u . (J v) == (J^T u) . v``, and must itself
match central differences.  At second order, forward-over-forward,
forward-over-reverse and reverse-over-reverse must describe the same second
derivative ``d2f[v, w]``.
"""

import numpy as np
import pytest

import ir
import ir.autodiff.forward
import tracer
from gradient_table import rows
from tracer.forward_accumulator import ForwardAccumulator

CASES = [pytest.param(case, id=case.id) for case in rows()]


def _directions(arrays, seed):
    rng = np.random.default_rng(seed)
    return [_like(rng, a) for a in arrays]


def _like(rng, array):
    values = rng.standard_normal(np.shape(array))
    if np.iscomplexobj(array):
        values = values + 1j * rng.standard_normal(np.shape(array))
    return np.asarray(values, dtype=np.asarray(array).dtype)


def _real_dot(a, b):
    """The real inner product of TensorFlow's gradient convention: Re(sum(conj(a) * b))."""
    return float(np.real(np.sum(np.conj(np.asarray(a)) * np.asarray(b))))


def _jvp(fn, arrays, directions):
    tensors = [tracer.constant(a) for a in arrays]
    with ForwardAccumulator(tensors, [tracer.constant(d) for d in directions]) as acc:
        out = fn(*tensors)
    return out, acc.jvp(out)


def _vjp(fn, arrays, cotangent):
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        out = fn(*tensors)
    return tape.gradient(out, tensors, output_gradients=tracer.constant(cotangent))


@pytest.mark.parametrize("case", CASES)
def test_jvp_is_the_transpose_of_the_vjp(case):
    arrays = case.arrays()
    directions = _directions(arrays, 1)
    out, tangent = _jvp(case.fn, arrays, directions)
    u = _like(np.random.default_rng(2), out.numpy())
    grads = _vjp(case.fn, arrays, u)
    expected = sum(_real_dot(g, d) for g, d in zip(grads, directions) if g is not None)
    forward = 0.0 if tangent is None else _real_dot(u, tangent)
    assert tangent is None or tangent.shape == out.shape and tangent.dtype == out.dtype
    np.testing.assert_allclose(forward, expected, rtol=case.check.get("rtol", 1e-9),
                               atol=case.check.get("atol", 1e-9))


@pytest.mark.parametrize("case", CASES)
def test_jvp_matches_central_differences(case):
    arrays = case.arrays()
    directions = _directions(arrays, 3)
    _, tangent = _jvp(case.fn, arrays, directions)
    eps = case.check.get("eps", 1e-6)

    def at(step):
        return np.asarray(case.fn(*(a + step * d for a, d in zip(arrays, directions))),
                          dtype=complex)
    difference = (at(eps) - at(-eps)) / (2 * eps)
    computed = 0.0 if tangent is None else tangent.numpy()
    np.testing.assert_allclose(computed, difference, rtol=case.check.get("rtol", 1e-5),
                               atol=case.check.get("atol", 1e-6))


def _second_derivatives(fn, arrays, v, w, u):
    """``u . d2f[v, w]`` three ways: forward-over-forward, forward-over-reverse,
    reverse-over-reverse."""
    tensors = [tracer.constant(a) for a in arrays]
    with ForwardAccumulator(tensors, [tracer.constant(d) for d in w]) as outer:
        with ForwardAccumulator(tensors, [tracer.constant(d) for d in v]) as inner:
            out = fn(*tensors)
        first = inner.jvp(out)
    second = None if first is None else outer.jvp(first)
    forward_forward = 0.0 if second is None else _real_dot(u, second)

    with ForwardAccumulator(tensors, [tracer.constant(d) for d in w]) as acc:
        with tracer.GradientTape() as tape:
            tape.watch(tensors)
            out = fn(*tensors)
        grads = tape.gradient(out, tensors, output_gradients=tracer.constant(u))
    hvps = [None if g is None else acc.jvp(g) for g in grads]
    forward_reverse = sum(_real_dot(h, d) for h, d in zip(hvps, v) if h is not None)

    with tracer.GradientTape() as outer_tape:
        outer_tape.watch(tensors)
        with tracer.GradientTape() as tape:
            tape.watch(tensors)
            out = fn(*tensors)
        grads = tape.gradient(out, tensors, output_gradients=tracer.constant(u))
    connected = [(g, d) for g, d in zip(grads, v) if g is not None]
    reverse_reverse = 0.0
    if connected:
        seeds = [tracer.constant(d) for _, d in connected]
        second = outer_tape.gradient([g for g, _ in connected], tensors, output_gradients=seeds)
        reverse_reverse = sum(_real_dot(s, d) for s, d in zip(second, w) if s is not None)
    return forward_forward, forward_reverse, reverse_reverse


@pytest.mark.parametrize("case", CASES)
def test_second_order_forward_and_reverse_agree(case):
    arrays = case.arrays()
    out = case.fn(*(tracer.constant(a) for a in arrays))
    rng = np.random.default_rng(4)
    v, w = _directions(arrays, 5), _directions(arrays, 6)
    u = _like(rng, out.numpy())
    forward_forward, forward_reverse, reverse_reverse = _second_derivatives(
        case.fn, arrays, v, w, u)
    tolerance = dict(rtol=case.check.get("rtol", 1e-8), atol=case.check.get("atol", 1e-8))
    np.testing.assert_allclose(forward_forward, reverse_reverse, **tolerance)
    np.testing.assert_allclose(forward_reverse, reverse_reverse, **tolerance)


def _recorded_graph(fn, arrays):
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        out = fn(*tensors)
    graph = tape.graph
    inputs = [n.id for n in graph if n.kind == "input"]
    target = [n.id for n in graph if n.kind == "op"][-1]
    assert graph[target].shape == out.shape and len(inputs) == len(arrays)
    graph.outputs = [target]
    return graph, inputs, target


@pytest.mark.parametrize("case", CASES)
def test_tangent_graphs_match_the_accumulator_to_second_order(case):
    """``ir.autodiff.forward.tangents`` of the recorded graph (first order), and of its adjoint
    graph (forward-over-reverse, second order), against eager accumulators."""
    arrays = case.arrays()
    v, w = _directions(arrays, 7), _directions(arrays, 8)
    graph, inputs, target = _recorded_graph(case.fn, arrays)
    first = ir.autodiff.forward.tangents(graph, inputs)
    tangent_inputs = [n.id for n in first if n.meta.get("tangent_of") in inputs
                      and n.kind == "input"]
    (computed,) = ir.evaluate(first, dict(zip(tangent_inputs, v)))
    _, eager = _jvp(case.fn, arrays, v)
    assert (computed is None) == (eager is None)
    if eager is not None:
        np.testing.assert_allclose(computed, eager.numpy(), rtol=1e-10, atol=1e-12)

    u = _like(np.random.default_rng(9), graph[target].shape and np.zeros(graph[target].shape)
              if graph[target].shape else np.zeros(()))
    u = u.astype(graph[target].dtype)
    adjoint = ir.adjoint(graph, [target], inputs, seeds=[u])
    second = ir.autodiff.forward.tangents(adjoint, inputs)
    tangent_inputs = [n.id for n in second if n.kind == "input" and "tangent_of" in n.meta]
    symbolic = ir.evaluate(second, dict(zip(tangent_inputs, w)))
    tensors = [tracer.constant(a) for a in arrays]
    with ForwardAccumulator(tensors, [tracer.constant(d) for d in w]) as acc:
        with tracer.GradientTape() as tape:
            tape.watch(tensors)
            out = case.fn(*tensors)
        grads = tape.gradient(out, tensors, output_gradients=tracer.constant(u))
    for s, g in zip(symbolic, grads):
        e = None if g is None else acc.jvp(g)
        if e is None:
            assert s is None or not np.any(s)
        else:
            np.testing.assert_allclose(s, e.numpy(), rtol=1e-9, atol=1e-12)
