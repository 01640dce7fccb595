"""The Dirichlet distribution, as ``scipy.stats.dirichlet``: ``x`` holds the ``K``
components along its first axis (and points along a second), ``alpha`` has ``K``."""

import numpy as np
import scipy.special as sc


def logpdf(x, alpha):
    weights = np.reshape(alpha, (-1,) + (1,) * (len(np.shape(x)) - 1))
    return (np.sum(sc.xlogy(weights - 1, x), axis=0) + sc.gammaln(np.sum(alpha))
            - np.sum(sc.gammaln(alpha)))


def pdf(x, alpha):
    return np.exp(logpdf(x, alpha))
