"""Elementwise primitives: numpy ufuncs and ``where``/``clip``, with their VJP rules.

Each block is one primitive: implementation, then its rule.  Rules read like
the maths; ``unbroadcast`` sums a cotangent back to a broadcast operand.
Conventions at non-differentiable points follow TensorFlow: ``abs'(0) = 0``,
``maximum``/``minimum`` send a tie's whole gradient to the first argument,
``clip`` bounds are inclusive.
"""

import math

import numpy as np

from ir.primitive import (READS_BOTH, READS_NOTHING, READS_OTHER, READS_OUT, READS_X,
                          Primitive, call)
from ir.primitives.broadcast import unbroadcast


def _elementwise(name, impl, *rules, reads=None, no_gradient=None, source=None):
    prim = Primitive(name, impl, elementwise=True, no_gradient=no_gradient, reads=reads,
                     source=source)
    return prim.defvjp(*rules)


# --- arithmetic -------------------------------------------------------------

add = _elementwise(
    "add", np.add,
    lambda g, out, x, y: unbroadcast(g, x),
    lambda g, out, x, y: unbroadcast(g, y), reads=READS_NOTHING, source="{0} + {1}")
subtract = _elementwise(
    "subtract", np.subtract,
    lambda g, out, x, y: unbroadcast(g, x),
    lambda g, out, x, y: unbroadcast(negative(g), y), reads=READS_NOTHING, source="{0} - {1}")
multiply = _elementwise(
    "multiply", np.multiply,
    lambda g, out, x, y: unbroadcast(g * y, x),
    lambda g, out, x, y: unbroadcast(g * x, y), reads=READS_OTHER, source="{0} * {1}")
divide = _elementwise(
    "divide", np.divide,
    lambda g, out, x, y: unbroadcast(g / y, x),
    lambda g, out, x, y: unbroadcast(negative(g) * x / (y * y), y), reads={0: (1,), 1: (0, 1)},
    source="{0} / {1}")
negative = _elementwise("negative", np.negative, lambda g, out, x: negative(g),
    reads=READS_NOTHING, source="-{0}")
positive = _elementwise("positive", np.positive, lambda g, out, x: g, reads=READS_NOTHING,
    source="{0}")


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
    # d/dp x**p = x**p log x, taken as 0 where x <= 0 (TensorFlow's convention).
    return unbroadcast(g * out * log(where(greater(x, 0), x, 1)), p)


_POWER_READS = {0: (0, 1), 1: (0, "out")}
power = _elementwise("power", np.power, _power_vjp_x, _power_vjp_p, reads=_POWER_READS,
    source="{0} ** {1}")
# The same function computed in (at least) float64, as numpy's float_power is.
float_power = _elementwise("float_power", np.float_power, _power_vjp_x, _power_vjp_p,
                           reads=_POWER_READS)
square = _elementwise("square", np.square, lambda g, out, x: g * (2 * x), reads=READS_X)
sqrt = _elementwise("sqrt", np.sqrt, lambda g, out, x: g / (2 * out), reads=READS_OUT)
cbrt = _elementwise("cbrt", np.cbrt, lambda g, out, x: g / (3 * (out * out)), reads=READS_OUT)
reciprocal = _elementwise("reciprocal", np.reciprocal, lambda g, out, x: negative(g) * (out * out),
    reads=READS_OUT)
remainder = _elementwise(
    "remainder", np.remainder,
    lambda g, out, x, y: unbroadcast(g, x),
    lambda g, out, x, y: unbroadcast(negative(g) * floor_divide(x, y), y), reads={1: (0, 1)},
    source="{0} % {1}")
floor_divide = _elementwise("floor_divide", np.floor_divide,
                            no_gradient="is piecewise constant", source="{0} // {1}")

# --- exponentials and logarithms --------------------------------------------

exp = _elementwise("exp", np.exp, lambda g, out, x: g * out, reads=READS_OUT)
exp2 = _elementwise("exp2", np.exp2, lambda g, out, x: g * out * math.log(2.0), reads=READS_OUT)
expm1 = _elementwise("expm1", np.expm1, lambda g, out, x: g * (out + 1), reads=READS_OUT)
log = _elementwise("log", np.log, lambda g, out, x: g / x, reads=READS_X)
log2 = _elementwise("log2", np.log2, lambda g, out, x: g / (x * math.log(2.0)), reads=READS_X)
log10 = _elementwise("log10", np.log10, lambda g, out, x: g / (x * math.log(10.0)), reads=READS_X)
log1p = _elementwise("log1p", np.log1p, lambda g, out, x: g / (x + 1), reads=READS_X)
logaddexp = _elementwise(
    "logaddexp", np.logaddexp,
    lambda g, out, x, y: unbroadcast(g * exp(x - out), x),
    lambda g, out, x, y: unbroadcast(g * exp(y - out), y), reads={0: (0, "out"), 1: (1, "out")})

# --- trigonometric and hyperbolic -------------------------------------------

