"""``tracer.scipy.linalg``'s functions of matrices and its Sylvester and banded solves:
scipy's values on arrays, lists and tensors, stacks, complex matrices, their errors,
and derivatives the gradient table's cases do not reach (complex inputs, other bands,
generated code refusing what eager code refuses)."""

import warnings

import numpy as np
import pytest

import codegen
import tracer
from ir.autodiff.batching import Batched

scipy_linalg = pytest.importorskip("scipy.linalg")
from ir.primitives import matrix_functions  # noqa: E402  (these two need scipy)
from tracer.scipy import linalg  # noqa: E402


@pytest.fixture
def rng():
    """Random values of each test's own, whichever tests run before it."""
    return np.random.default_rng(0)


def near_identity(rng, *shape):
    root = rng.uniform(-1.0, 1.0, shape)
    return np.eye(shape[-1]) + 0.3 * root @ np.swapaxes(root, -1, -2) + 0.2 * rng.uniform(
        -1.0, 1.0, shape)


def banded_storage(rng, lower, upper, m, *stack):
    ab = rng.uniform(-1.0, 1.0, stack + (lower + upper + 1, m))
    ab[..., upper, :] += 2.0 + lower + upper
    return ab


def _both(ours, theirs, *args, rtol=1e-12):
    """``ours`` on arrays and on tensors computes ``theirs``."""
    expected = theirs(*args)
    np.testing.assert_allclose(ours(*args), expected, rtol=rtol, atol=rtol)
    traced = ours(*(tracer.constant(a) for a in args))
    assert traced.shape == expected.shape and traced.dtype == expected.dtype
    np.testing.assert_allclose(traced.numpy(), expected, rtol=rtol, atol=rtol)


FUNCTIONS = ["expm", "logm", "sqrtm"]


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 3, 3), (2, 1, 2, 2)])
def test_functions_of_matrices_are_scipys_on_stacks(name, shape, rng):
    _both(getattr(linalg, name), getattr(scipy_linalg, name), near_identity(rng, *shape))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_functions_of_complex_matrices_are_scipys_and_differentiate(name, rng):
    a = near_identity(rng, 2, 3, 3) + 0.3j * rng.uniform(-1.0, 1.0, (2, 3, 3))
    _both(getattr(linalg, name), getattr(scipy_linalg, name), a)
    tracer.check_gradients(getattr(linalg, name), a, order=2)


def test_lists_are_read_as_scipy_reads_them(rng):
    a = near_identity(rng, 3, 3)
    np.testing.assert_allclose(linalg.logm(a.tolist()), scipy_linalg.logm(a), rtol=1e-12)
    x = tracer.constant(a)
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = linalg.solve_sylvester(x, (3.0 * np.eye(2)).tolist(), np.ones((3, 2)).tolist())
    assert tape.gradient(y, x).shape == (3, 3)


def test_expm_of_a_number_is_a_one_by_one_matrix_as_in_scipy():
    _both(linalg.expm, scipy_linalg.expm, np.array(0.5))
    _both(linalg.expm, scipy_linalg.expm, np.array([0.5]))
    tracer.check_gradients(linalg.expm, 0.5, order=2)


