"""``np.append`` and ``np.concatenate`` with lists among their arguments, ``np.gradient`` in
all its forms, and ``np.iscomplex`` / ``np.isreal``, which answer questions about values.

Each differentiable form is checked against finite differences at second order
(``tracer.check_gradients``) and through generated code at first and second
order, and its value against numpy's.
"""

import numpy as np
import pytest

import codegen
import tracer
from generated_gradients import assert_generated_gradients_match

RNG = np.random.default_rng(3)
M = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)
X = np.cumsum(RNG.uniform(0.5, 1.5, 3))  # uneven coordinates along axis 0 of M
Y = np.cumsum(RNG.uniform(0.5, 1.5, 4))  # ... and along axis 1


def _value(result):
    return tuple(r.numpy() for r in result) if isinstance(result, tuple) else result.numpy()


def _assert_numpy_values(fn, arrays):
    traced = _value(fn(*(tracer.constant(a) for a in arrays)))
    expected = fn(*arrays)
    if isinstance(expected, (tuple, list)):
        assert isinstance(traced, tuple) and len(traced) == len(expected)
    else:
        traced, expected = (traced,), (expected,)
    for t, e in zip(traced, expected):
        assert t.dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(t, e)


def _check(fn, arrays, monkeypatch):
    """Values equal numpy's; gradients agree with differences (order 2) and generated code."""
    _assert_numpy_values(fn, arrays)

    def smooth(*tensors):
        result = fn(*tensors)
        parts = result if isinstance(result, tuple) else (result,)
        return sum(np.sum(np.sin(p) * (k + 1.0)) for k, p in enumerate(parts))
    tracer.check_gradients(smooth, *arrays, order=2)
    assert_generated_gradients_match(smooth, *arrays, monkeypatch=monkeypatch)


# --- np.append and np.concatenate with lists -------------------------------------------

APPEND = {
    "tensor, list": (lambda v: np.append(v, [1.0, 2.0]), [V]),
    "list, tensor": (lambda v: np.append([1, 2], v), [V]),
    "matrix, list, axis 0": (lambda m: np.append(m, [[1.0, 2.0, 3.0, 4.0]], axis=0), [M]),
    "list, matrix, axis 0": (lambda m: np.append([[1.0, 2.0, 3.0, 4.0]], m, axis=0), [M]),
    "matrix, column list, axis 1": (lambda m: np.append(m, [[1.0], [2.0], [3.0]], axis=1), [M]),
    "matrix, scalar": (lambda m: np.append(m, 5.0), [M]),
    "scalar, matrix": (lambda m: np.append(5.0, m), [M]),
    "list of tensors, matrix": (lambda m, v: np.append([v, 2 * v], m, axis=0), [M, V]),
    "matrix, list holding a tensor": (lambda m, v: np.append(m, [v[0], 2.0]), [M, V]),
    "concatenate, list holding a tensor": (lambda v: np.concatenate([[1.0, v[1]], v]), [V]),
    "stack, list": (lambda v: np.stack([[1.0, 2.0, 3.0, 4.0], v], axis=1), [V]),
}


@pytest.mark.parametrize("name", list(APPEND))
def test_append_with_lists_differentiates_like_numpy(name, monkeypatch):
    fn, arrays = APPEND[name]
    _check(fn, arrays, monkeypatch)


# --- np.gradient -----------------------------------------------------------------------

GRADIENT = {
    "unit spacing, every axis": (lambda m: np.gradient(m), [M]),
    "one scalar spacing": (lambda m: np.gradient(m, 0.5), [M]),
    "a scalar per axis": (lambda m: np.gradient(m, 0.5, 2), [M]),
    "coordinates per axis": (lambda m: np.gradient(m, X, Y), [M]),
    "coordinates and a scalar": (lambda m: np.gradient(m, X, 1.5, edge_order=2), [M]),
    "axis": (lambda m: np.gradient(m, Y, axis=1), [M]),
    "negative axis, second-order edges": (lambda m: np.gradient(m, axis=-1, edge_order=2), [M]),
    "axes in a given order": (lambda m: np.gradient(m, X, Y[::-1], axis=(0, 1)), [M]),
    "axes reversed": (lambda m: np.gradient(m, axis=(1, 0), edge_order=2), [M]),
    "even integer coordinates": (lambda v: np.gradient(v, [0, 2, 4, 6], edge_order=2), [V]),
    "uneven list coordinates": (lambda v: np.gradient(v, [0.0, 0.5, 2.0, 2.25]), [V]),
    "two points": (lambda v: np.gradient(v[:2]), [V]),
    "traced scalar spacing": (lambda m, h: np.gradient(m, h, edge_order=2), [M, np.float64(0.3)]),
    "traced coordinates": (lambda v, c: np.gradient(v, c), [V, Y]),
    "traced coordinates, second-order edges": (lambda v, c: np.gradient(v, c, edge_order=2),
                                               [V, Y]),
    "plain values, traced coordinates": (lambda c: np.gradient(V, c, edge_order=2), [Y]),
}


