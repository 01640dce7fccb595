"""What the distribution functions share beyond ``on_support``: logarithms of tail
probabilities without cancellation, and quantile functions with scipy's edges."""

import math

import numpy as np


def log1mexp(t):
    """``log(1 - exp(-t))`` for ``t > 0``: ``log(-expm1(-t))`` near 0, where
    ``exp(-t)`` is close to 1, and ``log1p(-exp(-t))`` beyond ``log 2``, where it is
    small.  Each form sees ``log 2`` where the other is taken, so neither warns of a
    division by zero nor puts one in a derivative."""
    near = t < math.log(2)
    return np.where(near, np.log(-np.expm1(-np.where(near, t, math.log(2)))),
                    np.log1p(-np.exp(-np.where(near, math.log(2), t))))


def log_diff_exp(u, v):
    """``log(exp(u) - exp(v))`` for ``u > v``, as ``u + log(1 - exp(v - u))``."""
    return u + log1mexp(u - v)


def quantile(q, lower, upper, inverse):
    """``inverse(q)`` for ``0 < q < 1``, the support's ``lower`` and ``upper`` edges at
    0 and 1, NaN elsewhere, as scipy's ``ppf`` (``isf`` passes its edges swapped).
    ``inverse`` sees 1/2 where ``q`` is an edge or outside, so no derivative is NaN."""
    inside = (q > 0) & (q < 1)
    edges = np.where(q == 0, lower, np.where(q == 1, upper, np.full_like(q, np.nan)))
    return np.where(inside, inverse(np.where(inside, q, 0.5)), edges)
