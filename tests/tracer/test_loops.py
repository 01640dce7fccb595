"""Loops that stay loops: each program written twice, with ``tracer.scan`` or
``tracer.fori_loop`` and as a Python loop, must give the same values and the same
derivatives to every order, eagerly and through the adjoint graph."""

import functools

import numpy as np
import pytest

import codegen
import ir
import tracer

RNG = np.random.default_rng(7)
XS = RNG.normal(size=(6, 3))
W0 = RNG.normal(size=(3, 3)) * 0.4


def _scanned(step, init, xs, loop):
    """``tracer.scan(step, init, xs)``, or (not ``loop``) the same steps as a Python loop."""
    if loop:
        return tracer.scan(step, init, xs)
    carry, parts = init, []
    for t in range(xs.shape[0]):
        carry, y = step(carry, xs[t])
        parts.append(y)
    return carry, np.stack(parts)


def rnn(loop):
    """A tanh RNN over a sequence, its weights closed over, its inputs scanned."""
    def loss(w, h0, xs):
        def step(h, x):
            h = np.tanh(w @ h + x)
            return h, h * h
        final, ys = _scanned(step, h0, xs, loop)
        return np.sum(final ** 3) + np.sum(ys[::2] * ys[1::2])
    return loss, (W0, RNG.normal(size=3) * 0.5, XS)


def integrator(loop):
    """An explicit integrator of a small ODE, 3 ops a step, with a parameter ``k``."""
    def loss(k, y0):
        def step(y, _):
            y = y + 0.05 * (np.sin(y) - k * y)
            return y, np.sum(y)
        if loop:
            final, ys = tracer.scan(step, y0, length=40)
        else:
            y, parts = y0, []
            for _ in range(40):
                y, s = step(y, None)
                parts.append(s)
            final, ys = y, np.stack(parts)
        return np.sum(final * final) + np.sum(ys) / 40
    return loss, (np.array([0.7, 1.3]), np.array([1.0, -0.5]))


def dict_carry(loop):
    """A carry that is a dict, with a reversed scan."""
    def loss(damping, state0, forces):
        def step(state, force):
            vel = state["vel"] * damping + force
            return {"pos": state["pos"] + 0.1 * vel, "vel": vel}, np.sum(vel ** 2)
        if loop:
            final, ys = tracer.scan(step, {"pos": state0, "vel": state0 * 0.5}, forces,
                                    reverse=True)
        else:
            state, parts = {"pos": state0, "vel": state0 * 0.5}, []
            for t in reversed(range(forces.shape[0])):
                state, y = step(state, forces[t])
                parts.insert(0, y)
            final, ys = state, np.stack(parts)
        return np.sum(final["pos"] ** 2) + np.sum(np.arange(1, 6) * ys)
    return loss, (np.array(0.9), np.array([0.3, -0.4]), RNG.normal(size=(5, 2)))


def nested(loop):
    """A loop inside a loop's body."""
    def loss(a, x0):
        def inner(c, _):
            return np.sin(c * a), c
        def outer(c, _):
            if loop:
                c, cs = tracer.scan(inner, c, length=3)
            else:
                cs = []
                for _ in range(3):
                    c, kept = inner(c, None)
                    cs.append(kept)
                cs = np.stack(cs)
            return c + 0.1, np.sum(cs)
        if loop:
            final, ys = tracer.scan(outer, x0, length=4)
        else:
            c, parts = x0, []
            for _ in range(4):
                c, y = outer(c, None)
                parts.append(y)
            final, ys = c, np.stack(parts)
        return np.sum(final) + np.sum(ys * ys)
    return loss, (np.array([0.8, 1.1]), np.array([0.5, 0.2]))


def indexed_fori(loop):
    """``fori_loop`` whose index picks rows of a closed-over tensor, with a counter."""
    def loss(table, c0):
        table = table if isinstance(table, tracer.Tensor) else tracer.constant(table)

        def body(i, c):
            return c * np.cos(table[i]) + table[i] * 0.5
        if loop:
            c = tracer.fori_loop(1, 5, body, c0)
        else:
            c = c0
            for i in range(1, 5):
                c = body(i, c)
        return np.sum(c ** 2)
    return loss, (RNG.normal(size=(6, 3)), np.array([1.0, 2.0, -1.0]))


