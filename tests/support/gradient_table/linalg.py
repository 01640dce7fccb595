"""Linear algebra: np.linalg, einsum and the matrix helpers.

Inputs come from domains where each function is smooth: well-conditioned
matrices for inverses and determinants, positive definite ones for
Cholesky, well-separated eigenvalues and singular values for the
decompositions.  Cholesky and eigh read one triangle (and the real
part of the diagonal): some cases symmetrise the input first, others put noise
where numpy does not read (``unread``), where the gradient must be zero.
Eigenvectors and singular vectors are unique only up to sign, so cases see
them through functions that do not depend on the signs (``v * v``,
``u @ diag(c) @ vh``), and complex ones through functions that do not depend
on their phases (``abs(v)``): there finite differences are meaningful.  The tests
take a case's last recorded operation as its result, so cases whose result
is recorded earlier (a decomposition's first factor, ``matrix_power(a, 1)``)
scale it.
"""

import numpy as np

from gradient_table.cases import NONZERO, REAL, Case, fixed, key_text, shape_text


def _eye_like(shape):
    return np.broadcast_to(np.eye(shape[-1]), shape)


def invertible(rng, shape):
    """Diagonally dominant: far from singular."""
    return rng.uniform(-1.0, 1.0, shape) + 2.5 * _eye_like(shape)


def _orthogonal(rng, shape):
    return np.linalg.qr(rng.standard_normal(shape))[0]


def separated_symmetric(rng, shape):
    """Symmetric, eigenvalues 1, 2, 3, ... (give or take 0.1), in a random basis."""
    n = shape[-1]
    q = _orthogonal(rng, shape)
    values = np.arange(1.0, n + 1.0) + rng.uniform(-0.1, 0.1, shape[:-1])
    return (q * values[..., None, :]) @ np.swapaxes(q, -1, -2)


def separated_singular(rng, shape):
    """Singular values 1, 2, 3, ... (give or take 0.1), in random bases."""
    m, n = shape[-2:]
    k = min(m, n)
    u = _orthogonal(rng, shape[:-2] + (m, k))
    v = _orthogonal(rng, shape[:-2] + (n, k))
    values = np.arange(1.0, k + 1.0) + rng.uniform(-0.1, 0.1, shape[:-2] + (k,))
    return (u * values[..., None, :]) @ np.swapaxes(v, -1, -2)


def separated_general(rng, shape):
    """Real 3x3 matrices with eigenvalues near 1 +- 0.8i and -1.5, in a random basis."""
    basis = np.eye(3) + 0.3 * rng.standard_normal(shape)
    block = np.array([[1.0, -0.8, 0.0], [0.8, 1.0, 0.0], [0.0, 0.0, -1.5]])
    block = block + np.diag(rng.uniform(-0.05, 0.05, 3))
    return basis @ block @ np.linalg.inv(basis)


def complex_invertible(rng, shape):
    return invertible(rng, shape) + 1j * rng.uniform(-1.0, 1.0, shape)


def distinct_magnitudes(rng, shape):
    """Magnitudes at least 0.2 apart with random signs: no zeros, no ties in ``abs``,
    nor (almost surely) in sums of them."""
    size = int(np.prod(shape, dtype=np.int64))
    magnitudes = (rng.permutation(size) + 1.0) * 0.3 + rng.uniform(0.0, 0.1, size)
    return (magnitudes * rng.choice([-1.0, 1.0], size)).reshape(shape)


def unread(domain, upper=False):
    """``domain``'s matrices with noise in the triangle numpy does not read (the upper
    one, or the lower one for ``UPLO="U"`` and ``upper=True``) and, for complex ones, in
    the imaginary part of the diagonal: numpy's results do not change with it."""
    def sample(rng, shape):
        a = domain(rng, shape)
        noise = rng.uniform(-1.0, 1.0, shape)
        if np.iscomplexobj(a):
            noise = noise + 1j * rng.uniform(-1.0, 1.0, shape)
            a = a + 1j * np.imag(noise) * _eye_like(shape)
        return a + (np.tril(noise, -1) if upper else np.triu(noise, 1))
    return sample


