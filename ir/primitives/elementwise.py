"""Elementwise primitives: numpy ufuncs and ``where``/``clip``, with their VJP rules.

Each block is one primitive: implementation, then its rule, then the numpy
function computing it that is not a ufunc, bound to it (``np.clip``,
``np.round``, ``np.fix``, ``np.sinc``, ``np.i0``, ``np.real``, ``np.imag``,
``np.angle``).  ``tracer`` reads the ufuncs
off the primitives, and handles ``np.where`` (its one-argument form runs on
plain values).  Rules read like the maths; ``unbroadcast`` sums a cotangent
back to a broadcast operand.
Conventions at non-differentiable points follow TensorFlow: ``abs'(0) = 0``,
``maximum``/``minimum`` send a tie's whole gradient to the first argument,
``clip`` bounds are inclusive.

Complex values: most rules are written as for real numbers, which for
holomorphic functions is all ``ir.backward`` needs (see ``HOLOMORPHIC``);
sums and selections take either form of a cotangent (``REAL_LINEAR``).
``real``, ``imag``, ``conjugate``, ``angle`` and ``absolute`` are not
holomorphic; their rules give TensorFlow's cotangent directly (``AS_WRITTEN``).
Functions that order their arguments refuse complex values (``REAL_ONLY``).
"""

import inspect
import math

import numpy as np

from ir.bindings import COMPLEX_AND_FFT, binds, no_extras
from ir.primitive import (AS_WRITTEN, LINEAR, MULTILINEAR, READS_BOTH, READS_NOTHING,
                          READS_OTHER, READS_OUT, READS_X, REAL_LINEAR, REAL_ONLY, Primitive, call,
                          is_complex)
from ir.primitives.broadcast import unbroadcast


def _elementwise(name, impl, *rules, **facts):
    return Primitive(name, impl, vjps=rules, elementwise=True, **facts)


# --- arithmetic -------------------------------------------------------------

add = _elementwise(
    "add", np.add,
    lambda g, out, x, y: unbroadcast(g, x),
    lambda g, out, x, y: unbroadcast(g, y), reads=READS_NOTHING, source="{0} + {1}",
    complex_rules=REAL_LINEAR, linearity=LINEAR, commutative=True, units=((0, 0), (1, 0)))
subtract = _elementwise(
    "subtract", np.subtract,
    lambda g, out, x, y: unbroadcast(g, x),
    lambda g, out, x, y: unbroadcast(negative(g), y), reads=READS_NOTHING, source="{0} - {1}",
    complex_rules=REAL_LINEAR, linearity=LINEAR, units=((0, 0),), value_name="sub")
multiply = _elementwise(
    "multiply", np.multiply,
    lambda g, out, x, y: unbroadcast(g * y, x),
    lambda g, out, x, y: unbroadcast(g * x, y), reads=READS_OTHER, source="{0} * {1}",
    linearity=MULTILINEAR, commutative=True, units=((0, 1), (1, 1)), value_name="mul")
divide = _elementwise(
    "divide", np.divide,
    lambda g, out, x, y: unbroadcast(g / y, x),
    lambda g, out, x, y: unbroadcast(negative(g) * x / (y * y), y), reads={0: (1,), 1: (0, 1)},
    source="{0} / {1}", units=((0, 1),), value_name="div")
negative = _elementwise("negative", np.negative, lambda g, out, x: negative(g),
    reads=READS_NOTHING, source="-{0}", complex_rules=REAL_LINEAR, linearity=LINEAR,
    value_name="neg")
positive = _elementwise("positive", np.positive, lambda g, out, x: g, reads=READS_NOTHING,
    source="{0}", complex_rules=REAL_LINEAR, linearity=LINEAR)


def _power_vjp_x(g, out, x, p):
    # p * x**(p - 1) is 0 * inf = nan where x = p = 0, though x**0 is constant:
    # there the base becomes 1.  So x**2 stays differentiable at 0 to every
    # order (x**2 -> 2 * x**1 -> 2 * 1 * x**0 -> 0).
    if isinstance(p, (int, float)):
        base = x if p != 0 else where(equal(x, 0), 1, x)
    else:
        base = where(logical_and(equal(x, 0), equal(p, 0)), 1, x)
    return unbroadcast(g * (p * power(base, p - 1)), x)


