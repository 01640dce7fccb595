"""How numpy's API on tensors maps to ``ir`` primitives: scipy.special's ufuncs,
recorded when scipy is installed (scipy stays optional).

scipy.special's functions are numpy ufuncs, so on a tensor they reach
``Tensor.__array_ufunc__`` like ``np.sin``, each mapped to the primitive it
implements.  ``polygamma`` is the exception: a Python function that converts
its arguments to arrays, so it cannot see tensors; ``tracer.special.polygamma``
is the one to differentiate.
"""

import inspect

from tracer.numpy.ufuncs import ufunc_primitives

FUNCTIONS = {}

try:
    import scipy.special
    from ir.primitives import elementwise, special
except ModuleNotFoundError:
    UFUNCS = {}
else:
    UFUNCS = ufunc_primitives(scipy.special) | {
        # numpy has i0, and i1 is its derivative: one function, one primitive.
        inspect.unwrap(scipy.special.i0): elementwise.i0,
        inspect.unwrap(scipy.special.i1): elementwise.i1,
        # scipy.special.zeta(x, q) is a Python function calling this private ufunc.
        scipy.special._ufuncs._zeta: special.zeta,
    }
