"""Every differentiable numpy function, one table row each, against finite differences.

A row (``unary``, ``binary``, ``reduction``, ``fixed``) expands into cases
over shapes, broadcasting, axes and keepdims.  A case is a function of
tensors plus, per argument, a shape and an input domain that keeps the
function smooth around the sample (positive for ``log``, well-separated
values for ``max`` so there are no ties, no remainder jumps nearby).  Every
case must compute what numpy computes, match central differences at first
and second order on the eager tape, and give the same first and second
derivatives through the symbolic adjoint graph.  A new primitive needs one
new row.  Random sweeps over shapes and axes (hypothesis) close the file.
"""

import zlib

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import ir
import tracer
import tracer.core


def uniform(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def signed(lo, hi):
    """Magnitudes in ``(lo, hi)`` with random signs: away from zero."""
    return lambda rng, shape: rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)


def spaced(offset):
    """Distinct values 0.2 apart; ``spaced(0)`` and ``spaced(1)`` never come closer than 0.1.

    So maxima, minima and ``maximum(x, y)`` have no ties anywhere near the sample.
    """
    def sample(rng, shape):
        size = int(np.prod(shape, dtype=np.int64))
        return ((2.0 * (rng.permutation(size) - size // 2) + offset) * 0.1).reshape(shape)
    return sample


def zero_every(k):
    """Nonzero values, except exact zeros at every ``k``-th element (for ``prod``)."""
    def sample(rng, shape):
        values = NONZERO(rng, shape)
        values.flat[::k] = 0.0
        return values
    return sample


REAL = uniform(-2.0, 2.0)
POSITIVE = uniform(0.5, 2.0)
UNIT = uniform(-0.9, 0.9)
ABOVE_ONE = uniform(1.2, 3.0)
NONZERO = signed(0.5, 2.0)
DISTINCT = spaced(0)
DISTINCT_2 = spaced(1)
# x / y stays strictly between two integers for these, so x % y and x // y are smooth.
DIVIDEND = signed(2.3, 2.9)
DIVISOR = signed(1.02, 1.08)


class Case:
    """One function of tensors at inputs drawn from per-argument ``(shape, domain)`` specs."""

    def __init__(self, id, fn, specs, check=None):
        self.id = id
        self.fn = fn
        self.specs = specs
        self.check = check or {}

    def arrays(self, dtype=np.float64):
        rng = np.random.default_rng(zlib.crc32(self.id.encode()))
        return [domain(rng, shape).astype(dtype) for shape, domain in self.specs]


def _shape_text(shape):
    return "x".join(map(str, shape)) or "scalar"


UNARY_SHAPES = [(), (3,), (2, 3)]
BINARY_SHAPES = [((), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (2, 3)), ((2, 1), (1, 3)),
                 ((), (2, 3)), ((2, 3), ())]


def unary(name, fn, domain=REAL, shapes=UNARY_SHAPES):
    return [Case(f"{name}-{_shape_text(s)}", fn, [(s, domain)]) for s in shapes]


def binary(name, fn, domain=REAL, second=None, shapes=BINARY_SHAPES):
    second = second or domain
    return [Case(f"{name}-{_shape_text(a)}-{_shape_text(b)}", fn, [(a, domain), (b, second)])
            for a, b in shapes]


REDUCTION_AXES = [((), None), ((5,), None), ((5,), 0), ((5,), -1), ((2, 3, 4), None),
                  ((2, 3, 4), 1), ((2, 3, 4), -1), ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, -3))]


def reduction(name, fn, domain=REAL, axes=REDUCTION_AXES):
    """``fn(x, axis, keepdims)`` over every axis form, with and without keepdims."""
    return [Case(f"{name}-{_shape_text(shape)}-axis{axis}-keep{keep}",
                 lambda x, axis=axis, keep=keep: fn(x, axis, keep), [(shape, domain)])
            for shape, axis in axes for keep in (False, True)]


def fixed(name, fn, *specs, **check):
    """A single case: ``specs`` are ``(shape, domain)`` pairs, one per argument."""
    return [Case(name, fn, list(specs), check)]


def _weighted_concat(parts, axis):
    """Recombine split pieces with distinct weights, so a swapped piece changes the result."""
    return np.concatenate([part * (k + 1.0) for k, part in enumerate(parts)], axis=axis)


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                 ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
                 ((5, 1, 2, 3), (4, 3, 2)), ((3,), (5, 3, 4)), ((5, 2, 3), (3,))]
