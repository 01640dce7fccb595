"""scipy.special's ufuncs as primitives, with their VJP rules (importing this needs scipy).

Each block is one primitive: the scipy ufunc, its rule, what the rule reads.
Generated code spells them ``scipy.special.<name>(...)``; the ``scipy``
helper each one carries makes the generated module import ``scipy.special``,
so a module imports it only when it calls one of them.  Rules prefer numpy
(``erf' = 2/sqrt(pi) exp(-x**2)``): a gradient then needs scipy only where
its maths does.  Every rule is built from primitives, so it differentiates
again: ``digamma' = polygamma(1, x)``, ``polygamma(n, x)' = polygamma(n + 1, x)``.

Orders (``polygamma``'s, ``yn``'s and ``expn``'s ``n``, ``jv``/``yv``/``iv``/``ive``'s ``v``)
are integers or fixed parameters of a family of functions: they get no gradient
(``None``).  ``zeta(x, q)`` is differentiated in ``q`` alone: its derivative in ``x``
is refused, as are the incomplete gamma and beta functions' in their shape parameters.
``gammasgn`` is piecewise constant: its gradient is zeros, as for ``np.sign``.
``xlogy(0, y)`` and ``xlog1py(0, y)`` are 0, so their derivative in ``x`` is
0 where ``x == 0``, as in TensorFlow.
"""

import inspect
import math

import numpy as np
import scipy.special

from ir.primitive import (READS_BOTH, READS_OUT, READS_X, REAL_ONLY, Primitive, call,
                          not_in_the_standard)
from ir.primitives.broadcast import unbroadcast
from ir.primitives.elementwise import (absolute, cosh, equal, exp, less, log, log1p, maximum,
                                      power, sign, where)

_IMPORT = {"scipy": "import scipy.special"}
"""The helper that makes a generated module import scipy.special (see codegen.module_text)."""


_ONLY_ON_NUMPY = ("scipy.special does not compute it in every namespace (under jax.jit it "
                  "would turn the arrays into numpy's)")


def _special(name, ufunc, *, reads, source=None, helpers=None, in_every_namespace=True,
             **options):
    """The primitive of ``scipy.special.<name>``.  With SCIPY_ARRAY_API=1 scipy computes
    most of its functions in the arguments' namespace, on every library it supports
    (``jax.jit`` included), so the array-API target calls them as numpy's does; one that
    scipy computes with numpy alone (not ``in_every_namespace``) is refused there."""
    # (scipy wraps each ufunc in a function that dispatches on the arguments'
    # namespace; tensors reach the ufunc itself.)
    def numpy_alone(params, shapes):
        raise not_in_the_standard(f"scipy.special.{name}", _ONLY_ON_NUMPY)

    return Primitive(name, inspect.unwrap(ufunc), elementwise=True, reads=reads,
                     source=source or call(f"scipy.special.{name}"),
                     array_api=None if in_every_namespace else numpy_alone,
                     helpers={**_IMPORT, **(helpers or {})}, **options)


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2
_ONE_OVER_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)
_SQRT_HALF = math.sqrt(0.5)
_READS_X_OUT = {0: (0, "out")}
_READS_ORDER_X = {1: (0, 1)}

# --- error function and the normal distribution -----------------------------

erf = _special("erf", scipy.special.erf,
               vjps=(lambda g, out, x: g * (_TWO_OVER_SQRT_PI * exp(-(x * x))),), reads=READS_X)
erfc = _special("erfc", scipy.special.erfc,
                vjps=(lambda g, out, x: g * (-_TWO_OVER_SQRT_PI * exp(-(x * x))),), reads=READS_X)
erfinv = _special("erfinv", scipy.special.erfinv,
                  vjps=(lambda g, out, x: g * (_SQRT_PI_OVER_TWO * exp(out * out)),),
                  reads=READS_OUT)