def _power_vjp_p(g, out, x, p):
    # d/dp x**p = x**p log x, taken as 0 where x <= 0 (TensorFlow's convention);
    # for complex x, where x = 0.
    has_log = not_equal(x, 0) if is_complex(x) else greater(x, 0)
    return unbroadcast(g * out * log(where(has_log, x, 1)), p)


_POWER_READS = {0: (0, 1), 1: (0, "out")}
power = _elementwise("power", np.power, _power_vjp_x, _power_vjp_p, reads=_POWER_READS,
    source="{0} ** {1}", units=((0, 1),))
# The same function computed in (at least) float64, as numpy's float_power is.
float_power = _elementwise("float_power", np.float_power, _power_vjp_x, _power_vjp_p,
                           reads=_POWER_READS, array_api="_float_power({0}, {1})")
square = _elementwise("square", np.square, lambda g, out, x: g * (2 * x), reads=READS_X)
sqrt = _elementwise("sqrt", np.sqrt, lambda g, out, x: g / (2 * out), reads=READS_OUT)
# The standard has no cube root: the real one is sign(x) |x|**(1/3).
cbrt = _elementwise("cbrt", np.cbrt, lambda g, out, x: g / (3 * (out * out)), reads=READS_OUT,
                    array_api="xp.sign({0}) * xp.abs({0}) ** (1 / 3)")
reciprocal = _elementwise("reciprocal", np.reciprocal, lambda g, out, x: negative(g) * (out * out),
    reads=READS_OUT)
remainder = _elementwise(
    "remainder", np.remainder,
    lambda g, out, x, y: unbroadcast(g, x),
    lambda g, out, x, y: unbroadcast(negative(g) * floor_divide(x, y), y), reads={1: (0, 1)},
    source="{0} % {1}", complex_rules=REAL_ONLY)
floor_divide = _elementwise("floor_divide", np.floor_divide,
                            no_gradient="is piecewise constant", source="{0} // {1}")

# --- exponentials and logarithms --------------------------------------------

exp = _elementwise("exp", np.exp, lambda g, out, x: g * out, reads=READS_OUT)
exp2 = _elementwise("exp2", np.exp2, lambda g, out, x: g * out * math.log(2.0), reads=READS_OUT,
                    array_api="2.0 ** {0}")
expm1 = _elementwise("expm1", np.expm1, lambda g, out, x: g * (out + 1), reads=READS_OUT)
log = _elementwise("log", np.log, lambda g, out, x: g / x, reads=READS_X)
log2 = _elementwise("log2", np.log2, lambda g, out, x: g / (x * math.log(2.0)), reads=READS_X)
log10 = _elementwise("log10", np.log10, lambda g, out, x: g / (x * math.log(10.0)), reads=READS_X)
log1p = _elementwise("log1p", np.log1p, lambda g, out, x: g / (x + 1), reads=READS_X)
logaddexp = _elementwise(
    "logaddexp", np.logaddexp,
    lambda g, out, x, y: unbroadcast(g * exp(x - out), x),
    lambda g, out, x, y: unbroadcast(g * exp(y - out), y), reads={0: (0, "out"), 1: (1, "out")})
logaddexp2 = _elementwise(
    "logaddexp2", np.logaddexp2,
    lambda g, out, x, y: unbroadcast(g * exp2(x - out), x),
    lambda g, out, x, y: unbroadcast(g * exp2(y - out), y), reads={0: (0, "out"), 1: (1, "out")},
    array_api="xp.logaddexp({0} * math.log(2), {1} * math.log(2)) / math.log(2)")

# --- trigonometric and hyperbolic -------------------------------------------