sin = _elementwise("sin", np.sin, lambda g, out, x: g * cos(x), reads=READS_X)
cos = _elementwise("cos", np.cos, lambda g, out, x: negative(g) * sin(x), reads=READS_X)
tan = _elementwise("tan", np.tan, lambda g, out, x: g * (1 + out * out), reads=READS_OUT)
arcsin = _elementwise("arcsin", np.arcsin, lambda g, out, x: g / sqrt(1 - x * x), reads=READS_X)
arccos = _elementwise("arccos", np.arccos, lambda g, out, x: negative(g) / sqrt(1 - x * x),
    reads=READS_X)
arctan = _elementwise("arctan", np.arctan, lambda g, out, x: g / (1 + x * x), reads=READS_X)
arctan2 = _elementwise(
    "arctan2", np.arctan2,
    lambda g, out, y, x: unbroadcast(g * x / (x * x + y * y), y),
    lambda g, out, y, x: unbroadcast(negative(g) * y / (x * x + y * y), x), reads=READS_BOTH)
hypot = _elementwise(
    "hypot", np.hypot,
    lambda g, out, x, y: unbroadcast(g * x / out, x),
    lambda g, out, x, y: unbroadcast(g * y / out, y), reads={0: (0, "out"), 1: (1, "out")})
sinh = _elementwise("sinh", np.sinh, lambda g, out, x: g * cosh(x), reads=READS_X)
cosh = _elementwise("cosh", np.cosh, lambda g, out, x: g * sinh(x), reads=READS_X)
tanh = _elementwise("tanh", np.tanh, lambda g, out, x: g * (1 - out * out), reads=READS_OUT)
arcsinh = _elementwise("arcsinh", np.arcsinh, lambda g, out, x: g / sqrt(x * x + 1), reads=READS_X)
arccosh = _elementwise("arccosh", np.arccosh, lambda g, out, x: g / sqrt(x * x - 1), reads=READS_X)
arctanh = _elementwise("arctanh", np.arctanh, lambda g, out, x: g / (1 - x * x), reads=READS_X)

# --- piecewise --------------------------------------------------------------

absolute = _elementwise("absolute", np.absolute, lambda g, out, x: g * sign(x), reads=READS_X,
    source="np.abs({0})")
maximum = _elementwise(
    "maximum", np.maximum,
    lambda g, out, x, y: unbroadcast(where(greater_equal(x, y), g, 0), x),
    lambda g, out, x, y: unbroadcast(where(greater_equal(x, y), 0, g), y), reads=READS_BOTH)
minimum = _elementwise(
    "minimum", np.minimum,
    lambda g, out, x, y: unbroadcast(where(less_equal(x, y), g, 0), x),
    lambda g, out, x, y: unbroadcast(where(less_equal(x, y), 0, g), y), reads=READS_BOTH)
# fmax/fmin ignore a NaN operand, so the gradient goes to the other one.
fmax = _elementwise(
    "fmax", np.fmax,
    lambda g, out, x, y: unbroadcast(where(_first_wins(x, y, greater_equal), g, 0), x),
    lambda g, out, x, y: unbroadcast(where(_first_wins(x, y, greater_equal), 0, g), y),
    reads=READS_BOTH)
fmin = _elementwise(
    "fmin", np.fmin,
    lambda g, out, x, y: unbroadcast(where(_first_wins(x, y, less_equal), g, 0), x),
    lambda g, out, x, y: unbroadcast(where(_first_wins(x, y, less_equal), 0, g), y),
    reads=READS_BOTH)


def _first_wins(x, y, compare):
    return logical_or(compare(x, y), isnan(y))


where = _elementwise(
    "where", np.where,
    None,
    lambda g, out, c, x, y: unbroadcast(where(c, g, 0), x),
    lambda g, out, c, x, y: unbroadcast(where(c, 0, g), y), reads={1: (0,), 2: (0,)},
    source="np.where({0}, {1}, {2})")
clip = _elementwise(
    "clip", np.clip,
    lambda g, out, x, lo, hi: unbroadcast(
        where(logical_and(greater_equal(x, lo), less_equal(x, hi)), g, 0), x),
    lambda g, out, x, lo, hi: unbroadcast(where(less(x, lo), g, 0), lo),
    lambda g, out, x, lo, hi: unbroadcast(where(greater(x, hi), g, 0), hi), 
    reads={0: (0, 1, 2), 1: (0, 1), 2: (0, 2)}, source="np.clip({0}, {1}, {2})")

# --- no gradient: piecewise constant, boolean or integer results ------------

sign = _elementwise("sign", np.sign, no_gradient="is piecewise constant")
floor = _elementwise("floor", np.floor, no_gradient="is piecewise constant")
ceil = _elementwise("ceil", np.ceil, no_gradient="is piecewise constant")
rint = _elementwise("rint", np.rint, no_gradient="is piecewise constant")
trunc = _elementwise("trunc", np.trunc, no_gradient="is piecewise constant")
round_ = _elementwise("round", np.round, no_gradient="is piecewise constant",
    source=call("np.round", decimals=0))

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
isnan = _elementwise("isnan", np.isnan, no_gradient=_BOOLEAN)
isinf = _elementwise("isinf", np.isinf, no_gradient=_BOOLEAN)
isfinite = _elementwise("isfinite", np.isfinite, no_gradient=_BOOLEAN)