@pytest.mark.parametrize("name", list(GRADIENT))
def test_gradient_differentiates_like_numpy(name, monkeypatch):
    fn, arrays = GRADIENT[name]
    _check(fn, arrays, monkeypatch)


def test_gradient_of_integers_is_float64_and_of_float32_stays_float32():
    for values in (np.arange(5) ** 2, np.linspace(0.0, 1.0, 5, dtype=np.float32) ** 2):
        for spacing in ((), (np.array([0.0, 1.0, 3.0, 4.0, 7.0]),), (0.5,)):
            traced = np.gradient(tracer.constant(values), *spacing)
            expected = np.gradient(values, *spacing)
            assert traced.dtype == expected.dtype
            np.testing.assert_allclose(traced.numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda m: np.gradient(m, edge_order=3),
    lambda m: np.gradient(m, 1.0, 2.0, 3.0),
    lambda m: np.gradient(m[:, :2], axis=1, edge_order=2),
    lambda m: np.gradient(m, X[:2], Y),
    lambda m: np.gradient(m, M, axis=0),
    lambda m: np.gradient(m, axis=2),
])
def test_gradient_raises_what_numpy_raises(call):
    with pytest.raises(Exception) as expected:
        call(M)
    with pytest.raises(type(expected.value), match=str(expected.value)[:30]):
        call(tracer.constant(M))


# --- np.iscomplex, np.isreal and their whole-array questions ---------------------------

Z = np.array([1.0 + 0.0j, 2.0 + 1.0j, -3.0 + 0.0j, 0.5j])


@pytest.mark.parametrize("question", [np.iscomplex, np.isreal])
@pytest.mark.parametrize("values", [Z, Z.real, np.array(2.0 + 0.0j)], ids=["complex", "real", "0-d"])
def test_iscomplex_and_isreal_answer_on_watched_tensors(question, values):
    z = tracer.constant(values)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(z)
        answer = question(z)
        picked = np.sum(np.where(answer, z * z, z))
    np.testing.assert_array_equal(answer.numpy(), question(values))
    assert answer.dtype == np.bool_
    assert tape.gradient(answer, z) is None
    expected = np.where(question(values), 2 * values, 1.0).conj()
    np.testing.assert_allclose(tape.gradient(picked, z).numpy(), expected)


def test_iscomplex_is_recomputed_by_generated_code(monkeypatch):
    def picked(re, im):
        return np.sum(np.where(np.iscomplex(re + 1j * im), re * re, 3.0 * re))
    re, im = np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.0])
    assert_generated_gradients_match(picked, re, im, monkeypatch=monkeypatch)
    x, y = tracer.constant(re, name="re"), tracer.constant(im, name="im")
    with tracer.GradientTape() as tape:
        tape.watch([x, y])
        out = picked(x, y)
    module = codegen.load(codegen.gradient_source(tape, out, [x, y]))
    other = np.array([1.0, 0.0, 2.0])
    gradient_re, _ = module.gradient(re=re, im=other)
    np.testing.assert_array_equal(gradient_re, np.where(other != 0, 2 * re, 3.0))


@pytest.mark.parametrize("question", [np.iscomplexobj, np.isrealobj])
def test_iscomplexobj_and_isrealobj_answer_plain_truths(question):
    for values in (Z, Z.real):
        z = tracer.constant(values)
        with tracer.GradientTape() as tape:
            tape.watch(z)
            answer = question(z)
        assert type(answer) is bool and answer == question(values)