def newton(loop):
    """A ``while_loop`` Newton iteration for square roots, its trip count decided by the
    data; the unrolled loop decides it with a Python ``while``."""
    def loss(a, x0):
        def test(x, n):
            return np.max(np.abs(x * x - a)) > 1e-9

        def step(x, n):
            return 0.5 * (x + a / x), n + 1
        if loop:
            x, n = tracer.while_loop(test, step, (x0, np.asarray(0)))
        else:
            x, n = x0, 0
            while test(x, n):
                x, n = step(x, n)
        return np.sum(x * a) + np.sum(x0 * x)
    return loss, (np.array([1.5, 0.5, 3.0]), np.array([2.0, 1.0, 1.5]))


def branch_in_loop(loop):
    """``cond`` inside a scan's body: a step that is damped only when the state grows."""
    def loss(k, y0):
        def step(y, _):
            big = np.sum(y * y) > 1.0
            if loop:
                y = tracer.cond(big, lambda: y * np.cos(k), lambda: y + k * 0.3)
            else:
                y = y * np.cos(k) if big else y + k * 0.3
            return y, y[0]
        if loop:
            final, ys = tracer.scan(step, y0, length=8)
        else:
            y, parts = y0, []
            for _ in range(8):
                y, first = step(y, None)
                parts.append(first)
            final, ys = y, np.stack(parts)
        return np.sum(final ** 2) + np.sum(ys)
    return loss, (np.array([0.4, 0.9]), np.array([0.5, -0.2]))


@tracer.custom_gradient
def floored_tanh(x, scale):
    """tanh, whose derivative is floored at 0.3 so that it never vanishes: not the
    derivative, so a test can tell it is used (and linear in the upstream gradient, as
    every gradient function must be)."""
    y = np.tanh(x * scale)

    def grad(upstream):
        floored = upstream * np.maximum(1 - y * y, 0.3)
        return floored * scale, np.sum(floored * x)
    return y, grad


def custom_in_body(loop):
    """A custom gradient inside a scan's body: its gradient function, not tanh's
    derivative, is what the loop's gradient uses, to every order."""
    def loss(w, h0, xs):
        def step(h, x):
            h = floored_tanh(w @ h + x, np.sum(w) * 0.6)
            return h, np.sum(h * h)
        final, ys = _scanned(step, h0, xs, loop)
        return np.sum(final * 2.0) + np.sum(ys * ys)
    return loss, (W0, RNG.normal(size=3) * 0.5, XS)


PROGRAMS = [rnn, integrator, dict_carry, nested, indexed_fori, newton, branch_in_loop,
            custom_in_body]


def _derivatives(loss, arrays, order):
    """The value and the directional derivatives of ``loss`` up to ``order``: each
    order's gradient dotted with a fixed direction is the next order's target."""
    tensors = [tracer.constant(a) for a in arrays]
    directions = [np.random.default_rng(k).normal(size=np.shape(a)) for k, a in enumerate(arrays)]
    tapes = [tracer.GradientTape() for _ in range(order)]
    for tape in tapes:
        tape.__enter__()
        tape.watch(tensors)
    value = loss(*tensors)
    results = [value.numpy()]
    target = value
    for tape in reversed(tapes):
        tape.__exit__(None, None, None)
        grads = tape.gradient(target, tensors)
        results.append([None if g is None else g.numpy() for g in grads])
        target = sum(np.sum(g * d) for g, d in zip(grads, directions) if g is not None)
    return results


def _assert_close(got, expected):
    for g, e in zip(got[1:], expected[1:]):
        for a, b in zip(g, e):
            assert (a is None) == (b is None)
            if b is not None:
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-12)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_loop_derivatives_match_the_unrolled_loop_to_second_order(program):
    looped, arrays = program(True)
    unrolled, _ = program(False)
    _assert_close(_derivatives(looped, arrays, 2), _derivatives(unrolled, arrays, 2))


SCANS = [rnn, integrator, dict_carry, nested, branch_in_loop, custom_in_body]


@pytest.mark.parametrize("checkpoint", ["recompute", 4, 100])
@pytest.mark.parametrize("program", SCANS, ids=lambda p: p.__name__)
def test_checkpointed_scans_give_the_same_derivatives(program, checkpoint, monkeypatch):
    looped, arrays = program(True)
    unrolled, _ = program(False)
    expected = _derivatives(unrolled, arrays, 2)
    monkeypatch.setattr(tracer, "scan", functools.partial(tracer.scan, checkpoint=checkpoint))
    _assert_close(_derivatives(looped, arrays, 2), expected)


