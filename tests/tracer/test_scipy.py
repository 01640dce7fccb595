"""``tracer.scipy`` computes scipy's values on plain arrays and tensors (its derivatives
are checked with the gradient table), and a plain scipy call that cuts the gradient
says which ``tracer.scipy`` function computes it on tensors."""

import numpy as np
import pytest

import tracer

scipy_stats = pytest.importorskip("scipy.stats")
import scipy.linalg  # noqa: E402
import scipy.signal  # noqa: E402
import scipy.special  # noqa: E402

from tracer.scipy import special, stats  # noqa: E402

RNG = np.random.default_rng(4)
X = RNG.uniform(0.1, 0.9, (2, 3))
COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]])
SAME_AS_SCIPY = [
    ("norm.logpdf", (X, np.array([0.1, 0.2, 0.3]), np.array([[1.5], [0.7]]))),
    ("norm.pdf", (X, 0.3)), ("norm.cdf", (X, 0.3, 1.5)), ("norm.logcdf", (X - 5.0,)),
    ("norm.sf", (X, 0.3, 1.5)), ("norm.logsf", (X + 5.0,)),
    ("t.logpdf", (X, 3.5, 0.1, 2.0)), ("t.pdf", (X, np.array([1.5, 4.0, 30.0]))),
    ("poisson.logpmf", (np.array([0, 1, 3, -1, 2.5]), 2.2)), ("poisson.pmf", (3, 0.5, 1)),
    ("gamma.logpdf", (X - 0.5, 2.5, 0.0, 1.3)), ("gamma.pdf", (X, np.array([[1.5], [3.0]]))),
    ("chi2.logpdf", (X * 3, 3.0, 0.1, 0.7)), ("chi2.pdf", (X * 3, 4.0)),
    ("beta.logpdf", (X * 1.2, 2.0, 3.0)), ("beta.pdf", (X, 0.5, 0.7, 0.05, 0.9)),
    ("dirichlet.logpdf", (np.array([0.2, 0.3, 0.5]), np.array([1.5, 2.0, 3.0]))),
    ("dirichlet.pdf", (np.array([[0.2, 0.1], [0.3, 0.6], [0.5, 0.3]]), np.array([1.5, 2, 3]))),
    ("multivariate_normal.logpdf", (X, np.array([0.1, 0.2, 0.3]), COV)),
    ("multivariate_normal.pdf", (X[0], None, 2.0)),
    ("t.cdf", (X - 0.5, 3.5, 0.1, 1.3)), ("t.sf", (X, 30.0)),
    ("gamma.cdf", (X - 0.2, 2.5, 0.0, 1.3)), ("gamma.sf", (X, 0.7)),
    ("chi2.cdf", (X * 3, 3.0, 0.1, 0.7)), ("chi2.sf", (X, 1.0)),
    ("beta.cdf", (X * 1.2 - 0.1, 2.0, 3.0)), ("beta.sf", (X, 0.5, 0.7)),
    ("poisson.cdf", (np.array([-1, 0, 1, 2.5, 7]), 2.2)), ("poisson.sf", (3, 0.5, 1)),
    ("t.logcdf", (X - 0.5, 3.5)), ("t.logsf", (X, 3.5, 0.2, 1.1)),
    ("gamma.logcdf", (X - 0.2, 2.5, 0.0, 1.3)), ("gamma.logsf", (X - 0.2, 0.7)),
    ("chi2.logcdf", (X * 3, 3.0, 0.1, 0.7)), ("chi2.logsf", (X, 1.0)),
    ("beta.logcdf", (X * 1.2 - 0.1, 2.0, 3.0)), ("beta.logsf", (X * 1.2 - 0.1, 0.5, 0.7)),
    ("poisson.logcdf", (np.array([-1, 0, 1, 2.5, 7]), 2.2)),
    ("poisson.logsf", (np.array([-1, 0, 1, 2.5, 7]), 2.2)),
]


@pytest.mark.parametrize("name, args", SAME_AS_SCIPY, ids=[n for n, _ in SAME_AS_SCIPY])
def test_values_are_scipys_on_arrays_and_tensors(name, args):
    distribution, function = name.split(".")
    ours = getattr(getattr(stats, distribution), function)
    theirs = getattr(getattr(scipy_stats, distribution), function)
    expected = theirs(*args)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(ours(*args), expected, rtol=1e-12)
        tensors = [a if a is None else tracer.constant(a) for a in args]
        np.testing.assert_allclose(np.asarray(ours(*tensors)), expected, rtol=1e-12)


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_softmax_and_log_softmax_are_scipys(axis):
    np.testing.assert_allclose(special.softmax(X, axis=axis),
                               scipy.special.softmax(X, axis=axis), rtol=1e-12)
    np.testing.assert_allclose(special.log_softmax(X, axis=axis),
                               scipy.special.log_softmax(X, axis=axis), rtol=1e-12)


