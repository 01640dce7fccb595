"""Long stacks in array-API modules are written a value at a time, as the values are
made, and equal the stack numpy makes: in an unrolled loop's gradient, on
``array_api_strict`` and under ``jax.jit``, and with values of several dtypes."""

import re

import numpy as np
import pytest

import codegen
import tracer
from codegen.targets.array_api.stacks import stack_in_place

xps = pytest.importorskip("array_api_strict")


def _unrolled_rnn(steps):
    w = tracer.Variable(np.full((3, 3), 0.2), name="w")
    xs = np.linspace(-1.0, 1.0, steps * 3).reshape(steps, 3)
    with tracer.GradientTape(persistent=True) as tape:
        h = np.zeros(3)
        for x in xs:
            h = np.tanh(h @ w + x)
        loss = np.sum(h * h)
    return tape, loss, w


def test_an_unrolled_loops_stack_is_written_step_by_step():
    tape, loss, w = _unrolled_rnn(12)
    source = codegen.gradient_source(tape, loss, [w], target="array_api")
    written = re.search(r"(stack\w*) = xpx\.at\(\1, \(0, \.\.\.\)\)\.set\(", source)
    assert written, source
    assert f"if {written.group(1)}.dtype != xp.result_type(" in source
    want = codegen.load(codegen.gradient_source(tape, loss, [w])).gradient(w.numpy())
    got = codegen.load(source).gradient(xps.asarray(w.numpy()))
    np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=1e-12)
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jitted = jax.jit(codegen.load(source).gradient)(jax.numpy.asarray(w.numpy()))
    np.testing.assert_allclose(np.asarray(jitted[0]), want[0], rtol=1e-12)


def test_values_of_several_dtypes_are_stacked_as_numpy_stacks_them():
    import array_api_extra as xpx
    names = [f"v_{k}" for k in range(10)]
    written = stack_in_place("stack", names, names[0])
    lines = []
    for k, name in enumerate(names):
        lines.append(f"{name} = xp.asarray([{k}.5], dtype=xp.{'float32' if k else 'float64'})")
        lines += written.after.get(name, [])
    lines += written.instead
    namespace = {"xp": xps, "xpx": xpx, "on": None}
    exec("\n".join(lines), namespace)
    assert namespace["stack"].dtype == xps.float64
    np.testing.assert_array_equal(np.asarray(namespace["stack"]),
                                  np.arange(10.0).reshape(10, 1) + 0.5)


def test_a_stack_of_values_without_statements_of_their_own_keeps_its_stack():
    xs = [tracer.Variable(np.full(3, float(k)), name=f"x_{k}") for k in range(10)]
    with tracer.GradientTape() as tape:
        stacked = np.stack(xs)
        loss = np.sum(stacked * stacked)
    source = codegen.gradient_source(tape, loss, xs, target="array_api")
    assert " = xp.stack([x_0, x_1, " in source and "xpx.at(" not in source, source
