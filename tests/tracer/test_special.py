"""scipy.special on tensors, tapegen's logsumexp and polygamma, and scipy staying optional.

The gradient table (``tests/support/gradient_table/special.py``) checks every
function against finite differences to second order, eagerly and in
generated code.  Here is what a table row cannot say: logsumexp agrees with
scipy's where a naive sum would overflow, its gradient is softmax and its
Hessian ``diag(p) - p p^T``; the conventions (no gradient to orders, xlogy
at ``x = 0``, zero weights); which generated modules import scipy; and
tapegen without scipy.
"""

import ast
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import codegen
import tracer
import tracer.special

special = pytest.importorskip("scipy.special")

RNG = np.random.default_rng(0)
A = RNG.normal(size=(2, 3, 4)) * 300.0
LOGSUMEXP_ARGUMENTS = {
    "all": {}, "axis0": {"axis": 0}, "last-keepdims": {"axis": -1, "keepdims": True},
    "two-axes": {"axis": (0, 2)},
    "weights": {"axis": 1, "b": RNG.uniform(0.5, 2.0, size=(3, 1))},
    "signed-weights": {"axis": -1, "b": np.array([1.0, -2.0, 0.5, 3.0]), "return_sign": True},
    "all-keepdims-sign": {"axis": None, "keepdims": True, "return_sign": True},
}


def _gradient(fn, *arrays):
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        out = fn(*tensors)
    return out, tape.gradient(out, tensors)


# --- logsumexp ------------------------------------------------------------------------

@pytest.mark.parametrize("arguments", LOGSUMEXP_ARGUMENTS.values(), ids=LOGSUMEXP_ARGUMENTS)
def test_logsumexp_matches_scipy_on_arrays_and_tensors(arguments):
    pair = arguments.get("return_sign", False)
    expected = special.logsumexp(A, **arguments)
    for a in (A, tracer.constant(A)):
        result = tracer.logsumexp(a, **arguments)
        for r, e in zip(result, expected) if pair else [(result, expected)]:
            r = r.numpy() if isinstance(r, tracer.Tensor) else r
            assert np.shape(r) == np.shape(e)
            np.testing.assert_allclose(r, e, rtol=1e-14)


def test_logsumexp_on_plain_values_gives_plain_values():
    assert isinstance(tracer.logsumexp(np.ones((2, 3)), axis=1), np.ndarray)
    assert tracer.logsumexp([0.0, np.log(3.0)]) == pytest.approx(np.log(4.0))


@pytest.mark.parametrize("shape, axis", [((0,), None), ((2, 0), 1), ((0, 3), 0), ((2, 0), 0)])
def test_logsumexp_over_nothing_is_minus_infinity_as_in_scipy(shape, axis):
    a = np.zeros(shape, np.float32)
    expected = special.logsumexp(a, axis=axis)
    t = tracer.constant(a)
    with tracer.GradientTape() as tape:
        tape.watch(t)
        result = tracer.logsumexp(t, axis=axis)
    for r in (tracer.logsumexp(a, axis=axis), result.numpy()):
        assert np.shape(r) == np.shape(expected) and r.dtype == expected.dtype
        np.testing.assert_array_equal(r, expected)
    with np.errstate(divide="ignore"):  # log'(0) of the empty sum, on no element of a
        assert tape.gradient(result, t).shape == shape