def _kept_steps(checkpoint, steps=100):
    """How many steps' worth of values the recorded loops keep for the gradient."""
    k = tracer.constant(np.array([0.7, 1.3]))
    with tracer.GradientTape() as tape:
        tape.watch(k)
        final, _ = tracer.scan(lambda y, _: (y - 0.01 * k * np.sin(y), y), k, length=steps,
                               checkpoint=checkpoint)
    kept = 0
    for node in tape.graph:
        if node.op == "scan":
            body, keep = node.params["body"], node.params["keep"]
            kept += sum(node.params["length"] * np.prod(shape, dtype=int)
                        for shape, _ in body.types(keep))
    return kept


def test_checkpoints_keep_fewer_values():
    every_step, carries_only, segments = (_kept_steps(c) for c in (None, "recompute", 10))
    assert carries_only < every_step
    # 10 segment starts of one carry, against 100 steps of the carry and the sine's input.
    assert segments == 10 * 2 and every_step >= 100 * 2 * 2


def test_third_order_through_an_rnn_scan():
    looped, arrays = rnn(True)
    unrolled, _ = rnn(False)
    _assert_close(_derivatives(looped, arrays, 3), _derivatives(unrolled, arrays, 3))


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_adjoint_graph_of_a_loop_matches_the_eager_gradient(program):
    looped, arrays = program(True)
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        value = looped(*tensors)
    graph = tape.graph
    eager = tape.gradient(value, tensors)
    inputs = [n.id for n in graph if n.kind == "input"]
    target = [n.id for n in graph if n.kind == "op"][-1]
    adjoint = ir.adjoint(graph, [target], inputs)
    loops = {"scan", "while_loop", "cond"}
    assert any(n.op in loops for n in graph) and any(n.op in loops for n in adjoint)
    for symbolic, e in zip(ir.evaluate(adjoint), eager):
        np.testing.assert_allclose(symbolic, e.numpy(), rtol=1e-10, atol=1e-12)


def _jvp(loss, arrays):
    tensors = [tracer.constant(a) for a in arrays]
    directions = [tracer.constant(np.random.default_rng(k).normal(size=np.shape(a)))
                  for k, a in enumerate(arrays)]
    with tracer.ForwardAccumulator(tensors, directions) as accumulator:
        value = loss(*tensors)
    return accumulator.jvp(value).numpy()


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_forward_mode_through_a_loop_matches_the_unrolled_loop(program):
    looped, arrays = program(True)
    unrolled, _ = program(False)
    np.testing.assert_allclose(_jvp(looped, arrays), _jvp(unrolled, arrays), rtol=1e-10)