DOT_SHAPES = [((), (2, 3)), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
              ((2, 3, 4), (4,)), ((2, 3, 4), (5, 4, 2))]
TENSORDOT = [((2, 3), (4, 5), 0), ((2, 3), (3, 4), 1), ((2, 3, 4), (3, 4, 5), 2),
             ((2, 3), (4, 3), (1, 1)), ((3, 2), (4, 3), (0, -1)),
             ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])), ((2, 3, 4), (3, 5, 4), ([-1, 1], [2, 0])),
             ((4, 3, 2), (2, 3), ((-2, -1), (-1, -2)))]
INDEX_KEYS = [1, -1, slice(1, 3), slice(None, None, 2), slice(None, None, -1),
              slice(-1, 0, -2), (Ellipsis, 1), (None, slice(None), 1), (1, Ellipsis, None),
              [0, 2, 2], np.array([[0, 1], [1, 1]]), (slice(None), [0, 0, 4]),
              ([0, 1, 1], [2, 0, 2]), np.array([True, False, True, True]),
              np.arange(20).reshape(4, 5) % 3 == 0, (np.array([False, True, True, False]), -2)]
INDEX_KEYS_3D = [(0, slice(None), [1, 1, 3]), (Ellipsis, [0, 0], slice(1, 3)),
                 (slice(None), np.arange(12).reshape(3, 4) % 5 == 1)]


def _key_text(key):
    return repr(key).replace(" ", "").replace("\n", "")


