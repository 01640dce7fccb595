"""The multivariate normal distribution, as ``scipy.stats.multivariate_normal``: points
along the last axis of ``x``, through the Cholesky factor of ``cov``."""

import math

import numpy as np


def logpdf(x, mean=None, cov=1):
    """``-(k log 2 pi + log det cov + d^T cov^-1 d) / 2`` for ``d = x - mean``."""
    k = _dimension(x, mean, cov)
    mean = np.zeros(k) if mean is None else mean
    cov = cov * np.eye(k) if len(np.shape(cov)) < 2 else cov
    deviation = x - mean
    if k == 1 and np.shape(deviation)[-1:] != (1,):
        deviation = np.expand_dims(deviation, -1)
    factor = np.linalg.cholesky(cov)
    whitened = np.linalg.solve(factor, np.expand_dims(deviation, -1))[..., 0]
    log_det = 2 * np.sum(np.log(np.diagonal(factor)))
    return -0.5 * (k * math.log(2 * math.pi) + log_det + np.sum(whitened * whitened, axis=-1))


def pdf(x, mean=None, cov=1):
    return np.exp(logpdf(x, mean, cov))


def entropy(mean=None, cov=1):
    """``(k log(2 pi e) + log det cov) / 2``, in nats, as scipy's."""
    k = _dimension(np.zeros(1), mean, cov)
    cov = cov * np.eye(k) if len(np.shape(cov)) < 2 else cov
    log_det = 2 * np.sum(np.log(np.diagonal(np.linalg.cholesky(cov), axis1=-2, axis2=-1)),
                         axis=-1)
    return 0.5 * (k * math.log(2 * math.pi * math.e) + log_det)


def _dimension(x, mean, cov):
    if len(np.shape(cov)) == 2:
        return np.shape(cov)[0]
    if mean is not None and len(np.shape(mean)) == 1:
        return np.shape(mean)[0]
    return np.shape(x)[-1] if len(np.shape(x)) else 1
