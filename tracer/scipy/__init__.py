"""``tracer.scipy``: scipy's functions with scipy's layout, written to be differentiated.

Plain scipy functions other than ufuncs turn tensors into arrays, which cuts the
gradient; these record on tapes (to every order) and compute on plain arrays too:
``from tracer.scipy import stats; stats.norm.logpdf(x, loc, scale)``.  Needs scipy.
"""

from tracer.scipy import linalg, special, stats

__all__ = ["linalg", "special", "stats"]
