"""numpy functions without a primitive, on recorded integer and boolean values.

They carry no gradient, but their results depend on the inputs: where they
return arrays they are recorded as calls, so the graph and generated code
compute them again.  Each case runs the generated gradient at inputs other
than the traced ones and compares it with a tape recorded there.
"""

import warnings

import numpy as np
import pytest

import codegen
import ir
import tracer

TRACED = np.array([0.3, -1.0, 2.0, 0.5, 1.5, -0.2])
OTHERS = [np.array([-0.3, 1.0, 2.0, -0.5, 1.5, 0.2]), np.array([4.0, 1.0, -2.0, 0.5, 1.5, 3.0])]


def unique_positions(x):
    kept = np.unique(np.argsort(x) % 4)
    return np.sum(x[kept] ** 2)


def unique_with_counts(x):
    kept, counts = np.unique(np.argsort(x) % 3, return_counts=True)
    return np.sum(x[kept] * counts)


def unmapped_ufunc(x):
    return np.sum(x[np.gcd(np.argsort(x), 4)])


def constant_and_keyword_arguments(x):
    counts = np.bincount(np.argsort(x) // 2, minlength=4)
    chosen = np.isin(np.argsort(x), np.array([1, 4]))
    return np.sum(x[:4] * counts) + np.sum(np.where(chosen, x, 0.0))


def linalg_on_positions(x):
    order = np.argsort(x).reshape(2, 3)
    return np.sum(x * np.linalg.matrix_rank(order @ order.T))


def named_results(x):
    counts = np.unique_counts(np.argsort(x) % 3)
    return np.sum(x[counts.values] * counts.counts)


def ufunc_method(x):
    return np.sum(x * np.maximum.accumulate(np.argsort(x)))


def literal_arguments(x):
    positions = np.argsort(x)
    kept = np.delete(positions, slice(0, 2))
    running = np.nancumsum(positions, dtype=float)
    chosen = np.isin(positions, [1 + 0j, 2])
    return np.sum(x[kept]) + np.sum(x * running) + np.sum(np.where(chosen, x, np.inf * 0.0))


CASES = [unique_positions, unique_with_counts, unmapped_ufunc, constant_and_keyword_arguments,
         linalg_on_positions, named_results, ufunc_method, literal_arguments]


def eager(f, value):
    x = tracer.constant(value, name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return y.numpy(), tape.gradient(y, x).numpy()


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_generated_code_calls_the_function_again(f):
    x = tracer.constant(TRACED, name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert any(node.op == "numpy_call" for node in tape.graph)
    module = codegen.load(codegen.gradient_source(tape, y, x, name="grad", with_value=True))
    for value in [TRACED] + OTHERS:
        generated_value, generated_gradient = module.grad(value)
        expected_value, expected_gradient = eager(f, value)
        np.testing.assert_allclose(generated_value, expected_value, rtol=1e-14)
        np.testing.assert_allclose(generated_gradient, expected_gradient, rtol=1e-14)
        np.testing.assert_allclose(expected_value, f(value), rtol=1e-14)


def test_a_recorded_call_reads_like_the_users():
    x = tracer.constant(TRACED, name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        kept, counts = np.unique(np.argsort(x) % 3, return_counts=True)
    assert isinstance(kept, tracer.Tensor) and isinstance(counts, tracer.Tensor)
    np.testing.assert_array_equal(kept.numpy(), [0, 1, 2])
    calls = [node for node in tape.graph if node.op == "numpy_call"]
    assert [node.params["result"] for node in calls] == [0, 1]
    spelled = ir.PRIMITIVES["numpy_call"].spelling(calls[1].params, [(6,)])
    assert spelled == "np.unique({0}, return_counts=True)[1]"
    assert calls[0].source.line > 0


def test_recorded_calls_survive_json():
    x = tracer.constant(TRACED, name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        np.sum(x[np.unique(np.argsort(x) % 4)])
    loaded = ir.Graph.from_json(tape.graph.to_json())
    assert str(loaded) == str(tape.graph)
    np.testing.assert_allclose(ir.evaluate(loaded), ir.evaluate(tape.graph))


def test_a_call_with_a_python_function_is_recorded_but_not_generated():
    x = tracer.constant(TRACED, name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        positions = np.argsort(x)
        same = np.array_equal(positions, positions)
        doubled = np.piecewise(positions, [positions > 2], [lambda v: 2 * v, lambda v: v])
        y = np.sum(x[doubled % 6])
    assert same is True  # a Python answer, not an array
    assert isinstance(doubled, tracer.Tensor)
    assert "function='np.piecewise'" in str(tape.graph) and " at 0x" not in str(tape.graph)
    with pytest.raises(codegen.CodegenError, match=r"np.piecewise .*cannot write \(function\)"):
        codegen.gradient_source(tape, y, x)


def test_numpy_scalars_are_recorded_as_values_but_answers_stay_plain():
    x = tracer.constant(TRACED, name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        count = np.count_nonzero(x > 0)
        step = np.gcd(np.argmax(x), 4)
        y = np.sum(x) * step
    assert not isinstance(count, tracer.Tensor) and count == 4 and [0.0] * count == [0.0] * 4
    assert isinstance(step, tracer.Tensor) and step.shape == ()
    module = codegen.load(codegen.gradient_source(tape, y, x, name="grad"))
    for value in OTHERS:
        expected = eager(lambda t: np.sum(t) * np.gcd(np.argmax(t), 4), value)[1]
        np.testing.assert_allclose(module.grad(value), expected)


def test_a_float_computed_from_positions_alone_carries_no_gradient():
    x = tracer.constant(TRACED, name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        angles = np.unwrap(np.argsort(x).astype(np.float64))
        y = np.sum(angles)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.asarray(angles)  # not a value the tape tracks: no warning
    assert tape.gradient(y, x) is None


def test_calls_with_different_functions_stay_apart_through_the_passes():
    x = tracer.constant(TRACED, name="x")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        positions = np.argsort(x)
        first = np.piecewise(positions, [positions > 2], [lambda v: v, lambda v: 0 * v])
        second = np.piecewise(positions, [positions > 2], [lambda v: 0 * v, lambda v: v])
        y = np.sum(x[first]) + 2 * np.sum(x[second])
    graph = tape.graph
    target = len(graph) - 1
    assert graph[target].shape == y.shape
    optimized = ir.optimize(ir.adjoint(graph, [target], [0]))
    assert sum(node.op == "numpy_call" for node in optimized) == 2


def test_a_rank_of_a_variable_is_recorded():
    v = tracer.Variable(np.array([[1.0, 2.0], [2.0, 4.0]]), name="v")
    with tracer.GradientTape() as tape:
        y = np.sum(v) * np.linalg.matrix_rank(v)
    assert any(node.op == "numpy_call" for node in tape.graph)
    module = codegen.load(codegen.gradient_source(tape, y, v, name="grad", with_value=True))
    value, gradient = module.grad(np.eye(2))
    assert value == 4.0 and np.array_equal(gradient, np.full((2, 2), 2.0))


def test_calls_writing_into_out_are_not_recorded():
    x = tracer.constant(TRACED, name="x")
    buffer = np.zeros(6, np.int64)
    with tracer.GradientTape() as tape:
        tape.watch(x)
        result = np.gcd(np.argsort(x), 4, out=buffer)
    assert result is buffer
    assert not any(node.op == "numpy_call" for node in tape.graph)


def test_values_no_tape_records_are_not_recorded():
    positions = tracer.constant(np.array([3, 1, 2]))
    with tracer.GradientTape() as tape:
        kept = np.unique(positions % 2)
    assert type(kept) is np.ndarray
    assert len(list(tape.graph)) == 0
