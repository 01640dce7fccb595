"""The ufunc table read off the primitives maps exactly what the hand-written table did."""

import inspect

import numpy as np
import pytest

from ir.primitives import elementwise as ew, linalg
from tracer.numpy import api, fft, scipy_ufuncs

WRITTEN = {
    np.add: ew.add, np.subtract: ew.subtract, np.multiply: ew.multiply,
    np.divide: ew.divide, np.floor_divide: ew.floor_divide, np.remainder: ew.remainder,
    np.negative: ew.negative, np.positive: ew.positive, np.power: ew.power,
    np.float_power: ew.float_power, np.square: ew.square, np.sqrt: ew.sqrt, np.cbrt: ew.cbrt,
    np.reciprocal: ew.reciprocal, np.exp: ew.exp, np.exp2: ew.exp2, np.expm1: ew.expm1,
    np.log: ew.log, np.log2: ew.log2, np.log10: ew.log10, np.log1p: ew.log1p,
    np.sin: ew.sin, np.cos: ew.cos, np.tan: ew.tan, np.arcsin: ew.arcsin,
    np.arccos: ew.arccos, np.arctan: ew.arctan, np.arctan2: ew.arctan2,
    np.sinh: ew.sinh, np.cosh: ew.cosh, np.tanh: ew.tanh, np.arcsinh: ew.arcsinh,
    np.arccosh: ew.arccosh, np.arctanh: ew.arctanh, np.absolute: ew.absolute,
    np.fabs: ew.fabs, np.sign: ew.sign, np.maximum: ew.maximum,
    np.minimum: ew.minimum, np.fmax: ew.fmax, np.fmin: ew.fmin, np.hypot: ew.hypot,
    np.logaddexp: ew.logaddexp, np.logaddexp2: ew.logaddexp2, np.matmul: linalg.matmul,
    np.deg2rad: ew.deg2rad, np.radians: ew.deg2rad, np.rad2deg: ew.rad2deg,
    np.degrees: ew.rad2deg,
    np.floor: ew.floor, np.ceil: ew.ceil, np.rint: ew.rint, np.trunc: ew.trunc,
    np.greater: ew.greater, np.greater_equal: ew.greater_equal, np.less: ew.less,
    np.less_equal: ew.less_equal, np.equal: ew.equal, np.not_equal: ew.not_equal,
    np.logical_and: ew.logical_and, np.logical_or: ew.logical_or,
    np.logical_xor: ew.logical_xor, np.logical_not: ew.logical_not,
    np.bitwise_and: ew.bitwise_and, np.bitwise_or: ew.bitwise_or,
    np.bitwise_xor: ew.bitwise_xor, np.invert: ew.invert,
    np.isnan: ew.isnan, np.isinf: ew.isinf, np.isfinite: ew.isfinite,
}
"""The core table as it was written by hand before it was derived."""


def test_the_derived_table_maps_what_the_written_one_did():
    assert api.UFUNCS == {**WRITTEN, **fft.UFUNCS, **scipy_ufuncs.UFUNCS}
    assert fft.UFUNCS == {np.conjugate: ew.conjugate}


def test_scipy_special_ufuncs_map_to_their_primitives():
    special = pytest.importorskip("scipy.special")
    from ir.primitives import special as prims

    wanted = {
        special.digamma: prims.digamma, special.erf: prims.erf, special.erfc: prims.erfc,
        special.erfinv: prims.erfinv, special.erfcinv: prims.erfcinv,
        special.ndtr: prims.ndtr, special.log_ndtr: prims.log_ndtr,
        special.gammaln: prims.gammaln, special.gamma: prims.gamma,
        special.rgamma: prims.rgamma, special.beta: prims.beta, special.betaln: prims.betaln,
        special.expit: prims.expit, special.logit: prims.logit, special.xlogy: prims.xlogy,
        special.xlog1py: prims.xlog1py, special.j0: prims.j0, special.j1: prims.j1,
        special.y0: prims.y0, special.y1: prims.y1, special.jv: prims.jv, special.iv: prims.iv,
        special.ive: prims.ive, special.i0: ew.i0, special.i1: ew.i1,
        special.gammainc: prims.gammainc, special.gammaincc: prims.gammaincc,
        special.betainc: prims.betainc, special.i0e: prims.i0e, special.i1e: prims.i1e,
        special.yn: prims.yn, special.yv: prims.yv, special.gammasgn: prims.gammasgn,
        special._ufuncs._zeta: prims.zeta,
        special.ndtri: prims.ndtri, special.erfcx: prims.erfcx, special.dawsn: prims.dawsn,
        special.owens_t: prims.owens_t, special.loggamma: prims.loggamma,
        special.poch: prims.poch, special.entr: prims.entr, special.kl_div: prims.kl_div,
        special.expi: prims.expi, special.exp1: prims.exp1, special.expn: prims.expn,
        special.spence: prims.spence, special.boxcox: prims.boxcox,
        special.boxcox1p: prims.boxcox1p, special.inv_boxcox: prims.inv_boxcox,
        special.inv_boxcox1p: prims.inv_boxcox1p,
    }
    # (with SCIPY_ARRAY_API=1, scipy.special's names are functions around the ufuncs)
    assert scipy_ufuncs.UFUNCS == {inspect.unwrap(f): p for f, p in wanted.items()}


def test_no_gradient_reasons_are_the_primitives_own():
    for func, reason in api.NON_DIFFERENTIABLE.items():
        prim = api.UFUNCS.get(func)
        if prim is not None:
            assert reason == prim.no_gradient