sin = _elementwise("sin", np.sin, lambda g, out, x: g * cos(x), reads=READS_X)
cos = _elementwise("cos", np.cos, lambda g, out, x: negative(g) * sin(x), reads=READS_X)
tan = _elementwise("tan", np.tan, lambda g, out, x: g * (1 + out * out), reads=READS_OUT)
arcsin = _elementwise("arcsin", np.arcsin, lambda g, out, x: g / sqrt(1 - x * x), reads=READS_X,
                      array_api="xp.asin({0})")
arccos = _elementwise("arccos", np.arccos, lambda g, out, x: negative(g) / sqrt(1 - x * x),
    reads=READS_X, array_api="xp.acos({0})")
arctan = _elementwise("arctan", np.arctan, lambda g, out, x: g / (1 + x * x), reads=READS_X,
                      array_api="xp.atan({0})")
arctan2 = _elementwise(
    "arctan2", np.arctan2,
    lambda g, out, y, x: unbroadcast(g * x / (x * x + y * y), y),
    lambda g, out, y, x: unbroadcast(negative(g) * y / (x * x + y * y), x), reads=READS_BOTH,
    array_api="xp.atan2({0}, {1})")
hypot = _elementwise(
    "hypot", np.hypot,
    lambda g, out, x, y: unbroadcast(g * x / out, x),
    lambda g, out, x, y: unbroadcast(g * y / out, y), reads={0: (0, "out"), 1: (1, "out")})
sinh = _elementwise("sinh", np.sinh, lambda g, out, x: g * cosh(x), reads=READS_X)
cosh = _elementwise("cosh", np.cosh, lambda g, out, x: g * sinh(x), reads=READS_X)
tanh = _elementwise("tanh", np.tanh, lambda g, out, x: g * (1 - out * out), reads=READS_OUT)
arcsinh = _elementwise("arcsinh", np.arcsinh, lambda g, out, x: g / sqrt(x * x + 1), reads=READS_X,
                       array_api="xp.asinh({0})")


def _arccosh_vjp(g, out, x):
    # sqrt(x*x - 1) has the wrong sign for complex x left of the imaginary axis.
    if is_complex(x):
        return g / (sqrt(x - 1) * sqrt(x + 1))
    return g / sqrt(x * x - 1)


arccosh = _elementwise("arccosh", np.arccosh, _arccosh_vjp, reads=READS_X,
                       array_api="xp.acosh({0})")
arctanh = _elementwise("arctanh", np.arctanh, lambda g, out, x: g / (1 - x * x), reads=READS_X,
                       array_api="xp.atanh({0})")
deg2rad = _elementwise("deg2rad", np.deg2rad, lambda g, out, x: g * (math.pi / 180),
    reads=READS_NOTHING, complex_rules=REAL_LINEAR)
rad2deg = _elementwise("rad2deg", np.rad2deg, lambda g, out, x: g * (180 / math.pi),
    reads=READS_NOTHING, complex_rules=REAL_LINEAR)


_SINC_SERIES_BELOW = 0.3
"""Below this ``|pi x|`` sinc's derivative comes from its Taylor series: there the
closed form cancels, and at 0 it is 0/0."""
_SINC_SERIES = (1 / 518918400, -1 / 3991680, 1 / 45360, -1 / 840, 1 / 30, -1 / 3)
"""``h(u) / u`` as a polynomial in ``u**2``, highest power first: the coefficient
of ``u**(2k)`` is ``(-1)**(k + 1) (2k + 2) / (2k + 3)!``."""


def _sinc_vjp(g, out, x):
    # sinc'(x) = (cos(pi x) - sinc(x)) / x = pi h(pi x), h(u) = (u cos u - sin u) / u**2.
    # Near 0, h's series to u**11 is exact to rounding, and differentiating it again
    # gives the higher derivatives there (sinc''(0) = -pi**2 / 3).
    u = math.pi * x
    near_zero = less(absolute(u), _SINC_SERIES_BELOW)
    u2 = u * u
    series = _SINC_SERIES[0]
    for coefficient in _SINC_SERIES[1:]:
        series = coefficient + u2 * series
    series = math.pi * u * series
    closed = (cos(u) - out) / where(near_zero, 1, x)
    return g * where(near_zero, series, closed)


