"""Every function of ``tracer.scipy.stats`` and ``tracer.scipy.special`` gives scipy's value,
shape, dtype and type (a numpy scalar for a 0-d result) on float64, float32, integer and
Python inputs, 0-d and n-d, on plain values and on tensors.

One test per function, over a small fixed set of inputs: each kind of input in turn for
every argument whose value it can hold (a probability stays a float when the integers
are tried), the arguments 0-d, then broadcasting to ``(2, 3)``."""

import warnings

import numpy as np
import pytest

import codegen
import tracer

scipy_stats = pytest.importorskip("scipy.stats")
import scipy.special  # noqa: E402

from tracer.scipy import special, stats  # noqa: E402

KINDS = ("float64", "float32", "int", "python")
SHAPES = {"0-d": ((), (), ()), "n-d": ((2, 3), (3,), (2, 1))}
"""The shapes of ``x``, of the shape parameters, and of ``scale`` (``loc`` stays 0-d)."""

CONTINUOUS = ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf")
DISCRETE = ("pmf", "logpmf", "cdf", "logcdf", "sf", "logsf")
STATS = {
    # name: (a point of the support, shape parameters, loc, scale; None for discrete)
    "norm": (1.0, (), 0.5, 2.0), "expon": (2.0, (), 0.5, 2.0), "cauchy": (1.0, (), 0.5, 2.0),
    "logistic": (1.0, (), 0.5, 2.0), "laplace": (1.0, (), 0.5, 2.0),
    "uniform": (1.0, (), 0.5, 2.0), "gumbel_r": (1.0, (), 0.5, 2.0),
    "gumbel_l": (1.0, (), 0.5, 2.0), "pareto": (4.0, (2.5,), 0.5, 2.0),
    "truncnorm": (1.0, (-1.0, 2.0), 0.5, 2.0), "vonmises": (1.0, (1.5,), 0.5, 2.0),
    "wrapcauchy": (1.0, (0.4,), 0.5, 2.0), "gennorm": (1.0, (1.5,), 0.5, 2.0),
    "t": (1.0, (3.5,), 0.5, 2.0), "gamma": (2.0, (2.5,), 0.5, 2.0), "chi2": (2.0, (3.0,), 0.5, 2.0),
    "beta": (1.0, (2.0, 3.0), 0.5, 2.0), "bernoulli": (1.0, (0.3,), 0.0, None),
    "binom": (2.0, (5.0, 0.4), 1.0, None), "geom": (2.0, (0.3,), 0.0, None),
    "nbinom": (2.0, (2.5, 0.4), 0.0, None), "betabinom": (2.0, (5.0, 2.0, 3.0), 0.0, None),
    "poisson": (2.0, (2.2,), 1.0, None),
}
QUANTILE = 0.25
FLOAT32_RTOL = 1e-6
"""scipy.stats rounds a few intermediates of float32 arguments (``(x - loc) / scale``,
``log(scale)``) to float32 before computing in float64, as ``multigammaln`` does its
terms; tapegen widens the arguments first, so its values are the float64 values of those
arguments, and differ from scipy's by float32's rounding."""


def _methods(name):
    module = getattr(stats, name)
    return [m for m in (DISCRETE if STATS[name][3] is None else CONTINUOUS) if hasattr(module, m)]


FUNCTIONS = [f"{name}.{method}" for name in STATS for method in _methods(name)]


def as_kind(value, kind, shape=()):
    """``value`` filling ``shape``, as ``kind`` where it can be (a non-whole value stays
    float64 for ``int``); a Python number or nested lists for ``python``."""
    array = np.full(shape, value, dtype=np.float64)
    if kind == "python":
        return array.tolist()
    if kind == "int" and np.all(array == np.floor(array)):
        return array.astype(np.int64)[()]
    return array.astype(kind if kind != "int" else np.float64)[()]


def traced(value):
    """``value`` as a tensor, if it is numpy's; Python values as they are."""
    return tracer.constant(value) if isinstance(value, (np.ndarray, np.generic)) else value


def assert_like(ours, expected, plain, rtol):
    """Same value, shape and dtype; on plain inputs the same type too."""
    ours = ours if plain else ours.numpy()
    assert np.shape(ours) == np.shape(expected)
    assert np.result_type(ours) == np.result_type(expected)
    if plain:
        assert type(ours) is type(expected)
    np.testing.assert_allclose(ours, expected, rtol=rtol, atol=1e-300, equal_nan=True)