def sym(a):
    return 0.5 * (a + np.swapaxes(a, -1, -2))


def weighted(u, vh):
    """``u @ diag(1, 2, ...) @ vh``: unchanged when a column of u and a row of vh flip sign."""
    return (u * np.arange(1.0, u.shape[-1] + 1.0, dtype=u.dtype)) @ vh


def _cases(name, fn, shape_lists, domain=REAL):
    """One case per entry of ``shape_lists`` (a tuple of argument shapes each)."""
    return [Case(f"{name}-{'-'.join(shape_text(s) for s in shapes)}", fn,
                 [(s, domain) for s in shapes]) for shapes in shape_lists]


def _matrix_rows():
    return [
        _cases("linalg.inv", np.linalg.inv, [((3, 3),), ((2, 3, 3),)], invertible),
        [Case(f"linalg.solve-{shape_text(a)}-{shape_text(b)}", np.linalg.solve,
              [(a, invertible), (b, REAL)])
         for a, b in [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3,)),
                      ((2, 3, 3), (2, 3, 2)), ((2, 3, 3), (3, 1))]],
        _cases("linalg.det", np.linalg.det, [((1, 1),), ((3, 3),), ((2, 3, 3),)], invertible),
        _cases("linalg.slogdet", lambda a: np.linalg.slogdet(a)[1],
               [((3, 3),), ((2, 3, 3),)], invertible),
        fixed("linalg.slogdet-sign", lambda a: np.multiply(*np.linalg.slogdet(a)),
              ((3, 3), lambda rng, shape: -invertible(rng, shape))),
        _cases("linalg.pinv", np.linalg.pinv, [((4, 3),), ((3, 4),), ((2, 4, 3),)],
               separated_singular),
        [Case(f"linalg.lstsq-{shape_text(a)}-{shape_text(b)}",
              lambda a, b: np.linalg.lstsq(a, b)[0] * 1.5, [(a, separated_singular), (b, REAL)])
         for a, b in [((5, 3), (5,)), ((5, 3), (5, 2)), ((3, 5), (3, 2))]],
        [Case(f"linalg.lstsq-residuals-{shape_text(b)}",
              lambda a, b: np.linalg.lstsq(a, b)[1] * 1.5,
              [((5, 3), separated_singular), (b, REAL)])
         for b in [(5,), (5, 2)]],
        [Case(f"linalg.cond-{p}-{shape_text(s)}", lambda a, p=p: np.linalg.cond(a, p),
              [(s, separated_singular)])
         for p, s in [(None, (3, 3)), (None, (2, 4, 3)), (-2, (3, 4))]],
        [Case(f"linalg.cond-{p}-{shape_text(s)}", lambda a, p=p: np.linalg.cond(a, p),
              [(s, invertible)])
         for p, s in [(1, (3, 3)), (np.inf, (2, 3, 3)), ("fro", (3, 3))]],
        [Case(f"linalg.matrix_power-{shape_text(s)}-{n}",
              lambda a, n=n: np.linalg.matrix_power(a, n) * 1.5, [(s, invertible)])
         for s, n in [((3, 3), 1), ((3, 3), 3), ((2, 3, 3), 2), ((2, 3, 3), -2)]],
    ]


