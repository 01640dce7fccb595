"""How numpy's API on tensors maps to ``ir`` primitives: complex numbers and np.fft
(real, imag, conj, angle and the transforms).

Every transform becomes one of ``fftn``, ``ifftn``, ``rfftn``, ``irfftn`` with
numpy's defaults resolved: explicit lengths ``s`` and non-negative ``axes``.
"""

import numpy as np

from ir.primitives import elementwise as ew, fft
from ir.bindings import array_shape, no_extras, normalize_axis
from tracer.core import NO_PARAMS, apply

_NORMS = {None: "backward", "backward": "backward", "ortho": "ortho", "forward": "forward"}


def _norm(norm):
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
    return _NORMS[norm]


def _lengths(shape, s, axes, inverse_half):
    """numpy's default lengths: the input's, and for ``irfft*`` ``2 (m - 1)`` on the last axis."""
    if s is not None:
        return tuple(int(n) for n in s)
    lengths = tuple(shape[a] for a in axes)
    if inverse_half:
        lengths = lengths[:-1] + (2 * (lengths[-1] - 1),)
    return lengths


def _axes(shape, s, axes):
    """numpy's default axes: all, or the last ``len(s)`` when only ``s`` is given."""
    rank = len(shape)
    if axes is None:
        count = rank if s is None else len(s)
        return tuple(range(rank - count, rank))
    axes = tuple(int(a) for a in axes)
    normalize_axis(axes, rank)  # numpy's errors for out-of-range and repeated axes
    return tuple(a % rank for a in axes)


def _apply(prim, a, s, axes, norm, inverse_half):
    shape = array_shape(a)
    axes = _axes(shape, s, axes)
    if s is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    lengths = _lengths(shape, s, axes, inverse_half)
    if any(n < 1 for n in lengths):
        raise ValueError(f"Invalid number of FFT data points ({min(lengths)}) specified.")
    return apply(prim, (a,), {"s": lengths, "axes": axes, "norm": _norm(norm)})


def _one_axis(prim, name, inverse_half=False):
    def transform(a, n=None, axis=-1, norm=None, out=None):
        no_extras(f"fft.{name}", out=out)
        return _apply(prim, a, None if n is None else (n,), (axis,), norm, inverse_half)
    return transform


def _many_axes(prim, name, inverse_half=False, default_axes=None):
    def transform(a, s=None, axes=default_axes, norm=None, out=None):
        no_extras(f"fft.{name}", out=out)
        return _apply(prim, a, s, axes, norm, inverse_half)
    return transform


def _shift(prim):
    def shift(x, axes=None):
        rank = len(array_shape(x))
        axes = tuple(range(rank)) if axes is None else normalize_axis(axes, rank)
        return apply(prim, (x,), {"axes": axes})
    return shift


def _real(val):
    return apply(ew.real, (val,), NO_PARAMS)


def _imag(val):
    return apply(ew.imag, (val,), NO_PARAMS)


def _angle(z, deg=False):
    return apply(ew.angle, (z,), {"deg": bool(deg)})


_LAST_TWO = (-2, -1)

FUNCTIONS = {
    np.real: _real, np.imag: _imag, np.angle: _angle,
    np.fft.fft: _one_axis(fft.fftn, "fft"), np.fft.ifft: _one_axis(fft.ifftn, "ifft"),
    np.fft.rfft: _one_axis(fft.rfftn, "rfft"),
    np.fft.irfft: _one_axis(fft.irfftn, "irfft", inverse_half=True),
    np.fft.fft2: _many_axes(fft.fftn, "fft2", default_axes=_LAST_TWO),
    np.fft.ifft2: _many_axes(fft.ifftn, "ifft2", default_axes=_LAST_TWO),
    np.fft.rfft2: _many_axes(fft.rfftn, "rfft2", default_axes=_LAST_TWO),
    np.fft.irfft2: _many_axes(fft.irfftn, "irfft2", inverse_half=True, default_axes=_LAST_TWO),
    np.fft.fftn: _many_axes(fft.fftn, "fftn"), np.fft.ifftn: _many_axes(fft.ifftn, "ifftn"),
    np.fft.rfftn: _many_axes(fft.rfftn, "rfftn"),
    np.fft.irfftn: _many_axes(fft.irfftn, "irfftn", inverse_half=True),
    np.fft.fftshift: _shift(fft.fftshift), np.fft.ifftshift: _shift(fft.ifftshift),
}
UFUNCS = {np.conjugate: ew.conjugate}