# erfcinv(x) = erfinv(1 - x)
erfcinv = _special("erfcinv", scipy.special.erfcinv,
                   vjps=(lambda g, out, x: g * (-_SQRT_PI_OVER_TWO * exp(out * out)),),
                   reads=READS_OUT,
                   in_every_namespace=False)
ndtr = _special("ndtr", scipy.special.ndtr,
                vjps=(lambda g, out, x: g * (_ONE_OVER_SQRT_2PI * exp(-0.5 * (x * x))),),
                reads=READS_X)
# ndtri' = 1 / ndtr'(out)
ndtri = _special("ndtri", scipy.special.ndtri,
                 vjps=(lambda g, out, x: g * (_SQRT_2PI * exp(0.5 * (out * out))),),
                 reads=READS_OUT)
# ndtr(x) / exp(log_ndtr(x)) as one exponent: neither underflows for very negative x.
log_ndtr = _special(
    "log_ndtr", scipy.special.log_ndtr,
    vjps=(lambda g, out, x: g * (_ONE_OVER_SQRT_2PI * exp(-0.5 * (x * x) - out)),),
    reads=_READS_X_OUT)

# erfcx(x) = exp(x**2) erfc(x): erfcx' = 2 x erfcx - 2/sqrt(pi).  Dawson's integral
# F(x) = exp(-x**2) int_0^x exp(t**2) dt: F' = 1 - 2 x F.
erfcx = _special("erfcx", scipy.special.erfcx,
                 vjps=(lambda g, out, x: g * (2 * x * out - _TWO_OVER_SQRT_PI),),
                 reads=_READS_X_OUT)
dawsn = _special("dawsn", scipy.special.dawsn, vjps=(lambda g, out, x: g * (1 - 2 * x * out),),
                 reads=_READS_X_OUT, in_every_namespace=False)
# Owen's T(h, a) = 1/(2 pi) int_0^a exp(-h**2 (1 + t**2) / 2) / (1 + t**2) dt:
# dT/dh = -exp(-h**2/2) erf(a h / sqrt(2)) / (2 sqrt(2 pi)), dT/da is the integrand at a.
owens_t = _special(
    "owens_t", scipy.special.owens_t,
    vjps=(lambda g, out, h, a: unbroadcast(
              g * (-0.5 * _ONE_OVER_SQRT_2PI) * exp(-0.5 * (h * h)) * erf(_SQRT_HALF * a * h), h),
          lambda g, out, h, a: unbroadcast(
              g * exp(-0.5 * (h * h) * (1 + a * a)) / (2 * math.pi * (1 + a * a)), a)),
    reads=READS_BOTH, in_every_namespace=False)

# --- gamma and beta functions -----------------------------------------------


def _polygamma(n, x):
    """scipy.special.polygamma in the precision of x (scipy's computes in float64)."""
    return scipy.special.polygamma(n, x).astype(np.result_type(x, 1.0))


# scipy's polygamma is a Python function over ufuncs, not a ufunc: eager code
# and generated modules share this one wrapper, which keeps float32 float32.
polygamma = _special(
    "polygamma", _polygamma,
    vjps=(None,
          lambda g, out, n, x: unbroadcast(g * polygamma(n + 1, x), x)),
    reads=_READS_ORDER_X, source="_polygamma({0}, {1})",
    helpers={"_polygamma": inspect.getsource(_polygamma)})
# scipy.special.psi is this same ufunc.
# scipy's polygamma is real only, so digamma's derivative is too (loggamma's, digamma,
# holds for complex values).
digamma = _special("digamma", scipy.special.digamma,
                   vjps=(lambda g, out, x: g * polygamma(1, x),),
                   reads=READS_X, complex_rules=REAL_ONLY)
gammaln = _special("gammaln", scipy.special.gammaln, vjps=(lambda g, out, x: g * digamma(x),),
                   reads=READS_X)
gamma = _special("gamma", scipy.special.gamma, vjps=(lambda g, out, x: g * out * digamma(x),),
                 reads=_READS_X_OUT)
