"""``tracer.scipy.stats``' distributions beyond those of the ``special`` family (none when
scipy is missing): for each, the two or three methods that matter most, in every argument
they differentiate (the others are compared with scipy by value in
``tests/tracer/test_scipy_stats.py``).

Quantiles ``x`` are 2x3, ``loc`` and the first shape parameter 1x3, ``scale`` and the
second 2x1, so a symbolic leading axis stays symbolic; each domain keeps the points
inside the support and away from its edges.  Counts are constants of their case.
"""

import numpy as np

from gradient_table.cases import POSITIVE, REAL, fixed, uniform

try:
    import scipy  # noqa: F401  (what tracer.scipy needs)
except ModuleNotFoundError:
    scipy = None

X, LOC, SCALE = ((2, 3), REAL), ((1, 3), REAL), ((2, 1), POSITIVE)
PROBABILITY = ((2, 3), uniform(0.05, 0.95))


def rows():
    """The distribution cases, or none without scipy."""
    if scipy is None:
        return []
    return [case for row in _location_scale() + _shaped() + _discrete() for case in row]


def _row(name, method, *specs, fn=None):
    from tracer.scipy import stats

    return fixed(f"stats.{name}.{method}", fn or getattr(getattr(stats, name), method), *specs)


def _location_scale():
    """Distributions of ``x``, ``loc`` and ``scale`` alone."""
    positive_x, near_zero = ((2, 3), uniform(0.5, 2.5)), ((1, 3), uniform(-0.5, 0.3))
    unit_x, unit_loc = ((2, 3), uniform(0.1, 1.2)), ((1, 3), uniform(-0.1, 0.0))
    wide = ((2, 1), uniform(1.5, 2.0))
    rows = [_row("norm", "ppf", PROBABILITY, LOC, SCALE)]
    rows += [_row("expon", m, positive_x, near_zero, SCALE) for m in ("logpdf", "logcdf")]
    rows += [_row(d, m, X, LOC, SCALE) for d, methods in (
        ("cauchy", ("logpdf", "cdf", "logsf")), ("logistic", ("logpdf", "logcdf")),
        ("laplace", ("logpdf", "cdf", "logsf")), ("gumbel_r", ("logpdf", "logsf")),
        ("gumbel_l", ("logcdf",))) for m in methods]
    rows += [_row(d, "ppf", PROBABILITY, LOC, SCALE) for d in ("expon", "logistic")]
    rows += [_row("uniform", m, unit_x, unit_loc, wide) for m in ("cdf", "logsf")]
    return rows


def _shaped():
    """Distributions with continuous shape parameters, differentiated where the formula
    allows."""
    from tracer.scipy import stats

    first, second = ((1, 3), uniform(1.5, 3.0)), ((2, 1), uniform(0.5, 1.5))
    rows = [_row("pareto", m, ((2, 3), uniform(2.0, 3.0)), first, second,
                 fn=lambda x, b, s, m=m: getattr(stats.pareto, m)(x, b, 0.0, s))
            for m in ("logpdf", "logcdf")]
    rows += [_row("truncnorm", m, ((2, 3), uniform(-0.8, 0.8)), ((1, 3), uniform(-2.5, -1.5)),
                  ((2, 1), uniform(1.5, 2.5))) for m in ("logpdf", "logcdf", "logsf")]
    rows += [_row("vonmises", "logpdf", X, first, LOC, SCALE),
             _row("wrapcauchy", "logpdf", ((2, 3), uniform(0.5, 3.0)), ((1, 3), uniform(0.1, 0.8)),
                  ((2, 1), uniform(1.0, 1.5)),
                  fn=lambda x, c, s: stats.wrapcauchy.logpdf(x, c, 0.0, s)),
             _row("gennorm", "logpdf", X, first, LOC, SCALE),
             _row("gennorm", "cdf", X, LOC, SCALE,
                  fn=lambda x, loc, s: stats.gennorm.cdf(x, 1.5, loc, s))]
    return rows


def _discrete():
    """Mass and distribution functions in their probabilities and continuous shapes, at
    constant counts."""
    from tracer.scipy import stats

    counts = np.array([[0.0, 2.0, 5.0]])
    rows = [_row("bernoulli", "logpmf", PROBABILITY,
                 fn=lambda p: stats.bernoulli.logpmf(np.array([[0.0, 1.0, 1.0]]), p))]
    rows += [_row("binom", m, PROBABILITY, fn=lambda p, m=m: getattr(stats.binom, m)(counts, 5, p))
             for m in ("logpmf", "cdf")]
    rows += [_row("geom", m, PROBABILITY, fn=lambda p, m=m: getattr(stats.geom, m)(counts + 1, p))
             for m in ("logpmf", "cdf")]
    rows += [_row("nbinom", "logpmf", ((1, 3), uniform(1.5, 3.0)), ((2, 1), uniform(0.2, 0.8)),
                  fn=lambda n, p: stats.nbinom.logpmf(counts, n, p)),
             _row("nbinom", "cdf", PROBABILITY, fn=lambda p: stats.nbinom.cdf(counts, 2.5, p)),
             _row("betabinom", "logpmf", ((1, 3), uniform(1.5, 3.0)), ((2, 1), uniform(1.5, 3.0)),
                  fn=lambda a, b: stats.betabinom.logpmf(counts, 5, a, b)),
             _row("multinomial", "logpmf", ((1, 3), uniform(0.2, 0.6)),
                  fn=lambda p: stats.multinomial.logpmf(np.array([[1.0, 2.0, 0.0],
                                                                  [0.0, 1.0, 2.0]]), 3, p))]
    return rows
