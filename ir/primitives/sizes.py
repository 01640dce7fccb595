"""Values computed from sizes alone, which may be symbolic (``ir.sizes.dims``).

``size`` is a size used as a number, such as a mean's count over an axis whose
size is symbolic, or ``loss / x.shape[0]`` in a user's code.  It has no inputs:
its param ``size`` is the expression, and ``dtype`` the type of the arrays it
meets (a mean of float32 divides by a float32 count), so it types as the Python
int it is in the user's code.  Generated code computes it from the sizes it
binds on entry (``n_batch``); it is never folded into a number.

``arange`` is ``np.arange(start, stop, step)`` of integer bounds that may be sizes
(``np.arange(x.shape[0], like=x)``), with a step that is a positive int.
"""

import numpy as np

from ir.sizes.dims import quotient
from ir.sizes.guards import decide
from ir.primitive import Primitive, spell_value


def _spell(params, shapes):
    """The size's expression, as a Python int, or cast where that would type otherwise."""
    text = repr(params["size"])
    dtype = np.dtype(params["dtype"])
    if dtype in (np.dtype(np.int64), np.dtype(np.float64)):
        return text
    return f"np.{dtype.name}({text})"


size = Primitive("size", lambda size, dtype: np.asarray(size, dtype),
                 no_gradient="is a size", source=_spell, value_name="n",
                 abstract=lambda avals, params: ((), np.dtype(params["dtype"])),
                 shape_rule=lambda avals, params: ())


def _spell_arange(params, shapes):
    start, stop, step = params["start"], params["stop"], params["step"]
    bounds = [stop] if (type(start) is int and start == 0 and step == 1) else (
        [start, stop] if step == 1 else [start, stop, step])
    dtype = np.dtype(params["dtype"])
    typed = "" if dtype == np.dtype(np.int64) else f", dtype={spell_value(dtype)}"
    return f"np.arange({', '.join(map(repr, bounds))}{typed})"


def _arange_shape(avals, params):
    """``ceil((stop - start) / step)`` elements, none where ``stop`` is not past ``start``."""
    start, stop, step = params["start"], params["stop"], params["step"]
    if decide(stop, "<=", start, "an arange's length"):
        return (0,)
    return (quotient(stop - start + step - 1, step),)


def _arange(start, stop, step, dtype):
    return np.arange(start, stop, step, dtype=dtype)


arange = Primitive("arange", _arange, no_gradient="is constant", source=_spell_arange,
                   value_name="positions", shape_rule=_arange_shape,
                   abstract=lambda avals, params: (_arange(**params).shape,
                                                   np.dtype(params["dtype"])))