rgamma = _special("rgamma", scipy.special.rgamma, vjps=(lambda g, out, x: -(g * out * digamma(x)),),
                  reads=_READS_X_OUT, in_every_namespace=False)
# The principal branch of log gamma, holomorphic off the negative real axis.
loggamma = _special("loggamma", scipy.special.loggamma, vjps=(lambda g, out, x: g * digamma(x),),
                    reads=READS_X)
# poch(z, m) = gamma(z + m) / gamma(z)
poch = _special(
    "poch", scipy.special.poch,
    vjps=(lambda g, out, z, m: unbroadcast(g * out * (digamma(z + m) - digamma(z)), z),
          lambda g, out, z, m: unbroadcast(g * out * digamma(z + m), m)),
    reads={0: (0, 1, "out"), 1: (0, 1, "out")})


def _betaln_partial(a, b):
    """d betaln(a, b) / da, and with a and b swapped d / db."""
    return digamma(a) - digamma(a + b)


beta = _special(
    "beta", scipy.special.beta,
    vjps=(lambda g, out, a, b: unbroadcast(g * out * _betaln_partial(a, b), a),
          lambda g, out, a, b: unbroadcast(g * out * _betaln_partial(b, a), b)),
    reads={0: (0, 1, "out"), 1: (0, 1, "out")}, in_every_namespace=False)
betaln = _special(
    "betaln", scipy.special.betaln,
    vjps=(lambda g, out, a, b: unbroadcast(g * _betaln_partial(a, b), a),
          lambda g, out, a, b: unbroadcast(g * _betaln_partial(b, a), b)), reads=READS_BOTH)

# --- logistic -----------------------------------------------------------------


def _expit_vjp(g, out, x):
    # expit' = 1 / (4 cosh(x/2)**2): numpy alone, and exact in the tails where
    # out * (1 - out) rounds 1 - out.
    cosh_half = cosh(0.5 * x)
    return g * (0.25 / (cosh_half * cosh_half))


expit = _special("expit", scipy.special.expit, vjps=(_expit_vjp,), reads=READS_X)
logit = _special("logit", scipy.special.logit, vjps=(lambda g, out, x: g / (x * (1 - x)),),
                 reads=READS_X)

# --- x log y and entropies -------------------------------------------------------

xlogy = _special(
    "xlogy", scipy.special.xlogy,
    vjps=(lambda g, out, x, y: unbroadcast(g * where(equal(x, 0), 0, log(y)), x),
          lambda g, out, x, y: unbroadcast(g * x / y, y)), reads=READS_BOTH)
xlog1py = _special(
    "xlog1py", scipy.special.xlog1py,
    vjps=(lambda g, out, x, y: unbroadcast(g * where(equal(x, 0), 0, log1p(y)), x),
          lambda g, out, x, y: unbroadcast(g * x / (1 + y), y)), reads=READS_BOTH)
# entr(x) = -x log x.  kl_div(x, y) = x log(x / y) - x + y is y where x = 0: there its
# derivative in x is taken as -1, as rel_entr's 0 gives (and as in JAX); the log is then
# taken at x = y, so that it stays finite.
entr = _special("entr", scipy.special.entr,
                vjps=(lambda g, out, x: -(g * (log(x) + 1)),), reads=READS_X)


def _kl_div_vjp_x(g, out, x, y):
    zero = equal(x, 0)
    return unbroadcast(g * where(zero, -1, log(where(zero, y, x) / y)), x)


kl_div = _special(
    "kl_div", scipy.special.kl_div,
    vjps=(_kl_div_vjp_x,
          lambda g, out, x, y: unbroadcast(g * (1 - x / y), y)), reads=READS_BOTH)

# --- incomplete gamma and beta functions ------------------------------------------
# Their derivatives in x are densities; in the shape parameters they are series
# tapegen does not have, so asking for them is an error (as in autograd), not a
# missing gradient.