def compare(ours, theirs, args, kwargs=None, rtol=1e-10):
    """``ours`` against ``theirs`` on ``args`` as given, and ``ours`` on them as tensors."""
    kwargs = kwargs or {}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = theirs(*args, **kwargs)
        assert_like(ours(*args, **kwargs), expected, True, rtol)
        tensors = [traced(a) for a in args]
        if any(isinstance(t, tracer.Tensor) for t in tensors):
            assert_like(ours(*tensors, **{k: traced(v) for k, v in kwargs.items()}), expected,
                        False, rtol)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_stats_functions_give_scipys_types(function):
    name, method = function.split(".")
    point, shapes, loc, scale = STATS[name]
    point = QUANTILE if method in ("ppf", "isf") else point
    for kind in KINDS:
        for x_shape, shape_shape, scale_shape in SHAPES.values():
            args = [as_kind(point, kind, x_shape), *(as_kind(s, kind, shape_shape) for s in shapes)]
            kwargs = {"loc": as_kind(loc, kind)}
            if scale is not None:
                kwargs["scale"] = as_kind(scale, kind, scale_shape)
            compare(getattr(getattr(stats, name), method),
                    getattr(getattr(scipy_stats, name), method), args, kwargs,
                    FLOAT32_RTOL if kind == "float32" else 1e-10)


OUTSIDE = {
    # name: parameters outside their domain, one at a time (position among the shape
    # parameters, or "scale")
    "pareto": [(0, 0.0)], "truncnorm": [(0, 3.0)], "vonmises": [(0, -1.0)],
    "wrapcauchy": [(0, 1.0)], "gennorm": [(0, -1.0)], "t": [(0, 0.0)], "gamma": [(0, -1.0)],
    "chi2": [(0, -1.0)], "beta": [(0, 0.0), (1, -1.0)], "bernoulli": [(0, 1.5)],
    "binom": [(0, 2.5), (1, -0.1)], "geom": [(0, 0.0)], "nbinom": [(0, 0.0), (1, 1.5)],
    "betabinom": [(0, -1.0), (1, 0.0)], "poisson": [(0, -1.0)],
}


@pytest.mark.parametrize("function", FUNCTIONS)
def test_parameters_outside_their_domain_give_nan_as_scipys(function):
    name, method = function.split(".")
    point, shapes, loc, scale = STATS[name]
    point = QUANTILE if method in ("ppf", "isf") else point
    outside = OUTSIDE.get(name, []) + ([("scale", 0.0), ("scale", -2.0)] if scale else [])
    for position, value in outside:
        args = [np.array(point), *map(np.array, shapes)]
        kwargs = {"loc": loc} if scale is None else {"loc": loc, "scale": scale}
        if position == "scale":
            kwargs["scale"] = np.array(value)
        else:
            args[1 + position] = np.array(value)
        compare(getattr(getattr(stats, name), method),
                getattr(getattr(scipy_stats, name), method), args, kwargs)


MULTIVARIATE = {
    # name: the arguments, as (value, shape) pairs: the points, then the parameters
    "dirichlet.logpdf": [(0.25, (4, 2)), (1.0, (4,))],
    "dirichlet.pdf": [(0.25, (3,)), (2.0, (4,))],
    "multinomial.logpmf": [(1.0, (2, 3)), (3.0, ()), (np.array([0.25, 0.25, 0.5]), (3,))],
    "multinomial.pmf": [(1.0, (3,)), (3.0, ()), (np.array([0.25, 0.25, 0.5]), (3,))],
    "multivariate_normal.logpdf": [(1.0, (2, 3)), (0.5, (3,)), (2.0, ())],
    "multivariate_normal.pdf": [(1.0, (3,)), (0.5, (3,)), (2.0, (3,))],
}


@pytest.mark.parametrize("function", sorted(MULTIVARIATE))
def test_multivariate_functions_give_scipys_types(function):
    name, method = function.split(".")
    for kind in KINDS:
        args = [as_kind(value, kind, shape) for value, shape in MULTIVARIATE[function]]
        compare(getattr(getattr(stats, name), method), getattr(getattr(scipy_stats, name), method),
                args)


