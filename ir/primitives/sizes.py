"""``size``: a size used as a number, such as a mean's count over an axis whose size is
symbolic (``ir.dims``), or ``loss / x.shape[0]`` in a user's code.

It has no inputs: its param ``size`` is the expression, and ``dtype`` the type of
the arrays it meets (a mean of float32 divides by a float32 count), so it types
as the Python int it is in the user's code.  Generated code computes it from
the sizes it binds on entry (``n_batch``); it is never folded into a number.
"""

import numpy as np

from ir.primitive import Primitive


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
