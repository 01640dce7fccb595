"""The multivariate normal distribution, as ``scipy.stats.multivariate_normal``: points
along the last axis of ``x``, results squeezed of their axes of length 1 as scipy's.

``cov`` is checked as scipy checks it: not positive semidefinite, it raises
``ValueError``; singular (an eigenvalue at most ``1e6`` machine epsilons of the largest),
it raises ``LinAlgError`` unless ``allow_singular``, which reads the density on the
support, as scipy does: the rank, pseudo-determinant and pseudo-inverse of ``cov``, and
``-inf`` off the support.  A regular ``cov`` is factored by Cholesky.  Which ``cov`` is
singular, and its rank, are read from its value, as scipy reads them: a module generated
from a recording keeps what the recording read.

Beyond scipy, ``mean`` may hold a stack of means and ``entropy`` a stack of covariances."""

import math

import numpy as np
import scipy.linalg

from tracer.core import is_traced, value_of
from tracer.numpy.api import stop_gradient
from tracer.scipy.stats._support import like_scipy

_LOG_2PI = math.log(2 * math.pi)
_NEGLIGIBLE = 1e6 * np.finfo(np.float64).eps
"""Eigenvalues of ``cov`` at most this times its largest are taken as 0, as scipy's."""
_OFF_SUPPORT = 1e3
"""How far (in those units) a point may leave the support, as scipy's."""


@like_scipy
def logpdf(x, mean=None, cov=1, allow_singular=False):
    """``-(r log 2 pi + log det cov + d^T cov^-1 d) / 2`` for ``d = x - mean`` and the
    rank ``r`` of ``cov``, its pseudo-determinant and pseudo-inverse when singular."""
    k, mean, cov = _parameters(mean, cov)
    factored = _Factored(cov, allow_singular, "logpdf")
    deviation = _points(x, k) - mean
    log_density = -0.5 * (factored.rank * _LOG_2PI + factored.log_det
                          + factored.mahalanobis(deviation))
    if factored.null is not None:
        log_density = np.where(factored.on_support(deviation), log_density, -np.inf)
    return np.squeeze(log_density)


@like_scipy
def pdf(x, mean=None, cov=1, allow_singular=False):
    return np.exp(logpdf(x, mean, cov, allow_singular))


@like_scipy
def entropy(mean=None, cov=1):
    """``(r log(2 pi e) + log det cov) / 2``, in nats, as scipy's: for a singular ``cov``,
    its rank ``r`` and pseudo-determinant (of each matrix of a stack)."""
    _, _, cov = _parameters(mean, cov)
    factored = _Factored(cov, True, "entropy")
    return 0.5 * (factored.rank * (_LOG_2PI + 1) + factored.log_det)


def _parameters(mean, cov):
    """The dimension (``cov``'s, else ``mean``'s, else 1), ``mean`` (zeros if None), and
    ``cov`` as matrices (a number times the identity, a vector as the diagonal)."""
    if len(cov.shape) > 1 and cov.shape[-1] != cov.shape[-2]:
        raise ValueError(f"multivariate_normal's cov must be square, got shape {cov.shape}")
    if cov.shape:
        k = cov.shape[-1]
    else:
        k = mean.shape[-1] if mean is not None and mean.shape else 1
    if mean is not None and mean.shape and mean.shape[-1] != k:
        raise ValueError(f"multivariate_normal's mean has {mean.shape[-1]} components but its "
                         f"cov has dimension {k}: give them the same")
    mean = np.zeros(k) if mean is None else mean
    return k, mean, cov * np.eye(k) if len(cov.shape) < 2 else cov


def _points(x, k):
    """``x`` with its points along the last axis: a number is one point, and a vector is
    one point, or (for ``k == 1``) as many points as it has values."""
    if not x.shape:
        return np.reshape(x, (1,))
    return np.expand_dims(x, -1) if len(x.shape) == 1 and k == 1 else x


