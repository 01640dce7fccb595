"""Student's t distribution, as ``scipy.stats.t`` (its density; its distribution
function needs the regularised incomplete beta function)."""

import numpy as np
import scipy.special as sc


def logpdf(x, df, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    half = (df + 1) / 2
    return (sc.gammaln(half) - sc.gammaln(df / 2) - 0.5 * np.log(df * np.pi) - np.log(scale)
            - half * np.log1p(z * z / df))


def pdf(x, df, loc=0.0, scale=1.0):
    return np.exp(logpdf(x, df, loc, scale))