sinc = _elementwise("sinc", np.sinc, _sinc_vjp, reads={0: (0, "out")}, source="np.sinc({0})",
                    array_api="_sinc({0})")


@binds(np.sinc)
def _sinc(x):
    return sinc(x)


# --- modified Bessel functions of the first kind ----------------------------


def bessel_i1(x):
    """I1, the derivative of numpy's ``i0`` (numpy has no ``i1``): its power series
    below 20 in magnitude, its asymptotic expansion above; within a few ulps of
    Cephes' ``i1`` in float64."""
    x = np.asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("i1 takes real values only, as scipy.special.i1 does")
    magnitude = np.abs(x)
    small = np.minimum(magnitude, 20.0)
    quarter_square = small * small / 4
    term = small / 2
    series = term
    for k in range(1, 60):
        term = term * quarter_square / (k * (k + 1))
        series = series + term
    large = np.maximum(magnitude, 20.0)
    coefficient = 1.0
    expansion = 1.0
    for k in range(1, 20):
        coefficient = coefficient * -(4 - (2 * k - 1) ** 2) / (8 * k * large)
        expansion = expansion + coefficient
    asymptotic = np.exp(large) / np.sqrt(2 * np.pi * large) * expansion
    return np.sign(x) * np.where(magnitude < 20, series, asymptotic)


def _i1_vjp(g, out, x):
    # I1'(x) = I0(x) - I1(x) / x, and 1/2 at x = 0.
    at_zero = equal(x, 0)
    return g * where(at_zero, 0.5, i0(x) - out / where(at_zero, 1, x))


# scipy.special.i0 and i1 map here too: generated code then needs only numpy.
i0 = _elementwise("i0", np.i0, lambda g, out, x: g * i1(x), reads=READS_X,
    source="np.i0({0})", array_api="scipy.special.i0({0})", complex_rules=REAL_ONLY)
i1 = _elementwise("i1", bessel_i1, _i1_vjp, reads={0: (0, "out")}, source="_i1({0})",
    helpers={"_i1": inspect.getsource(bessel_i1).replace("def bessel_i1", "def _i1")},
    complex_rules=REAL_ONLY)


@binds(np.i0)
def _i0(x):
    return i0(x)


# --- piecewise --------------------------------------------------------------


def _absolute_vjp(g, out, x):
    # |z| changes along z / |z|: TensorFlow's cotangent is g * z / |z|, 0 at z = 0.
    if is_complex(x):
        return g * x / where(equal(x, 0), 1, absolute(x))
    return g * sign(x)


absolute = _elementwise("absolute", np.absolute, _absolute_vjp, reads=READS_X,
    source="np.abs({0})", complex_rules=AS_WRITTEN)
def _sign_vjp(g, out, x):
    # Real: a step, whose gradient TensorFlow registers as zeros (made from the cotangent,
    # so a batch of cotangents gives a batch of zeros).  Complex: numpy's sign is z / |z|,
    # whose TensorFlow cotangent is (g - conj(g) s**2) / (2 |z|), 0 at z = 0.
    if not is_complex(x):
        return zeros_like(g)
    zero = equal(x, 0)
    modulus = where(zero, 1, absolute(x))
    direction = x / modulus
    return where(zero, 0, (g - conj(g) * direction * direction) / (2 * modulus))


sign = _elementwise("sign", np.sign, _sign_vjp, reads=READS_X, complex_rules=AS_WRITTEN)
# fabs is absolute for real values, and numpy refuses it complex ones.
fabs = _elementwise("fabs", np.fabs, lambda g, out, x: g * sign(x), reads=READS_X,
    complex_rules=REAL_ONLY)
maximum = _elementwise(
    "maximum", np.maximum,
    lambda g, out, x, y: unbroadcast(where(greater_equal(x, y), g, 0), x),
    lambda g, out, x, y: unbroadcast(where(greater_equal(x, y), 0, g), y), reads=READS_BOTH,
    complex_rules=REAL_ONLY)
minimum = _elementwise(
    "minimum", np.minimum,
    lambda g, out, x, y: unbroadcast(where(less_equal(x, y), g, 0), x),
    lambda g, out, x, y: unbroadcast(where(less_equal(x, y), 0, g), y), reads=READS_BOTH,
    complex_rules=REAL_ONLY)


