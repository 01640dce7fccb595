"""Loops and branches in array-API modules: every program of the loop table, its
gradient and Hessian-vector product, on ``array_api_strict`` and under ``jax.jit``, equal
the numpy target's.  A bounded while loop traces as a loop of its maximum number of
steps; an unbounded one says under jax.jit that it needs ``maximum_iterations``."""

import numpy as np
import pytest

import codegen
import tracer
from test_loop_modules import PROGRAMS, _recorded

xps = pytest.importorskip("array_api_strict")


def _modules(program, kind):
    tape, value, tensors, arrays = _recorded(program)
    if kind == "gradient":
        make = lambda target: codegen.gradient_source(tape, value, tensors, target=target)
        args = arrays
    else:
        make = lambda target: codegen.hvp_source(tape, value, tensors[0], target=target)
        args = [*arrays, np.random.default_rng(5).normal(size=np.shape(arrays[0]))]
    source = make("array_api")
    return codegen.load(make("numpy")), codegen.load(source), source, args


def _function(module):
    return getattr(module, "gradient", None) or module.hvp


@pytest.mark.parametrize("kind", ["gradient", "hvp"])
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_loops_on_the_standard_alone(program, kind):
    numpy_module, module, _, args = _modules(program, kind)
    want = _function(numpy_module)(*args)
    got = _function(module)(*[xps.asarray(a) for a in args])
    for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, list)
                    else [want]):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["gradient", "hvp"])
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_loops_under_jax_jit(program, kind):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    numpy_module, module, source, args = _modules(program, kind)
    compiled = jax.jit(_function(module))
    arguments = [jax.numpy.asarray(a) for a in args]
    if "_decided(" in source:
        with pytest.raises(TypeError, match="give tracer.while_loop maximum_iterations="):
            compiled(*arguments)
        return
    want = _function(numpy_module)(*args)
    got = compiled(*arguments)
    for g, w in zip(got if isinstance(got, list) else [got], want if isinstance(want, list)
                    else [want]):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("start", [0.5, 3.0, 40.0, 200.0])
def test_a_bounded_while_loop_traces_and_stops_where_numpy_stops(start):
    """Below the bound, at it and past it: the steps the masked loop counts, and the
    gradient, are numpy's."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    x = tracer.constant(np.array([start, 1.0]), name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        n, y = tracer.while_loop(lambda n, y: np.sum(y) < 100.0,
                                 lambda n, y: (n + 1, y * 1.5 + np.sin(y)), (0, x),
                                 maximum_iterations=6)
        loss = np.sum(y ** 2) * n
    sources = [codegen.gradient_source(tape, loss, [x], with_value=True, target=t)
               for t in ("numpy", "array_api")]
    assert "for _ in range(6):" in sources[1] and "_decided(" not in sources[1]
    want = codegen.load(sources[0]).gradient(np.array([start, 1.0]))
    got = jax.jit(codegen.load(sources[1]).gradient)(jax.numpy.asarray([start, 1.0]))
    np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=1e-12)
    np.testing.assert_allclose(np.asarray(got[1][0]), want[1][0], rtol=1e-12)


def test_kept_steps_of_a_bounded_while_loop_that_cannot_be_masked_are_refused():
    """A gradient of the gradient reads the loop's kept steps in a reverse loop that
    stacks values of its own: refused, naming the loop's line and the way out."""
    x = tracer.constant(np.array([0.5, 1.0]), name="x")
    with tracer.GradientTape() as outer:
        outer.watch(x)
        with tracer.GradientTape() as inner:
            inner.watch(x)
            _, y = tracer.while_loop(lambda n, y: np.sum(y) < 100.0,
                                     lambda n, y: (n + 1, y * 1.5 + np.sin(y)), (0, x),
                                     maximum_iterations=6)
            loss = np.sum(y ** 2)
        g = inner.gradient(loss, x)
        twice = np.sum(g * g)
    with pytest.raises(codegen.CodegenError, match=r"the while_loop computing "
                       r"test_array_api_loops\.py:\d+: .*cannot be masked\. Generate the numpy"):
        codegen.gradient_source(outer, twice, [x], target="array_api")
    assert "while steps < 6:" in codegen.gradient_source(outer, twice, [x])
