"""Decompositions of matrices whose own sizes are symbolic: a data matrix of a symbolic
number of rows (``svd``, ``qr``, ``lstsq``, ``pinv``, matrix norms), and square matrices
whose two axes share one symbol (``eigh``, ``cholesky``, ``det``, ``inv``).

A thin decomposition of an ``(m, n)`` matrix has ``k = min(m, n)`` columns in its
left factor: the module holds on the side of ``m >= n`` it was traced on, and
refuses the other side with a guard message, never with a wrong gradient.
"""

import re
import warnings

import numpy as np
import pytest

import codegen
import tracer

RNG = np.random.default_rng(5)


def _derivative(fn, tensors, second):
    """``(tape, target)``: ``fn``'s value on its tape, or the summed squares of its first
    gradient on the tape around (a second derivative)."""
    with tracer.GradientTape() as outer:
        outer.watch(tensors)
        with tracer.GradientTape() as inner:
            inner.watch(tensors)
            out = fn(*tensors)
        if not second:
            return inner, out
        total = np.sum(inner.gradient(out, tensors)[0] ** 2)
    return outer, total


def _module(fn, arrays, dims, second=False):
    tensors = [tracer.constant(a, name=f"x{k}", dims=d)
               for k, (a, d) in enumerate(zip(arrays, dims))]
    with warnings.catch_warnings():
        warnings.simplefilter("error", tracer.GradientTapeWarning)
        tape, target = _derivative(fn, tensors, second)
        return codegen.load(codegen.gradient_source(tape, target, tensors))


def _eager(fn, arrays, second=False):
    tensors = [tracer.constant(a) for a in arrays]
    tape, target = _derivative(fn, tensors, second)
    return [g.numpy() for g in tape.gradient(target, tensors)]


def _solution(a, b):
    return np.linalg.lstsq(a, b)[0]


DATA_MATRICES = {
    "singular values": lambda a, y: np.sum(np.linalg.svd(a, compute_uv=False) ** 2 * [1.0, 2.0, 3.0]),
    "left singular vectors": lambda a, y: np.sum(np.linalg.svd(a, full_matrices=False)[0] ** 3),
    "right singular vectors": lambda a, y: np.sum(np.linalg.svd(a, full_matrices=False)[2][0] * y[:3]),
    "qr": lambda a, y: np.sum(np.linalg.qr(a)[1] ** 2) + np.sum(np.linalg.qr(a)[0].T @ y),
    "least squares": lambda a, y: np.sum(_solution(a, y) ** 2) + np.sum(np.linalg.lstsq(a, y)[1]),
    "pinv": lambda a, y: np.sum((np.linalg.pinv(a) @ y) ** 2),
    "spectral and nuclear norms": lambda a, y: np.linalg.norm(a, 2) + np.linalg.norm(a, "nuc"),
    "condition number": lambda a, y: np.linalg.cond(a),
}


@pytest.mark.parametrize("second", [False, True], ids=["first", "second"])
@pytest.mark.parametrize("name", DATA_MATRICES)
def test_a_data_matrix_of_any_number_of_rows(name, second):
    def fn(a, y):  # (y always an input of the module)
        return DATA_MATRICES[name](a, y) + np.sum(a[:, 0] * y)
    module = _module(fn, [RNG.normal(size=(6, 3)), RNG.normal(size=6)],
                     [("rows", None), ("rows",)], second)
    for rows in (4, 11, 2):
        arrays = [RNG.normal(size=(rows, 3)), RNG.normal(size=rows)]
        try:
            got = module.gradient(*arrays)
        except ValueError as refusal:  # (a wide matrix: k = rows, not 3)
            assert rows == 2 and name != "pinv", refusal
            assert re.match(r"rows = 2: this module holds only where rows >=? 3", str(refusal))
            continue
        for got, want in zip(got, _eager(fn, arrays, second)):
            np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)


def test_a_wide_matrix_holds_while_it_stays_wide():
    def fn(a):
        return np.sum(np.linalg.svd(a, full_matrices=False)[0] ** 3) + np.sum(np.linalg.qr(a)[1])
    module = _module(fn, [RNG.normal(size=(3, 5))], [("rows", None)])
    for rows in (1, 2, 4):
        a = RNG.normal(size=(rows, 5))
        np.testing.assert_allclose(module.gradient(a)[0], _eager(fn, [a])[0],
                                   rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match=r"rows = 5: this module holds only where rows < 5"):
        module.gradient(RNG.normal(size=(5, 5)))


def _gram(a):
    return a @ a.T + a.T @ a


SQUARE_MATRICES = {
    "eigh": lambda a: np.sum(np.linalg.eigvalsh(_gram(a)) ** 2)
    + np.sum(np.linalg.eigh(_gram(a))[1][:, 0] * a[0]),
    "cholesky": lambda a: np.sum(np.linalg.cholesky(_gram(a)) ** 3),
    "determinants": lambda a: np.linalg.det(a) + np.linalg.slogdet(_gram(a))[1],
    "inverse and solve": lambda a: np.sum(np.linalg.inv(a) * a.T)
    + np.sum(np.linalg.solve(a, a[0])),
}


@pytest.mark.parametrize("second", [False, True], ids=["first", "second"])
@pytest.mark.parametrize("name", SQUARE_MATRICES)
def test_a_square_matrix_of_any_size(name, second):
    fn = SQUARE_MATRICES[name]
    module = _module(fn, [RNG.normal(size=(4, 4))], [("n", "n")], second)
    for n in (1, 2, 7):
        a = RNG.normal(size=(n, n)) + n * np.eye(n)
        np.testing.assert_allclose(module.gradient(a)[0], _eager(fn, [a], second)[0],
                                   rtol=1e-7, atol=1e-9)


def test_a_decomposition_of_a_matrix_that_is_not_square_for_every_size_is_guarded():
    module = _module(lambda a: np.linalg.det(a), [RNG.normal(size=(3, 3))], [("n", None)])
    assert np.isclose(module.gradient(RNG.normal(size=(3, 3)))[0].shape[0], 3)
    with pytest.raises(ValueError, match=r"n = 4: this module holds only where n == 3"):
        module.gradient(RNG.normal(size=(4, 3)))
