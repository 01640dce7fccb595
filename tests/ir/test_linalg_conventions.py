"""Linear algebra where derivatives are not defined, and the arguments tapegen refuses.

The gradient table checks every function where it is smooth; this file
pins down what happens elsewhere (repeated eigenvalues and singular values,
singular matrices, norms at zero; functions that read one triangle have
``test_linalg_triangles``) and that unsupported arguments fail with errors
saying what to do instead.
"""

import numpy as np
import pytest

import codegen
import tracer


def gradient(fn, *arrays):
    """First derivatives of ``fn`` at ``arrays`` (a list, ``None`` where none flows)."""
    tensors = [tracer.constant(a) for a in arrays]
    with tracer.GradientTape() as tape:
        tape.watch(tensors)
        out = fn(*tensors)
    return tape.gradient(out, tensors)


def hessian_vector(fn, x, v):
    """The derivative of ``<grad fn(x), v>`` with respect to ``x``."""
    x = tracer.constant(x)
    with tracer.GradientTape() as outer:
        outer.watch(x)
        with tracer.GradientTape() as inner:
            inner.watch(x)
            out = fn(x)
        g = inner.gradient(out, x)
        product = np.sum(g * v)
    return outer.gradient(product, x).numpy()


def sym(a):
    return 0.5 * (a + np.swapaxes(a, -1, -2))


RNG = np.random.default_rng(7)


# --- singular matrices ---------------------------------------------------------

def test_det_gradient_at_a_singular_matrix_is_the_transposed_adjugate():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    (g,) = gradient(np.linalg.det, a)
    cofactors = np.array([[np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) * (-1) ** (i + j)
                           for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(g.numpy(), cofactors, atol=1e-12)
    tracer.check_gradients(np.linalg.det, a, order=1)


def test_det_gradient_of_rank_deficient_stacks_is_finite():
    a = np.zeros((2, 3, 3))
    a[1] = np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 2.0])
    (g,) = gradient(np.linalg.det, a)
    np.testing.assert_allclose(g.numpy(), np.zeros((2, 3, 3)), atol=1e-12)


def test_second_derivative_of_det_at_a_singular_matrix_raises():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError):
        hessian_vector(np.linalg.det, a, np.ones((2, 2)))


# --- repeated eigenvalues and singular values -----------------------------------------

def test_eigenvalue_gradients_at_repeated_eigenvalues_are_exact():
    q = np.linalg.qr(RNG.standard_normal((3, 3)))[0]
    a = (q * [1.0, 1.0, 2.0]) @ q.T
    (g,) = gradient(lambda a: np.sum(np.linalg.eigvalsh(sym(a)) ** 2), a)
    np.testing.assert_allclose(g.numpy(), 2 * a, atol=1e-12)  # d tr(a^2) = 2a


def test_eigenvector_gradients_at_repeated_eigenvalues_drop_the_degenerate_pairs():
    # At the identity every pair is degenerate: only the eigenvalue path is left,
    # so v @ diag(w) @ v.T (which is a) gets diag(v.T @ g @ v) in v's basis.
    def reconstruct(a):
        w, v = np.linalg.eigh(sym(a))
        return np.sum(((v * w) @ v.T) * weights)

    weights = RNG.standard_normal((3, 3))
    (g,) = gradient(reconstruct, np.eye(3))
    v = np.linalg.eigh(np.eye(3))[1]
    expected = (v * np.diag(v.T @ sym(weights) @ v)) @ v.T
    assert np.all(np.isfinite(g.numpy()))
    np.testing.assert_allclose(g.numpy(), expected, atol=1e-12)


def test_nuclear_norm_gradient_at_repeated_singular_values():
    q = np.linalg.qr(RNG.standard_normal((3, 3)))[0]
    (g,) = gradient(lambda a: np.linalg.norm(a, "nuc"), q)
    np.testing.assert_allclose(g.numpy(), q, atol=1e-12)  # u @ vh, all singular values 1