def _no_shape_derivative(name, refused="its shape parameters", given="x"):
    def refuse(g, out, *args):
        raise NotImplementedError(
            f"scipy.special.{name} has a derivative in {given} alone: tapegen cannot "
            f"differentiate it in {refused}. Hold {refused} constant "
            "(tracer.stop_gradient) or out of the sources")
    return refuse


gammainc = _special(
    "gammainc", scipy.special.gammainc,
    vjps=(_no_shape_derivative("gammainc"),
          lambda g, out, a, x: unbroadcast(g * _gamma_density(a, x), x)),
    reads=_READS_ORDER_X, complex_rules=REAL_ONLY)
gammaincc = _special(
    "gammaincc", scipy.special.gammaincc,
    vjps=(_no_shape_derivative("gammaincc"),
          lambda g, out, a, x: unbroadcast(-(g * _gamma_density(a, x)), x)),
    reads=_READS_ORDER_X, complex_rules=REAL_ONLY)
betainc = _special(
    "betainc", scipy.special.betainc,
    vjps=(_no_shape_derivative("betainc"), _no_shape_derivative("betainc"),
          lambda g, out, a, b, x: unbroadcast(
              g * exp(xlogy(a - 1, x) + xlog1py(b - 1, -x) - betaln(a, b)), x)),
    reads={2: (0, 1, 2)}, complex_rules=REAL_ONLY)


# The Hurwitz zeta function: d/dq zeta(x, q) = -x zeta(x + 1, q).  (scipy.special.zeta
# is a Python function; zeta(x, q) calls this ufunc.)
zeta = _special(
    "zeta", scipy.special._ufuncs._zeta,
    vjps=(_no_shape_derivative("zeta", refused="x", given="q"),
          lambda g, out, x, q: unbroadcast(-(g * x * zeta(x + 1, q)), q)),
    reads={1: (0, 1)}, source=call("scipy.special.zeta"), complex_rules=REAL_ONLY)

gammasgn = _special("gammasgn", scipy.special.gammasgn, reads={},
                    no_gradient="is piecewise constant", complex_rules=REAL_ONLY)


def _gamma_density(a, x):
    """``x**(a - 1) exp(-x) / gamma(a)``, the derivative of ``gammainc(a, x)`` in ``x``."""
    return exp(xlogy(a - 1, x) - x - gammaln(a))


# --- Bessel functions -----------------------------------------------------------
# i0e(x) = exp(-|x|) I0(x) and i1e(x) = exp(-|x|) I1(x): the product rule adds
# -sign(x) times the function; I1' = I0 - I1/x is 1/2 at x = 0.

i0e = _special("i0e", scipy.special.i0e, vjps=(lambda g, out, x: g * (i1e(x) - sign(x) * out),),
               reads=_READS_X_OUT, complex_rules=REAL_ONLY)
i1e = _special(
    "i1e", scipy.special.i1e,
    vjps=(lambda g, out, x: g * where(equal(x, 0), 0.5,
                                      i0e(x) - out / where(equal(x, 0), 1, x) - sign(x) * out),),
    reads=_READS_X_OUT, complex_rules=REAL_ONLY)
# jv' = (jv(v-1) - jv(v+1)) / 2 and iv' = (iv(v-1) + iv(v+1)) / 2 hold at x = 0
# too, where j1' = j0 - j1/x would divide 0 by 0.  scipy.special.i0 and i1 are
# the elementwise primitives i0 and i1 (numpy has i0): tracer/numpy/scipy_ufuncs.py.

jv = _special(
    "jv", scipy.special.jv,
    vjps=(None,
          lambda g, out, v, x: unbroadcast(g * (0.5 * (jv(v - 1, x) - jv(v + 1, x))), x)),
    reads=_READS_ORDER_X, in_every_namespace=False)
j0 = _special("j0", scipy.special.j0, vjps=(lambda g, out, x: -(g * j1(x)),), reads=READS_X,
              in_every_namespace=False)