def test_logsumexp_neither_overflows_nor_warns():
    a = np.array([[1000.0, 1000.0, -np.inf], [-1000.0, -np.inf, -1000.0],
                  [-np.inf, -np.inf, -np.inf]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(tracer.logsumexp(a, axis=1),
                                   [1000.0 + np.log(2.0), -1000.0 + np.log(2.0), -np.inf])
        # A zero weight leaves its element out, as in scipy: even an overflowing one.
        assert tracer.logsumexp([1000.0, np.inf, 0.0], b=[0.0, 0.0, 1.0]) == 0.0


def test_logsumexp_gradient_is_softmax():
    out, (grad,) = _gradient(lambda a: tracer.logsumexp(a, axis=1), A)
    np.testing.assert_allclose(grad.numpy(), special.softmax(A, axis=1), rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), special.logsumexp(A, axis=1), rtol=1e-14)


def test_logsumexp_gradient_with_weights():
    a, b = A[0], RNG.uniform(0.5, 2.0, size=4)
    out, (grad_a, grad_b) = _gradient(lambda a, b: tracer.logsumexp(a, axis=-1, b=b), a, b)
    weights = np.exp(a - out.numpy()[:, None])
    np.testing.assert_allclose(grad_a.numpy(), b * weights, rtol=1e-12)
    np.testing.assert_allclose(grad_b.numpy(), weights.sum(axis=0), rtol=1e-12)


def test_logsumexp_hessian_is_diag_p_minus_p_p_transposed():
    a = RNG.normal(size=5) * 400.0
    v = RNG.normal(size=5)
    x = tracer.constant(a)
    with tracer.GradientTape() as outer:
        outer.watch(x)
        with tracer.GradientTape() as inner:
            inner.watch(x)
            out = tracer.logsumexp(x)
        grad = inner.gradient(out, x)
    hessian_v = outer.gradient(grad, x, output_gradients=tracer.constant(v)).numpy()
    p = special.softmax(a)
    np.testing.assert_allclose(hessian_v, p * v - p * (p @ v), rtol=1e-10)


@pytest.mark.parametrize("arguments", [{"axis": -1}, {"axis": 0, "keepdims": True}], ids=repr)
def test_logsumexp_second_order_matches_differences_at_large_inputs(arguments):
    tracer.check_gradients(lambda a: tracer.logsumexp(a, **arguments), A[0] / 3.0, order=2)


def test_logsumexp_of_a_signed_sum_matches_differences():
    b = np.array([1.0, -0.5, 2.0])

    def log_abs_sum(a, b):
        return tracer.logsumexp(a, b=b, return_sign=True)[0]
    tracer.check_gradients(log_abs_sum, np.array([0.1, 1.5, -0.3]), b, order=2)


def test_logsumexp_zero_weights_get_no_gradient():
    """As in scipy and JAX, an element of weight 0 is left out, gradient and all."""
    _, (grad_a, grad_b) = _gradient(lambda a, b: tracer.logsumexp(a, b=b),
                                    np.array([1.0, 2.0]), np.array([0.0, 1.0]))
    np.testing.assert_array_equal(grad_a.numpy(), [0.0, 1.0])
    np.testing.assert_array_equal(grad_b.numpy(), [0.0, 1.0])


def test_logsumexp_keeps_float32():
    out, (grad,) = _gradient(lambda a: tracer.logsumexp(a, axis=1), A[0].astype(np.float32))
    assert out.dtype == grad.dtype == np.float32


# --- scipy.special ufuncs -------------------------------------------------------------

def test_psi_is_digamma_and_records_one_primitive():
    assert special.psi is special.digamma
    x = tracer.constant([1.5, 2.5])
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = special.psi(x)
    assert [n.op for n in tape.graph if n.kind == "op"] == ["digamma"]
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), special.polygamma(1, [1.5, 2.5]))


@pytest.mark.parametrize("fn", [
    lambda order, x: tracer.special.polygamma(order, x),
    lambda order, x: special.jv(order, x),
    lambda order, x: special.iv(order, x),
    lambda order, x: special.ive(order, x),
], ids=["polygamma", "jv", "iv", "ive"])
def test_orders_get_no_gradient(fn):
    _, (d_order, d_x) = _gradient(fn, np.array([1.0, 2.0]), np.array([0.5, 1.5]))
    assert d_order is None and d_x is not None


def test_scipy_polygamma_converts_tensors_so_tapegen_has_its_own():
    x = tracer.constant([1.5])
    with tracer.GradientTape() as tape:
        tape.watch(x)
        with pytest.warns(tracer.GradientTapeWarning):
            special.polygamma(1, x)
        y = tracer.special.polygamma(1, x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), special.polygamma(2, [1.5]))


@pytest.mark.parametrize("fn, log_y", [(special.xlogy, np.log), (special.xlog1py, np.log1p)],
                         ids=["xlogy", "xlog1py"])
def test_xlogy_has_zero_derivatives_where_x_is_zero(fn, log_y):
    x, y = np.array([0.0, 0.5]), np.array([2.0, 3.0])
    out, (d_x, d_y) = _gradient(fn, x, y)
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.5 * log_y(3.0)])
    np.testing.assert_allclose(d_x.numpy(), [0.0, log_y(3.0)])
    np.testing.assert_allclose(d_y.numpy(), [0.0, 0.5 / (3.0 if fn is special.xlogy else 4.0)])


def test_log_ndtr_derivative_is_finite_far_in_the_tail():
    x = np.array([-40.0, -10.0])
    _, (grad,) = _gradient(special.log_ndtr, x)
    # d/dx log ndtr(x) = pdf / cdf, the inverse Mills ratio: |x| / (1 - 1/x^2 + 3/x^4 - ...).
    mills = -x / (1 - x**-2 + 3 * x**-4 - 15 * x**-6 + 105 * x**-8)
    np.testing.assert_allclose(grad.numpy(), mills, rtol=1e-7)


