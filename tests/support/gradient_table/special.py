"""scipy.special's ufuncs and tapegen's polygamma and logsumexp (none when scipy is missing).

Each domain keeps its function smooth and real around the sample: ``erfinv``
inside (-1, 1), gamma-family arguments positive and away from the poles, ``y0``
and ``y1`` positive, Bessel functions of fractional order at positive ``x``, ``ndtri``
inside (0, 1), ``exp1``, ``expn``, ``entr`` and ``kl_div`` positive, ``expi`` away from 0,
``spence`` positive, Box-Cox transforms where ``1 + l y`` stays positive.
Orders are constants of each case: they get no gradient.
"""

import numpy as np

import tracer.special
from gradient_table.cases import (NONZERO, POSITIVE, REAL, UNIT, BINARY_SHAPES, binary, fixed,
                                  reduction, unary, uniform)

try:
    from scipy import special
except ModuleNotFoundError:
    special = None


def rows():
    """The scipy.special cases, or none without scipy."""
    if special is None:
        return []
    broadcast = BINARY_SHAPES[1:5]
    logsumexp_axes = [((5,), None), ((2, 3, 4), 1), ((2, 3, 4), (0, 2))]
    table = [
        unary("special.erf", special.erf), unary("special.erfc", special.erfc),
        unary("special.erfinv", special.erfinv, UNIT),
        unary("special.erfcinv", special.erfcinv, uniform(0.1, 1.9)),
        unary("special.ndtr", special.ndtr),
        unary("special.ndtri", special.ndtri, uniform(0.1, 0.9)),
        unary("special.log_ndtr", special.log_ndtr, uniform(-6.0, 2.0)),
        unary("special.erfcx", special.erfcx), unary("special.dawsn", special.dawsn),
        binary("special.owens_t", special.owens_t, shapes=broadcast),
        unary("special.gammaln", special.gammaln, POSITIVE),
        unary("special.gamma", special.gamma, uniform(0.5, 3.0)),
        unary("special.digamma", special.digamma, POSITIVE),
        unary("special.psi", special.psi, POSITIVE),
        unary("special.rgamma", special.rgamma, POSITIVE),
        unary("special.loggamma", special.loggamma, POSITIVE),
        binary("special.poch", special.poch, POSITIVE, shapes=broadcast),
        unary("special.polygamma", lambda x: tracer.special.polygamma(2, x), POSITIVE),
        fixed("special.polygamma-orders",
              lambda x: tracer.special.polygamma(np.array([0, 1, 3]), x), ((2, 1), POSITIVE)),
        binary("special.beta", special.beta, POSITIVE, shapes=broadcast),
        binary("special.betaln", special.betaln, POSITIVE, shapes=broadcast),
        unary("special.expit", special.expit),
        unary("special.logit", special.logit, uniform(0.1, 0.9)),
        binary("special.xlogy", special.xlogy, NONZERO, POSITIVE, shapes=broadcast),
        binary("special.xlog1py", special.xlog1py, NONZERO, uniform(-0.5, 2.0), shapes=broadcast),
        unary("special.entr", special.entr, POSITIVE),
        binary("special.kl_div", special.kl_div, POSITIVE, shapes=broadcast),
        unary("special.j0", special.j0), unary("special.j1", special.j1),
        unary("special.y0", special.y0, POSITIVE), unary("special.y1", special.y1, POSITIVE),
        unary("special.jv", lambda x: special.jv(2, x)),
        fixed("special.jv-fractional-orders",
              lambda x: special.jv(np.array([0.5, 1.0, 2.5]), x), ((2, 1), POSITIVE)),
        unary("special.yn", lambda x: special.yn(2, x), uniform(0.5, 3.0)),
        fixed("special.yn-orders",
              lambda x: special.yn(np.array([0, 1, 3]), x), ((2, 1), uniform(0.5, 3.0))),
        unary("special.yv", lambda x: special.yv(1.5, x), uniform(0.5, 3.0)),
        unary("special.gammasgn", lambda x: special.gammasgn(x) * x, uniform(-2.9, 2.9)),
        unary("special.i0", special.i0), unary("special.i1", special.i1),
        unary("special.iv", lambda x: special.iv(1.5, x), POSITIVE),
        # An integer order is defined for negative x, where sign(x) enters ive's rule.
        unary("special.ive", lambda x: special.ive(1, x), NONZERO),
        fixed("special.ive-fractional-orders",
              lambda x: special.ive(np.array([0.5, 2.5]), x), ((3, 1), POSITIVE)),
        unary("special.i0e", special.i0e, NONZERO), unary("special.i1e", special.i1e),
        unary("special.gammainc", lambda x: special.gammainc(2.5, x), POSITIVE),
        unary("special.gammaincc", lambda x: special.gammaincc(1.5, x), POSITIVE),
        unary("special.betainc", lambda x: special.betainc(2.0, 3.0, x), uniform(0.1, 0.9)),
        unary("special.expi", special.expi, NONZERO),
        unary("special.exp1", special.exp1, POSITIVE),
        fixed("special.expn-orders",
              lambda x: special.expn(np.array([0, 1, 3]), x), ((2, 1), POSITIVE)),
        unary("special.spence", special.spence, uniform(0.2, 3.0)),
        unary("special.zeta", lambda q: special.zeta(2.5, q), POSITIVE),
        binary("special.boxcox", special.boxcox, POSITIVE, REAL, shapes=broadcast),
        binary("special.boxcox1p", special.boxcox1p, uniform(-0.5, 2.0), REAL, shapes=broadcast),
        binary("special.inv_boxcox", special.inv_boxcox, uniform(-0.3, 0.3), UNIT,
               shapes=broadcast),
        binary("special.inv_boxcox1p", special.inv_boxcox1p, uniform(-0.3, 0.3), UNIT,
               shapes=broadcast),
        reduction("special.logsumexp",
                  lambda x, a, k: tracer.special.logsumexp(x, axis=a, keepdims=k),
                  axes=logsumexp_axes),
        fixed("special.logsumexp-weights", lambda x, b: tracer.special.logsumexp(x, axis=-1, b=b),
              ((2, 3), REAL), ((3,), POSITIVE)),
    ]
    return [case for row in table + _scipy_rows() for case in row]