def _decomposition_rows():
    return [
        _cases("linalg.cholesky", lambda a: np.linalg.cholesky(sym(a)),
               [((3, 3),), ((2, 3, 3),)], separated_symmetric),
        fixed("linalg.cholesky-upper", lambda a: np.linalg.cholesky(sym(a), upper=True),
              ((3, 3), separated_symmetric)),
        _cases("linalg.cholesky-triangle", np.linalg.cholesky, [((3, 3),), ((2, 3, 3),)],
               unread(separated_symmetric)),
        fixed("linalg.cholesky-upper-triangle", lambda a: np.linalg.cholesky(a, upper=True),
              ((2, 3, 3), unread(separated_symmetric, upper=True))),
        _cases("linalg.eigvalsh-triangle", np.linalg.eigvalsh, [((3, 3),), ((2, 3, 3),)],
               unread(separated_symmetric)),
        fixed("linalg.eigh-triangle-squares", lambda a: np.linalg.eigh(a)[1] ** 2,
              ((2, 3, 3), unread(separated_symmetric))),
        fixed("linalg.eigh-upper-values", lambda a: np.linalg.eigh(a, UPLO="U")[0] * 1.5,
              ((3, 3), unread(separated_symmetric, upper=True))),
        _cases("linalg.eigvalsh", lambda a: np.linalg.eigvalsh(sym(a)),
               [((3, 3),), ((2, 3, 3),)], separated_symmetric),
        fixed("linalg.eigh-values", lambda a: np.linalg.eigh(sym(a)).eigenvalues * 1.5,
              ((3, 3), separated_symmetric)),
        fixed("linalg.eigh-squares", lambda a: np.linalg.eigh(sym(a))[1] ** 2,
              ((3, 3), separated_symmetric)),
        fixed("linalg.eigh-weighted", lambda a: weighted(*_eigh_factors(sym(a))),
              ((2, 3, 3), separated_symmetric)),
        fixed("linalg.eigh-upper", lambda a: np.linalg.eigh(a, UPLO="U")[1] ** 2,
              ((3, 3), unread(separated_symmetric, upper=True))),
        _cases("linalg.svd-values", lambda a: np.linalg.svd(a, compute_uv=False),
               [((4, 3),), ((3, 4),), ((2, 3, 3),)], separated_singular),
        _cases("linalg.svd-u", lambda a: np.linalg.svd(a, full_matrices=False)[0] ** 2,
               [((4, 3),), ((3, 4),)], separated_singular),
        _cases("linalg.svd-vh", lambda a: np.linalg.svd(a, full_matrices=False).Vh ** 2,
               [((4, 3),), ((3, 4),)], separated_singular),
        _cases("linalg.svd-weighted", lambda a: _svd_weighted(a),
               [((2, 4, 3),), ((3, 4),)], separated_singular),
        fixed("linalg.svd-square", lambda a: np.linalg.svd(a)[0] ** 2,
              ((3, 3), separated_singular)),
        _cases("linalg.qr-q", lambda a: np.linalg.qr(a)[0] * 1.5,
               [((4, 3),), ((3, 3),), ((3, 4),), ((2, 4, 3),)], separated_singular),
        _cases("linalg.qr-r", lambda a: np.linalg.qr(a).R,
               [((4, 3),), ((3, 4),), ((2, 4, 3),)], separated_singular),
        fixed("linalg.qr-mode-r", lambda a: np.linalg.qr(a, mode="r"),
              ((3, 3), separated_singular)),
    ]


def _eig_rows():
    # Eigenvalues come in LAPACK's order, which a perturbation may change:
    # cases use functions that do not depend on it.
    return [
        _cases("linalg.eigvals", lambda a: np.sum(np.abs(np.linalg.eigvals(a)) ** 3, axis=-1),
               [((3, 3),), ((2, 3, 3),)], separated_general),
        fixed("linalg.eig-parts", lambda a: np.sum(np.real(np.linalg.eig(a)[0]) ** 3
                                                   + np.imag(np.linalg.eig(a).eigenvalues) ** 2),
              ((3, 3), separated_general)),
        _cases("linalg.eig-vectors", lambda a: np.sum(np.abs(np.linalg.eig(a)[1]) ** 4, axis=-1),
               [((3, 3),), ((2, 3, 3),)], separated_general),
        fixed("linalg.eig-paired", lambda a: _eig_paired(a), ((3, 3), separated_general)),
        fixed("linalg.eig-complex", lambda a: np.sum(np.exp(np.linalg.eigvals(a + 0.5j * a.T))),
              ((3, 3), separated_general)),
        _cases("linalg.inv-complex", np.linalg.inv, [((3, 3),)], complex_invertible),
        _cases("linalg.det-complex", np.linalg.det, [((3, 3),), ((2, 3, 3),)],
               complex_invertible),
        fixed("linalg.solve-complex", np.linalg.solve, ((2, 3, 3), complex_invertible),
              ((3,), REAL)),
        fixed("linalg.matrix_power-complex", lambda a: np.linalg.matrix_power(a, -2),
              ((3, 3), complex_invertible)),
    ]