def test_scipys_ufuncs_are_there_too():
    assert special.erf is scipy.special.erf and special.logsumexp is tracer.special.logsumexp


@pytest.mark.parametrize("call, equivalent", [
    (lambda x: scipy_stats.norm.logpdf(x, 0.0, 1.0), "tracer.scipy.stats.norm.logpdf"),
    (lambda x: scipy.special.softmax(x), "tracer.scipy.special.softmax"),
    (lambda x: scipy_stats.poisson.pmf(x, 2.0), "tracer.scipy.stats.poisson.pmf"),
    # (scipy.linalg's functions run inside a decorator that converts their arguments)
    (lambda x: scipy.linalg.solve_triangular(x, x), "tracer.scipy.linalg.solve_triangular"),
    (lambda x: scipy.linalg.cho_factor(x), "tracer.scipy.linalg.cho_factor"),
    (lambda x: scipy.linalg.expm(x), "tracer.scipy.linalg.expm"),
    (lambda x: scipy.signal.convolve(x, x), "tracer.scipy.signal.convolve"),
])
def test_a_plain_scipy_call_that_cuts_the_gradient_names_the_equivalent(call, equivalent):
    x = tracer.constant(np.array([[1.0, 0.5], [0.5, 2.0]]))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        with pytest.warns(tracer.GradientTapeWarning, match=rf"{equivalent} computes it on "):
            call(x)


def test_a_plain_scipy_call_without_an_equivalent_names_none():
    x = tracer.constant(np.array([0.5, 1.0]))
    with tracer.GradientTape() as tape:
        tape.watch(x)
        with pytest.warns(tracer.GradientTapeWarning) as caught:
            scipy_stats.rice.logpdf(x, 1.0)
    assert "computes it on tensors" not in str(caught[0].message)


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("trans", [0, 1, "T", 2])
@pytest.mark.parametrize("unit", [False, True])
def test_triangular_and_cholesky_solves_are_scipys(lower, trans, unit):
    scipy_linalg = pytest.importorskip("scipy.linalg")
    from tracer.scipy import linalg

    a = RNG.standard_normal((4, 4)) + 4 * np.eye(4)
    b = RNG.standard_normal((4, 2))
    np.testing.assert_allclose(
        linalg.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit),
        scipy_linalg.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit),
        rtol=1e-10)
    spd = a @ a.T
    ours, theirs = linalg.cho_factor(spd, lower), scipy_linalg.cho_factor(spd, lower)
    np.testing.assert_allclose(linalg.cho_solve(ours, b), scipy_linalg.cho_solve(theirs, b),
                               rtol=1e-10)
    np.testing.assert_allclose(linalg.cho_solve(theirs, b), np.linalg.solve(spd, b),
                               rtol=1e-10)


@pytest.mark.parametrize("call", [lambda a: scipy.special.gammainc(a, 1.0),
                                  lambda a: scipy.special.gammaincc(a, 1.0),
                                  lambda a: scipy.special.betainc(a, 2.0, 0.3),
                                  lambda a: stats.t.cdf(0.5, a)])
def test_incomplete_gamma_and_beta_refuse_a_derivative_in_their_shape(call):
    a = tracer.constant(2.5)
    with tracer.GradientTape() as tape:
        tape.watch(a)
        y = call(a)
    with pytest.raises(NotImplementedError, match="has a derivative in x alone"):
        tape.gradient(y, a)


def test_multigammaln_and_rel_entr_are_scipys():
    a = np.array([[2.5, 3.0], [4.0, 1.6]])
    np.testing.assert_allclose(special.multigammaln(a, 3), scipy.special.multigammaln(a, 3),
                               rtol=1e-12)
    x, y = np.array([0.0, 0.5, 1.0, -1.0, 0.0]), np.array([0.3, 0.2, 0.0, 1.0, -1.0])
    np.testing.assert_array_equal(special.rel_entr(x, y), scipy.special.rel_entr(x, y))
    with pytest.raises(ValueError, match="positive integer"):
        special.multigammaln(a, 1.5)