j1 = _special("j1", scipy.special.j1, vjps=(lambda g, out, x: g * (0.5 * (j0(x) - jv(2, x))),),
              reads=READS_X, in_every_namespace=False)
y0 = _special("y0", scipy.special.y0, vjps=(lambda g, out, x: -(g * y1(x)),), reads=READS_X,
              in_every_namespace=False)
y1 = _special("y1", scipy.special.y1, vjps=(lambda g, out, x: g * (y0(x) - out / x),),
              reads=_READS_X_OUT, in_every_namespace=False)
# yn(-n, x) = (-1)^n yn(n, x) makes yn' = (yn(n-1) - yn(n+1)) / 2 hold at n = 0 too.
yn = _special(
    "yn", scipy.special.yn,
    vjps=(None,
          lambda g, out, n, x: unbroadcast(g * (0.5 * (yn(n - 1, x) - yn(n + 1, x))), x)),
    reads=_READS_ORDER_X, complex_rules=REAL_ONLY, in_every_namespace=False)
yv = _special(
    "yv", scipy.special.yv,
    vjps=(None,
          lambda g, out, v, x: unbroadcast(g * (0.5 * (yv(v - 1, x) - yv(v + 1, x))), x)),
    reads=_READS_ORDER_X, in_every_namespace=False)
iv = _special(
    "iv", scipy.special.iv,
    vjps=(None,
          lambda g, out, v, x: unbroadcast(g * (0.5 * (iv(v - 1, x) + iv(v + 1, x))), x)),
    reads=_READS_ORDER_X, in_every_namespace=False)
# ive(v, x) = iv(v, x) exp(-|x|): the product rule brings in -sign(x) ive(v, x).
# For complex x the factor is exp(-|Re x|), which is not holomorphic.
ive = _special(
    "ive", scipy.special.ive,
    vjps=(None,
          lambda g, out, v, x: unbroadcast(
              g * (0.5 * (ive(v - 1, x) + ive(v + 1, x)) - sign(x) * out), x)),
    reads={1: (0, 1, "out")}, complex_rules=REAL_ONLY, in_every_namespace=False)

# --- exponential integrals and the dilogarithm --------------------------------------------
# Ei' = exp(x)/x, E1' = -exp(-x)/x, and E_n' = -E_{n-1} for n >= 1 (n is an integer
# order); E_0 = exp(-x)/x has E_0' = -E_0 (1 + 1/x).

expi = _special("expi", scipy.special.expi, vjps=(lambda g, out, x: g * exp(x) / x,), reads=READS_X)
exp1 = _special("exp1", scipy.special.exp1, vjps=(lambda g, out, x: -(g * exp(-x) / x),),
                reads=READS_X)
expn = _special(
    "expn", scipy.special.expn,
    vjps=(None,
          lambda g, out, n, x: unbroadcast(-(g * where(
              equal(n, 0), out * (1 + 1 / x), expn(maximum(n, 1) - 1, x))), x)),
    reads={1: (0, 1, "out")}, complex_rules=REAL_ONLY)


def _series(t, coefficients):
    """``sum(c_k t**k)``, by Horner's rule."""
    total = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        total = c + t * total
    return total


# Near 0 the closed forms below for spence', d/dl boxcox and d/dl inv_boxcox divide a
# cancelling difference by t or t**2: for |t| < 0.01 their Taylor series take over, with
# terms enough that those left out are below rounding to second order.
_NEAR = 0.01
# spence(x) = int_1^x log(t) / (1 - t) dt: spence' = log(x) / (1 - x) = -log1p(u) / u
# with u = x - 1, -1 + u/2 - u**2/3 + ... near u = 0.
_SPENCE_SERIES = [(-1) ** (k + 1) / (k + 1) for k in range(8)]


def _spence_vjp(g, out, x):
    u = x - 1
    near = less(absolute(u), _NEAR)
    return g * where(near, _series(u, _SPENCE_SERIES), log(x) / -where(near, 1, u))


