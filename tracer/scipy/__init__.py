"""``tracer.scipy``: scipy's functions with scipy's layout, written to be differentiated.

Plain scipy functions other than ufuncs turn tensors into arrays, which cuts the
gradient; these record on tapes (to every order) and compute on plain arrays too:
``from tracer.scipy import stats; stats.norm.logpdf(x, loc, scale)``.  Needs scipy.
"""

try:
    import scipy  # noqa: F401  (what every module here computes with)
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError("tracer.scipy needs scipy: pip install 'tapegen[scipy]'",
                              name="scipy") from missing

from tracer.scipy import integrate, linalg, signal, special, stats  # noqa: E402

__all__ = ["integrate", "linalg", "signal", "special", "stats"]
