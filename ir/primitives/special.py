"""scipy.special's ufuncs as primitives, with their VJP rules (importing this needs scipy).

Each block is one primitive: the scipy ufunc, its rule, what the rule reads.
Generated code spells them ``scipy.special.<name>(...)``; the ``scipy``
helper each one carries makes the generated module import ``scipy.special``,
so a module imports it only when it calls one of them.  Rules prefer numpy
(``erf' = 2/sqrt(pi) exp(-x**2)``): a gradient then needs scipy only where
its maths does.  Every rule is built from primitives, so it differentiates
again: ``digamma' = polygamma(1, x)``, ``polygamma(n, x)' = polygamma(n + 1, x)``.

Orders (``polygamma``'s and ``yn``'s ``n``, ``jv``/``yv``/``iv``/``ive``'s ``v``) are
integers or fixed parameters of a family of functions: they get no gradient
(``None``).  ``gammasgn`` is piecewise constant: its gradient is zeros, as for
``np.sign``.
``xlogy(0, y)`` and ``xlog1py(0, y)`` are 0, so their derivative in ``x`` is
0 where ``x == 0``, as in TensorFlow.
"""

import inspect
import math

import numpy as np
import scipy.special

from ir.primitive import READS_BOTH, READS_OUT, READS_X, REAL_ONLY, Primitive, call
from ir.primitives.broadcast import unbroadcast
from ir.primitives.elementwise import cosh, equal, exp, log, log1p, sign, where

_IMPORT = {"scipy": "import scipy.special"}
"""The helper that makes a generated module import scipy.special (see codegen.module_text)."""


def _special(name, ufunc, *rules, reads, source=None, helpers=None, **options):
    # (With SCIPY_ARRAY_API=1 scipy wraps each ufunc in a function that dispatches on
    # the arguments' namespace; tensors reach the ufunc itself.)
    prim = Primitive(name, inspect.unwrap(ufunc), elementwise=True, reads=reads,
                     source=source or call(f"scipy.special.{name}"),
                     helpers={**_IMPORT, **(helpers or {})}, **options)
    return prim.defvjp(*rules)


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2
_ONE_OVER_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_READS_X_OUT = {0: (0, "out")}
_READS_ORDER_X = {1: (0, 1)}

# --- error function and the normal distribution -----------------------------

erf = _special("erf", scipy.special.erf,
               lambda g, out, x: g * (_TWO_OVER_SQRT_PI * exp(-(x * x))), reads=READS_X)
erfc = _special("erfc", scipy.special.erfc,
                lambda g, out, x: g * (-_TWO_OVER_SQRT_PI * exp(-(x * x))), reads=READS_X)
erfinv = _special("erfinv", scipy.special.erfinv,
                  lambda g, out, x: g * (_SQRT_PI_OVER_TWO * exp(out * out)), reads=READS_OUT)
# erfcinv(x) = erfinv(1 - x)
erfcinv = _special("erfcinv", scipy.special.erfcinv,
                   lambda g, out, x: g * (-_SQRT_PI_OVER_TWO * exp(out * out)), reads=READS_OUT)
ndtr = _special("ndtr", scipy.special.ndtr,
                lambda g, out, x: g * (_ONE_OVER_SQRT_2PI * exp(-0.5 * (x * x))), reads=READS_X)
# ndtr(x) / exp(log_ndtr(x)) as one exponent: neither underflows for very negative x.
log_ndtr = _special(
    "log_ndtr", scipy.special.log_ndtr,
    lambda g, out, x: g * (_ONE_OVER_SQRT_2PI * exp(-0.5 * (x * x) - out)), reads=_READS_X_OUT)

# --- gamma and beta functions -----------------------------------------------


def _polygamma(n, x):
    """scipy.special.polygamma in the precision of x (scipy's computes in float64)."""
    return scipy.special.polygamma(n, x).astype(np.result_type(x, 1.0))