def test_multivariate_normal_entropy_is_scipys():
    for kind in KINDS:
        cov = as_kind(2.0, kind, (3,))
        compare(lambda c: stats.multivariate_normal.entropy(None, c),
                lambda c: scipy_stats.multivariate_normal.entropy(np.zeros(3), c), [cov])


UFUNCS = sorted(name for name in special.__all__
                if isinstance(getattr(special, name), np.ufunc) or name == "zeta")
SPECIAL_VALUES = (2.5, 0.75, 1.5)
"""The ufuncs' arguments, in order (the integers try 3, 1 and 2)."""


@pytest.mark.parametrize("name", UFUNCS)
def test_special_ufuncs_give_scipys_types(name):
    count = getattr(special, name).nin if name != "zeta" else 2
    for kind in KINDS:
        for shape in ((), (2, 3)):
            values = SPECIAL_VALUES if kind != "int" else (3.0, 1.0, 2.0)
            args = [as_kind(v, kind, shape) for v in values[:count]]
            compare(getattr(special, name), getattr(scipy.special, name), args)


def _first(function):
    """``function``'s first result (``logsumexp``'s with ``return_sign``)."""
    return lambda *args, **kwargs: function(*args, **kwargs)[0]


WRITTEN_HERE = {
    # case: (ours, scipy's, their arguments from one input)
    "logsumexp": (special.logsumexp, scipy.special.logsumexp, lambda a: ((a,), {})),
    "logsumexp-signed": (_first(special.logsumexp), _first(scipy.special.logsumexp),
                         lambda a: ((a,), {"b": a, "return_sign": True})),
    "softmax": (special.softmax, scipy.special.softmax, lambda a: ((a,), {})),
    "log_softmax": (special.log_softmax, scipy.special.log_softmax, lambda a: ((a,), {})),
    "rel_entr": (special.rel_entr, scipy.special.rel_entr, lambda a: ((a, a), {})),
    "multigammaln": (special.multigammaln, scipy.special.multigammaln, lambda a: ((a, 3), {})),
    "polygamma": (special.polygamma, scipy.special.polygamma, lambda a: ((1, a), {})),
}


@pytest.mark.parametrize("case", sorted(WRITTEN_HERE))
def test_special_functions_written_here_give_scipys_types(case):
    ours, theirs, arguments = WRITTEN_HERE[case]
    for kind in KINDS:
        for shape in ((), (2, 3)):
            args, kwargs = arguments(as_kind(2.0, kind, shape))
            compare(ours, theirs, args, kwargs, FLOAT32_RTOL if kind == "float32" else 1e-10)


FLOAT32_SOURCES = {
    # function: its value as a function of one source
    "norm.logpdf": lambda x: stats.norm.logpdf(x, 0.5, 2.0),
    "logistic.logcdf": lambda x: stats.logistic.logcdf(x, 0.5, 2.0),
    "pareto.sf": lambda x: stats.pareto.sf(x + 3.0, 2.5, 0.5),
    "cauchy.ppf": lambda q: stats.cauchy.ppf(q / 4, 0.5, 2.0),
    "bernoulli.sf": lambda p: stats.bernoulli.sf(np.array([0.0, 1.0]), p / 4),
}


@pytest.mark.parametrize("function", sorted(FLOAT32_SOURCES))
def test_float32_sources_get_float32_gradients_of_the_float64_values(function):
    """The values are scipy's float64; a gradient has its source's dtype, as TensorFlow's,
    and is the float64 gradient rounded, eagerly and in generated code."""
    gradients = {}
    for dtype in (np.float32, np.float64):
        source = tracer.constant(np.array([1.0, 1.5], dtype), name="source")
        with tracer.GradientTape(persistent=True) as tape:
            tape.watch(source)
            result = FLOAT32_SOURCES[function](source)
        assert result.dtype == np.float64
        gradients[dtype] = tape.gradient(result, source)
        module = codegen.load(codegen.gradient_source(tape, result, [source]))
        generated = module.gradient(source.numpy())[0]
        assert generated.dtype == gradients[dtype].dtype == dtype
        np.testing.assert_array_equal(generated, gradients[dtype].numpy())
    np.testing.assert_allclose(gradients[np.float32].numpy(), gradients[np.float64].numpy(),
                               rtol=1e-6)
