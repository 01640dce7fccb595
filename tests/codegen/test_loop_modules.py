"""Generated modules keep loops as loops: for, while and if blocks whose gradients, Hessian
products and Hessians match the eager ones, under every checkpoint setting, at a size
that does not grow with the number of steps."""

import functools
import sys
from pathlib import Path

import numpy as np
import pytest

import codegen
import ir
import tracer

sys.path.insert(0, str(Path(__file__).parent.parent / "tracer"))
import test_loops  # noqa: E402  (the table of loop programs, written twice)

PROGRAMS = test_loops.PROGRAMS


def _recorded(program, checkpoint=None):
    looped, arrays = program(True)
    tensors = [tracer.constant(a) for a in arrays]
    scan = tracer.scan
    tracer.scan = functools.partial(scan, checkpoint=checkpoint)
    try:
        with tracer.GradientTape(persistent=True) as tape:
            tape.watch(tensors)
            value = looped(*tensors)
    finally:
        tracer.scan = scan
    return tape, value, tensors, arrays


@pytest.mark.parametrize("checkpoint", [None, "recompute", 3])
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_generated_gradients_match_under_every_checkpoint(program, checkpoint):
    tape, value, tensors, arrays = _recorded(program, checkpoint)
    module = codegen.load(codegen.gradient_source(tape, value, tensors, name="gradient"))
    for got, expected in zip(module.gradient(*arrays), tape.gradient(value, tensors)):
        np.testing.assert_allclose(got, expected.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_generated_hessian_vector_products_match_the_eager_ones(program):
    tape, value, tensors, arrays = _recorded(program)
    module = codegen.load(codegen.hvp_source(tape, value, tensors[0]))
    looped, _ = program(True)
    v = np.random.default_rng(5).normal(size=np.shape(arrays[0]))
    expected = tracer.hvp(looped)(*arrays, v)
    np.testing.assert_allclose(module.hvp(*arrays, v), expected.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("program", PROGRAMS[:3], ids=lambda p: p.__name__)
def test_generated_hessians_match_the_eager_ones(program):
    tape, value, tensors, arrays = _recorded(program)
    module = codegen.load(codegen.hessian_source(tape, value, tensors[0]))
    looped, _ = program(True)
    expected = tracer.hessian(looped)(*arrays)
    np.testing.assert_allclose(module.hessian(*arrays), expected.numpy(), rtol=1e-9,
                               atol=1e-11)


def _integrator_module(steps):
    k = tracer.constant(np.array([0.7, 1.3]), name="k")
    y0 = tracer.constant(np.array([1.0, -0.5]), name="y0")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([k, y0])
        final, ys = tracer.scan(lambda y, _: (y + 0.01 * (np.sin(y) - k * y), np.sum(y)),
                                y0, length=steps)
        loss = np.sum(final ** 2) + np.mean(ys)
    return codegen.gradient_source(tape, loss, [k, y0])


def test_module_size_does_not_grow_with_the_number_of_steps():
    short, long = _integrator_module(10), _integrator_module(10_000)
    assert abs(len(long.splitlines()) - len(short.splitlines())) <= 2  # (longer literals)
    assert len(long.splitlines()) < 200
    assert "for step in range(10000):" in long


def test_values_the_same_at_every_step_are_computed_before_the_loop():
    w = tracer.constant(np.arange(9.0).reshape(3, 3) / 10, name="w")
    h0 = tracer.constant(np.ones(3), name="h0")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([w, h0])
        final, _ = tracer.scan(lambda h, _: (np.tanh(w.T @ h), h), h0, length=5)
        loss = np.sum(final)
    source = codegen.gradient_source(tape, loss, [w, h0])
    loop = source[source.index("for step in"):].split("\n\n")[0]
    code = [line for line in loop.splitlines() if not line.strip().startswith("#")]
    assert not any("transpose(w" in line or "w.T" in line for line in code), loop
    assert any("transpose(w" in line or "w.T" in line
               for line in source[:source.index("for step in")].splitlines()
               if not line.strip().startswith("#"))
    module = codegen.load(source)
    for got, expected in zip(module.gradient(w.numpy(), h0.numpy()), tape.gradient(loss, [w, h0])):
        np.testing.assert_allclose(got, expected.numpy(), rtol=1e-12)


def test_json_round_trips_of_loops_generate_the_same_module():
    tape, value, tensors, arrays = _recorded(test_loops.rnn)
    graph = tape.graph
    loaded = ir.Graph.from_json(graph.to_json())
    target = [n.id for n in graph if n.kind == "op"][-1]
    inputs = [n.id for n in graph if n.kind == "input"]
    assert (codegen.gradient_source(loaded, target, inputs)
            == codegen.gradient_source(graph, target, inputs))


@pytest.mark.parametrize("start", [1.0, 30.0, 0.2, 150.0])
def test_a_generated_while_loop_runs_as_many_steps_as_its_inputs_ask(start):
    """The reverse loop counts the steps of this run, not of the recorded one, even when
    its steps read nothing the forward loop kept (d(2c)/dc is 2 at every step)."""
    c0 = tracer.constant(np.array(1.0), name="c0")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(c0)
        c = tracer.while_loop(lambda c: c < 100.0, lambda c: 2.0 * c, c0)
    module = codegen.load(codegen.gradient_source(tape, c, [c0]))
    doublings = 0
    while start * 2.0 ** doublings < 100.0:
        doublings += 1
    np.testing.assert_allclose(module.gradient(np.array(start))[0], 2.0 ** doublings)


def test_carries_nothing_reads_are_neither_carried_nor_kept():
    """Only ``k``'s gradient is asked for: the reverse loop carries no cotangent of the
    time ``t`` (which feeds only itself), and the forward loop keeps no ``t`` for it."""
    k = tracer.constant(np.array([0.7, 1.3]), name="k")
    state = (tracer.constant(np.array([1.0, -0.5]), name="y0"), tracer.constant(0.0, name="t0"))
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(k)
        (y, _), _ = tracer.scan(lambda c, _: ((c[0] + 0.1 * (np.sin(c[1]) - k * c[0]),
                                               c[1] + 0.1), None), state, length=20)
        loss = np.sum(y ** 2)
    source = codegen.gradient_source(tape, loss, [k])
    reverse = source[source.index("# adjoint of"):]
    assert "np.cos(" not in reverse and "kept_1" not in source, source
    assert source.count(" = np.empty(") == 1  # the states y, for k's gradient
    module = codegen.load(source)
    np.testing.assert_allclose(module.gradient(np.array([0.7, 1.3]), np.array([1.0, -0.5]),
                                               np.array(0.0))[0],
                               tape.gradient(loss, k).numpy(), rtol=1e-12)


def test_a_body_read_from_json_is_the_body_traced():
    """Bodies are interned when read, as when traced: reading a recording back reuses
    what was made of its bodies (reverse steps, compiled loops)."""
    tape, _, _, _ = _recorded(test_loops.rnn)
    loop = next(n for n in tape.graph if n.op == "scan")
    loaded = ir.Graph.from_json(tape.graph.to_json())
    assert next(n for n in loaded if n.op == "scan").params["body"] is loop.params["body"]


@pytest.mark.parametrize("optimize", [True, False])
def test_a_gradient_of_a_jacobian_through_a_loop(optimize, monkeypatch):
    """The jacobian's batched reverse loop packs its results; the module reads each one
    straight from the loop, optimised or not.  (The jacobian's one-hot seeds are written
    into the module, so it takes x alone.)"""
    monkeypatch.setattr(codegen.module, "INLINE_CONSTANT_SIZE", np.inf)
    W = np.random.default_rng(0).normal(size=(3, 3)) * 0.4

    def squared_jacobian(x):
        with tracer.GradientTape() as inner:
            inner.watch(x)
            h, ys = tracer.scan(lambda h, r: (np.tanh(h @ W + r), h * 2.0),
                                np.zeros_like(x[0]), x)
            out = np.sum(ys ** 2, axis=(0, 2))
        return np.sum(inner.jacobian(out, x) ** 2)

    def eager_gradient(value):
        x = tracer.constant(value)
        with tracer.GradientTape() as tape:
            tape.watch(x)
            total = squared_jacobian(x)
        return tape.gradient(total, x).numpy()

    x = tracer.constant(np.random.default_rng(1).normal(size=(4, 3, 3)), name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        total = squared_jacobian(x)
    module = codegen.load(codegen.gradient_source(tape, total, x, optimize=optimize))
    for seed in (1, 2):
        value = np.random.default_rng(seed).normal(size=(4, 3, 3))
        np.testing.assert_allclose(module.gradient(value), eager_gradient(value), rtol=1e-10)