@pytest.mark.parametrize("name", ["logm", "sqrtm"])
def test_a_real_matrix_without_a_real_root_or_logarithm_is_refused(name):
    a = np.diag([-1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="pass the matrix as complex"):
        getattr(linalg, name)(a)
    with pytest.raises(ValueError, match="pass the matrix as complex"):
        getattr(linalg, name)(tracer.constant(a))
    _both(getattr(linalg, name), getattr(scipy_linalg, name), a + 0j)


@pytest.mark.parametrize("name", ["logm", "sqrtm"])
def test_real_matrices_with_complex_eigenvalues_have_real_roots_and_logarithms(name):
    rotation = np.array([[0.6, -0.8], [0.8, 0.6]]) * 1.5
    _both(getattr(linalg, name), getattr(scipy_linalg, name), rotation)
    tracer.check_gradients(getattr(linalg, name), rotation, order=2)


def test_logm_in_single_precision_keeps_the_real_part_of_scipys_result(rng):
    """scipy's logm of a float32 matrix can be complex with an imaginary part of rounding
    alone; tapegen's is the real float64 matrix."""
    a = near_identity(rng, 2, 3, 3).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy: "may be inaccurate"
        ours, theirs = linalg.logm(a), scipy_linalg.logm(a)
    assert ours.dtype == np.float64
    np.testing.assert_allclose(ours, np.real(theirs), rtol=1e-6, atol=1e-6)


def test_sqrtm_of_a_number_is_refused_rather_than_scipys_exponential():
    with pytest.raises(np.linalg.LinAlgError, match=r"pass \[\[a\]\]"):
        linalg.sqrtm(4.0)


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("shape", [(2, 3), (3,)])
def test_functions_of_matrices_raise_scipys_errors(name, shape):
    with pytest.raises(Exception) as theirs:
        getattr(scipy_linalg, name)(np.ones(shape))
    for a in (np.ones(shape), tracer.constant(np.ones(shape))):
        with pytest.raises(type(theirs.value)):
            getattr(linalg, name)(a)


@pytest.mark.parametrize("shapes", [((3, 3), (2, 2), (3, 2)), ((2, 3, 3), (2, 2), (3, 2)),
                                    ((3, 3), (4, 1, 2, 2), (3, 3, 2))])
def test_solve_sylvester_is_scipys_and_broadcasts_stacks(shapes, rng):
    a = rng.uniform(-0.5, 0.5, shapes[0]) + 2.5 * np.eye(shapes[0][-1])
    b = rng.uniform(-0.5, 0.5, shapes[1]) + 2.5 * np.eye(shapes[1][-1])
    q = rng.standard_normal(shapes[2])
    _both(linalg.solve_sylvester, scipy_linalg.solve_sylvester, a, b, q, rtol=1e-10)
    tracer.check_gradients(linalg.solve_sylvester, a, b, q)


def test_solve_sylvester_differentiates_complex_matrices(rng):
    a = 2.5 * np.eye(3) + rng.uniform(-0.5, 0.5, (3, 3)) + 0.5j * rng.uniform(-1, 1, (3, 3))
    b = 2.5 * np.eye(2) + rng.uniform(-0.5, 0.5, (2, 2)) + 0.5j * rng.uniform(-1, 1, (2, 2))
    q = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    _both(linalg.solve_sylvester, scipy_linalg.solve_sylvester, a, b, q, rtol=1e-10)
    tracer.check_gradients(linalg.solve_sylvester, a, b, q, order=2)


def test_solve_sylvester_solves_real_and_complex_matrices_together(rng):
    """scipy hands the real Schur form of a real matrix with complex eigenvalues to its
    complex solver, and solves ``a x + x b = q`` wrongly; tapegen solves all as complex."""
    a = np.array([[1.0, -2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 3.0]])
    b = 2.0 * np.eye(2) + 0.3j
    q = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    for args in [(a, b, q), (b.T, a.T, q.T)]:
        x = linalg.solve_sylvester(*args)
        np.testing.assert_allclose(args[0] @ x + x @ args[1], args[2], atol=1e-12)
        np.testing.assert_allclose(
            x, scipy_linalg.solve_sylvester(*(np.asarray(m, complex) for m in args)),
            rtol=1e-12)
    tracer.check_gradients(linalg.solve_sylvester, a, b, q, order=2)


def test_solve_sylvester_of_mismatched_sizes_raises_scipys_error():
    a, b, q = np.eye(3), np.eye(2), np.ones((2, 2))
    with pytest.raises(ValueError):
        scipy_linalg.solve_sylvester(a, b, q)
    with pytest.raises(ValueError):
        linalg.solve_sylvester(tracer.constant(a), b, q)


BANDS = [(1, 1), (2, 1), (0, 2), (0, 0), (3, 0)]


@pytest.mark.parametrize("l_and_u", BANDS)
@pytest.mark.parametrize("b_shape", [(5,), (5, 2)])
def test_solve_banded_is_scipys_and_differentiates(l_and_u, b_shape, rng):
    ab, b = banded_storage(rng, *l_and_u, 5), rng.standard_normal(b_shape)

    def solve(ab, b):
        return linalg.solve_banded(l_and_u, ab, b)
    _both(solve, lambda ab, b: scipy_linalg.solve_banded(l_and_u, ab, b), ab, b, rtol=1e-10)
    tracer.check_gradients(solve, ab, b, order=2)


@pytest.mark.parametrize("shapes", [((2, 4, 5), (5,)), ((2, 4, 5), (5, 3)),
                                    ((4, 5), (3, 5, 2)), ((3, 1, 4, 5), (2, 5, 1))])
def test_solve_banded_takes_stacks_as_scipy_does(shapes, rng):
    ab, b = banded_storage(rng, 2, 1, 5, *shapes[0][:-2]), rng.standard_normal(shapes[1])

    def solve(ab, b):
        return linalg.solve_banded((2, 1), ab, b)
    _both(solve, lambda ab, b: scipy_linalg.solve_banded((2, 1), ab, b), ab, b, rtol=1e-10)
    tracer.check_gradients(solve, ab, b)


def test_solve_banded_gradient_is_the_dense_solves_read_on_the_band(rng):
    """The entries of ``ab`` off the band are never read: their gradient is 0."""
    lower, upper, m = 1, 2, 5
    ab, b = banded_storage(rng, lower, upper, m), rng.standard_normal(m)
    rows, columns = np.indices(ab.shape)
    i = rows - upper + columns  # the row of the matrix each entry of ab holds
    on_band = (i >= 0) & (i < m)
    dense = np.zeros((m, m))
    dense[i[on_band], columns[on_band]] = ab[on_band]
    x, y = tracer.constant(ab), tracer.constant(dense)
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        banded = np.sum(linalg.solve_banded((lower, upper), x, b) ** 3)
        full = np.sum(np.linalg.solve(y, b) ** 3)
    grad_ab, grad_dense = tape.gradient(banded, x).numpy(), tape.gradient(full, y).numpy()
    np.testing.assert_allclose(grad_ab[on_band], grad_dense[i[on_band], columns[on_band]],
                               rtol=1e-10)
    assert not grad_ab[~on_band].any()


def test_solve_banded_raises_scipys_errors_and_wants_integer_bands(rng):
    ab, b = banded_storage(rng, 1, 1, 4), np.ones(4)
    for bands, rhs in [((2, 1), b), ((1, 1), np.ones(3))]:
        with pytest.raises(ValueError):
            scipy_linalg.solve_banded(bands, ab, rhs)
        with pytest.raises(ValueError):
            linalg.solve_banded(bands, tracer.constant(ab), rhs)
    with pytest.raises(TypeError):
        linalg.solve_banded((1.0, 1), ab, b)


def _gradient_module(fn, a):
    x = tracer.constant(a, name="a")
    with tracer.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(fn(x))
    return codegen.load(codegen.gradient_source(tape, y, [x]))


@pytest.mark.parametrize("name", ["logm", "sqrtm"])
def test_generated_code_refuses_what_eager_code_refuses(name, rng):
    module = _gradient_module(getattr(linalg, name), near_identity(rng, 3, 3))
    # At the identity, log and sqrt change as e and e / 2 do.
    np.testing.assert_allclose(module.gradient(np.eye(3))[0],
                               np.full((3, 3), 1.0 if name == "logm" else 0.5), rtol=1e-10)
    with pytest.raises(ValueError, match="pass the matrix as complex"):
        module.gradient(np.diag([-1.0, 2.0, 3.0]))


def test_generated_code_imports_scipy_linalg_only_when_it_calls_it(rng):
    x = tracer.constant(near_identity(rng, 3, 3), name="a")
    with tracer.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.sum(linalg.expm(x))
        z = np.sum(np.linalg.inv(x))
    assert "import scipy.linalg" in codegen.gradient_source(tape, y, [x])
    assert "import scipy" not in codegen.gradient_source(tape, z, [x])


def _batched_against_each(prim, args, batched, size=3, **params):
    """``prim`` on a batch (``ir.autodiff.batching``) agrees with ``prim`` on each value of it."""
    result = prim(*[Batched(a, size) if b else a for a, b in zip(args, batched)], **params)
    each = [prim(*[a[k] if b else a for a, b in zip(args, batched)], **params)
            for k in range(size)]
    np.testing.assert_allclose(result.value, np.stack(each), rtol=1e-12)


@pytest.mark.parametrize("batched", [(True, False, False), (False, True, True),
                                     (True, True, True)])
def test_solve_sylvester_batches_broadcasting_stacks(batched, rng):
    shapes = [(3, 2, 3, 3), (1, 2, 2), (3, 2)]
    args = [rng.uniform(-0.5, 0.5, ((3,) if b else ()) + s) + 2.5 * np.eye(s[-1])
            for b, s in zip(batched[:2], shapes[:2])]
    args.append(rng.standard_normal(((3,) if batched[2] else ()) + shapes[2]))
    _batched_against_each(matrix_functions.solve_sylvester, args, batched)


@pytest.mark.parametrize("b_shape", [(5,), (5, 2), (2, 5, 1)])
@pytest.mark.parametrize("batched", [(True, False), (False, True), (True, True)])
def test_solve_banded_batches_vectors_and_stacks(b_shape, batched, rng):
    ab = banded_storage(rng, 2, 1, 5, *((3,) if batched[0] else ()), 2)
    b = rng.standard_normal(((3,) if batched[1] else ()) + b_shape)
    _batched_against_each(matrix_functions.solve_banded, [ab, b], batched, l_and_u=(2, 1))
