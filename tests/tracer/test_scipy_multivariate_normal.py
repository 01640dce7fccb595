"""``tracer.scipy.stats.multivariate_normal``: scipy's values, shapes and refusals for every
layout of points, means and covariances, and ``allow_singular``: a singular covariance
read on its support (pseudo-determinant, pseudo-inverse, ``-inf`` off it), with
derivatives along the covariances of its rank checked against differences, eagerly, to
second order and in generated code."""

import math

import numpy as np
import pytest

import codegen
import tracer

scipy_stats = pytest.importorskip("scipy.stats")

from tracer.scipy.stats import multivariate_normal  # noqa: E402

RNG = np.random.default_rng(3)
COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]])
LAYOUTS = {
    # name: (x, mean, cov)
    "one-number": (0.5, None, 1),
    "numbers-as-points": (np.array([0.5, -1.0, 2.0]), None, 2.0),
    "one-point-of-one": (np.array([0.5]), 0.3, 2.0),
    "a-vector-is-one-point": (np.array([0.5, -1.0, 2.0]), np.zeros(3), COV),
    "a-row-is-one-point": (np.array([[0.5, -1.0, 2.0]]), np.ones(3), COV),
    "points": (RNG.standard_normal((4, 3)), np.ones(3), COV),
    "points-of-one": (RNG.standard_normal((4, 1)), np.array([0.2]), np.array([[1.5]])),
    "axes-of-one-squeezed": (RNG.standard_normal((4, 1, 3)), np.zeros(3), COV),
    "scalar-cov": (RNG.standard_normal((2, 3)), np.array([0.1, 0.2, 0.3]), 1.7),
    "diagonal-cov": (RNG.standard_normal((2, 3)), np.array([0.1, 0.2, 0.3]),
                     np.array([1.0, 2.0, 0.5])),
    "a-number-is-a-point-of-all": (0.5, np.zeros(3), COV),
    "lists": ([[0.5, -1.0, 2.0], [1.0, 0.0, 0.0]], [0.0, 0.5, 0.0], COV.tolist()),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("method", ["logpdf", "pdf"])
def test_layouts_are_scipys(layout, method):
    x, mean, cov = LAYOUTS[layout]
    expected = getattr(scipy_stats.multivariate_normal, method)(x, mean, cov)
    ours = getattr(multivariate_normal, method)(x, mean, cov)
    assert type(ours) is type(expected) and np.shape(ours) == np.shape(expected)
    np.testing.assert_allclose(ours, expected, rtol=1e-12)
    traced = [v if v is None else tracer.constant(v) for v in (x, mean, cov)]
    found = getattr(multivariate_normal, method)(*traced)
    assert found.shape == np.shape(expected) and found.dtype == np.float64
    np.testing.assert_allclose(found.numpy(), expected, rtol=1e-12)


def low_rank(k, rank, rng=RNG):
    """A ``k x rank`` factor ``A``: ``A A^T`` is a covariance of that rank."""
    return rng.standard_normal((k, rank))


SINGULAR = {
    # name: (k, rank, points): rank 1 in 2, rank 2 in 3, and a null space of 2 in 4
    "2-rank-1": (2, 1, 1), "3-rank-2": (3, 2, 4), "4-rank-2": (4, 2, 3),
}


@pytest.mark.parametrize("case", SINGULAR)
def test_a_singular_cov_is_read_on_its_support_as_scipy_reads_it(case):
    k, rank, count = SINGULAR[case]
    factor, mean = low_rank(k, rank), RNG.standard_normal(k)
    cov = factor @ factor.T
    null = np.linalg.svd(factor.T)[2][rank:]  # orthogonal to the range
    on = mean + RNG.standard_normal((count, rank)) @ factor.T
    off = on + null[0]
    points = np.concatenate([on, off])
    for method in ("logpdf", "pdf"):
        expected = getattr(scipy_stats.multivariate_normal, method)(points, mean, cov,
                                                                    allow_singular=True)
        found = getattr(multivariate_normal, method)(points, mean, cov, allow_singular=True)
        np.testing.assert_allclose(found, expected, rtol=1e-9)
        traced = getattr(multivariate_normal, method)(tracer.constant(points), mean,
                                                      tracer.constant(cov), allow_singular=True)
        np.testing.assert_allclose(traced.numpy(), expected, rtol=1e-9)
    assert np.all(np.isneginf(multivariate_normal.logpdf(off, mean, cov, allow_singular=True)))


def test_the_singular_density_is_the_pseudo_inverse_and_determinants():
    """The closed form: ``-(r log 2 pi + log pdet + d^T pinv(cov) d) / 2``."""
    factor = low_rank(3, 2)
    cov, point = factor @ factor.T, factor @ np.array([0.3, -0.7])
    eigenvalues = np.linalg.eigvalsh(cov)[1:]
    expected = -0.5 * (2 * math.log(2 * math.pi) + np.sum(np.log(eigenvalues))
                       + point @ np.linalg.pinv(cov) @ point)
    np.testing.assert_allclose(multivariate_normal.logpdf(point, None, cov, allow_singular=True),
                               expected, rtol=1e-10)


@pytest.mark.parametrize("allow_singular", [False, True])
def test_a_regular_cov_gives_the_same_either_way(allow_singular):
    x = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(
        multivariate_normal.logpdf(x, np.ones(3), COV, allow_singular=allow_singular),
        scipy_stats.multivariate_normal.logpdf(x, np.ones(3), COV), rtol=1e-12)


@pytest.mark.parametrize("method", ["logpdf", "pdf"])
def test_refusals_are_scipys(method):
    factor = low_rank(3, 2)
    singular, indefinite = factor @ factor.T, np.diag([1.0, -1.0, 2.0])
    ours, theirs = (getattr(m, method) for m in (multivariate_normal,
                                                 scipy_stats.multivariate_normal))
    for cov, allow, error, says in [
            (singular, False, np.linalg.LinAlgError, "pass allow_singular=True"),
            (indefinite, False, ValueError, "positive semidefinite"),
            (indefinite, True, ValueError, "positive semidefinite")]:
        with pytest.raises(error):
            theirs(np.zeros(3), None, cov, allow_singular=allow)
        with pytest.raises(error, match=says):
            ours(np.zeros(3), None, cov, allow_singular=allow)
        with pytest.raises(error):
            ours(tracer.constant(np.zeros(3)), None, tracer.constant(cov), allow_singular=allow)


def test_entropy_of_a_singular_cov_is_scipys_and_of_a_stack_each_matrixs():
    factor = low_rank(4, 2)
    cov = factor @ factor.T
    np.testing.assert_allclose(multivariate_normal.entropy(None, cov),
                               scipy_stats.multivariate_normal.entropy(None, cov), rtol=1e-10)
    stack = np.stack([cov, np.eye(4), cov + np.outer(factor[:, 0], factor[:, 0])])
    np.testing.assert_allclose(multivariate_normal.entropy(None, stack),
                               [scipy_stats.multivariate_normal.entropy(None, c) for c in stack],
                               rtol=1e-10)
    with pytest.raises(ValueError, match="positive semidefinite"):
        multivariate_normal.entropy(None, np.diag([1.0, -1.0]))


def singular_logpdf(factor, z, mean):
    """The log density at ``mean + factor z``, on the support of ``cov = factor factor^T``
    whatever the three are: a function with derivatives in each."""
    point = mean + z @ np.swapaxes(factor, -1, -2)
    return multivariate_normal.logpdf(point, mean, factor @ np.swapaxes(factor, -1, -2),
                                      allow_singular=True)


@pytest.mark.parametrize("case", SINGULAR)
def test_singular_derivatives_match_differences_to_second_order(case):
    k, rank, count = SINGULAR[case]
    rng = np.random.default_rng(k)
    factor, z, mean = low_rank(k, rank, rng), rng.standard_normal((count, rank)), rng.normal(
        size=k)
    tracer.check_gradients(singular_logpdf, factor, z, mean, order=2)
    tracer.check_gradients(lambda f: multivariate_normal.entropy(None, f @ f.T), factor,
                           order=2)


def test_singular_gradients_are_the_pseudo_inverses_and_generated_code_agrees():
    """In ``x``, ``-pinv(cov) d`` for ``d = x - mean`` on the support, as autograd gives;
    in ``cov``, ``(pinv(cov) d d^T pinv(cov) - pinv(cov)) / 2``, the regular case's with
    the pseudo-inverse.  The generated module computes the tape's gradients."""
    factor = low_rank(3, 2)
    x = tracer.constant(factor @ np.array([0.4, -1.1]) + 0.5, name="x")
    mean = tracer.constant(np.full(3, 0.5), name="mean")
    cov = tracer.constant(factor @ factor.T, name="cov")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([x, mean, cov])
        value = multivariate_normal.logpdf(x, mean, cov, allow_singular=True)
    eager = [g.numpy() for g in tape.gradient(value, [x, mean, cov])]
    pinv = np.linalg.pinv(cov.numpy())
    solved = pinv @ (x.numpy() - 0.5)
    np.testing.assert_allclose(eager[0], -solved, rtol=1e-9)
    np.testing.assert_allclose(eager[2], (np.outer(solved, solved) - pinv) / 2, rtol=1e-8,
                               atol=1e-12)
    source = codegen.gradient_source(tape, value, [x, mean, cov])
    generated = codegen.load(source).gradient(x.numpy(), mean.numpy(), cov.numpy())
    for found, expected in zip(generated, eager):
        np.testing.assert_allclose(found, expected, rtol=1e-10, atol=1e-14)


def test_float32_arguments_give_float64_values_and_float32_gradients():
    """As scipy, the density is computed in float64; as TensorFlow, a gradient has its
    source's dtype."""
    x = tracer.constant(np.array([0.5, -1.0, 2.0], np.float32))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        value = multivariate_normal.logpdf(x, np.zeros(3), COV.astype(np.float32))
    assert value.dtype == np.float64 and tape.gradient(value, x).dtype == np.float32


def test_the_generated_hessian_of_a_singular_density_is_the_nested_tapes():
    """Second order in generated code: the Hessian in a low-rank factor of the
    covariance, as nested tapes give it (checked against differences above)."""
    factor = tracer.constant(low_rank(3, 2), name="factor")
    z, mean = np.array([[0.4, -1.1]]), np.full(3, 0.5)
    with tracer.GradientTape(persistent=True) as outer:
        outer.watch(factor)
        with tracer.GradientTape() as inner:
            inner.watch(factor)
            value = singular_logpdf(factor, z, mean)
        gradient = inner.gradient(value, factor)
    eager = outer.jacobian(gradient, factor).numpy()
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(factor)
        value = singular_logpdf(factor, z, mean)
    module = codegen.load(codegen.hessian_source(tape, value, factor))
    np.testing.assert_allclose(module.hessian(factor.numpy()), eager, rtol=1e-9, atol=1e-12)