def test_digamma_derivatives_stay_float32():
    x = tracer.constant(np.array([1.5, 2.5], dtype=np.float32))
    with tracer.GradientTape() as outer:
        outer.watch(x)
        with tracer.GradientTape() as inner:
            inner.watch(x)
            y = special.digamma(x)
        first = inner.gradient(y, x)
    second = outer.gradient(first, x)
    assert first.dtype == second.dtype == np.float32


# --- generated code ----------------------------------------------------------------------

def _source(fn, x, **options):
    x = tracer.constant(x, name="x")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = np.sum(fn(x))
    return codegen.gradient_source(tape, out, x, **options), tape, out, x


def _imports(source):
    return [ast.unparse(node) for node in ast.parse(source).body
            if isinstance(node, (ast.Import, ast.ImportFrom))]


def test_a_module_that_calls_scipy_imports_it():
    source, tape, out, x = _source(lambda x: special.gamma(x) * special.erf(x),
                                   np.array([1.5, 2.5]), with_value=True)
    assert _imports(source) == ["import numpy as np", "import scipy.special"]
    assert "scipy.special.gamma(x)" in source and "scipy.special.digamma(x)" in source
    value, grad = codegen.load(source).gradient(x.numpy())
    np.testing.assert_allclose(value, out.numpy(), rtol=1e-14)
    np.testing.assert_allclose(grad, tape.gradient(out, x).numpy(), rtol=1e-14)


@pytest.mark.parametrize("fn", [special.erf, special.expit, tracer.logsumexp],
                         ids=["erf", "expit", "logsumexp"])
def test_a_module_whose_maths_needs_only_numpy_imports_only_numpy(fn):
    """erf' = 2/sqrt(pi) exp(-x**2): the gradient alone does not call scipy."""
    source, tape, out, x = _source(fn, np.array([0.5, -1.0]))
    assert _imports(source) == ["import numpy as np"]
    np.testing.assert_allclose(codegen.load(source).gradient(x.numpy()),
                               tape.gradient(out, x).numpy(), rtol=1e-14)


RUN_WITHOUT_TAPEGEN = '''
import importlib.abc, sys
import numpy as np


class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {"tracer", "ir", "codegen"}:
            raise ModuleNotFoundError(f"{name} is not installed here")


sys.meta_path.insert(0, NotInstalled())
namespace = {}
exec(open("generated.py").read(), namespace)
np.save("result.npy", namespace["gradient"](np.array([1.5, 2.5], dtype=np.float32)))
'''


def test_a_generated_second_derivative_of_digamma_runs_without_tapegen(tmp_path):
    """Its helper (polygamma in float32) is in the module, scipy is imported."""
    x = tracer.constant(np.array([1.5, 2.5], dtype=np.float32), name="x")
    with tracer.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tracer.GradientTape() as inner:
            inner.watch(x)
            y = np.sum(special.digamma(x))
        first = inner.gradient(y, x)
    codegen.write(tmp_path / "generated.py", codegen.gradient_source(outer, first, x))
    (tmp_path / "runner.py").write_text(RUN_WITHOUT_TAPEGEN)
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, "runner.py"], cwd=tmp_path, env=environment, check=True)
    result = np.load(tmp_path / "result.npy")
    assert result.dtype == np.float32
    np.testing.assert_allclose(result, outer.gradient(first, x).numpy(), rtol=1e-6)


# --- without scipy -------------------------------------------------------------------------

WITHOUT_SCIPY = '''
import importlib.abc, sys
import numpy as np


class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] == "scipy":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


sys.meta_path.insert(0, NotInstalled())
import codegen, ir, tracer
import tracer.numpy.scipy_ufuncs
from gradient_table import special as table

assert "scipy" not in sys.modules
assert tracer.numpy.scipy_ufuncs.UFUNCS == {} and table.rows() == []
x = tracer.constant([1000.0, 1000.0], name="x")
with tracer.GradientTape(persistent=True) as tape:
    tape.watch(x)
    out = tracer.logsumexp(x)
assert np.isclose(out.numpy(), 1000.0 + np.log(2.0))
assert np.allclose(tape.gradient(out, x).numpy(), [0.5, 0.5])
assert "scipy" not in codegen.gradient_source(tape, out, x)
try:
    tracer.special.polygamma(1, x)
except ModuleNotFoundError:
    pass
else:
    raise AssertionError("polygamma without scipy")
'''


def test_tapegen_works_without_scipy(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(tracer.__file__)))
    support = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "support")
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([root, support]))
    subprocess.run([sys.executable, "-c", textwrap.dedent(WITHOUT_SCIPY)], cwd=tmp_path,
                   env=environment, check=True)