def _relu(x):
    return np.maximum(x, 0)


def _relu_grad(g, x):
    return g * (x > 0)


# TensorFlow's Relu and ReluGrad: max(x, 0), a NaN kept, and the gradient g * (x > 0),
# which is 0 at 0 (where ``maximum`` would send it to x) and, as TensorFlow's, NaN where a
# cotangent that is not finite meets x <= 0.  ReluGrad is linear in g, constant in x.
relu = _elementwise("relu", _relu, lambda g, out, x: relu_grad(g, x), reads=READS_X,
    source="np.maximum({0}, 0)", complex_rules=REAL_ONLY)
relu_grad = _elementwise(
    "relu_grad", _relu_grad, lambda h, out, g, x: relu_grad(h, x), None, reads={0: (1,)},
    source="{0} * ({1} > 0)", array_api="{0} * xp.astype({1} > 0, {1}.dtype)",
    complex_rules=REAL_ONLY, value_name="relu_grad")
# fmax/fmin ignore a NaN operand, so the gradient goes to the other one.
fmax = _elementwise(
    "fmax", np.fmax,
    lambda g, out, x, y: unbroadcast(where(_first_wins(x, y, greater_equal), g, 0), x),
    lambda g, out, x, y: unbroadcast(where(_first_wins(x, y, greater_equal), 0, g), y),
    reads=READS_BOTH, complex_rules=REAL_ONLY)
fmin = _elementwise(
    "fmin", np.fmin,
    lambda g, out, x, y: unbroadcast(where(_first_wins(x, y, less_equal), g, 0), x),
    lambda g, out, x, y: unbroadcast(where(_first_wins(x, y, less_equal), 0, g), y),
    reads=READS_BOTH, complex_rules=REAL_ONLY)


def _first_wins(x, y, compare):
    return logical_or(compare(x, y), isnan(y))


where = _elementwise(
    "where", np.where,
    None,
    lambda g, out, c, x, y: unbroadcast(where(c, g, 0), x),
    lambda g, out, c, x, y: unbroadcast(where(c, 0, g), y), reads={1: (0,), 2: (0,)},
    source="np.where({0}, {1}, {2})", complex_rules=REAL_LINEAR)
clip = _elementwise(
    "clip", np.clip,
    lambda g, out, x, lo, hi: unbroadcast(
        where(logical_and(greater_equal(x, lo), less_equal(x, hi)), g, 0), x),
    lambda g, out, x, lo, hi: unbroadcast(where(less(x, lo), g, 0), lo),
    lambda g, out, x, lo, hi: unbroadcast(where(greater(x, hi), g, 0), hi),
    reads={0: (0, 1, 2), 1: (0, 1), 2: (0, 2)}, source="np.clip({0}, {1}, {2})",
    complex_rules=REAL_ONLY)


@binds(np.clip)
def _clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, *, min=np._NoValue,
          max=np._NoValue, **kwargs):
    """numpy 2 spells the bounds ``a_min``/``a_max`` or ``min``/``max``; a missing one is
    no bound."""
    no_extras("clip", out=out)
    low = a_min if a_min is not np._NoValue else min
    high = a_max if a_max is not np._NoValue else max
    low = -np.inf if low is np._NoValue or low is None else low
    high = np.inf if high is np._NoValue or high is None else high
    return clip(a, low, high)


# --- complex parts: not holomorphic, so rules in TensorFlow's convention -----

real = _elementwise("real", np.real, lambda g, out, x: g, reads=READS_NOTHING,
    source="np.real({0})", complex_rules=AS_WRITTEN, linearity=LINEAR)


@binds(np.real, topic=COMPLEX_AND_FFT)
def _real(val):
    return real(val)


# imag and angle are constant on real values.
imag = _elementwise("imag", np.imag, lambda g, out, x: g * 1j if is_complex(x) else None,
    reads=READS_NOTHING, source="np.imag({0})", array_api="_imag({0})", complex_rules=AS_WRITTEN,
    linearity=LINEAR)