# scipy's polygamma is a Python function over ufuncs, not a ufunc: eager code
# and generated modules share this one wrapper, which keeps float32 float32.
polygamma = _special(
    "polygamma", _polygamma,
    None,
    lambda g, out, n, x: unbroadcast(g * polygamma(n + 1, x), x),
    reads=_READS_ORDER_X, source="_polygamma({0}, {1})",
    helpers={"_polygamma": inspect.getsource(_polygamma)})
# scipy.special.psi is this same ufunc.
digamma = _special("digamma", scipy.special.digamma,
                   lambda g, out, x: g * polygamma(1, x), reads=READS_X)
gammaln = _special("gammaln", scipy.special.gammaln, lambda g, out, x: g * digamma(x),
                   reads=READS_X)
gamma = _special("gamma", scipy.special.gamma, lambda g, out, x: g * out * digamma(x),
                 reads=_READS_X_OUT)
rgamma = _special("rgamma", scipy.special.rgamma, lambda g, out, x: -(g * out * digamma(x)),
                  reads=_READS_X_OUT)


def _betaln_partial(a, b):
    """d betaln(a, b) / da, and with a and b swapped d / db."""
    return digamma(a) - digamma(a + b)


beta = _special(
    "beta", scipy.special.beta,
    lambda g, out, a, b: unbroadcast(g * out * _betaln_partial(a, b), a),
    lambda g, out, a, b: unbroadcast(g * out * _betaln_partial(b, a), b),
    reads={0: (0, 1, "out"), 1: (0, 1, "out")})
betaln = _special(
    "betaln", scipy.special.betaln,
    lambda g, out, a, b: unbroadcast(g * _betaln_partial(a, b), a),
    lambda g, out, a, b: unbroadcast(g * _betaln_partial(b, a), b), reads=READS_BOTH)

# --- logistic -----------------------------------------------------------------


def _expit_vjp(g, out, x):
    # expit' = 1 / (4 cosh(x/2)**2): numpy alone, and exact in the tails where
    # out * (1 - out) rounds 1 - out.
    cosh_half = cosh(0.5 * x)
    return g * (0.25 / (cosh_half * cosh_half))


expit = _special("expit", scipy.special.expit, _expit_vjp, reads=READS_X)
logit = _special("logit", scipy.special.logit, lambda g, out, x: g / (x * (1 - x)),
                 reads=READS_X)

# --- x log y --------------------------------------------------------------------

xlogy = _special(
    "xlogy", scipy.special.xlogy,
    lambda g, out, x, y: unbroadcast(g * where(equal(x, 0), 0, log(y)), x),
    lambda g, out, x, y: unbroadcast(g * x / y, y), reads=READS_BOTH)
xlog1py = _special(
    "xlog1py", scipy.special.xlog1py,
    lambda g, out, x, y: unbroadcast(g * where(equal(x, 0), 0, log1p(y)), x),
    lambda g, out, x, y: unbroadcast(g * x / (1 + y), y), reads=READS_BOTH)

# --- incomplete gamma and beta functions ------------------------------------------
# Their derivatives in x are densities; in the shape parameters they are series
# tapegen does not have, so asking for them is an error (as in autograd), not a
# missing gradient.


def _no_shape_derivative(name):
    def refuse(g, out, *args):
        raise NotImplementedError(
            f"scipy.special.{name} has a derivative in x alone: tapegen cannot "
            "differentiate it in its shape parameters. Hold them constant "
            "(tracer.stop_gradient) or leave them out of the sources")
    return refuse


gammainc = _special(
    "gammainc", scipy.special.gammainc,
    _no_shape_derivative("gammainc"),
    lambda g, out, a, x: unbroadcast(g * _gamma_density(a, x), x),
    reads=_READS_ORDER_X, complex_rules=REAL_ONLY)
gammaincc = _special(
    "gammaincc", scipy.special.gammaincc,
    _no_shape_derivative("gammaincc"),
    lambda g, out, a, x: unbroadcast(-(g * _gamma_density(a, x)), x),
    reads=_READS_ORDER_X, complex_rules=REAL_ONLY)