def _scipy_rows():
    """``tracer.scipy``: its densities in every argument they differentiate, the
    quantiles first, then ``loc``, ``scale`` and the shape parameters broadcast against
    them (along axes of their own or of length 1, so that a symbolic leading axis stays
    symbolic); and softmax."""
    from tracer.scipy import special as ts, stats

    x, loc, scale = ((2, 3), REAL), ((1, 3), REAL), ((2, 1), POSITIVE)
    shape = ((1, 3), uniform(1.5, 3.0))
    counts = np.array([[0.0, 1.0, 3.0]])
    rows = [fixed(f"stats.norm.{f}", getattr(stats.norm, f), x, loc, scale)
            for f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")]
    rows += [fixed(f"stats.t.{f}", getattr(stats.t, f), x, shape, loc, scale)
             for f in ("logpdf", "pdf")]
    rows += [fixed(f"stats.poisson.{f}", lambda mu, f=f: getattr(stats.poisson, f)(counts, mu),
                   ((2, 3), POSITIVE))
             for f in ("logpmf", "pmf", "cdf", "sf", "logcdf", "logsf")]
    rows += [fixed(f"stats.t.{f}", lambda y, l, s, f=f: getattr(stats.t, f)(y, 3.5, l, s),
                   x, loc, scale) for f in ("cdf", "sf", "logcdf", "logsf")]
    rows += [fixed(f"stats.{d}.{f}",
                   lambda y, s, d=d, f=f: getattr(getattr(stats, d), f)(y, 2.5, 0.0, s),
                   ((2, 3), POSITIVE), scale)
             for d in ("gamma", "chi2") for f in ("cdf", "sf", "logcdf", "logsf")]
    rows += [fixed(f"stats.beta.{f}", lambda y, f=f: getattr(stats.beta, f)(y, 2.0, 3.0),
                   ((2, 3), uniform(0.1, 0.9))) for f in ("cdf", "sf", "logcdf", "logsf")]
    rows += [fixed(f"stats.{d}.{f}",
                   lambda y, a, s, d=d, f=f: getattr(getattr(stats, d), f)(y, a, 0.0, s),
                   ((2, 3), POSITIVE), shape, scale)
             for d in ("gamma", "chi2") for f in ("logpdf", "pdf")]
    rows += [fixed(f"stats.beta.{f}", getattr(stats.beta, f), ((2, 3), uniform(0.1, 0.9)),
                   shape, shape) for f in ("logpdf", "pdf")]
    rows += [fixed(f"stats.dirichlet.{f}", getattr(stats.dirichlet, f),
                 ((3, 2), uniform(0.1, 0.6)), ((3,), uniform(1.5, 3.0))) for f in ("logpdf", "pdf")]
    rows += [fixed(f"stats.multivariate_normal.{f}",
                   lambda y, mean, root, f=f: getattr(stats.multivariate_normal, f)(
                       y, mean, root @ root.T + np.eye(3)), x, loc, ((3, 3), REAL))
             for f in ("logpdf", "pdf")]
    rows += [fixed("stats.multivariate_normal.entropy", lambda root: stats.multivariate_normal
                   .entropy(cov=root @ np.swapaxes(root, -1, -2) + np.eye(3)), ((2, 3, 3), REAL))]
    rows += [fixed(f"special.{f}-axis{a}", lambda y, f=f, a=a: getattr(ts, f)(y, axis=a),
                   ((2, 3), REAL)) for f in ("softmax", "log_softmax") for a in (None, 1)]
    rows += [fixed("special.multigammaln", lambda a: ts.multigammaln(a, 3),
                   ((2, 3), uniform(2.0, 3.0))),
             fixed("special.rel_entr", ts.rel_entr, ((2, 3), POSITIVE), ((2, 3), POSITIVE))]
    return rows + _scipy_linalg_rows()


def _scipy_linalg_rows():
    """``tracer.scipy``'s linear algebra, in the ``linalg`` family: triangles with a
    diagonal of 1 to 2 and matrices ``root root^T + 1`` keep the solves well
    conditioned."""
    from tracer.scipy import linalg

    square, right = ((3, 3), uniform(1.0, 2.0)), ((3, 2), REAL)
    rows = [fixed(f"linalg.solve_triangular-{'lower' if lower else 'upper'}-{trans}-{unit}",
                  lambda a, b, lower=lower, trans=trans, unit=unit: linalg.solve_triangular(
                      a, b, trans=trans, lower=lower, unit_diagonal=unit), square, right)
            for lower, trans, unit in ((True, 0, False), (False, "T", False), (True, 1, True))]
    rows += [fixed(f"linalg.cho_solve-{'lower' if lower else 'upper'}",
                   lambda root, b, lower=lower: linalg.cho_solve(linalg.cho_factor(
                       root @ root.T + np.eye(root.shape[0], like=root), lower), b),
                   ((3, 3), REAL), right)
             for lower in (True, False)]
    return rows