spence = _special("spence", scipy.special.spence, vjps=(_spence_vjp,), reads=READS_X)

# --- Box-Cox transformations ----------------------------------------------------------------
# boxcox(x, l) = (x**l - 1) / l, log(x) at l = 0; boxcox1p(x, l) = boxcox(1 + x, l).
# d/dx = x**(l - 1); with L = log(x) and t = l L, d/dl = (x**l L - out) / l
# = L**2 (t e**t - e**t + 1) / t**2, whose series is L**2 sum((k + 1) t**k / (k + 2)!).
_BOXCOX_SERIES = [(k + 1) / math.factorial(k + 2) for k in range(6)]


def _boxcox_vjp_lmbda(g, out, base, log_base, lmbda):
    t = lmbda * log_base
    near = less(absolute(t), _NEAR)
    away = (power(base, lmbda) * log_base - out) / where(near, 1, lmbda)
    series = log_base * log_base * _series(t, _BOXCOX_SERIES)
    return unbroadcast(g * where(near, series, away), lmbda)


boxcox = _special(
    "boxcox", scipy.special.boxcox,
    vjps=(lambda g, out, x, lmbda: unbroadcast(g * power(x, lmbda - 1), x),
          lambda g, out, x, lmbda: _boxcox_vjp_lmbda(g, out, x, log(x), lmbda)),
    reads={0: (0, 1), 1: (0, 1, "out")}, complex_rules=REAL_ONLY)
boxcox1p = _special(
    "boxcox1p", scipy.special.boxcox1p,
    vjps=(lambda g, out, x, lmbda: unbroadcast(g * power(1 + x, lmbda - 1), x),
          lambda g, out, x, lmbda: _boxcox_vjp_lmbda(g, out, 1 + x, log1p(x), lmbda)),
    reads={0: (0, 1), 1: (0, 1, "out")}, complex_rules=REAL_ONLY)
# inv_boxcox(y, l) = (1 + l y)**(1/l), exp(y) at l = 0; inv_boxcox1p = inv_boxcox - 1.
# With b = 1 + inv_boxcox1p and s = l y: d/dy = b**(1 - l); d/dl = b (y / (1 + s) - log b) / l
# = b y**2 (s / (1 + s) - log1p(s)) / s**2, whose series is
# b y**2 sum((-1)**(k + 1) (k + 1) s**k / (k + 2)).
_INV_BOXCOX_SERIES = [(-1) ** (k + 1) * (k + 1) / (k + 2) for k in range(8)]


def _inv_boxcox_vjp_lmbda(g, base, log_base, y, lmbda):
    s = lmbda * y
    near = less(absolute(s), _NEAR)
    away = (y / (1 + s) - log_base) / where(near, 1, lmbda)
    series = y * y * _series(s, _INV_BOXCOX_SERIES)
    return unbroadcast(g * base * where(near, series, away), lmbda)


inv_boxcox = _special(
    "inv_boxcox", scipy.special.inv_boxcox,
    vjps=(lambda g, out, y, lmbda: unbroadcast(g * power(out, 1 - lmbda), y),
          lambda g, out, y, lmbda: _inv_boxcox_vjp_lmbda(g, out, log(out), y, lmbda)),
    reads={0: (1, "out"), 1: (0, 1, "out")}, complex_rules=REAL_ONLY, in_every_namespace=False)
inv_boxcox1p = _special(
    "inv_boxcox1p", scipy.special.inv_boxcox1p,
    vjps=(lambda g, out, y, lmbda: unbroadcast(g * power(1 + out, 1 - lmbda), y),
          lambda g, out, y, lmbda: _inv_boxcox_vjp_lmbda(g, 1 + out, log1p(out), y, lmbda)),
    reads={0: (1, "out"), 1: (0, 1, "out")}, complex_rules=REAL_ONLY, in_every_namespace=False)