def herm(a):
    """The Hermitian part: what ``eigh`` reads of a complex matrix."""
    return 0.5 * (a + np.conj(np.swapaxes(a, -1, -2)))


def _complex(domain, size=0.3):
    """``domain`` plus an imaginary part small enough to keep its values apart."""
    return lambda rng, shape: domain(rng, shape) + size * 1j * rng.uniform(-1.0, 1.0, shape)


def _complex_decomposition_rows():
    """``eigh``, ``svd`` and the norms on complex matrices, through functions of the
    vectors that do not depend on their phases."""
    hermitian, singular = _complex(separated_symmetric), _complex(separated_singular)
    # The Hermitian matrix numpy reads off one triangle: its imaginary part in full.
    read = _complex(separated_symmetric, 0.15)
    return [
        _cases("linalg.eigvalsh-complex", lambda a: np.linalg.eigvalsh(herm(a)),
               [((3, 3),), ((2, 3, 3),)], hermitian),
        _cases("linalg.eigvalsh-complex-triangle", np.linalg.eigvalsh,
               [((3, 3),), ((2, 3, 3),)], unread(read)),
        fixed("linalg.eigh-complex-moduli", lambda a: _eigh_moduli(herm(a)),
              ((3, 3), hermitian)),
        fixed("linalg.eigh-complex-upper", lambda a: _eigh_moduli(a, UPLO="U"),
              ((2, 3, 3), unread(read, upper=True))),
        _cases("linalg.cholesky-complex", np.linalg.cholesky, [((3, 3),), ((2, 3, 3),)],
               unread(read)),
        fixed("linalg.cholesky-complex-upper", lambda a: np.linalg.cholesky(a, upper=True),
              ((3, 3), unread(read, upper=True))),
        _cases("linalg.slogdet-complex", lambda a: np.linalg.slogdet(a)[1],
               [((3, 3),), ((2, 3, 3),)], complex_invertible),
        fixed("linalg.slogdet-complex-sign", lambda a: np.linalg.slogdet(a)[0] * 1.5,
              ((2, 3, 3), complex_invertible)),
        fixed("linalg.slogdet-complex-both", lambda a: np.multiply(*np.linalg.slogdet(a)),
              ((3, 3), complex_invertible)),
        fixed("linalg.eigh-complex-weighted", lambda a: _complex_weighted(*_hermitian_factors(herm(a))),
              ((2, 3, 3), hermitian)),
        _cases("linalg.svd-complex-values", lambda a: np.linalg.svd(a, compute_uv=False),
               [((4, 3),), ((2, 3, 3),)], singular),
        fixed("linalg.svd-complex-u", lambda a: np.abs(np.linalg.svd(a, full_matrices=False)[0]),
              ((4, 3), singular)),
        _cases("linalg.svd-complex-weighted",
               lambda a: _complex_weighted(*np.linalg.svd(a, full_matrices=False)[::2]),
               [((3, 4),), ((2, 4, 3),)], singular),
        [Case(f"linalg.norm-complex-ord{ord}", lambda x, ord=ord: np.linalg.norm(x, ord),
              [(shape, _complex(distinct_magnitudes))])
         for ord, shape in [(None, (2, 3)), (1, (4,)), (3, (4,)), (np.inf, (4,)),
                            ("nuc", (3, 4)), (2, (3, 4)), (-2, (4, 3)), (np.inf, (3, 4))]],
    ]


def _eigh_moduli(a, UPLO="L"):
    """Each eigenvector's moduli weighted by its eigenvalue."""
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    return np.abs(v) * np.expand_dims(w, -2)


def _complex_weighted(u, vh):
    """``weighted(u, vh)`` as moduli and real parts: real numbers whatever the phases."""
    product = weighted(u, vh)
    return np.abs(product) + np.real(product) * 0.5


def _eig_paired(a):
    """Each eigenvector's squared magnitudes weighted by its eigenvalue's real part."""
    w, v = np.linalg.eig(a)
    return np.sum(np.abs(v) ** 2 * np.real(w), axis=-1)


