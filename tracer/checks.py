"""``check_gradients``: test a function's derivatives against finite differences.

It uses the inner-product identity: for random ``u`` and ``v``,
``<u, J v>`` (a central difference along ``v``) must equal ``<J^T u, v>``
(one reverse pass).  At higher orders the function checked is the VJP
itself, so every order is compared with differences of the order below.

Complex values are pairs of reals, with ``<a, b> = Re(sum(conj(a) * b))``:
random directions ``v`` of complex arguments move both parts, and a
gradient passes only in TensorFlow's convention (``dL/dx + i dL/dy`` for
``z = x + iy``; the conjugate, JAX's, fails).
"""

import numpy as np

from tracer.core import Tensor, value_of
from tracer.tape import GradientTape


def check_gradients(f, *args, order=1, eps=None, rtol=None, atol=None, seed=0):
    """Raise ``AssertionError`` if ``f``'s derivatives up to ``order`` disagree with differences.

    ``f`` takes tensors (one per argument of ``args``, which are arrays or
    numbers) and returns a tensor.  Only floating-point and complex arguments
    are differentiated.  Returns ``None`` when every check passes.
    """
    arrays = [np.asarray(a) for a in args]
    out = f(*(Tensor(a) for a in arrays))
    low_precision = any(_is_low_precision(a.dtype) for a in arrays) or _is_low_precision(
        np.result_type(value_of(out)))
    eps = eps if eps is not None else (1e-3 if low_precision else 1e-6)
    rtol = rtol if rtol is not None else (1e-2 if low_precision else 1e-5)
    atol = atol if atol is not None else (1e-3 if low_precision else 1e-7)
    rng = np.random.default_rng(seed)
    _check(f, arrays, order, 1, eps, rtol, atol, rng)


def _is_low_precision(dtype):
    """float16/32 and complex64: single precision or less."""
    return dtype.kind in "fc" and np.finfo(dtype).bits < 64


def _differentiated(dtype):
    return dtype.kind in "fc"


def _evaluate(f, arrays):
    value = np.asarray(value_of(f(*(Tensor(a) for a in arrays))))
    return value if value.dtype.kind == "c" else value.astype(float)


def _random_like(rng, shape, dtype):
    """Standard normal values; complex ones for a complex ``dtype``."""
    if np.dtype(dtype).kind == "c":
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return rng.standard_normal(shape)


def _inner(a, b):
    """The real inner product ``Re(sum(conj(a) * b))`` of complex numbers as pairs of reals."""
    return float(np.real(np.sum(np.conj(a) * b)))


def _check(f, arrays, order, level, eps, rtol, atol, rng):
    out = _evaluate(f, arrays)
    u = _random_like(rng, out.shape, out.dtype)
    positions = [i for i, a in enumerate(arrays) if _differentiated(a.dtype)]
    gradients = _vjp(f, arrays, u)
    for i in positions:
        v = _random_like(rng, arrays[i].shape, arrays[i].dtype)

        def along(step):
            shifted = list(arrays)
            # The shifted input keeps its dtype, so float32 code runs in float32.
            shifted[i] = (arrays[i] + step * v).astype(arrays[i].dtype)
            return _inner(u, _evaluate(f, shifted))

        numeric = (along(eps) - along(-eps)) / (2 * eps)
        gradient = gradients[i]
        analytic = 0.0 if gradient is None else _inner(np.asarray(gradient), v)
        # Written so that a NaN on either side fails the check instead of passing it.
        if not abs(numeric - analytic) <= atol + rtol * (abs(numeric) + abs(analytic)):
            raise AssertionError(
                f"derivative of order {level} with respect to argument {i} disagrees with "
                f"central differences: <J^T u, v> = {analytic!r} by the tape, <u, J v> = "
                f"{numeric!r} by differences")
    if order > 1:
        def vjp(*tensors):
            grads = _vjp(f, tensors, u)
            parts = [np.ravel(g) for g in grads if g is not None]
            return np.concatenate(parts) if parts else Tensor(np.zeros(0))

        _check(vjp, arrays, order - 1, level + 1, eps, rtol, atol, rng)


def _vjp(f, values, u):
    tensors = [v if isinstance(v, Tensor) else Tensor(v) for v in values]
    with GradientTape() as tape:
        tape.watch([t for t in tensors if _differentiated(t.dtype)])
        out = f(*tensors)
    sources = [t for t in tensors]
    return tape.gradient(out, sources, output_gradients=Tensor(u, dtype=out.dtype))
