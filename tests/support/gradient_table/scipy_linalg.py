"""``tracer.scipy.linalg``'s functions of matrices and its Sylvester and banded solves (none
when scipy is missing).

Cases take stacks of matrices, so that with a symbolic leading axis only the stack's
size is symbolic.  Logarithms and square roots get matrices near the identity plus a
positive definite part (eigenvalues far from the negative real axis); the solves get
diagonally dominant matrices, with spectra of ``a`` and ``-b`` far apart for Sylvester's
equation.  Banded storage is random off the band too: those entries are never read, and
their gradient is zero.
"""

import numpy as np

from gradient_table.cases import REAL, fixed, uniform

try:
    from tracer.scipy import linalg
except ModuleNotFoundError:
    linalg = None


def _eye_like(shape):
    return np.broadcast_to(np.eye(shape[-1]), shape)


def near_identity(rng, shape):
    """``1 + 0.3 r r^T + 0.2 s``: eigenvalues with real parts near 1 to 2."""
    root = rng.uniform(-1.0, 1.0, shape)
    return (_eye_like(shape) + 0.3 * root @ np.swapaxes(root, -1, -2)
            + 0.2 * rng.uniform(-1.0, 1.0, shape))


def dominant(rng, shape):
    """Eigenvalues within 1 of 2.5 (Gershgorin, for up to 3 x 3)."""
    return rng.uniform(-0.5, 0.5, shape) + 2.5 * _eye_like(shape)


def complex_small(rng, shape):
    return rng.uniform(-1.0, 1.0, shape) + 1j * rng.uniform(-1.0, 1.0, shape)


def banded(upper):
    """Banded storage whose diagonal (row ``upper``) dominates its column's band."""
    def sample(rng, shape):
        ab = rng.uniform(-1.0, 1.0, shape)
        ab[..., upper, :] += 4.0
        return ab
    return sample


def rows():
    """The cases, or none without scipy."""
    if linalg is None:
        return []
    table = [
        fixed("linalg.expm-2x3x3", linalg.expm, ((2, 3, 3), uniform(-1.0, 1.0))),
        fixed("linalg.expm-complex", linalg.expm, ((2, 2, 2), complex_small)),
        fixed("linalg.logm-2x3x3", linalg.logm, ((2, 3, 3), near_identity)),
        fixed("linalg.sqrtm-2x3x3", linalg.sqrtm, ((2, 3, 3), near_identity)),
        fixed("linalg.solve_sylvester-2x3x3-1x2x2-2x3x2", linalg.solve_sylvester,
              ((2, 3, 3), dominant), ((1, 2, 2), dominant), ((2, 3, 2), REAL)),
        fixed("linalg.solve_sylvester-3x3-2x2-3x2", linalg.solve_sylvester,
              ((3, 3), dominant), ((2, 2), dominant), ((3, 2), REAL)),
        fixed("linalg.solve_banded-tridiagonal",
              lambda ab, b: linalg.solve_banded((1, 1), ab, b),
              ((2, 3, 4), banded(1)), ((2, 4, 2), REAL)),
        fixed("linalg.solve_banded-l2u1-vector",
              lambda ab, b: linalg.solve_banded((2, 1), ab, b),
              ((2, 4, 5), banded(1)), ((5,), REAL)),
    ]
    return [case for row in table for case in row]