@pytest.mark.parametrize("part", [0, 2])
def test_singular_vector_gradients_stay_finite_at_zero_and_repeated_values(part):
    a = np.diag([2.0, 1.0, 1.0, 0.0])
    (g,) = gradient(lambda a: np.linalg.svd(a, full_matrices=False)[part] ** 2, a)
    assert np.all(np.isfinite(g.numpy()))


def test_eig_results_are_complex_even_when_every_eigenvalue_is_real():
    a = np.array([[2.0, 1.0], [0.0, 3.0]])
    w, v = np.linalg.eig(tracer.constant(a))
    assert w.dtype == v.dtype == np.complex128
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvals(a))


def test_eig_vector_gradients_at_repeated_eigenvalues_are_finite():
    a = np.array([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    (g,) = gradient(lambda a: np.abs(np.linalg.eig(a)[1]) ** 2, a)
    assert np.all(np.isfinite(g.numpy()))


# --- norms at zero and counting norms ------------------------------------------------------

@pytest.mark.parametrize("shape, ord, axis", [
    ((4,), None, None), ((3,), 2, None), ((2, 3), "fro", (0, 1)), ((2, 3), None, 1),
    ((3,), 1, None), ((3,), 3, None), ((3,), np.inf, None), ((2, 3), 1.5, -1)])
def test_norm_at_zero_has_zero_gradient(shape, ord, axis):
    x = np.zeros(shape)
    (g,) = gradient(lambda t: np.sum(np.linalg.norm(t, ord, axis=axis)), x)
    np.testing.assert_array_equal(g.numpy(), x)


@pytest.mark.parametrize("shape, ord, axis", [((4,), None, None), ((2, 3), "fro", (0, 1))])
def test_euclidean_norm_at_zero_has_zero_hessian(shape, ord, axis):
    x = np.zeros(shape)
    hessian = hessian_vector(lambda t: np.sum(np.linalg.norm(t, ord, axis=axis)), x,
                             np.ones(shape))
    np.testing.assert_array_equal(hessian, x)


def test_zero_norm_counts_nonzeros_without_gradient():
    x = np.array([0.0, 1.5, -2.0])
    value = np.linalg.norm(tracer.constant(x), 0)
    assert value.numpy() == 2.0 and value.dtype == np.float64
    assert gradient(lambda t: np.linalg.norm(t, 0), x) == [None]


def test_matrix_power_zero_is_a_constant_identity():
    a = tracer.constant(RNG.standard_normal((2, 3, 3)))
    with tracer.GradientTape() as tape:
        tape.watch(a)
        out = np.linalg.matrix_power(a, 0)
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)))
    assert tape.gradient(out, a) is None


# --- numpy's own behaviour kept ------------------------------------------------------------

def test_cross_of_two_dimensional_vectors_warns_like_numpy():
    a, b = RNG.standard_normal((4, 2)), RNG.standard_normal((4, 2))
    with pytest.warns(DeprecationWarning):
        value = np.cross(tracer.constant(a), b)
    with pytest.warns(DeprecationWarning):
        expected = np.cross(a, b)
    np.testing.assert_allclose(value.numpy(), expected)
    with pytest.warns(DeprecationWarning):
        tracer.check_gradients(lambda x, y: np.cross(x, y), a, b, order=2)


def test_square_svd_allows_full_matrices():
    a = RNG.standard_normal((3, 3))
    u, s, vh = np.linalg.svd(tracer.constant(a))
    np.testing.assert_allclose(((u.numpy() * s.numpy()) @ vh.numpy()), a, atol=1e-12)


def test_generated_code_calls_each_decomposition_once_per_result():
    a = tracer.constant(RNG.standard_normal((4, 3)), name="a")
    with tracer.GradientTape() as tape:
        tape.watch(a)
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        out = np.sum((u * s) @ vh * np.arange(3.0)) + np.sum(u * u)
    source = codegen.gradient_source(tape, out, [a])
    assert source.count("np.linalg.svd(a, full_matrices=False)[0]") == 1
    assert source.count("np.linalg.svd(a, full_matrices=False)[2]") == 1
    assert source.count("np.linalg.svd(a, compute_uv=False)") == 1


