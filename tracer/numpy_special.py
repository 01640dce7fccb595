"""How numpy's API on tensors maps to ``ir`` primitives: scipy.special's ufuncs,
recorded when scipy is installed (scipy stays optional).

scipy.special's functions are numpy ufuncs, so on a tensor they reach
``Tensor.__array_ufunc__`` like ``np.sin``.  ``polygamma`` is the exception:
a Python function that converts its arguments to arrays, so it cannot see
tensors; ``tracer.special.polygamma`` is the one to differentiate.
"""

FUNCTIONS = {}

try:
    import scipy.special
    from ir.primitives import elementwise, special
except ModuleNotFoundError:
    UFUNCS = {}
else:
    UFUNCS = {
        # scipy.special.psi is scipy.special.digamma: this one entry serves both.
        scipy.special.digamma: special.digamma,
        scipy.special.erf: special.erf, scipy.special.erfc: special.erfc,
        scipy.special.erfinv: special.erfinv, scipy.special.erfcinv: special.erfcinv,
        scipy.special.ndtr: special.ndtr, scipy.special.log_ndtr: special.log_ndtr,
        scipy.special.gammaln: special.gammaln, scipy.special.gamma: special.gamma,
        scipy.special.rgamma: special.rgamma,
        scipy.special.beta: special.beta, scipy.special.betaln: special.betaln,
        scipy.special.expit: special.expit, scipy.special.logit: special.logit,
        scipy.special.xlogy: special.xlogy, scipy.special.xlog1py: special.xlog1py,
        scipy.special.j0: special.j0, scipy.special.j1: special.j1,
        scipy.special.y0: special.y0, scipy.special.y1: special.y1,
        scipy.special.jv: special.jv, scipy.special.iv: special.iv,
        scipy.special.ive: special.ive,
        # numpy has i0, and i1 is its derivative: one function, one primitive.
        scipy.special.i0: elementwise.i0, scipy.special.i1: elementwise.i1,
    }
