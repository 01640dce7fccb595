"""Array-API modules on real array libraries: JAX on the CPU (with and without
``jax.jit``), Dask, and PyTorch and CuPy where they are installed, on a sample of the
gradient table that takes cases from every family, against the numpy target.

Each backend is skipped, saying so, when its library is not installed; CI installs
JAX and Dask.
"""

import importlib
import inspect

import numpy as np
import pytest

import codegen
import codegen.module
import tracer
from array_api_refusals import REFUSED_AT_FIRST_ORDER, REFUSED_AT_SECOND_ORDER
from codegen_support import assert_gradients_equal, call, case_derivative
from gradient_table import rows

PER_FAMILY = 5
"""Cases taken from each family of the table, spread over it, at each order."""


def _sample(refused):
    families = {}
    for case in rows():
        if case.id not in refused:
            families.setdefault(_family(case), []).append(case)
    return [pytest.param(c, id=c.id) for cases in families.values()
            for c in cases[::max(1, len(cases) // PER_FAMILY)][:PER_FAMILY]]


OPTIONAL = {"torch", "cupy"}
"""Libraries the test extra does not install: their tests skip, saying so.  The extra
installs JAX and Dask, so their absence is a broken install, and fails."""


def _library(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        if name.split(".")[0] not in OPTIONAL:
            raise
        pytest.skip(f"{name} is not installed: its array-API tests are skipped")


def _jax(jit):
    jax = _library("jax")
    jax.config.update("jax_enable_x64", True)
    convert = _library("jax.numpy").asarray
    return convert, (jax.jit if jit else (lambda f: f)), np.asarray


def _dask():
    """Chunks along the leading axis of each argument of two or more axes."""
    array = _library("dask.array")

    def chunked(a):
        chunks = (max(1, a.shape[0] // 2),) + a.shape[1:] if a.ndim > 1 else a.shape
        return array.from_array(a, chunks=chunks)
    return chunked, lambda f: f, lambda r: np.asarray(r.compute())


DASK_LIMITS = {
    "linalg": "dask.array's linalg has no stacks of matrices, no det, eigh or pinv, and "
              "square blocks only",
    "fft": "Dask takes an FFT only along an axis of one chunk, and the derivatives of the "
           "real FFTs join pieces into several",
}
"""Families whose functions Dask does not have, with what it lacks."""


SPECIAL_RTOL = 1e-8
"""How near scipy's the libraries' own special functions are (PyTorch's polygamma is
2e-9 from scipy's), for the families that call them: scipy.special hands them the call."""


def _family(case):
    """``linalg``, ``fft``, ``special``, ``complex``; or the table module of the others."""
    prefix, dot, _ = case.id.partition(".")
    return prefix if dot and prefix.isidentifier() else getattr(case.fn, "__module__", "ufuncs")


def _torch():
    torch = _library("torch")
    return torch.asarray, lambda f: f, lambda r: r.numpy()


BACKENDS = {"jax": lambda: _jax(False), "jax-jit": lambda: _jax(True), "dask": _dask,
            "torch": _torch, "cupy": lambda: (_library("cupy").asarray, lambda f: f,
                                              lambda r: r.get())}


@pytest.fixture(autouse=True)
def inline_captured_arrays(monkeypatch):
    monkeypatch.setattr(codegen.module, "INLINE_CONSTANT_SIZE", np.inf)


def _modules(case, second):
    tape, targets, tensors = case_derivative(case, second)
    if not targets:
        pytest.skip("linear: no second derivative")
    made = [codegen.load(codegen.gradient_source(tape, targets, tensors, seed_argument=True,
                                                 target=target))
            for target in ("numpy", "array_api")]
    seed = [np.random.default_rng(3).standard_normal(t.shape).astype(t.dtype) for t in targets]
    return made, {t.name: t.numpy() for t in tensors}, seed


def _check(backend, case, second):
    if backend == "dask" and _family(case) in DASK_LIMITS:
        pytest.skip(DASK_LIMITS[_family(case)])
    convert, compile_, back = BACKENDS[backend]()
    (numpy_module, module), values, seed = _modules(case, second)
    with np.errstate(all="ignore"):
        want = call(numpy_module, values, seed)
    names = list(inspect.signature(module.gradient).parameters)
    arguments = [[convert(s) for s in seed] if n == "seed" else convert(values[n]) for n in names]
    got = compile_(module.gradient)(*arguments)
    rtol = SPECIAL_RTOL if _family(case) in ("special", "stats") else None
    assert_gradients_equal([None if g is None else back(g) for g in got], want, rtol=rtol)


@pytest.mark.parametrize("case", _sample(REFUSED_AT_FIRST_ORDER))
@pytest.mark.parametrize("backend", BACKENDS)
def test_first_order(backend, case):
    _check(backend, case, second=False)


@pytest.mark.parametrize("case", _sample(REFUSED_AT_SECOND_ORDER))
@pytest.mark.parametrize("backend", BACKENDS)
def test_second_order(backend, case):
    _check(backend, case, second=True)


def _rnn(w, xs):
    carry, outs = tracer.scan(lambda h, x: (np.tanh(h @ w + x),) * 2, np.zeros_like(xs[0]), xs)
    return np.sum(outs ** 2) + np.sum(carry)


def _grow_then_branch(x):
    y = tracer.while_loop(lambda c: np.sum(c) < 10.0, lambda c: c * 1.5 + np.sin(c), x,
                          maximum_iterations=50)
    return tracer.cond(np.sum(y) > 12.0, lambda: np.sum(y ** 2), lambda: np.sum(y))


def _branches(x):
    """Nested conds, one of whose branches is NaN where the other is taken."""
    z = tracer.cond(np.sum(x) > 0.6, lambda: np.sin(x) * np.log(x), lambda: x * 2.0)
    w = tracer.cond(np.sum(z) > 0.0, lambda: (z * 3.0, np.cos(z)), lambda: (z, z))
    return np.sum(w[0] ** 2) + np.sum(w[1])


def _loop_modules(function, arrays, dims):
    tensors = [tracer.constant(a, name=f"x{k}", dims=d)
               for k, (a, d) in enumerate(zip(arrays, dims))]
    with tracer.GradientTape() as tape:
        tape.watch(tensors[0])
        out = function(*tensors)
    return [codegen.load(codegen.gradient_source(tape, out, tensors[0], target=target))
            for target in ("numpy", "array_api")]


LOOPS = {
    "scan": (_rnn, [np.full((3, 3), 0.3), np.linspace(-1, 1, 30).reshape(5, 2, 3)],
             [None, ("steps", "batch", None)], [np.full((3, 3), 0.2),
                                                np.linspace(-1, 1, 63).reshape(7, 3, 3)]),
    "while_loop and cond": (_grow_then_branch, [np.array([0.3, 0.5, 0.2])], [None],
                            [np.array([0.2, 0.1, 0.4])]),
    "cond": (_branches, [np.array([0.5, 0.2])], [None], [np.array([-1.0, 0.3])]),
}


@pytest.mark.parametrize("name", LOOPS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_loops_and_branches(backend, name):
    """A scan is a Python loop over its static number of steps, a bounded while loop one
    over its maximum number, and a cond computes both branches and chooses with
    ``where``: all trace under jax.jit and stay lazy on Dask."""
    function, traced, dims, other = LOOPS[name]
    convert, compile_, back = BACKENDS[backend]()
    numpy_module, module = _loop_modules(function, traced, dims)
    for arrays in (traced, other):
        want = numpy_module.gradient(*arrays)
        got = compile_(module.gradient)(*[convert(a) for a in arrays])
        np.testing.assert_allclose(back(got), want, rtol=1e-12)