def _eigh_factors(a):
    """``v`` and ``diag(w) @ v.T``, whose product is ``a``."""
    w, v = np.linalg.eigh(a)
    return v, np.swapaxes(v, -1, -2) * w[..., :, None]


def _hermitian_factors(a):
    """``v`` and ``diag(w) @ v^H``, whose product is ``a``."""
    w, v = np.linalg.eigh(a)
    return v, np.conj(np.swapaxes(v, -1, -2)) * np.expand_dims(w, -1)


def _svd_weighted(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return weighted(u, vh) + weighted(u * s[..., None, :], vh)


VECTOR_ORDS = [None, 1, 2, np.inf, -np.inf, 3, 0.5, -1.5]
MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


def _norm_rows():
    return [
        _cases("linalg.norm", np.linalg.norm, [((3,),), ((2, 3),), ((2, 3, 4),)]),
        [Case(f"linalg.norm-vector-ord{ord}", lambda x, ord=ord: np.linalg.norm(x, ord),
              [((4,), distinct_magnitudes)]) for ord in VECTOR_ORDS],
        [Case(f"linalg.norm-matrix-ord{ord}", lambda x, ord=ord: np.linalg.norm(x, ord),
              [((3, 4), distinct_magnitudes)]) for ord in MATRIX_ORDS],
        fixed("linalg.norm-axis-keepdims", lambda x: np.linalg.norm(x, 3, axis=1, keepdims=True),
              ((2, 3, 4), distinct_magnitudes)),
        fixed("linalg.norm-axis-negative", lambda x: np.linalg.norm(x, axis=-1),
              ((2, 3, 4), REAL)),
        [Case(f"linalg.norm-axes-ord{ord}",
              lambda x, ord=ord: np.linalg.norm(x, ord, axis=(2, 0), keepdims=True),
              [((3, 2, 4), distinct_magnitudes)]) for ord in ["fro", "nuc", 1, -np.inf]],
        fixed("linalg.vector_norm", lambda x: np.linalg.vector_norm(x, ord=1, keepdims=True),
              ((2, 3), NONZERO)),
        [Case(f"linalg.vector_norm-axes{key_text(axis)}-ord{ord}",
              lambda x, axis=axis, ord=ord, keep=keep: np.linalg.vector_norm(
                  x, axis=axis, ord=ord, keepdims=keep),
              [((2, 3, 4), distinct_magnitudes)])
         for axis, ord, keep in [((0, 1), 2, False), ((2, 0), 1, True), ((1, 2), np.inf, False),
                                 ((0, 1, 2), 3, True), ((-1,), -np.inf, False)]],
        fixed("linalg.matrix_norm", lambda x: np.linalg.matrix_norm(x, ord=2),
              ((2, 3, 4), separated_singular)),
    ]


EINSUM = [
    ("ij,jk->ik", (2, 3), (3, 4)), ("ij,jk", (2, 3), (3, 4)), ("ii->i", (3, 3)),
    ("ii", (3, 3)), ("ij->ji", (2, 3)), ("ij->", (2, 3)), ("i,i", (3,), (3,)),
    ("i,j->ij", (2,), (3,)), ("ij,ij->i", (2, 3), (2, 3)), ("bii->bi", (2, 3, 3)),
    ("iij->ji", (3, 3, 2)), ("ij,jk,kl->il", (2, 3), (3, 4), (4, 2)),
    ("...ij,...jk->...ik", (2, 1, 2, 3), (4, 3, 2)), ("...i->...", (2, 3)),
    ("i...->...", (3, 2)), ("ij,kj", (2, 3), (4, 3)), ("ij,ij->ij", (2, 1), (2, 3)),
    ("ii,i,jk->ijk", (3, 3), (3,), (2, 1)), (",ij->ij", (), (2, 3)),
]


def _einsum_rows():
    return [
        [Case(f"einsum-{spec}", lambda *xs, spec=spec: np.einsum(spec, *xs),
              [(s, REAL) for s in shapes]) for spec, *shapes in EINSUM],
        fixed("einsum-optimize", lambda x, y, z: np.einsum("ij,jk,k", x, y, z, optimize="greedy"),
              ((2, 3), REAL), ((3, 4), REAL), ((4,), REAL)),
        fixed("einsum-sublists", lambda x, y: np.einsum(x, [0, 1], y, [1, Ellipsis], [Ellipsis, 0]),
              ((2, 3), REAL), ((3, 4), REAL)),
    ]


def _product_rows():
    return [
        _cases("inner", np.inner, [((3,), (3,)), ((2, 3), (4, 3)), ((2, 3), (3,)), ((), (2,))]),
        _cases("kron", np.kron, [((2, 3), (3, 2)), ((3,), (2, 2)), ((2,), (3,))]),
        _cases("cross", np.cross, [((3,), (3,)), ((4, 3), (3,)), ((2, 1, 3), (4, 3))]),
        fixed("cross-axes", lambda a, b: np.cross(a, b, axisa=0, axisb=-1, axisc=0),
              ((3, 4), REAL), ((4, 3), REAL)),
        fixed("cross-axis", lambda a, b: np.cross(a, b, axis=0), ((3, 2), REAL), ((3, 2), REAL)),
    ]


def _diagonal_rows():
    return [
        fixed("trace", np.trace, ((3, 3), REAL)),
        fixed("trace-offset", lambda x: np.trace(x, 1), ((3, 4), REAL)),
        fixed("trace-axes", lambda x: np.trace(x, -1, axis1=1, axis2=2), ((2, 3, 4), REAL)),
        fixed("trace-axes-reversed", lambda x: np.trace(x, axis1=2, axis2=0), ((3, 4, 2), REAL)),
        [Case(f"diag-{shape_text(s)}-k{k}", lambda x, k=k: np.diag(x, k) * 1.5, [(s, REAL)])
         for s, k in [((3,), 0), ((3,), -1), ((3, 4), 1), ((3, 4), -2)]],
        fixed("diagonal", np.diagonal, ((3, 4), REAL)),
        fixed("diagonal-axes", lambda x: np.diagonal(x, 1, axis1=2, axis2=1), ((2, 3, 4), REAL)),
        fixed("diagonal-last", lambda x: np.diagonal(x, axis1=-2, axis2=-1), ((2, 3, 3), REAL)),
        [Case(f"{name}-{shape_text(s)}-k{k}", lambda x, f=f, k=k: f(x, k) * 1.5, [(s, REAL)])
         for name, f in [("triu", np.triu), ("tril", np.tril)]
         for s, k in [((3, 4), 0), ((3, 4), 1), ((2, 3, 3), -1), ((3,), 0)]],
    ]


def _array_api_rows():
    return [
        fixed("linalg.trace", lambda x: np.linalg.trace(x, offset=1), ((2, 3, 4), REAL)),
        fixed("linalg.diagonal", lambda x: np.linalg.diagonal(x, offset=-1), ((2, 3, 3), REAL)),
        fixed("linalg.outer", np.linalg.outer, ((3,), REAL), ((2,), REAL)),
        fixed("linalg.cross", lambda a, b: np.linalg.cross(a, b, axis=0),
              ((3, 2), REAL), ((3, 1), REAL)),
        fixed("linalg.matmul", np.linalg.matmul, ((2, 3), REAL), ((3,), REAL)),
        fixed("linalg.tensordot", lambda a, b: np.linalg.tensordot(a, b, axes=1),
              ((2, 3), REAL), ((3, 2), REAL)),
        fixed("linalg.vecdot", np.linalg.vecdot, ((2, 3), REAL), ((3,), REAL)),
        fixed("linalg.multi_dot", lambda a, b, c: np.linalg.multi_dot([a, b, c]),
              ((3,), REAL), ((3, 4), REAL), ((4, 2), REAL)),
    ]


def rows():
    """The linear algebra cases."""
    groups = (_matrix_rows() + _decomposition_rows() + _eig_rows() + _complex_decomposition_rows()
              + _norm_rows() + _einsum_rows() + _product_rows() + _diagonal_rows()
              + _array_api_rows())
    return [case for group in groups for case in group]