class _Factored:
    """``cov``'s rank, log (pseudo-)determinant and whitening; for a singular one, also
    ``null``, the projector on its null space (else ``None``).

    A singular ``cov`` of rank ``r`` is factored as ``P cov P + N``, ``P`` the projector
    on its range and ``N = 1 - P``: that matrix is regular, has ``cov``'s nonzero
    eigenvalues and 1 for the others, and its inverse on the range is ``cov``'s
    pseudo-inverse.  ``P`` comes from ``cov = L L^T`` with ``L`` of ``r`` columns, a
    Cholesky factorisation pivoted on columns chosen from ``cov``'s value: exact for every
    matrix of rank ``r`` near ``cov``, so derivatives along those matrices (the only ones
    a pseudo-determinant has) are exact to every order, and the first ones are the
    pseudo-inverse's."""

    def __init__(self, cov, allow_singular, method):
        self.rank, self.null = cov.shape[-1], None
        ranks, self.tolerance = _checked_ranks(cov, allow_singular, method)
        if np.any(ranks < cov.shape[-1]):
            self.rank = ranks
            cov = _lower_read(cov)
            self.range = _range_projectors(cov, ranks)
            self.null = np.eye(cov.shape[-1]) - self.range
            cov = self.range @ cov @ self.range + self.null
        self.factor = np.linalg.cholesky(cov)
        self.log_det = 2 * np.sum(np.log(np.diagonal(self.factor, axis1=-2, axis2=-1)),
                                  axis=-1)

    def mahalanobis(self, deviation):
        """``d^T cov^-1 d`` (with the pseudo-inverse, of ``d``'s part in the range)."""
        if self.null is not None:
            deviation = deviation @ self.range
        whitened = np.linalg.solve(self.factor, np.expand_dims(deviation, -1))[..., 0]
        return np.sum(whitened * whitened, axis=-1)

    def on_support(self, deviation):
        """Whether ``d`` lies in the range of ``cov``, to scipy's tolerance."""
        outside = np.sum(np.square(deviation @ self.null), axis=-1)
        return outside < np.square(_OFF_SUPPORT * self.tolerance)


def _lower_read(cov):
    """``cov`` as scipy reads it, from its lower triangle, with the symmetric gradient that
    ``np.linalg.cholesky`` gives a regular one: each entry and its mirror get the same."""
    lower = np.tril(cov) + np.swapaxes(np.tril(cov, -1), -1, -2)
    if not is_traced(cov):
        return lower
    symmetric = (cov + np.swapaxes(cov, -1, -2)) / 2
    return symmetric + stop_gradient(lower - symmetric)


def _range_projectors(cov, ranks):
    """The projector on the range of (each matrix of a stack) ``cov``, of rank ``ranks``."""
    if len(cov.shape) > 2:
        return np.stack([_range_projectors(c, r) for c, r in zip(cov, ranks)])
    rank = int(ranks)
    order = scipy.linalg.qr(value_of(cov), pivoting=True)[2]
    permutation = np.eye(cov.shape[-1])[:, order]
    permuted = permutation.T @ cov @ permutation
    leading = np.linalg.cholesky(permuted[:rank, :rank])
    below = np.linalg.solve(leading, np.swapaxes(permuted[rank:, :rank], -1, -2))
    factor = permutation @ np.concatenate([leading, np.swapaxes(below, -1, -2)], axis=0)
    return factor @ np.linalg.solve(np.swapaxes(factor, -1, -2) @ factor,
                                    np.swapaxes(factor, -1, -2))


def _checked_ranks(cov, allow_singular, method):
    """The rank of (each matrix of a stack) ``cov`` and the size below which its
    eigenvalues are taken as 0; refused if not positive semidefinite, or singular without
    ``allow_singular``, as scipy refuses."""
    value = value_of(cov)
    if np.iscomplexobj(value):
        raise TypeError(f"multivariate_normal.{method} needs a real cov (it computes with "
                        "real matrices only, as scipy)")
    eigenvalues = np.linalg.eigvalsh(value)
    tolerance = _NEGLIGIBLE * np.max(np.abs(eigenvalues), axis=-1)
    if np.any(eigenvalues < -tolerance[..., None]):
        raise ValueError(f"multivariate_normal.{method}: cov must be symmetric positive "
                         f"semidefinite; it has the eigenvalue {np.min(eigenvalues):.3g}")
    ranks = np.sum(eigenvalues > tolerance[..., None], axis=-1)
    if np.any(ranks < value.shape[-1]) and not allow_singular:
        raise np.linalg.LinAlgError(
            f"multivariate_normal.{method}: cov is singular (its smallest eigenvalue is "
            f"{np.min(np.abs(eigenvalues)):.3g}): pass allow_singular=True for the density on "
            "its support, with its pseudo-determinant and pseudo-inverse, as scipy")
    return ranks, tolerance