def _hessian(loss, arrays):
    """The Hessian in the first argument, as a vectorised Jacobian of the gradient."""
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape() as outer:
        outer.watch(tensors[0])
        with tracer.GradientTape() as inner:
            inner.watch(tensors[0])
            value = loss(*tensors)
        gradient = inner.gradient(value, tensors[0])
    return outer.jacobian(gradient, tensors[0]).numpy()


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_vectorised_hessians_through_a_loop_match_the_unrolled_loop(program):
    looped, arrays = program(True)
    unrolled, _ = program(False)
    np.testing.assert_allclose(_hessian(looped, arrays), _hessian(unrolled, arrays),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_generated_gradients_of_loops_match_the_eager_ones(program):
    looped, arrays = program(True)
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        value = looped(*tensors)
    source = codegen.gradient_source(tape, value, tensors, name="gradient", with_value=True)
    assert source.count("for ") + source.count("while ") + source.count("if ") >= 2
    got_value, got = codegen.load(source).gradient(*arrays)
    np.testing.assert_allclose(got_value, value.numpy(), rtol=1e-12)
    for g, e in zip(got, tape.gradient(value, tensors)):
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_loops_run_on_plain_numpy_outside_any_tape(program):
    looped, arrays = program(True)
    unrolled, _ = program(False)
    np.testing.assert_allclose(looped(*arrays), unrolled(*arrays), rtol=1e-12)


def test_one_loop_is_one_node_whatever_the_number_of_steps():
    k = tracer.constant(np.array([0.7, 1.3]))
    counts = []
    for steps in (3, 300):
        with tracer.GradientTape() as tape:
            tape.watch(k)
            final, _ = tracer.scan(lambda y, _: (y - 0.01 * k * y, y), k, length=steps)
            np.sum(final)
        counts.append(len(tape.graph))
    assert counts[0] == counts[1]


def test_variables_read_in_a_body_get_gradients():
    w = tracer.Variable(np.array([0.5, -0.3]), name="w")
    with tracer.GradientTape() as tape:
        final, _ = tracer.scan(lambda c, x: (c * w + x, c), np.zeros(2), XS[:, :2])
        loss = np.sum(final ** 2)
    (grad,) = tape.gradient(loss, [w])
    with tracer.GradientTape() as tape:
        c = np.zeros(2)
        for x in XS[:, :2]:
            c = c * w + x
        loss = np.sum(c ** 2)
    np.testing.assert_allclose(grad.numpy(), tape.gradient(loss, [w])[0].numpy(), rtol=1e-12)


def test_the_body_runs_once():
    calls = []

    def step(c, x):
        calls.append(1)
        return c + x, c

    tracer.scan(step, np.zeros(3), XS)
    assert len(calls) == 1


@pytest.mark.parametrize("body, message", [
    (lambda c, x: (c[:2], c), r"carry changes from float64\[3\] to float64\[2\]"),
    (lambda c, x: (c.astype(np.float32), c), r"float64\[3\] to float32\[3\]"),
    (lambda c, x: ((c, c), c), "structure it was given"),
    (lambda c, x: c, r"returns \(carry, y\)"),
    (lambda c, x: (c if float(np.sum(c)) > 0 else -c, c), "float"),
])
def test_bodies_that_cannot_be_looped_are_refused_naming_the_problem(body, message):
    with pytest.raises(tracer.ControlFlowError, match=message) as error:
        tracer.scan(body, tracer.constant(np.ones(3)), XS)
    assert "test_loops.py" in str(error.value)


def test_a_plain_array_indexed_by_the_loop_index_is_refused_with_the_way_out():
    table = np.arange(12.0).reshape(4, 3)
    with pytest.raises(tracer.ControlFlowError, match=r"tracer.constant\(array\)\[i\]"):
        tracer.fori_loop(0, 4, lambda i, c: c + table[i], np.zeros(3))
    total = tracer.fori_loop(0, 4, lambda i, c: c + tracer.constant(table)[i], np.zeros(3))
    np.testing.assert_allclose(total, table.sum(axis=0))


@pytest.mark.parametrize("pred, message", [
    (np.ones(2) > 0, r"cond's pred must be a boolean scalar, got bool\[2\]"),
    (np.float64(1.0), r"cond's pred must be a boolean scalar, got float64\[\]"),
])
def test_preds_that_are_not_boolean_scalars_are_refused(pred, message):
    with pytest.raises(tracer.ControlFlowError, match=message):
        tracer.cond(tracer.constant(pred), lambda: 1.0, lambda: 2.0)


@pytest.mark.parametrize("false_fn, message", [
    (lambda x: (x, x), "different structures"),
    (lambda x: x[:2], r"result as float64\[3\] and float64\[2\]"),
])
def test_branches_that_disagree_are_refused(false_fn, message):
    x = tracer.constant(np.ones(3))
    with pytest.raises(tracer.ControlFlowError, match=message) as error:
        tracer.cond(np.sum(x) > 0, lambda: x, lambda: false_fn(x))
    assert "test_loops.py" in str(error.value)


def test_a_plain_pred_runs_only_its_branch():
    calls = []
    assert tracer.cond(True, lambda: calls.append("t") or 1, lambda: calls.append("f")) == 1
    assert calls == ["t"]


def test_while_loop_honours_maximum_iterations_and_runs_outside_tapes():
    final = tracer.while_loop(lambda i: i < 100, lambda i: i + 1, np.asarray(0),
                              maximum_iterations=7)
    assert int(final) == 7
    x = tracer.while_loop(lambda x: np.sum(x) < 50.0, lambda x: x * 2.0, np.ones(2))
    np.testing.assert_array_equal(x, [32.0, 32.0])


def test_xs_of_different_lengths_are_refused():
    with pytest.raises(tracer.ControlFlowError, match=r"different leading sizes \[4, 6\]"):
        tracer.scan(lambda c, x: (c, x), np.zeros(3), (XS, XS[:4]))


def test_a_while_loop_on_a_tape_runs_its_steps_once(monkeypatch):
    """The number of steps is a param of the node, learnt from the one run that computes
    the loop's value: no second run to find it."""
    from ir.loops.body import Body
    runs = []
    run = Body.run

    def counted(body, inputs, kept=()):
        runs.append(body)
        return run(body, inputs, kept)
    monkeypatch.setattr(Body, "run", counted)
    c0 = tracer.constant(1.0)
    with tracer.GradientTape() as tape:
        tape.watch(c0)
        c = tracer.while_loop(lambda c: c < 100.0, lambda c: c * 3.0, c0)
    monkeypatch.setattr(Body, "run", run)
    assert len(runs) == 6 + 5  # steps from 1, 3, 9, 27, 81; a sixth test at 243
    assert tape.gradient(c, c0).numpy() == 3.0 ** 5