# --- refused arguments ---------------------------------------------------------------------

REFUSED = [
    ("complex-qr", lambda a: np.linalg.qr(a + 0j), TypeError, "real matrices"),
    ("non-square", lambda a: np.linalg.det(a[:, :2]), np.linalg.LinAlgError, "square"),
    ("vector", lambda a: np.linalg.inv(a[0]), np.linalg.LinAlgError, "square"),
    ("full-matrices", lambda a: np.linalg.svd(a[:, :2]), TypeError, "full_matrices=False"),
    ("hermitian", lambda a: np.linalg.svd(a, hermitian=True), TypeError, "hermitian=False"),
    ("qr-complete", lambda a: np.linalg.qr(a[:, :2], mode="complete"), TypeError,
     "mode='reduced'"),
    ("qr-raw", lambda a: np.linalg.qr(a, mode="raw"), TypeError, "mode='reduced'"),
    ("pinv-rcond", lambda a: np.linalg.pinv(a, rcond=1e-3), TypeError, "np.linalg.pinv(a)"),
    ("norm-order", lambda a: np.linalg.norm(a, "fro", axis=0), ValueError, "vectors"),
    ("norm-matrix-order", lambda a: np.linalg.norm(a, 3), ValueError, "matrices"),
    ("eigh-uplo", lambda a: np.linalg.eigh(a, UPLO="X"), ValueError, "UPLO"),
    ("einsum-out", lambda a: np.einsum("ij->i", a, out=np.zeros(3)), TypeError, "out="),
    ("einsum-ellipsis", lambda a: np.einsum("...i->i", a[None]), ValueError, "ellipsis"),
    ("cross-size", lambda a: np.cross(a[:, :1], a[:, :1]), ValueError, "dimension must be 2 or 3"),
    ("diag-rank", lambda a: np.diag(a[None]), ValueError, "1- or 2-d"),
]


@pytest.mark.parametrize("fn, error, words", [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_unsupported_arguments_say_what_to_do(fn, error, words):
    a = tracer.constant(RNG.standard_normal((3, 3)) + 3 * np.eye(3))
    with tracer.GradientTape() as tape:
        tape.watch(a)
        with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")
                           .replace(".", r"\.")):
            fn(a)


def test_lstsq_drops_singular_values_below_its_own_cut_off():
    # lstsq's cut-off is max(M, N) * eps relative to the largest singular value,
    # pinv's default 1e-15: a value between them must be dropped, as numpy does.
    rng = np.random.default_rng(0)
    u, _ = np.linalg.qr(rng.normal(size=(10, 10)))
    v, _ = np.linalg.qr(rng.normal(size=(10, 10)))
    values = np.logspace(0, -8, 10)
    values[-1] = 1.5e-15
    a, b = u @ np.diag(values) @ v.T, rng.normal(size=10)
    solution, residuals, rank, singular = np.linalg.lstsq(tracer.constant(a), tracer.constant(b))
    expected = np.linalg.lstsq(a, b)
    np.testing.assert_allclose(solution.numpy(), expected[0], rtol=1e-6)
    assert int(rank) == expected[2] == 9 and rank.dtype == expected[2].dtype
    assert residuals.shape == expected[1].shape == (0,)
    np.testing.assert_allclose(singular.numpy(), expected[3])


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"])
def test_cond_matches_numpy_for_every_order(p):
    a = np.random.default_rng(1).normal(size=(2, 3, 3))
    np.testing.assert_allclose(np.linalg.cond(tracer.constant(a), p).numpy(),
                               np.linalg.cond(a, p), rtol=1e-12)
    tracer.check_gradients(lambda m: np.linalg.cond(m, p), a, order=2)