@binds(np.imag, topic=COMPLEX_AND_FFT)
def _imag(val):
    return imag(val)


conjugate = _elementwise("conjugate", np.conjugate, lambda g, out, x: conj(g),
    reads=READS_NOTHING, source="np.conj({0})", complex_rules=AS_WRITTEN, linearity=LINEAR)


def _angle_vjp(g, out, x, deg):
    # d angle = (x dy - y dx) / |z|^2, whose cotangent is i g / conj(z).
    if not is_complex(x):
        return None
    scale = 180 / math.pi if deg else 1
    return (g * (1j * scale)) / conjugate(x)


angle = _elementwise("angle", lambda x, deg: np.angle(x, deg), _angle_vjp, reads=READS_X,
    source=call("np.angle", deg=False), complex_rules=AS_WRITTEN)


@binds(np.angle, topic=COMPLEX_AND_FFT)
def _angle(z, deg=False):
    return angle(z, deg=bool(deg))


def conj(value):
    """The complex conjugate of ``value``; a real value itself, with no node for it."""
    return conjugate(value) if is_complex(value) else value


# --- no gradient: piecewise constant, boolean or integer results ------------

zeros_like = _elementwise("zeros_like", np.zeros_like, no_gradient="is constant",
    source="np.zeros_like({0})")
floor = _elementwise("floor", np.floor, no_gradient="is piecewise constant")
ceil = _elementwise("ceil", np.ceil, no_gradient="is piecewise constant")
rint = _elementwise("rint", np.rint, no_gradient="is piecewise constant")
trunc = _elementwise("trunc", np.trunc, no_gradient="is piecewise constant")


@binds(np.fix)
def _fix(x, out=None):
    """Rounding towards zero: ``trunc``."""
    no_extras("fix", out=out)
    return trunc(x)


round_ = _elementwise("round", np.round, no_gradient="is piecewise constant",
    source=call("np.round", decimals=0), value_name="rounded")


@binds(np.round, np.around)
def _round(a, decimals=0, out=None):
    no_extras("round", out=out)
    return round_(a, decimals=int(decimals))


_BOOLEAN = "returns booleans"
greater = _elementwise("greater", np.greater, no_gradient=_BOOLEAN, source="{0} > {1}")
greater_equal = _elementwise("greater_equal", np.greater_equal, no_gradient=_BOOLEAN,
    source="{0} >= {1}")
less = _elementwise("less", np.less, no_gradient=_BOOLEAN, source="{0} < {1}")
less_equal = _elementwise("less_equal", np.less_equal, no_gradient=_BOOLEAN, source="{0} <= {1}")
equal = _elementwise("equal", np.equal, no_gradient=_BOOLEAN, source="{0} == {1}")
not_equal = _elementwise("not_equal", np.not_equal, no_gradient=_BOOLEAN, source="{0} != {1}")
logical_and = _elementwise("logical_and", np.logical_and, no_gradient=_BOOLEAN)
logical_or = _elementwise("logical_or", np.logical_or, no_gradient=_BOOLEAN)
logical_xor = _elementwise("logical_xor", np.logical_xor, no_gradient=_BOOLEAN)
logical_not = _elementwise("logical_not", np.logical_not, no_gradient=_BOOLEAN)
_BITS = "works on integer and boolean bits"
bitwise_and = _elementwise("bitwise_and", np.bitwise_and, no_gradient=_BITS, source="{0} & {1}")
bitwise_or = _elementwise("bitwise_or", np.bitwise_or, no_gradient=_BITS, source="{0} | {1}")
bitwise_xor = _elementwise("bitwise_xor", np.bitwise_xor, no_gradient=_BITS, source="{0} ^ {1}")
invert = _elementwise("invert", np.invert, no_gradient=_BITS, source="~{0}")
isnan = _elementwise("isnan", np.isnan, no_gradient=_BOOLEAN)
isinf = _elementwise("isinf", np.isinf, no_gradient=_BOOLEAN)
isfinite = _elementwise("isfinite", np.isfinite, no_gradient=_BOOLEAN)
