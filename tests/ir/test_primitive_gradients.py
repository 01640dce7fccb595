"""Every differentiable numpy function, one table row each, against finite differences.

The rows live in ``tests/support/gradient_table`` (one module per family).  Every
case must compute what numpy computes, match central differences at first
and second order on the eager tape, and give the same first and second
derivatives through the symbolic adjoint graph.  A new primitive needs one
new row.  Random sweeps over shapes and axes (hypothesis) close the file.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import ir
import tracer
import tracer.core
from gradient_table import float32_rows, rows
from gradient_table.cases import DISTINCT, DISTINCT_2, DIVIDEND, DIVISOR, NONZERO, POSITIVE, REAL


CASES = [pytest.param(case, id=case.id) for case in rows()]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", CASES)
def test_traced_values_match_numpy(case, dtype):
    arrays = case.arrays(dtype)
    traced = case.fn(*(tracer.constant(a) for a in arrays))
    expected = case.fn(*arrays)
    assert traced.shape == np.shape(expected) and traced.dtype == np.result_type(expected)
    tolerance = 100 * np.finfo(dtype).eps
    np.testing.assert_allclose(traced.numpy(), expected, rtol=tolerance, atol=tolerance)


REFUSES_COMPLEX = {
    **dict.fromkeys(
        ["linalg.cond", "linalg.lstsq", "linalg.pinv", "linalg.qr", "linalg.vecdot"],
        "its derivative rules hold for real matrices only, so tapegen refuses complex ones "
        "rather than compute a value it cannot differentiate"),
    "nan_to_num": "numpy replaces nan and inf in each part of a complex value; tapegen asks "
                  "for np.real and np.imag to be treated separately",
}
"""Rows (by the id's text before its first '-') where numpy computes a value from
complex inputs and tapegen raises ``TypeError`` instead, each with the reason."""


def _complex_arrays(case, dtype):
    """The case's inputs as ``dtype``: real ones get an imaginary part."""
    real = np.finfo(dtype).dtype
    rng = np.random.default_rng(len(case.id))
    return [(a if np.iscomplexobj(a) else a + 1j * rng.uniform(-0.5, 0.5, np.shape(a)))
            .astype(dtype) for a in case.arrays(real)]


def _builtin_error(error):
    """The builtin exception class an error is (numpy raises private subclasses)."""
    return next(c for c in type(error).__mro__ if c.__module__ == "builtins")


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # astype to real, as numpy
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("case", CASES)
def test_traced_values_match_numpy_on_complex_inputs(case, dtype):
    """Every row on complex inputs computes numpy's value, shape and dtype; where numpy
    raises, tapegen raises too; where tapegen refuses, ``REFUSES_COMPLEX`` says why."""
    arrays = _complex_arrays(case, dtype)
    tensors = [tracer.constant(a) for a in arrays]
    with np.errstate(all="ignore"):
        try:
            expected = case.fn(*arrays)
        except Exception as error:
            with pytest.raises(_builtin_error(error)):
                case.fn(*tensors)
            return
        if case.id.split("-")[0] in REFUSES_COMPLEX:
            with pytest.raises(TypeError, match="real"):
                case.fn(*tensors)
            return
        traced = case.fn(*tensors)
    assert traced.shape == np.shape(expected) and traced.dtype == np.result_type(expected)
    tolerance = 100 * np.finfo(dtype).eps
    np.testing.assert_allclose(traced.numpy(), expected, rtol=tolerance, atol=tolerance)


def test_every_complex_refusal_is_of_a_row():
    assert set(REFUSES_COMPLEX) <= {case.id.split("-")[0] for case in rows()}


@pytest.mark.parametrize("case", CASES)
def test_eager_gradients_match_differences_to_second_order(case):
    tracer.check_gradients(case.fn, *case.arrays(), order=2, **case.check)


def _nonempty(values):
    return [v for v in values if v is not None]


class Derivatives:
    """First- and second-order VJPs of one case, by adjoint graphs and by tapes.

    ``eager``/``symbolic`` hold ``(first, second)``: the VJPs of a random
    cotangent ``u``, then the VJPs of those gradients for random cotangents
    ``v``, ``None`` where no gradient flows.  ``adjoints`` are the two
    adjoint graphs the symbolic values come from.
    """

    def __init__(self, fn, arrays, seed=0):
        rng = np.random.default_rng(seed)
        tensors = [tracer.constant(a) for a in arrays]
        with tracer.GradientTape() as outer:
            outer.watch(tensors)
            with tracer.GradientTape() as tape:
                tape.watch(tensors)
                out = fn(*tensors)
            graph = tape.graph
            u = rng.standard_normal(out.shape).astype(out.dtype)
            first = tape.gradient(out, tensors, output_gradients=tracer.constant(u))
        v = [rng.standard_normal(g.shape).astype(g.dtype) for g in _nonempty(first)]
        second = outer.gradient(_nonempty(first), tensors, output_gradients=v) if v else []
        self.eager = first, second

        inputs = [n.id for n in graph if n.kind == "input"]
        target = [n.id for n in graph if n.kind == "op"][-1]
        assert graph[target].shape == out.shape and len(inputs) == len(arrays)
        adjoint = ir.adjoint(graph, [target], inputs, seeds=[u])
        second_adjoint = ir.adjoint(adjoint, _nonempty(adjoint.outputs), inputs, seeds=v)
        self.adjoints = adjoint, second_adjoint
        self.symbolic = ir.evaluate(adjoint), ir.evaluate(second_adjoint) if v else []

    def assert_agree(self, rtol=1e-7, atol=1e-12):
        for symbolic, eager in zip(self.symbolic, self.eager):
            assert len(symbolic) == len(eager)
            for s, e in zip(symbolic, eager):
                assert (s is None) == (e is None)
                if e is not None:
                    assert np.asarray(s).dtype == e.dtype
                    np.testing.assert_allclose(s, e.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("case", CASES)
def test_adjoint_graph_matches_eager_gradient(case):
    Derivatives(case.fn, case.arrays()).assert_agree()


@pytest.mark.parametrize("case", CASES)
def test_tapes_keep_every_value_a_rule_reads(case, monkeypatch):
    """Tapes release values no rule declares it reads (``Primitive.reads``).  With
    every such value released, whatever its size, derivatives to second order are
    unchanged: each declaration names all that its rule reads."""
    monkeypatch.setattr(tracer.core, "LARGE_VALUE_BYTES", 0)
    Derivatives(case.fn, case.arrays()).assert_agree()


FLOAT32_CASES = [pytest.param(case, id=case.id) for case in float32_rows()]


@pytest.mark.parametrize("case", FLOAT32_CASES)
def test_float32_gradients_stay_float32(case):
    arrays = case.arrays(np.float32)
    tracer.check_gradients(case.fn, *arrays, order=2)
    derivatives = Derivatives(case.fn, arrays)
    derivatives.assert_agree(rtol=1e-5, atol=1e-6)
    first, second = derivatives.eager
    assert all(g.dtype == np.float32 for g in _nonempty(first) + _nonempty(second))
    promoted = [n.op for graph in derivatives.adjoints for n in graph
                if n.kind == "op" and n.dtype == np.float64]
    assert not promoted, f"float64 intermediates in a float32 gradient: {promoted}"


# --- random sweeps -------------------------------------------------------------

BINARY_OPS = {
    "add": (np.add, REAL, REAL), "subtract": (np.subtract, REAL, REAL),
    "multiply": (np.multiply, REAL, REAL), "divide": (np.divide, REAL, NONZERO),
    "power": (np.power, POSITIVE, REAL), "remainder": (np.remainder, DIVIDEND, DIVISOR),
    "maximum": (np.maximum, DISTINCT, DISTINCT_2), "minimum": (np.minimum, DISTINCT, DISTINCT_2),
    "fmax": (np.fmax, DISTINCT, DISTINCT_2), "fmin": (np.fmin, DISTINCT, DISTINCT_2),
    "arctan2": (np.arctan2, NONZERO, NONZERO), "hypot": (np.hypot, NONZERO, NONZERO),
    "logaddexp": (np.logaddexp, REAL, REAL),
    "where": (lambda x, y: np.where(np.sin(7.0 * x) > 0, x, y), REAL, REAL),
}
REDUCTIONS = {
    "sum": (np.sum, REAL), "mean": (np.mean, REAL), "prod": (np.prod, NONZERO),
    "max": (np.max, DISTINCT), "min": (np.min, DISTINCT), "var": (np.var, REAL),
    "std": (np.std, DISTINCT),
}
SWEEP = settings(max_examples=40, deadline=None)


def _check_everywhere(fn, arrays):
    tracer.check_gradients(fn, *arrays, order=2)
    Derivatives(fn, arrays).assert_agree()


@SWEEP
@given(name=st.sampled_from(sorted(BINARY_OPS)),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       seed=st.integers(0, 2**32 - 1))
def test_binary_ops_on_random_broadcast_shapes(name, shapes, seed):
    fn, x_domain, y_domain = BINARY_OPS[name]
    rng = np.random.default_rng(seed)
    x_shape, y_shape = shapes.input_shapes
    _check_everywhere(fn, [x_domain(rng, x_shape), y_domain(rng, y_shape)])


@SWEEP
@given(name=st.sampled_from(sorted(REDUCTIONS)), data=st.data(),
       shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3),
       keepdims=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_reductions_over_random_axes(name, data, shape, keepdims, seed):
    reduce, domain = REDUCTIONS[name]
    ndim = len(shape)
    axes = data.draw(st.lists(st.integers(0, ndim - 1), unique=True) if ndim else st.just([]))
    axes = [a - ndim if data.draw(st.booleans()) else a for a in axes]
    axis = data.draw(st.sampled_from([None, tuple(axes)] + axes))
    reduced = range(ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    size = np.prod([shape[a] for a in reduced])
    # The standard deviation of one element is 0, where sqrt has no derivative.
    assume(name != "std" or size > 1)
    x = domain(np.random.default_rng(seed), shape)
    _check_everywhere(lambda x: reduce(x, axis=axis, keepdims=keepdims), [x])


@SWEEP
@given(batches=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3),
       sizes=st.tuples(*[st.integers(1, 3)] * 3), vectors=st.tuples(st.booleans(), st.booleans()),
       seed=st.integers(0, 2**32 - 1))
def test_matmul_on_random_batches(batches, sizes, vectors, seed):
    n, k, m = sizes
    x_shape = (k,) if vectors[0] else batches.input_shapes[0] + (n, k)
    y_shape = (k,) if vectors[1] else batches.input_shapes[1] + (k, m)
    rng = np.random.default_rng(seed)
    _check_everywhere(np.matmul, [REAL(rng, x_shape), REAL(rng, y_shape)])