def rows():
    """Every case of the table."""
    table = [
        # --- ufuncs ------------------------------------------------------------
        binary("add", np.add), binary("subtract", np.subtract),
        binary("multiply", np.multiply),
        binary("divide", np.divide, REAL, NONZERO),
        binary("true_divide", np.true_divide, REAL, NONZERO),
        binary("floor_divide", np.floor_divide, DIVIDEND, DIVISOR),
        binary("remainder", np.remainder, DIVIDEND, DIVISOR),
        unary("negative", np.negative), unary("positive", lambda x: np.positive(x) * 1.5),
        binary("power", np.power, POSITIVE, REAL),
        unary("square", np.square), unary("sqrt", np.sqrt, POSITIVE),
        unary("cbrt", np.cbrt, NONZERO), unary("reciprocal", np.reciprocal, NONZERO),
        unary("exp", np.exp), unary("exp2", np.exp2), unary("expm1", np.expm1),
        unary("log", np.log, POSITIVE), unary("log2", np.log2, POSITIVE),
        unary("log10", np.log10, POSITIVE), unary("log1p", np.log1p, POSITIVE),
        unary("sin", np.sin), unary("cos", np.cos), unary("tan", np.tan, UNIT),
        unary("arcsin", np.arcsin, UNIT), unary("arccos", np.arccos, UNIT),
        unary("arctan", np.arctan),
        binary("arctan2", np.arctan2, NONZERO),
        unary("sinh", np.sinh), unary("cosh", np.cosh), unary("tanh", np.tanh),
        unary("arcsinh", np.arcsinh), unary("arccosh", np.arccosh, ABOVE_ONE),
        unary("arctanh", np.arctanh, UNIT),
        unary("absolute", np.absolute, NONZERO), unary("sign", lambda x: np.sign(x) * x, NONZERO),
        binary("maximum", np.maximum, DISTINCT, DISTINCT_2),
        binary("minimum", np.minimum, DISTINCT, DISTINCT_2),
        binary("fmax", np.fmax, DISTINCT, DISTINCT_2),
        binary("fmin", np.fmin, DISTINCT, DISTINCT_2),
        binary("hypot", np.hypot, NONZERO), binary("logaddexp", np.logaddexp),
        unary("fabs", np.fabs, NONZERO),
        binary("float_power", np.float_power, POSITIVE, REAL, shapes=BINARY_SHAPES[2:5]),
        # --- reductions ----------------------------------------------------------
        reduction("sum", lambda x, a, k: np.sum(x, axis=a, keepdims=k)),
        reduction("mean", lambda x, a, k: np.mean(x, axis=a, keepdims=k)),
        reduction("prod", lambda x, a, k: np.prod(x, axis=a, keepdims=k), NONZERO),
        reduction("max", lambda x, a, k: np.max(x, axis=a, keepdims=k), DISTINCT),
        reduction("min", lambda x, a, k: np.min(x, axis=a, keepdims=k), DISTINCT),
        reduction("amax", lambda x, a, k: np.amax(x, axis=a, keepdims=k), DISTINCT),
        reduction("amin", lambda x, a, k: np.amin(x, axis=a, keepdims=k), DISTINCT),
        reduction("var", lambda x, a, k: np.var(x, axis=a, keepdims=k)),
        # The standard deviation of one element is 0, where sqrt has no derivative.
        reduction("std", lambda x, a, k: np.std(x, axis=a, keepdims=k), DISTINCT,
                  REDUCTION_AXES[1:]),
        reduction(".sum", lambda x, a, k: x.sum(axis=a, keepdims=k)),
        reduction(".mean", lambda x, a, k: x.mean(axis=a, keepdims=k)),
        reduction(".max", lambda x, a, k: x.max(axis=a, keepdims=k), DISTINCT),
        fixed("max-positional", lambda x: np.max(x, -1, None, True), ((2, 3), DISTINCT)),
        fixed("min-positional", lambda x: np.amin(x, 0, None, False), ((2, 3), DISTINCT)),
        fixed("sum-positional", lambda x: np.sum(x, 0, None, None, True), ((2, 3), REAL)),
        fixed("var-ddof1", lambda x: np.var(x, axis=-1, ddof=1), ((2, 4), REAL)),
        fixed("std-ddof1-keepdims", lambda x: np.std(x, axis=0, ddof=1, keepdims=True),
              ((3, 2), DISTINCT)),
        [Case(f"prod-zeros{k}-axis{axis}", lambda x, axis=axis: np.prod(x, axis=axis),
              [((2, 3, 4), zero_every(k))])
         for k in (5, 2) for axis in (None, -1, (0, 1))],
        # --- products ------------------------------------------------------------
        binary("matmul", np.matmul, shapes=MATMUL_SHAPES),
        binary("@", lambda x, y: x @ y, shapes=MATMUL_SHAPES[:5]),
        binary("dot", np.dot, shapes=DOT_SHAPES),
        binary(".dot", lambda x, y: x.dot(y), shapes=DOT_SHAPES[1:5]),
        [Case(f"tensordot-{_shape_text(a)}-{_shape_text(b)}-axes{_key_text(axes)}",
              lambda x, y, axes=axes: np.tensordot(x, y, axes=axes), [(a, REAL), (b, REAL)])
         for a, b, axes in TENSORDOT],
        fixed("tensordot-default", np.tensordot, ((2, 3, 4), REAL), ((3, 4, 2), REAL)),
        binary("outer", np.outer, shapes=[((3,), (4,)), ((2, 2), (3,))]),
        # --- shapes ----------------------------------------------------------------
        fixed("reshape", lambda x: np.reshape(x, (3, 2)) * [1.0, 2.0], ((2, 3), REAL)),
        fixed("reshape-infer", lambda x: np.reshape(x, (4, -1)), ((2, 3, 4), REAL)),
        fixed(".reshape-args", lambda x: x.reshape(3, 2), ((6,), REAL)),
        fixed(".reshape-tuple", lambda x: x.reshape((6,)), ((2, 3), REAL)),
        fixed("ravel", np.ravel, ((2, 3), REAL)),
        fixed("transpose", np.transpose, ((2, 3, 4), REAL)),
        fixed("transpose-axes", lambda x: np.transpose(x, (1, 0, 2)), ((2, 3, 4), REAL)),
        fixed("transpose-negative", lambda x: np.transpose(x, (-1, 0, 1)), ((2, 3, 4), REAL)),
        fixed(".T", lambda x: x.T * [1.0, 2.0], ((2, 3), REAL)),
        fixed(".transpose", lambda x: x.transpose(), ((2, 3), REAL)),
        fixed(".transpose-axes", lambda x: x.transpose(2, 0, 1), ((2, 3, 4), REAL)),
        fixed("swapaxes", lambda x: np.swapaxes(x, 0, -1), ((2, 3, 4), REAL)),
        fixed("swapaxes-inner", lambda x: np.swapaxes(x, -1, -2), ((2, 3, 4), REAL)),
        fixed("moveaxis", lambda x: np.moveaxis(x, 0, -1), ((2, 3, 4), REAL)),
        fixed("moveaxis-many", lambda x: np.moveaxis(x, [0, 1], [-1, -3]), ((2, 3, 4), REAL)),
        fixed("expand_dims", lambda x: np.expand_dims(x, 0) * [[[1.0], [2.0]]], ((2, 3), REAL)),
        fixed("expand_dims-negative", lambda x: np.expand_dims(x, -1), ((2, 3), REAL)),
        fixed("expand_dims-tuple", lambda x: np.expand_dims(x, (0, 3)), ((2, 3), REAL)),
        fixed("squeeze", np.squeeze, ((1, 3, 1), REAL)),
        fixed("squeeze-axis", lambda x: np.squeeze(x, axis=-1), ((1, 3, 1), REAL)),
        fixed("squeeze-tuple", lambda x: np.squeeze(x, axis=(0, 2)), ((1, 3, 1), REAL)),
        [Case(f"broadcast_to-{_shape_text(a)}-{_shape_text(b)}",
              lambda x, b=b: np.broadcast_to(x, b) * np.arange(1.0, 1.0 + np.prod(b)).reshape(b),
              [(a, REAL)])
         for a, b in [((3,), (2, 3)), ((2, 1), (2, 4)), ((), (3,)), ((1, 3), (4, 2, 3))]],
        fixed("concatenate", lambda x, y: np.concatenate([x, y]), ((2, 3), REAL), ((1, 3), REAL)),
        fixed("concatenate-negative", lambda x, y: np.concatenate([x, y, x], axis=-1),
              ((2, 3), REAL), ((2, 2), REAL)),
        fixed("concatenate-none", lambda x, y: np.concatenate([x, y], axis=None),
              ((2, 3), REAL), ((4,), REAL)),
        fixed("stack", lambda x, y: np.stack([x, y]), ((2, 3), REAL), ((2, 3), REAL)),
        fixed("stack-negative", lambda x, y: np.stack([y, x, y * x], axis=-1),
              ((2, 3), REAL), ((2, 3), REAL)),
        fixed("hstack", lambda x, y: np.hstack([x, y]), ((3,), REAL), ((2,), REAL)),
        fixed("hstack-2d", lambda x, y: np.hstack([x, y]), ((2, 3), REAL), ((2, 1), REAL)),
        fixed("vstack", lambda x, y: np.vstack([x, y]), ((3,), REAL), ((3,), REAL)),
        fixed("vstack-2d", lambda x, y: np.vstack([x, y]), ((2, 3), REAL), ((3,), REAL)),
        fixed("split-sections", lambda x: _weighted_concat(np.split(x, 3), 0), ((6, 2), REAL)),
        fixed("split-indices", lambda x: _weighted_concat(np.split(x, [1, 3], axis=-1), -1),
              ((2, 5), REAL)),
        fixed("split-negative", lambda x: _weighted_concat(np.split(x, [-1], axis=1), 1),
              ((2, 5), REAL)),
        fixed("split-unordered", lambda x: _weighted_concat(np.split(x, [3, 1, 4]), 0),
              ((5, 2), REAL)),
        # --- selection ---------------------------------------------------------------
        fixed("where", lambda x, y: np.where([[True, False, True], [False, False, True]], x, y),
              ((3,), REAL), ((2, 1), REAL)),
        fixed("where-scalar", lambda x: np.where(x > 0, x, 0.1 * x), ((2, 3), NONZERO)),
        fixed("clip", lambda x: np.clip(x, -0.5, 0.5), ((2, 3), REAL)),
        fixed("clip-upper", lambda x: np.clip(x, None, 0.5), ((2, 3), REAL)),
        fixed("clip-tensor-bounds", lambda x, lo, hi: np.clip(x, lo, hi),
              ((2, 3), REAL), ((3,), uniform(-1.5, -0.5)), ((2, 1), uniform(0.5, 1.5))),
        fixed(".clip", lambda x: x.clip(-1.0, 1.0), ((2, 3), REAL)),
        fixed("take", lambda x: np.take(x, [0, 2, 2]), ((2, 3), REAL)),
        fixed("take-axis", lambda x: np.take(x, [[0, 1], [2, 2]], axis=1), ((2, 3), REAL)),
        fixed("take-negative", lambda x: np.take(x, [2, 0, 2], axis=-1), ((2, 3), REAL)),
        fixed("take-scalar", lambda x: np.take(x, 1, axis=0), ((2, 3), REAL)),
        fixed(".take", lambda x: x.take([1, 1]), ((3,), REAL)),
        fixed("astype", lambda x: np.astype(np.astype(x, np.float32), np.float64) * 3.0,
              ((2, 3), REAL), eps=1e-2, rtol=1e-4, atol=1e-5),
        fixed("copy", lambda x: np.copy(x) * 2.0, ((2, 3), REAL)),
        fixed("atleast_1d", lambda x: np.atleast_1d(x) * [1.0, 2.0], ((), REAL)),
        fixed("full_like", lambda x, v: np.full_like(x, v) * x, ((2, 3), REAL), ((), REAL)),
        fixed(".astype", lambda x: x.astype(np.float32).astype(np.float64),
              ((2, 3), REAL), eps=1e-2, rtol=1e-4, atol=1e-5),
        [Case(f"getitem-{_key_text(key)}", lambda x, key=key: x[key] * 1.5, [((4, 5), REAL)])
         for key in INDEX_KEYS],
        [Case(f"getitem3d-{_key_text(key)}", lambda x, key=key: x[key] * 1.5, [((2, 3, 4), REAL)])
         for key in INDEX_KEYS_3D],
        # --- operators -----------------------------------------------------------------
        binary("+", lambda x, y: x + y, shapes=BINARY_SHAPES[2:5]),
        binary("-", lambda x, y: x - y, shapes=BINARY_SHAPES[2:5]),
        binary("*", lambda x, y: x * y, shapes=BINARY_SHAPES[2:5]),
        binary("/", lambda x, y: x / y, REAL, NONZERO, shapes=BINARY_SHAPES[2:5]),
        binary("//", lambda x, y: x // y, DIVIDEND, DIVISOR, shapes=BINARY_SHAPES[2:5]),
        binary("%", lambda x, y: x % y, DIVIDEND, DIVISOR, shapes=BINARY_SHAPES[2:5]),
        binary("**", lambda x, y: x ** y, POSITIVE, REAL, shapes=BINARY_SHAPES[2:5]),
        unary("constant-minus", lambda x: 1.5 - x),
        unary("constant-over", lambda x: 2.0 / x, NONZERO),
        unary("mod-constant", lambda x: x % 1.5, DIVIDEND),
        unary("constant-mod", lambda x: 5.0 % x, DIVISOR),
        unary("cube", lambda x: x ** 3), unary("power-negative", lambda x: x ** -2, NONZERO),
        unary("power-real", lambda x: x ** 2.5, POSITIVE),
        unary("constant-power", lambda x: 2.0 ** x),
        unary("unary-minus", lambda x: -x), unary("abs", abs, NONZERO),
    ]
    return [case for group in table for case in group]


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


FLOAT32_ROWS = {"sin", "divide", "power", "matmul", "max", "mean", "std", "prod", "clip", "take"}
FLOAT32_CASES = [pytest.param(case, id=case.id)
                 for case in rows() if case.id.split("-")[0] in FLOAT32_ROWS]


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
