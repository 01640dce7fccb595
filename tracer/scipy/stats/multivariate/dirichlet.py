"""The Dirichlet distribution, as ``scipy.stats.dirichlet``: ``x`` holds the components
along its first axis (and points along a second): as many as ``alpha`` has, or one
fewer, the last then one minus their sum, as scipy's; computed in the arguments' dtype,
as scipy's.

Unlike scipy, which refuses an ``x`` off the simplex, the density is computed for any
positive ``x``: a derivative in each component needs the points off it (central
differences leave the simplex too)."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import in_their_dtypes


@in_their_dtypes
def logpdf(x, alpha):
    """``sum((alpha - 1) log x) - log B(alpha)``, squeezed of axes of length 1."""
    x = _completed(x, alpha)
    weights = np.reshape(alpha, (-1,) + (1,) * (len(x.shape) - 1))
    return np.squeeze(np.sum(sc.xlogy(weights - 1, x), axis=0) + sc.gammaln(np.sum(alpha))
                      - np.sum(sc.gammaln(alpha)))


@in_their_dtypes
def pdf(x, alpha):
    return np.exp(logpdf(x, alpha))


def _completed(x, alpha):
    """``x`` with all ``len(alpha)`` components."""
    k = alpha.shape[0] if len(alpha.shape) == 1 else None
    if k is None or not x.shape or x.shape[0] not in (k - 1, k):
        raise ValueError(f"dirichlet's x holds the components of alpha, a vector, (or all but "
                         f"the last) along its first axis: got x of shape {x.shape} and alpha "
                         f"of shape {alpha.shape}")
    if x.shape[0] == k - 1:
        x = np.concatenate([x, 1 - np.sum(x, axis=0, keepdims=True)], axis=0)
    return x
