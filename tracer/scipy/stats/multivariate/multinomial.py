"""The multinomial distribution, as ``scipy.stats.multinomial``: counts ``x`` along the
last axis, ``n`` trials, probabilities ``p`` along the last axis; differentiable in
``p``, which is used as given (scipy replaces its last entry by one minus the others'
sum: the two agree on probabilities that sum to one)."""

import numpy as np
import scipy.special as sc

from tracer.scipy.stats._support import like_scipy


@like_scipy
def logpmf(x, n, p):
    """``log(n!) + sum(x log(p) - log(x!))`` where the counts are whole, non-negative and
    sum to ``n``, else ``-inf``."""
    whole = np.all((x >= 0) & (x == np.floor(x)), axis=-1)
    valid = whole & (np.sum(x, axis=-1) == n)
    counts = np.maximum(x, 0)
    log_mass = (sc.gammaln(n + 1) + np.sum(sc.xlogy(counts, p) - sc.gammaln(counts + 1),
                                                   axis=-1))
    return np.where(valid, log_mass, -np.inf)


@like_scipy
def pmf(x, n, p):
    return np.exp(logpmf(x, n, p))