betainc = _special(
    "betainc", scipy.special.betainc,
    _no_shape_derivative("betainc"), _no_shape_derivative("betainc"),
    lambda g, out, a, b, x: unbroadcast(
        g * exp(xlogy(a - 1, x) + xlog1py(b - 1, -x) - betaln(a, b)), x),
    reads={2: (0, 1, 2)}, complex_rules=REAL_ONLY)


gammasgn = _special("gammasgn", scipy.special.gammasgn, reads={},
                    no_gradient="is piecewise constant", complex_rules=REAL_ONLY)


def _gamma_density(a, x):
    """``x**(a - 1) exp(-x) / gamma(a)``, the derivative of ``gammainc(a, x)`` in ``x``."""
    return exp(xlogy(a - 1, x) - x - gammaln(a))


# --- Bessel functions -----------------------------------------------------------
# i0e(x) = exp(-|x|) I0(x) and i1e(x) = exp(-|x|) I1(x): the product rule adds
# -sign(x) times the function; I1' = I0 - I1/x is 1/2 at x = 0.

i0e = _special("i0e", scipy.special.i0e, lambda g, out, x: g * (i1e(x) - sign(x) * out),
               reads=_READS_X_OUT, complex_rules=REAL_ONLY)
i1e = _special(
    "i1e", scipy.special.i1e,
    lambda g, out, x: g * where(equal(x, 0), 0.5,
                                i0e(x) - out / where(equal(x, 0), 1, x) - sign(x) * out),
    reads=_READS_X_OUT, complex_rules=REAL_ONLY)
# jv' = (jv(v-1) - jv(v+1)) / 2 and iv' = (iv(v-1) + iv(v+1)) / 2 hold at x = 0
# too, where j1' = j0 - j1/x would divide 0 by 0.  scipy.special.i0 and i1 are
# the elementwise primitives i0 and i1 (numpy has i0): tracer/numpy_special.py.

jv = _special(
    "jv", scipy.special.jv,
    None,
    lambda g, out, v, x: unbroadcast(g * (0.5 * (jv(v - 1, x) - jv(v + 1, x))), x),
    reads=_READS_ORDER_X)
j0 = _special("j0", scipy.special.j0, lambda g, out, x: -(g * j1(x)), reads=READS_X)
j1 = _special("j1", scipy.special.j1, lambda g, out, x: g * (0.5 * (j0(x) - jv(2, x))),
              reads=READS_X)
y0 = _special("y0", scipy.special.y0, lambda g, out, x: -(g * y1(x)), reads=READS_X)
y1 = _special("y1", scipy.special.y1, lambda g, out, x: g * (y0(x) - out / x),
              reads=_READS_X_OUT)
# yn(-n, x) = (-1)^n yn(n, x) makes yn' = (yn(n-1) - yn(n+1)) / 2 hold at n = 0 too.
yn = _special(
    "yn", scipy.special.yn,
    None,
    lambda g, out, n, x: unbroadcast(g * (0.5 * (yn(n - 1, x) - yn(n + 1, x))), x),
    reads=_READS_ORDER_X, complex_rules=REAL_ONLY)
yv = _special(
    "yv", scipy.special.yv,
    None,
    lambda g, out, v, x: unbroadcast(g * (0.5 * (yv(v - 1, x) - yv(v + 1, x))), x),
    reads=_READS_ORDER_X)
iv = _special(
    "iv", scipy.special.iv,
    None,
    lambda g, out, v, x: unbroadcast(g * (0.5 * (iv(v - 1, x) + iv(v + 1, x))), x),
    reads=_READS_ORDER_X)
# ive(v, x) = iv(v, x) exp(-|x|): the product rule brings in -sign(x) ive(v, x).
# For complex x the factor is exp(-|Re x|), which is not holomorphic.
ive = _special(
    "ive", scipy.special.ive,
    None,
    lambda g, out, v, x: unbroadcast(
        g * (0.5 * (ive(v - 1, x) + ive(v + 1, x)) - sign(x) * out), x),
    reads={1: (0, 1, "out")}, complex_rules=REAL_ONLY)
